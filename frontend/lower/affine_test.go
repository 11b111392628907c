package lower

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// rnd draws seeded random constants for the affine nets.
type rnd struct{ *rand.Rand }

func newRnd(seed uint64) rnd { return rnd{rand.New(rand.NewPCG(seed, 0xaff1_7e))} }

// uniform is n values in [lo, hi).
func (r rnd) uniform(lo, hi float64, dims ...int64) []float32 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return v
}

// signed is n values of magnitude in [lo, hi) and random sign.
func (r rnd) signed(lo, hi float64, dims ...int64) []float32 {
	v := r.uniform(lo, hi, dims...)
	for i := range v {
		if r.IntN(2) == 0 {
			v[i] = -v[i]
		}
	}
	return v
}

// bn adds a BatchNormalization x → out of c channels: scale of magnitude
// 0.5..1.5 (negative too when neg), B and mean in ±0.2, var in 0.5..1.5.
func (r rnd) bn(b *onnxtest.Builder, name, x, out string, c int64, neg bool, attrs ...*onnxpb.AttributeProto) *onnxtest.Builder {
	scale := r.uniform(0.5, 1.5, c)
	if neg {
		scale = r.signed(0.5, 1.5, c)
	}
	return b.Float(name+".s", []int64{c}, scale...).Float(name+".b", []int64{c}, r.uniform(-0.2, 0.2, c)...).
		Float(name+".m", []int64{c}, r.uniform(-0.2, 0.2, c)...).Float(name+".v", []int64{c}, r.uniform(0.5, 1.5, c)...).
		Node(name, "BatchNormalization", []string{x, name + ".s", name + ".b", name + ".m", name + ".v"}, out, attrs...)
}

// conv adds a Conv x → out, weights [co,ci,k,k] He-scaled (uniform,
// variance 2/fan_in), pads k/2, a bias when bias.
func (r rnd) conv(b *onnxtest.Builder, name, x, out string, co, ci, k int64, bias bool) *onnxtest.Builder {
	w := r.signed(0, math.Sqrt(6/float64(ci*k*k)), co, ci, k, k)
	b = b.Float(name+".w", []int64{co, ci, k, k}, w...)
	in := []string{x, name + ".w"}
	if bias {
		b, in = b.Float(name+".bias", []int64{co}, r.uniform(-0.1, 0.1, co)...), append(in, name+".bias")
	}
	return b.Node(name, "Conv", in, out, oints("pads", k/2, k/2, k/2, k/2))
}

// head ends a net in a Flatten and a MatMul of positive weights, a
// classifier whose outputs add up (see posWave).
func (r rnd) head(b *onnxtest.Builder, x string, k int64) *onnxtest.Builder {
	return b.Node("flat", "Flatten", []string{x}, "f").
		Float("head.w", []int64{k, 3}, r.uniform(0.5/float64(k), 1.5/float64(k), k, 3)...).
		Node("head", "MatMul", []string{"f", "head.w"}, "y")
}

