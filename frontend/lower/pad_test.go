package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// padCases are Pads of zeros in each opset's form before the window ops
// that fold them, built from a seed on the graph input x [dims]. A Conv's
// weights are "w" (the test bounds the error by their gain); amp is as in
// poolCases.
var padCases = []struct {
	name  string
	model func(r shapeRnd, dims []int64) *onnxtest.Builder
	dims  []int64
	amp   float64
}{
	{"Pad input [0,0,1,1,0,0,1,1] (opset 13), Conv 3x3 without pads", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return padConv(r, onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1).
			Node("pad", "Pad", []string{"x", "p"}, "xp"), d[1], 1)
	}, []int64{1, 2, 7, 7}, 0},
	{"Pad input [0,0,0,0,0,0,1,1] (TensorFlow's SAME), Conv 3x3 stride 2: uneven, a crop", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return padConv(r, onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{8}, 0, 0, 0, 0, 0, 0, 1, 1).
			Node("pad", "Pad", []string{"x", "p"}, "xp"), d[1], 2)
	}, []int64{1, 3, 8, 8}, 0},
	{"Pad attribute pads [0,0,1,0,0,0,0,1] (opset 2) and the Conv's own pads 1", func(r shapeRnd, d []int64) *onnxtest.Builder {
		b := onnxtest.New(2).Input("x", d...).Output("y").Node("pad", "Pad", []string{"x"}, "xp", oints("pads", 0, 0, 1, 0, 0, 0, 0, 1))
		return b.Float("w", []int64{3, d[1], 3, 3}, r.vals(0.6, false, 3, d[1], 3, 3)...).
			Node("conv", "Conv", []string{"xp", "w"}, "y", oints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 6, 6}, 0},
	{"no Pad: a Conv 3x3 stride 2 with uneven pads [0,0,1,1] of its own", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{2, d[1], 3, 3}, r.vals(0.6, false, 2, d[1], 3, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", oints("strides", 2, 2), oints("pads", 0, 0, 1, 1))
	}, []int64{1, 3, 9, 9}, 0},
	{"Pad paddings (opset 1), AveragePool 3x3 stride 2", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(1).Input("x", d...).Output("y").Node("pad", "Pad", []string{"x"}, "xp", oints("paddings", 0, 0, 1, 1, 0, 0, 1, 1)).
			Node("pool", "AveragePool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2))
	}, []int64{1, 2, 7, 7}, 0},
	{"Pad with axes [2,3] (opset 18), AveragePool 3x3 pads 1 count_include_pad 0: the Pad's zeros count", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(18).Input("x", d...).Output("y").Int64("p", []int64{4}, 1, 0, 0, 1).Int64("a", []int64{2}, 2, 3).
			Node("pad", "Pad", []string{"x", "p", "", "a"}, "xp").
			Node("pool", "AveragePool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 6, 6}, 9.0 / 4},
	{"Pad with a constant_value input 0, MaxPool 3x3 stride 2 of a signed value: zero padding", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1).Float("z", []int64{}, 0).
			Node("pad", "Pad", []string{"x", "p", "z"}, "xp").
			Node("pool", "MaxPool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2))
	}, []int64{1, 3, 7, 7}, 0},
	{"Pad [0,0,0,0,0,0,1,1], MaxPool 3x3 stride 2 of a signed value: zero padding, uneven: a crop", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{8}, 0, 0, 0, 0, 0, 0, 1, 1).
			Node("pad", "Pad", []string{"x", "p"}, "xp").
			Node("pool", "MaxPool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2))
	}, []int64{1, 2, 8, 8}, 0},
	{"Relu, Pad [0,0,1,1,0,0,0,0], MaxPool 3x3 stride 2 pads 1: the pads add", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 0, 0).
			Node("relu", "Relu", []string{"x"}, "r").
			Node("pad", "Pad", []string{"r", "p"}, "xp").
			Node("pool", "MaxPool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 8, 8}, 0},
}

// padConv adds a Conv xp → y of 3 output channels, 3x3, the stride
// given, no pads, random weights "w" and bias.
func padConv(r shapeRnd, b *onnxtest.Builder, ci, stride int64) *onnxtest.Builder {
	return b.Float("w", []int64{3, ci, 3, 3}, r.vals(0.6, false, 3, ci, 3, 3)...).Float("b", []int64{3}, r.vals(0.1, false, 3)...).
		Node("conv", "Conv", []string{"xp", "w", "b"}, "y", oints("strides", stride, stride))
}

// Each Pad folds into the window reading it (no op of its own), runs on
// the reference machine bit for bit as the golden models, and within its
// bound of the float executor on seeded random inputs: half an output
// step for the output's rounding, plus the input's rounding, half an
// input step, times the gain to the output: 1 through a pool (a max keeps
// the scale, an average of such errors is no larger; times K/n for
// count_include_pad 0, as in TestPoolsLowered), the largest Σ|w| of an
// output channel through a Conv; plus 0.1 for the multipliers' relative
// error. A Pad lowered as anything but the window's padding (zeros
// missing, in the wrong place, a wrong divisor) misses by whole steps.
func TestPadsFolded(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range padCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r, tt.dims))
				shape := make([]int, len(tt.dims))
				for i, d := range tt.dims {
					shape[i] = int(d)
				}
				x := &onnx.Array{Shape: shape, Data: r.vals(1, false, tt.dims...)}
				float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				checkFloat(t, cfg, m, x, float["y"], tt.amp)
			})
		}
	}
}

