package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// This file tests the lowering of the data movements and grouped convs
// of the ImageNet CNNs: Concat along channels, grouped and depthwise
// Conv, ShuffleNet's channel shuffle, on random weights of several seeds.

// shapeRnd is a seeded random tensor, uniform in ±scale (pos: in (0, scale],
// for a last layer whose outputs add up, see posWave).
type shapeRnd struct{ r *rand.Rand }

func newShapeRnd(seed uint64) shapeRnd { return shapeRnd{rand.New(rand.NewPCG(seed, 0xc0ffee))} }

func (r shapeRnd) vals(scale float64, pos bool, dims ...int64) []float32 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		if pos {
			v[i] = float32(scale * (1 - r.r.Float64()))
		} else {
			v[i] = float32(scale * (2*r.r.Float64() - 1))
		}
	}
	return v
}

// conv adds a Conv node x → out with weights [co, ci/group, k, k], a
// bias, pads k/2, the stride and group given; pos makes the weights
// positive.
func (r shapeRnd) conv(b *onnxtest.Builder, name, x, out string, co, ci, k, stride, group int64, pos bool) *onnxtest.Builder {
	return b.Float(name+".w", []int64{co, ci / group, k, k}, r.vals(0.6, pos, co, ci/group, k, k)...).
		Float(name+".b", []int64{co}, r.vals(0.1, false, co)...).
		Node(name, "Conv", []string{x, name + ".w", name + ".b"}, out, oints("pads", k/2, k/2, k/2, k/2),
			oints("strides", stride, stride), i64("group", group))
}

