package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// oneDCases are 1-D windows on the graph input x [1,C,L], built from a
// seed; amp is as in poolCases.
var oneDCases = []struct {
	name  string
	model func(r shapeRnd, dims []int64) *onnxtest.Builder
	dims  []int64
	amp   float64
}{
	{"Conv1d k 3 pads 1 with bias", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{4, d[1], 3}, r.vals(0.6, false, 4, d[1], 3)...).
			Float("b", []int64{4}, r.vals(0.1, false, 4)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "y", oints("kernel_shape", 3), oints("pads", 1, 1))
	}, []int64{1, 3, 16}, 0},
	{"Conv1d k 5 stride 2 pads [2,1], no kernel_shape", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{3, d[1], 5}, r.vals(0.6, false, 3, d[1], 5)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", oints("strides", 2), oints("pads", 2, 1))
	}, []int64{1, 2, 17}, 0},
	{"depthwise Conv1d k 3 auto_pad SAME_UPPER", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{d[1], 1, 3}, r.vals(0.6, false, d[1], 1, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", i64("group", d[1]), onnxtest.String("auto_pad", "SAME_UPPER"))
	}, []int64{1, 4, 10}, 0},
	{"Pad [0,0,2,0,0,1] of [1,C,L], Conv1d k 3", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Int64("p", []int64{6}, 0, 0, 2, 0, 0, 1).
			Float("w", []int64{2, d[1], 3}, r.vals(0.6, false, 2, d[1], 3)...).
			Node("pad", "Pad", []string{"x", "p"}, "xp").Node("conv", "Conv", []string{"xp", "w"}, "y")
	}, []int64{1, 3, 12}, 0},
	{"MaxPool1d k 3 stride 2 pads 1", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").
			Node("pool", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3), oints("strides", 2), oints("pads", 1, 1))
	}, []int64{1, 3, 15}, 0},
	{"AvgPool1d k 3 stride 2 pads 1 count_include_pad 0", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").
			Node("pool", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3), oints("strides", 2), oints("pads", 1, 1))
	}, []int64{1, 2, 9}, 3.0 / 2},
}

// Each 1-D window runs as the 1×k one (oned.go) on the reference machine
// bit for bit as the golden models, within the bound of TestPadsFolded
// of the float executor on seeded random inputs, and its output has the
// ONNX shape [1,C,L'].
func TestOneDLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range oneDCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r, tt.dims))
				x := &onnx.Array{Shape: []int{int(tt.dims[0]), int(tt.dims[1]), int(tt.dims[2])}, Data: r.vals(1, false, tt.dims...)}
				float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				checkFloat(t, cfg, m, x, float["y"], tt.amp)
			})
		}
	}
}

// oneDNet is a 1-D classifier: Conv1d, BatchNorm1d, Relu, MaxPool1d,
// Conv1d, Relu, GlobalAveragePool, Flatten, Gemm; twoD writes every
// [1,C,L] as [1,C,1,L] and every window as 1×k (the same weights).
func oneDNet(r shapeRnd, twoD bool) *onnxtest.Builder {
	dims := func(d ...int64) []int64 {
		if !twoD {
			return d
		}
		return append(d[:2:2], append([]int64{1}, d[2:]...)...)
	}
	k := func(n int64) []int64 {
		if twoD {
			return []int64{1, n}
		}
		return []int64{n}
	}
	p := func(b, e int64) []int64 {
		if twoD {
			return []int64{0, b, 0, e}
		}
		return []int64{b, e}
	}
	s := func(n int64) []int64 {
		if twoD {
			return []int64{n, n}
		}
		return []int64{n}
	}
	return onnxtest.New(13).Input("x", dims(1, 2, 20)...).Output("y").
		Float("w1", dims(4, 2, 5), r.vals(0.6, false, 4, 2, 5)...).Float("b1", []int64{4}, r.vals(0.1, false, 4)...).
		Node("conv1", "Conv", []string{"x", "w1", "b1"}, "c1", oints("pads", p(2, 2)...)).
		Float("bs", []int64{4}, r.vals(1, true, 4)...).Float("bb", []int64{4}, r.vals(0.2, false, 4)...).
		Float("bm", []int64{4}, r.vals(0.2, false, 4)...).Float("bv", []int64{4}, r.vals(1, true, 4)...).
		Node("bn", "BatchNormalization", []string{"c1", "bs", "bb", "bm", "bv"}, "n1").
		Node("relu1", "Relu", []string{"n1"}, "r1").
		Node("pool", "MaxPool", []string{"r1"}, "p1", oints("kernel_shape", k(2)...), oints("strides", s(2)...)).
		Float("w2", dims(6, 4, 3), r.vals(0.5, false, 6, 4, 3)...).
		Node("conv2", "Conv", []string{"p1", "w2"}, "c2", oints("pads", p(1, 1)...), oints("strides", s(2)...)).
		Node("relu2", "Relu", []string{"c2"}, "r2").
		Node("gap", "GlobalAveragePool", []string{"r2"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Float("fc", []int64{3, 6}, r.vals(0.5, false, 3, 6)...).
		Node("gemm", "Gemm", []string{"f", "fc"}, "y", i64("transB", 1))
}

// A 1-D classifier lowers to the very graph of its 2-D form with H = 1:
// the same int8 output bit for bit on the reference machine (the same
// calibration: the float values are the same numbers).
func TestOneDNetIsTwoD(t *testing.T) {
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		r1, r2 := newShapeRnd(seed), newShapeRnd(seed)
		a := lowerModel(t, cfg, oneDNet(r1, false), 1, 2, 20)
		b := lowerModel(t, cfg, oneDNet(r2, true), 1, 2, 1, 20)
		ra, err := a.g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(rb["y"], ra["y"]); d != "" {
			t.Errorf("seed %d: 1-D vs 2-D net (-2-D +1-D):\n%s", seed, d)
		}
		if d := cmp.Diff([]int{1, 2, 20}, a.net.InputShape()); d != "" {
			t.Errorf("input shape (-want +got):\n%s", d)
		}
	}
}