// affineCases are the per-channel affine forms the lowering folds into a
// layer or lowers alone, built with the random constants of a seed. steps
// is the largest |int8 − float| allowed, in output steps, as in opCases:
// a folded chain adds no rounding of its own (it is exact in real
// numbers before the weights are quantized), so a layer with its folds
// keeps the bound of the layer alone; a standalone affine is one more
// requantization (half a step of its scale, carried on): 1.5.
var affineCases = []struct {
	name  string
	model func(r rnd) *onnxtest.Builder
	dims  []int64
	steps float64
}{
	{"Conv, BatchNormalization (negative scales too), Relu", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y")
		b = r.conv(b, "conv", "x", "c", 4, 3, 3, true)
		b = r.bn(b, "bn", "c", "n", 4, true).Node("relu", "Relu", []string{"n"}, "r")
		return r.head(b, "r", 4*36)
	}, []int64{1, 3, 6, 6}, 1.5},
	{"Conv without bias, BatchNormalization, Mul and Add of [C,1,1] (DenseNet, Inception v2), Relu", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 3, 6, 6).Output("y")
		b = r.conv(b, "conv", "x", "c", 5, 3, 3, false)
		b = r.bn(b, "bn", "c", "n", 5, false).
			Float("mul.k", []int64{5, 1, 1}, r.uniform(0.8, 1.2, 5, 1, 1)...).Node("mul", "Mul", []string{"n", "mul.k"}, "m").
			Float("add.k", []int64{5, 1, 1}, r.uniform(-0.1, 0.1, 5, 1, 1)...).Node("add", "Add", []string{"m", "add.k"}, "a").
			Node("relu", "Relu", []string{"a"}, "r")
		return r.head(b, "r", 5*36)
	}, []int64{1, 3, 6, 6}, 1.5},
	{"Conv of small weights, BatchNormalization shifting far: the folded bias needs a lower shift", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y").
			Float("conv.w", []int64{4, 3, 3, 3}, r.signed(0, 0.005, 4, 3, 3, 3)...).
			Node("conv", "Conv", []string{"x", "conv.w"}, "c", oints("pads", 1, 1, 1, 1)).
			Float("bn.s", []int64{4}, r.uniform(0.5, 1.5, 4)...).Float("bn.b", []int64{4}, r.uniform(-0.2, 0.2, 4)...).
			Float("bn.m", []int64{4}, r.uniform(-0.03, -0.02, 4)...).Float("bn.v", []int64{4}, r.uniform(1e-4, 2e-4, 4)...).
			Node("bn", "BatchNormalization", []string{"c", "bn.s", "bn.b", "bn.m", "bn.v"}, "n", flt("epsilon", 1e-5))
		return r.head(b, "n", 4*36)
	}, []int64{1, 3, 6, 6}, 1.5},
	{"BatchNormalization with a zero scale (a pruned channel), after a Conv and alone", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y")
		b = r.conv(b, "conv", "x", "c", 4, 3, 3, true)
		bn := func(b *onnxtest.Builder, name, x, out string) *onnxtest.Builder {
			s := r.uniform(0.5, 1.5, 4)
			s[1] = 0
			return b.Float(name+".s", []int64{4}, s...).Float(name+".b", []int64{4}, r.uniform(-0.2, 0.2, 4)...).
				Float(name+".m", []int64{4}, r.uniform(-0.2, 0.2, 4)...).Float(name+".v", []int64{4}, r.uniform(0.5, 1.5, 4)...).
				Node(name, "BatchNormalization", []string{x, name + ".s", name + ".b", name + ".m", name + ".v"}, out)
		}
		b = bn(b, "bn1", "c", "n").Node("relu", "Relu", []string{"n"}, "r").
			Node("pool", "MaxPool", []string{"r"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2))
		return r.head(bn(b, "bn2", "p", "q"), "q", 4*9)
	}, []int64{1, 3, 6, 6}, 1.5},
	{"Gemm, BatchNormalization of [1,N], Relu", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Node("flat", "Flatten", []string{"x"}, "f").
			Float("w", []int64{6, 32}, r.signed(0, 0.4, 6, 32)...).Float("c", []int64{6}, r.uniform(-0.1, 0.1, 6)...).
			Node("gemm", "Gemm", []string{"f", "w", "c"}, "g", i64("transB", 1))
		return r.bn(b, "bn", "g", "n", 6, true).Node("relu", "Relu", []string{"n"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"MatMul, scalar Mul, Sub, per-channel Div of [1,N], Clip", func(r rnd) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Node("flat", "Flatten", []string{"x"}, "f").
			Float("w", []int64{32, 5}, r.signed(0, 0.4, 32, 5)...).Node("mm", "MatMul", []string{"f", "w"}, "g").
			Float("k", []int64{}, r.uniform(0.5, 2, 1)...).Node("mul", "Mul", []string{"k", "g"}, "m").
			Float("s", []int64{1}, r.uniform(-0.3, 0.3, 1)...).Node("sub", "Sub", []string{"m", "s"}, "d").
			Float("v", []int64{1, 5}, r.signed(0.5, 2, 1, 5)...).Node("div", "Div", []string{"d", "v"}, "q").
			Float("lo", []int64{}, -1).Float("hi", []int64{}, 1.5).
			Node("clip", "Clip", []string{"q", "lo", "hi"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5}, // the clamp narrows the output's range: the input's rounding counts more steps
	{"standalone BatchNormalization, Mul, Add, Relu, then a Conv (DenseNet after its Concat)", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 4, 5, 5).Output("y")
		b = r.bn(b, "bn", "x", "n", 4, false).
			Float("mul.k", []int64{4, 1, 1}, r.uniform(0.8, 1.2, 4, 1, 1)...).Node("mul", "Mul", []string{"n", "mul.k"}, "m").
			Float("add.k", []int64{4, 1, 1}, r.uniform(-0.1, 0.1, 4, 1, 1)...).Node("add", "Add", []string{"m", "add.k"}, "a").
			Node("relu", "Relu", []string{"a"}, "r")
		b = r.conv(b, "conv", "r", "c", 3, 4, 1, true).Node("relu2", "Relu", []string{"c"}, "r2")
		return r.head(b, "r2", 3*25)
	}, []int64{1, 4, 5, 5}, 1.5},
	{"standalone scalar Sub, per-channel Div, constant minus the value, Clip after a max pool", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y")
		b = r.conv(b, "conv", "x", "c", 4, 3, 3, true).
			Node("pool", "MaxPool", []string{"c"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2)).
			Float("s", []int64{}, r.uniform(-0.2, 0.2, 1)...).Node("sub", "Sub", []string{"p", "s"}, "d").
			Float("v", []int64{1, 4, 1, 1}, r.signed(0.5, 2, 1, 4, 1, 1)...).Node("div", "Div", []string{"d", "v"}, "q").
			Float("k", []int64{4, 1, 1}, r.uniform(-0.2, 0.2, 4, 1, 1)...).Node("rsub", "Sub", []string{"k", "q"}, "e").
			Float("lo", []int64{}, -0.6).Float("hi", []int64{}, 0.8).
			Node("clip", "Clip", []string{"e", "lo", "hi"}, "k2")
		return r.head(b, "k2", 4*9)
	}, []int64{1, 3, 6, 6}, 1.5},
	{"opset 6: BatchNormalization is_test 1 with consumed_inputs, Mul with broadcast and axis", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(6).Input("x", 1, 3, 5, 5).Output("y")
		b = r.conv(b, "conv", "x", "c", 4, 3, 3, true)
		b = r.bn(b, "bn", "c", "n", 4, true, i64("is_test", 1), oints("consumed_inputs", 0, 0, 0, 1, 1)).
			Float("k", []int64{4}, r.uniform(0.8, 1.2, 4)...).
			Node("mul", "Mul", []string{"n", "k"}, "m", i64("broadcast", 1), i64("axis", 1)).
			Node("relu", "Relu", []string{"m"}, "r")
		return r.head(b, "r", 4*25)
	}, []int64{1, 3, 5, 5}, 1.5},
	{"opset 8: BatchNormalization spatial 1 standalone, spatial 0 after a Gemm", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(8).Input("x", 1, 2, 4, 4).Output("y")
		b = r.bn(b, "bn1", "x", "n", 2, true, i64("spatial", 1)).
			Node("flat", "Flatten", []string{"n"}, "f").
			Float("w", []int64{32, 5}, r.signed(0, 0.4, 32, 5)...).Float("c", []int64{5}, r.uniform(-0.1, 0.1, 5)...).
			Node("gemm", "Gemm", []string{"f", "w", "c"}, "g")
		return r.bn(b, "bn2", "g", "y", 5, true, i64("spatial", 0))
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Sum of three feature maps, Dropout and Identity on the way", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y")
		b = r.conv(b, "c1", "x", "a", 3, 2, 3, true).Node("drop", "Dropout", []string{"a"}, "ad")
		b = r.conv(b, "c2", "x", "b", 3, 2, 1, true).Node("id", "Identity", []string{"b"}, "bi")
		b = r.conv(b, "c3", "x", "c", 3, 2, 3, true).
			Node("sum", "Sum", []string{"ad", "bi", "c"}, "s").Node("relu", "Relu", []string{"s"}, "r")
		return r.head(b, "r", 3*25)
	}, []int64{1, 2, 5, 5}, 1.5},
	{"Sum of two feature maps, then a standalone Add of a scalar", func(r rnd) *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y")
		b = r.conv(b, "c1", "x", "a", 3, 2, 3, true).Node("relu1", "Relu", []string{"a"}, "ra")
		b = r.conv(b, "c2", "ra", "b", 3, 3, 3, true).
			Node("sum", "Sum", []string{"ra", "b"}, "s").
			Float("k", []int64{}, 0.25).Node("add", "Add", []string{"k", "s"}, "t")
		return r.head(b, "t", 3*25)
	}, []int64{1, 2, 5, 5}, 1.5},
}