// shapeCases are nets of the ops under test, built from a seed, with the
// largest |int8 − float| of the output allowed in output steps: half a
// step for the output's own rounding, plus each earlier int8 rounding
// (the input, every requantized layer, a rescaled concat part: half a
// step of its scale) times the gain of the layers after it, Σ|w|·s_in/
// s_out, which for random weights of ±0.6 over these fan-ins is 1 to 3
// (posWave in opCases keeps it near 1): 2 steps for one layer before
// the output, 3 for more. A part in the wrong channels (a concat offset,
// a permutation) moves outputs by tens of steps.
var shapeCases = []struct {
	name  string
	model func(r shapeRnd) *onnxtest.Builder
	dims  []int64
	steps float64
}{
	{"Concat of a Relu'd conv, a conv read twice (rescaled) and a max pool", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y")
		b = r.conv(b, "a", "x", "ca", 4, 3, 3, 1, 1, false).Node("ra", "Relu", []string{"ca"}, "pa")
		b = r.conv(b, "b", "x", "pb", 5, 3, 1, 1, 1, false)
		b = b.Node("mp", "MaxPool", []string{"x"}, "pc", oints("kernel_shape", 3, 3), oints("pads", 1, 1, 1, 1))
		b = b.Node("cat", "Concat", []string{"pa", "pb", "pc"}, "cat", i64("axis", 1))
		b = r.conv(b, "c", "cat", "cc", 6, 12, 3, 1, 1, true)
		return b.Float("w2", []int64{6, 5, 1, 1}, r.vals(0.5, true, 6, 5, 1, 1)...).
			Node("d", "Conv", []string{"pb", "w2"}, "pb2").
			Node("add", "Add", []string{"cc", "pb2"}, "y")
	}, []int64{1, 3, 6, 6}, 3},
	{"Concat of concats, axis -3", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y")
		b = r.conv(b, "a", "x", "pa", 3, 2, 3, 1, 1, false)
		b = r.conv(b, "b", "x", "pb", 17, 2, 1, 1, 1, false)
		b = r.conv(b, "c", "x", "pc", 2, 2, 3, 1, 1, false)
		b = b.Node("cat1", "Concat", []string{"pa", "pb"}, "c1", i64("axis", -3)).
			Node("cat2", "Concat", []string{"c1", "pc"}, "c2", i64("axis", 1))
		return r.conv(b, "d", "c2", "y", 4, 22, 1, 1, 1, true)
	}, []int64{1, 2, 5, 5}, 3},
	{"grouped convs: group 2 3x3, group 4 1x1, depthwise 3x3 stride 2", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 4, 8, 8).Output("y")
		b = r.conv(b, "g2", "x", "c1", 8, 4, 3, 1, 2, false).Node("r1", "Relu", []string{"c1"}, "p1")
		b = r.conv(b, "g4", "p1", "c2", 8, 8, 1, 1, 4, false).Node("r2", "Relu", []string{"c2"}, "p2")
		return r.conv(b, "dw", "p2", "y", 8, 8, 3, 2, 8, true)
	}, []int64{1, 4, 8, 8}, 3},
	{"channel shuffle into a depthwise conv, a shuffle into a dense conv", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 4, 6, 6).Output("y").
			Int64("s5", []int64{5}, 1, 2, 6, 6, 6).Int64("s4", []int64{4}, 1, 12, 6, 6).
			Int64("t5", []int64{5}, 1, 3, 4, 6, 6)
		b = r.conv(b, "g", "x", "c1", 12, 4, 1, 1, 2, false).Node("r1", "Relu", []string{"c1"}, "p1").
			Node("re1", "Reshape", []string{"p1", "s5"}, "q1").
			Node("tr1", "Transpose", []string{"q1"}, "q2", oints("perm", 0, 2, 1, 3, 4)).
			Node("re2", "Reshape", []string{"q2", "s4"}, "sh1")
		b = r.conv(b, "dw", "sh1", "c2", 12, 12, 3, 1, 12, false).
			Node("re3", "Reshape", []string{"c2", "t5"}, "q3").
			Node("tr2", "Transpose", []string{"q3"}, "q4", oints("perm", 0, 2, 1, 3, 4)).
			Node("re4", "Reshape", []string{"q4", "s4"}, "sh2")
		return r.conv(b, "pw", "sh2", "y", 5, 12, 1, 1, 1, true)
	}, []int64{1, 4, 6, 6}, 3},
	{"ShuffleNet's stride-2 unit: AveragePool count_include_pad 0 beside grouped convs, Concat, Relu", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 8, 8, 8).Output("y").
			Node("avg", "AveragePool", []string{"x"}, "pa", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 1, 1, 1, 1))
		b = r.conv(b, "g1", "x", "c1", 8, 8, 1, 1, 2, false).Node("r1", "Relu", []string{"c1"}, "p1")
		b = r.conv(b, "dw", "p1", "c2", 8, 8, 3, 2, 8, false)
		b = r.conv(b, "g2", "c2", "pb", 8, 8, 1, 1, 2, false).
			Node("cat", "Concat", []string{"pa", "pb"}, "cat", i64("axis", 1)).
			Node("r3", "Relu", []string{"cat"}, "p3")
		return r.conv(b, "out", "p3", "y", 4, 16, 1, 1, 1, true)
	}, []int64{1, 8, 8, 8}, 3},
	{"channel shuffle as the graph output", func(r shapeRnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 4, 5, 5).Output("y").
			Int64("s5", []int64{5}, 1, 4, 2, 5, 5).Int64("s4", []int64{4}, 1, 8, 5, 5)
		return r.conv(b, "g", "x", "c1", 8, 4, 3, 1, 4, false).
			Node("re1", "Reshape", []string{"c1", "s5"}, "q1").
			Node("tr1", "Transpose", []string{"q1"}, "q2", oints("perm", 0, 2, 1, 3, 4)).
			Node("re2", "Reshape", []string{"q2", "s4"}, "y")
	}, []int64{1, 4, 5, 5}, 2},
}

// Each net lowers and runs on the reference machine bit for bit the
// golden models, within its steps of the float executor, for several
// seeds of random weights.
func TestShapeOpsLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range shapeCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) { checkLowered(t, cfg, tt.model(newShapeRnd(seed)), tt.steps, tt.dims...) })
		}
	}
}