// checkFloat lowers m calibrated on x, wants the reference machine to
// equal the golden models bit for bit and the output within the bound of
// TestPadsFolded of the float executor's, float.
func checkFloat(t *testing.T, cfg npu.Config, m *onnx.Model, x, float *onnx.Array, amp float64) {
	t.Helper()
	net, err := Quantize(m, []*onnx.Array{x}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	deq, p := machineRun(t, cfg, net, x)
	if d := cmp.Diff(float.Shape, deq.Shape); d != "" {
		t.Fatalf("output shape (-float +int8):\n%s", d)
	}
	gain := max(1, amp)
	for _, w := range m.Graph.Initializers {
		if w.Name == "w" {
			gain = convGain(w.Float32, int(w.Dims[0]))
		}
	}
	sy := net.OutputScale()
	bound := 0.5 + 0.5*gain*net.InputScale()/sy + 0.1
	var worst float64
	for i, v := range float.Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
	}
	t.Logf("%s; max |int8 − float| = %.2f output steps (bound %.2f)", p.Summary(), worst, bound)
	if worst > bound {
		t.Errorf("max |int8 − float| = %.2f output steps, more than %.2f\n int8 %v\nfloat %v", worst, bound, deq.Data, float.Data)
	}
}

// convGain is the largest Σ|w| over a Conv's output channels.
func convGain(w []float32, co int) float64 {
	per := len(w) / co
	var g float64
	for o := 0; o < co; o++ {
		var s float64
		for _, v := range w[o*per : (o+1)*per] {
			s += math.Abs(float64(v))
		}
		g = max(g, s)
	}
	return g
}

// A Pad and a Conv with the same pads of its own lower to the same int8
// output, bit for bit (the same scales: the Pad's zeros change no range).
func TestPadIsConvPadding(t *testing.T) {
	cfg := npu.DefaultConfig()
	dims := []int64{1, 3, 6, 6}
	for seed := uint64(1); seed <= 3; seed++ {
		r := newShapeRnd(seed)
		w := r.vals(0.6, false, 4, 3, 3, 3)
		padded := onnxtest.New(13).Input("x", dims...).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1).Float("w", []int64{4, 3, 3, 3}, w...).
			Node("pad", "Pad", []string{"x", "p"}, "xp").Node("conv", "Conv", []string{"xp", "w"}, "y")
		own := onnxtest.New(13).Input("x", dims...).Output("y").Float("w", []int64{4, 3, 3, 3}, w...).
			Node("conv", "Conv", []string{"x", "w"}, "y", oints("pads", 1, 1, 1, 1))
		a, b := lowerModel(t, cfg, padded, dims...), lowerModel(t, cfg, own, dims...)
		ra, err := a.g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(rb["y"], ra["y"]); d != "" {
			t.Errorf("seed %d: Pad then Conv vs Conv with pads (-own +Pad):\n%s", seed, d)
		}
	}
}

// The Pads the lowering cannot fold are one error line naming the node,
// the op, the attribute, its value and what is supported.
func TestPadErrors(t *testing.T) {
	base := func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1)
	}
	pool := func(b *onnxtest.Builder, pads ...int64) *onnxtest.Builder {
		return b.Node("pool", "MaxPool", []string{"xp"}, "y", oints("kernel_shape", 3, 3), oints("pads", pads...))
	}
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"reflect", pool(base().Node("pad", "Pad", []string{"x", "p"}, "xp", onnxtest.String("mode", "reflect")), 0, 0, 0, 0),
			`node "pad" (Pad): mode "reflect": supported: constant (of value 0, folded into the padding of the Conv, MaxPool or AveragePool reading it)`},
		{"value 0.5", pool(base().Float("v", []int64{}, 0.5).Node("pad", "Pad", []string{"x", "p", "v"}, "xp"), 0, 0, 0, 0),
			`node "pad" (Pad): constant value 0.5: supported: 0`},
		{"channels padded", pool(onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y").Int64("p", []int64{8}, 0, 1, 0, 0, 0, 0, 0, 0).
			Node("pad", "Pad", []string{"x", "p"}, "xp"), 0, 0, 0, 0),
			`node "pad" (Pad): pads [0 1 0 0 0 0 0 0]: supported: non-negative pads of the plane (axes 2 and 3) only`},
		{"read by a Relu", base().Node("pad", "Pad", []string{"x", "p"}, "xp").Node("relu", "Relu", []string{"xp"}, "y"),
			`node "pad" (Pad): output "xp": supported: a Pad whose one user is a Conv, MaxPool or AveragePool reading it as its data`},
		{"MaxPool with pads of its own on a signed value", pool(base().Node("pad", "Pad", []string{"x", "p"}, "xp"), 1, 1, 1, 1),
			`node "pool" (MaxPool): a Pad of zeros before a MaxPool with pads 1 1 1 1 of its own, on "x" not known to be ≥ 0: supported: the Pad alone, or either on a Relu's or Clip's (min ≥ 0) output`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}
