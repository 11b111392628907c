package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// poolCases are pools as the ImageNet nets have them, on the graph
// input: asymmetric pads, count_include_pad 0 with pads. amp is the
// largest K/n of a count_include_pad 0 average (K the window's size, n
// the elements inside the plane), 0 for the others.
var poolCases = []struct {
	name string
	node func(b *onnxtest.Builder) *onnxtest.Builder
	dims []int64
	amp  float64
}{
	{"MaxPool 3x3/s2 pads [0,0,1,1] (AlexNet), 8x8", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 0, 0, 1, 1))
	}, []int64{1, 3, 8, 8}, 0},
	{"MaxPool 3x3/s2 pads [0,0,1,1], 7x9 (a crop at both ends)", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 0, 0, 1, 1))
	}, []int64{1, 2, 7, 9}, 0},
	{"MaxPool 3x3/s1 pads [1,0,0,1]", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("pads", 1, 0, 0, 1))
	}, []int64{1, 2, 6, 5}, 0},
	{"AveragePool 7x7/s1 pads [0,0,1,1] count_include_pad 0 (GoogLeNet), 7x7", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 7, 7), oints("pads", 0, 0, 1, 1))
	}, []int64{1, 3, 7, 7}, 49.0 / 36},
	{"AveragePool 7x7/s1 pads [0,0,1,1] count_include_pad 1, 8x8", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 7, 7), oints("pads", 0, 0, 1, 1), i64("count_include_pad", 1))
	}, []int64{1, 2, 8, 8}, 0},
	{"AveragePool 3x3/s2 pad 1 count_include_pad 0 (ShuffleNet), 8x8", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 3, 8, 8}, 9.0 / 4},
	{"AveragePool 3x3/s2 pad 1 count_include_pad 0, 7x7", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 7, 7}, 9.0 / 4},
	{"AveragePool 3x3/s1 pad 1 count_include_pad 0 (Inception v2), 6x6", func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("pads", 1, 1, 1, 1))
	}, []int64{1, 4, 6, 6}, 9.0 / 4},
}

// Each pool lowers and runs on the reference machine bit for bit the
// golden models, and within its bound of the float executor on seeded
// random inputs: half a step of the input's scale for the input's
// rounding (a max pool keeps the scale; an average of such errors is no
// larger), half a step for the output's rounding, and for count_include_pad
// 0 half a step of the zero-padded average times K/n (pool_pad.go), plus
// 0.1 for the multipliers' relative error (below 2^−14, on values of at
// most 127·K/n steps).
func TestPoolsLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range poolCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				m := loadModel(t, tt.node(onnxtest.New(13).Input("x", tt.dims...).Output("y")))
				shape := make([]int, len(tt.dims))
				for i, d := range tt.dims {
					shape[i] = int(d)
				}
				x := &onnx.Array{Shape: shape, Data: newShapeRnd(seed).vals(1, false, tt.dims...)}
				float, net := floatAndQuantize(t, m, x, cfg)
				checkWithin(t, cfg, net, x, float["y"], poolBound(net, tt.amp))
			})
		}
	}
}

// The pools the planar engine cannot take are one error line naming the
// node, the op, the attribute, its value and what is supported.
func TestPoolsErrors(t *testing.T) {
	base := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 1, 2, 8, 8).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"unequal strides", base().Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 1, 2)),
			`node "p" (MaxPool): strides 1x2: only equal strides are supported`},
		{"asymmetric pads reaching the window", base().Node("p", "MaxPool", []string{"x"}, "y", oints("kernel_shape", 2, 2), oints("strides", 2, 2), oints("pads", 0, 0, 1, 1)),
			`node "p" (MaxPool): pads top 0 bottom 1 with stride 2 and window 2: supported: pads whose symmetric cover (the top pad plus whole strides, at least the bottom pad: 2) is below the window`},
		{"ceil_mode", base().Node("p", "AveragePool", []string{"x"}, "y", oints("kernel_shape", 3, 3), oints("strides", 2, 2), i64("ceil_mode", 1)),
			`node "p" (AveragePool): ceil_mode 1: only 0 is supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}

// A max pool with its crop and an average with its divisor map (a
// constant graph input) run on the Go simulator of the NPU bit for bit
// as on the reference machine.
func TestPoolsSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, i := range []int{1, 6} {
		tt := poolCases[i]
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.node(onnxtest.New(13).Input("x", tt.dims...).Output("y")), tt.dims...)
			want, _, err := compiler.Interpret(lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			res, err := host.Run(cfg, lw.prog)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want["y"], res.Outputs["y"]); d != "" {
				t.Errorf("simulator vs reference machine (-machine +simulator):\n%s", d)
			}
			t.Logf("%s: %s", lw.prog.Summary(), res.Summary())
		})
	}
}