// Every net of shapeCases (seed 1) runs on the Go simulator of the NPU
// bit for bit as on the reference machine: concat placement, grouped and
// depthwise convs, a permutation taken into weights or copied.
func TestShapeOpsSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range shapeCases {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model(newShapeRnd(1)), tt.dims...)
			want, _, err := compiler.Interpret(lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			res, err := host.Run(cfg, lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			out := lw.net.Output()
			if d := cmp.Diff(want[out], res.Outputs[out]); d != "" {
				t.Errorf("simulator vs reference machine (-machine +simulator):\n%s", d)
			}
		})
	}
}

// The float executor refuses a malformed group during calibration already;
// the lowering's own check (convGroups) says the same of what reaches it.
func TestConvGroups(t *testing.T) {
	for _, tt := range []struct {
		group     int64
		c, m, wc  int
		want      int
		wantError string
	}{
		{1, 4, 6, 4, 1, ""},
		{2, 96, 256, 48, 2, ""},
		{136, 136, 136, 1, 136, ""},
		{3, 4, 6, 4, 0, "group 3: supported: a group that divides the 4 input and 6 output channels"},
		{2, 4, 4, 4, 0, "group 2: the weights have 4 input channels, want 4/2 = 2"},
		{0, 4, 4, 4, 0, "group 0: supported: a positive group that divides the 4 input and 4 output channels"},
	} {
		n := &onnx.Node{Name: "conv", OpType: "Conv", Attrs: map[string]onnx.Attr{"group": {Kind: onnx.AttrInt, Int: tt.group}}}
		got, err := convGroups(n, tt.c, tt.m, tt.wc)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.wantError {
			t.Errorf("group %d of %d→%d, weights of %d: got %d, %q; want %d, %q", tt.group, tt.c, tt.m, tt.wc, got, msg, tt.want, tt.wantError)
		}
	}
}