// Each affine form lowers, runs on the reference machine bit for bit as
// the golden models, and its dequantized output is within the case's
// steps of the float executor's, for several random constants.
func TestAffineLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range affineCases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				checkLowered(t, cfg, tt.model(newRnd(seed)), tt.steps, tt.dims...)
			})
		}
	}
}

// A folded chain leaves one NPU op per Conv, Gemm or MatMul, and a
// standalone chain one depthwise convolution: the nodes each absorbs are
// not lowered on their own.
func TestAffineFoldedOps(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range []struct {
		name string
		want []string // the lowered layers (Net.Layers' nodes)
	}{
		{"Conv without bias, BatchNormalization, Mul and Add of [C,1,1] (DenseNet, Inception v2), Relu", []string{"conv", "head"}},
		{"Gemm, BatchNormalization of [1,N], Relu", []string{"gemm"}},
		{"standalone BatchNormalization, Mul, Add, Relu, then a Conv (DenseNet after its Concat)", []string{"bn", "conv", "head"}},
		{"Sum of three feature maps, Dropout and Identity on the way", []string{"c1", "c2", "c3", "sum/add1", "sum/add2", "head"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var model func(rnd) *onnxtest.Builder
			var dims []int64
			for _, c := range affineCases {
				if c.name == tt.name {
					model, dims = c.model, c.dims
				}
			}
			lw := lowerModel(t, cfg, model(newRnd(1)), dims...)
			var got []string
			for _, l := range lw.net.Layers {
				if !strings.Contains(l.Node, " operand ") { // an Add's operand rescale: its side depends on the scales
					got = append(got, l.Node)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("layers (-want +got):\n%s", d)
			}
		})
	}
}

// The affine forms the NPU cannot take are one error line naming the
// node, the op and what is supported.
func TestAffineErrors(t *testing.T) {
	r := newRnd(1)
	base := func(opset int64) *onnxtest.Builder { return onnxtest.New(opset).Input("x", 1, 2, 4, 4).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"BatchNormalization in training mode", r.bn(base(14), "bn", "x", "y", 2, false, i64("training_mode", 1)),
			`node "bn" (BatchNormalization): training mode (training_mode 1, or is_test 0 before opset 7) normalizes by the batch's statistics; supported: inference`},
		{"BatchNormalization of opset 6 without is_test", r.bn(base(6), "bn", "x", "y", 2, false),
			`node "bn" (BatchNormalization): training mode`},
		{"BatchNormalization after a Conv in training mode", r.bn(r.conv(base(14), "conv", "x", "c", 2, 2, 3, true), "bn", "c", "y", 2, false, i64("training_mode", 1)),
			`node "conv" (Conv): the BatchNormalization "bn" after it: training mode`},
		{"BatchNormalization spatial 0 varying within a channel", base(8).
			Float("s", []int64{2, 4, 4}, r.uniform(0.5, 1.5, 2, 4, 4)...).Float("b", []int64{2, 4, 4}, r.uniform(0, 1, 2, 4, 4)...).
			Float("m", []int64{2, 4, 4}, r.uniform(0, 1, 2, 4, 4)...).Float("v", []int64{2, 4, 4}, r.uniform(0.5, 1, 2, 4, 4)...).
			Node("bn", "BatchNormalization", []string{"x", "s", "b", "m", "v"}, "y", i64("spatial", 0), i64("is_test", 1)),
			`node "bn" (BatchNormalization): spatial 0 with input "s" varying within channel 0: the NPU scales per channel`},
		{"Mul of two feature maps", base(13).Node("mul", "Mul", []string{"x", "x"}, "y"),
			`node "mul" (Mul): Mul of two computed values "x" and "x": supported: a value and a constant`},
		{"Div of a constant by the value", base(13).Float("k", []int64{}, 2).Node("div", "Div", []string{"k", "x"}, "y"),
			`node "div" (Div): divides the constant "k" by the value: not an affine map`},
		{"Mul by a constant per column", base(13).Float("k", []int64{4}, r.uniform(1, 2, 4)...).Node("mul", "Mul", []string{"x", "k"}, "y"),
			`node "mul" (Mul): the constant "k": shape [4] is not per channel (2 channels on axis 1 of 4); supported: one value, or one per channel`},
		{"Add that broadcasts the value", base(13).Float("k", []int64{3, 1, 1, 1}, 1, 2, 3).Node("add", "Add", []string{"x", "k"}, "y"),
			`node "add" (Add): the constant "k" [3 1 1 1] broadcasts [1 2 4 4] to [3 2 4 4]`},
		{"standalone Mul of a flattened map", base(13).Node("flat", "Flatten", []string{"x"}, "f").
			Float("k", []int64{}, 2).Node("mul", "Mul", []string{"f", "k"}, "y"),
			`node "mul" (Mul): input "f" of shape [1 32]: a per-channel affine op is folded into the Conv, Gemm or MatMul it follows, else it needs a feature map [1,C,H,W]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := tt.model.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.Load(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Quantize(m, []*onnx.Array{input(0, 1, 2, 4, 4)}, npu.DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %v", err)
			}
		})
	}
}

// A channel a zero BatchNormalization scale empties takes the scale of
// the layer's others (quant.Weights), so it does not set the layer's one
// shift: every multiplier keeps its 16-bit precision.
func TestAffineZeroScale(t *testing.T) {
	const name = "BatchNormalization with a zero scale (a pruned channel), after a Conv and alone"
	for _, c := range affineCases {
		if c.name != name {
			continue
		}
		for _, seed := range []uint64{1, 2, 3} {
			lw := lowerModel(t, npu.DefaultConfig(), c.model(newRnd(seed)), c.dims...)
			for _, l := range lw.net.Layers {
				if l.WorstRelErr > 1e-4 {
					t.Errorf("seed %d: layer %s: worst multiplier error %.2g, want at most 1e-4", seed, l.Node, l.WorstRelErr)
				}
			}
		}
		return
	}
	t.Fatalf("no case %q", name)
}

// Every affine case runs on the Go simulator of the NPU bit for bit as on
// the reference machine: the folded layers, the depthwise convolutions
// of the standalone affines, the chained adds of a Sum.
func TestAffineSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range affineCases {
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
		})
	}
}
