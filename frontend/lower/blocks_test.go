package lower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// The blocks of the ImageNet networks that batch normalization brings,
// at a reduced size, in the forms their ONNX files have (opset 9, as
// testdata/light's): every BatchNormalization folds into its Conv, or
// (DenseNet, after a Concat) is a depthwise convolution of its own.

// bottleneck adds a ResNet-50 bottleneck x (c channels) → out: 1×1, 3×3,
// 1×1 convolutions (mid channels), each with its BatchNormalization, Relu
// after the first two, the shortcut x itself or (project) a 1×1 Conv
// with its BatchNormalization, the residual Add and its Relu.
func (r rnd) bottleneck(b *onnxtest.Builder, name, x, out string, c, mid, cout int64, project bool) *onnxtest.Builder {
	p := func(s string) string { return name + "/" + s }
	b = r.bn(r.conv(b, p("2a"), x, p("2a.c"), mid, c, 1, false), p("2a_bn"), p("2a.c"), p("2a.n"), mid, false).
		Node(p("2a_relu"), "Relu", []string{p("2a.n")}, p("2a.r"))
	b = r.bn(r.conv(b, p("2b"), p("2a.r"), p("2b.c"), mid, mid, 3, false), p("2b_bn"), p("2b.c"), p("2b.n"), mid, false).
		Node(p("2b_relu"), "Relu", []string{p("2b.n")}, p("2b.r"))
	b = r.bn(r.conv(b, p("2c"), p("2b.r"), p("2c.c"), cout, mid, 1, false), p("2c_bn"), p("2c.c"), p("2c.n"), cout, false)
	short := x
	if project {
		b, short = r.bn(r.conv(b, p("1"), x, p("1.c"), cout, c, 1, false), p("1_bn"), p("1.c"), p("1.n"), cout, false), p("1.n")
	}
	return b.Node(p("sum"), "Sum", []string{p("2c.n"), short}, p("s")).Node(p("relu"), "Relu", []string{p("s")}, out)
}

// denseLayer adds a DenseNet-121 layer x (c channels) → out: BN, Mul,
// Add, Relu, 1×1 Conv to mid channels, BN, Mul, Add, Relu, 3×3 Conv to
// grow channels (the Concat of its output with x is left out).
func (r rnd) denseLayer(b *onnxtest.Builder, name, x, out string, c, mid, grow int64) *onnxtest.Builder {
	p := func(s string) string { return name + "/" + s }
	scaleShift := func(b *onnxtest.Builder, s, in, o string, ch int64) *onnxtest.Builder {
		return r.bn(b, p(s+"_bn"), in, p(s+".n"), ch, false).
			Float(p(s+"_scale.k"), []int64{ch, 1, 1}, r.uniform(0.8, 1.2, ch, 1, 1)...).
			Node(p(s+"_scale"), "Mul", []string{p(s + ".n"), p(s + "_scale.k")}, p(s+".m")).
			Float(p(s+"_shift.k"), []int64{ch, 1, 1}, r.uniform(-0.1, 0.1, ch, 1, 1)...).
			Node(p(s+"_shift"), "Add", []string{p(s + ".m"), p(s + "_shift.k")}, p(s+".a")).
			Node(p(s+"_relu"), "Relu", []string{p(s + ".a")}, o)
	}
	b = scaleShift(b, "x1", x, p("x1.r"), c)
	b = r.conv(b, p("x1"), p("x1.r"), p("x1.c"), mid, c, 1, false)
	b = scaleShift(b, "x2", p("x1.c"), p("x2.r"), mid)
	return r.conv(b, p("x2"), p("x2.r"), out, grow, mid, 3, false)
}

// blockCases are the blocks with the largest |int8 − float| allowed, in
// output steps: each requantized layer on the way adds up to half a step
// of its scale (opCases), and these chains have three to five of them
// (a standalone affine or a rescaled residual operand counting as one),
// so twice opCases' 1.5.
var blockCases = []struct {
	name  string
	model func(r rnd) *onnxtest.Builder
	dims  []int64
	steps float64
}{
	{"ResNet-50 bottlenecks: projection shortcut, then identity shortcut", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 8, 6, 6).Output("y")
		b = r.bottleneck(b, "res2_0", "x", "b0", 8, 4, 16, true)
		b = r.bottleneck(b, "res2_1", "b0", "b1", 16, 4, 16, false)
		return b.Node("pool", "GlobalAveragePool", []string{"b1"}, "y")
	}, []int64{1, 8, 6, 6}, 3},
	{"DenseNet-121 layer: BN, Mul, Add, Relu, 1×1 Conv, BN, Mul, Add, Relu, 3×3 Conv", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 8, 6, 6).Output("y")
		b = r.denseLayer(b, "conv2_1", "x", "d", 8, 16, 4)
		return b.Node("pool", "GlobalAveragePool", []string{"d"}, "y")
	}, []int64{1, 8, 6, 6}, 3},
}

// The blocks lower (their layers: the Convs, the standalone affines, the
// residual Adds, no BatchNormalization, Mul or Add of a constant of its
// own) and run on the reference machine bit for bit as the golden
// models, within the case's steps of the float executor, for several
// random weights.
func TestBlocksLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range blockCases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				checkLowered(t, cfg, tt.model(newRnd(seed)), tt.steps, tt.dims...)
			})
		}
	}
}

// The layers each block lowers to (a residual Add's operand rescale,
// whose side depends on the scales, left out).
func TestBlocksLayers(t *testing.T) {
	want := map[string][]string{
		blockCases[0].name: {"res2_0/2a", "res2_0/2b", "res2_0/2c", "res2_0/1", "res2_0/sum",
			"res2_1/2a", "res2_1/2b", "res2_1/2c", "res2_1/sum", "pool"},
		blockCases[1].name: {"conv2_1/x1_bn", "conv2_1/x1", "conv2_1/x2", "pool"},
	}
	for _, tt := range blockCases {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, npu.DefaultConfig(), tt.model(newRnd(1)), tt.dims...)
			var got []string
			for _, l := range lw.net.Layers {
				if !strings.Contains(l.Node, " operand ") {
					got = append(got, l.Node)
				}
			}
			if d := cmp.Diff(want[tt.name], got); d != "" {
				t.Errorf("layers (-want +got):\n%s", d)
			}
		})
	}
}

// The blocks run on the Go simulator of the NPU bit for bit as on the
// reference machine: the folded convolutions, the depthwise affine, the
// residual adds as the compiler emits them.
func TestBlocksSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range blockCases {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model(newRnd(1)), tt.dims...)
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
			t.Logf("%s: %s", lw.prog.Summary(), res.Summary())
		})
	}
}