// What the lowering of these ops cannot map is one error line naming the
// node, the op, the attribute, its value and what is supported.
func TestShapeOpsErrors(t *testing.T) {
	base := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 1, 4, 4, 4).Output("y") }
	w := func(b *onnxtest.Builder, dims ...int64) *onnxtest.Builder {
		return b.Float("w", dims, wave(0, 0.5, dims...)...)
	}
	shuffle := func(perm ...int64) *onnxtest.Builder {
		return base().Int64("s5", []int64{5}, 1, 2, 2, 4, 4).Int64("s4", []int64{4}, 1, 4, 4, 4).
			Node("re1", "Reshape", []string{"x", "s5"}, "q1").
			Node("tr", "Transpose", []string{"q1"}, "q2", oints("perm", perm...)).
			Node("re2", "Reshape", []string{"q2", "s4"}, "y")
	}
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"Concat along rows", base().Node("cat", "Concat", []string{"x", "x"}, "y", i64("axis", 2)),
			`node "cat" (Concat): axis 2: only 1 (the channels of [1,C,H,W]) is supported`},
		{"Concat of a constant", base().Float("k", []int64{1, 1, 4, 4}, wave(0, 1, 1, 1, 4, 4)...).
			Node("cat", "Concat", []string{"x", "k"}, "y", i64("axis", 1)),
			`node "cat" (Concat): input "k" is a constant: only computed feature maps are concatenated`},
		{"Conv group not dividing the channels", w(base(), 6, 4, 3, 3).
			Node("conv", "Conv", []string{"x", "w"}, "y", i64("group", 3)),
			`node "conv" (Conv): group 3, input channels 4, weights [6 4 3 3]: want C and M divisible by group`},
		{"Conv group with weights of the wrong width", w(base(), 4, 4, 3, 3).
			Node("conv", "Conv", []string{"x", "w"}, "y", i64("group", 2)),
			`node "conv" (Conv): group 2, input channels 4, weights [4 4 3 3]: want C and M divisible by group and weight dim 1 = C/group`},
		{"Conv group 0", w(base(), 4, 4, 3, 3).
			Node("conv", "Conv", []string{"x", "w"}, "y", i64("group", 0)),
			`node "conv" (Conv): group 0, input channels 4, weights [4 4 3 3]: want C and M divisible by group`},
		{"shuffle's Transpose of another perm", shuffle(0, 1, 2, 4, 3),
			`node "re1" (Reshape): the Transpose "tr" after it has perm [0 1 2 4 3]: only the channel shuffle's [0 2 1 3 4] is supported`},
		{"Reshape to 5 dims alone", base().Int64("s5", []int64{5}, 1, 2, 2, 4, 4).
			Node("re1", "Reshape", []string{"x", "s5"}, "y"),
			`node "re1" (Reshape): reshape [1 4 4 4] to [1 2 2 4 4]: only [1,C,H,W] to [1,C·H·W] (or to the same shape) is supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}

// The PE array utilization of grouped and depthwise convs as lowered
// from ONNX, the compiler's mapping bound (LayerMACs over NEVectors·R·C)
// on the default 16×16 NPU: ShuffleNet's unit (g = 4) at 28×28, 272
// channels, and AlexNet's 2-group conv2 (dense: groups of whole tiles).
// The first 1×1 GConv, 272 → 68 in groups of 17 that straddle tiles,
// reaches 48.8%; the depthwise conv uses one PE per row (the
// block-diagonal mapping, compiler/doc.go), 1/16 of its 5 tiles for 68
// channels, 5.31%. The shuffle moves no data (no NE copy counts under a
// layer): the second GConv takes it into its weights, where each group
// of 17 shuffled channels reads all five tiles, 31.1% instead of 48.8%
// (16,464 more vectors, fewer than the 19,600 a 68-channel copy on the
// NE would take).
func TestGroupedUtilization(t *testing.T) {
	cfg := npu.DefaultConfig()
	cfg.ExtAddrWidth = 18 // the unit's 272×28×28 maps and weights
	r := newShapeRnd(1)
	shuffle := onnxtest.New(13).Input("x", 1, 272, 28, 28).Output("y").
		Int64("s5", []int64{5}, 1, 4, 17, 28, 28).Int64("s4", []int64{4}, 1, 68, 28, 28)
	shuffle = r.conv(shuffle, "gconv1", "x", "c1", 68, 272, 1, 1, 4, false).Node("r1", "Relu", []string{"c1"}, "p1").
		Node("re1", "Reshape", []string{"p1", "s5"}, "q1").
		Node("tr1", "Transpose", []string{"q1"}, "q2", oints("perm", 0, 2, 1, 3, 4)).
		Node("re2", "Reshape", []string{"q2", "s4"}, "sh")
	shuffle = r.conv(shuffle, "dw", "sh", "c2", 68, 68, 3, 1, 68, false)
	shuffle = r.conv(shuffle, "gconv2", "c2", "c3", 272, 68, 1, 1, 4, false).
		Node("add", "Add", []string{"c3", "x"}, "s").Node("r3", "Relu", []string{"s"}, "y")
	alex := r.conv(onnxtest.New(13).Input("x", 1, 96, 27, 27).Output("y"), "conv2", "x", "y", 256, 96, 5, 1, 2, false)
	for _, tt := range []struct {
		name  string
		model *onnxtest.Builder
		dims  []int64
		want  map[string]float64 // layer → utilization %, within 0.05 points
	}{
		{"ShuffleNet unit, g = 4, 272 channels, 28x28", shuffle, []int64{1, 272, 28, 28},
			map[string]float64{"conv2d0": 48.8, "conv2d1": 5.31, "conv2d2": 31.1}},
		{"AlexNet conv2, 2 groups of 48 → 128, 5x5, 27x27", alex, []int64{1, 96, 27, 27},
			map[string]float64{"conv2d0": 100}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model, tt.dims...)
			vec := lw.prog.NEVectors()
			got := map[string]float64{}
			for layer, macs := range lw.prog.LayerMACs {
				got[layer] = 100 * float64(macs) / float64(vec[layer]*int64(cfg.Rows*cfg.Cols))
			}
			t.Logf("%s: utilization by layer %v, NE vectors %v", lw.prog.Summary(), got, vec)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 0.05)); d != "" {
				t.Errorf("utilization %% (-want +got):\n%s", d)
			}
			for layer := range vec {
				if _, ok := lw.prog.LayerMACs[layer]; !ok {
					t.Errorf("NE vectors under %s, which is no conv layer (a copy)", layer)
				}
			}
		})
	}
}
