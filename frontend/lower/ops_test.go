package lower

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
)

// wave is a deterministic float tensor with values in ±scale; phase
// makes different ones.
func wave(phase, scale float64, dims ...int64) []float32 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * math.Sin(float64(3*i+1)+phase))
	}
	return v
}

// posWave is a wave shifted to (0, scale]: weights of a final layer that
// add up rather than cancel. A layer whose outputs cancel to a small
// fraction of its inputs' range gets a fine output scale, and the earlier
// layers' roundings, in units of their coarser scales, then count as many
// output steps: the bounds below would say nothing about the op under test.
func posWave(phase, scale float64, dims ...int64) []float32 {
	v := wave(phase, scale/2, dims...)
	for i := range v {
		v[i] += float32(scale / 2)
	}
	return v
}

// input is a wave as the graph input [1,C,H,W].
func input(phase float64, dims ...int64) *onnx.Array {
	shape := make([]int, len(dims))
	for i, d := range dims {
		shape[i] = int(d)
	}
	return &onnx.Array{Shape: shape, Data: wave(phase, 1, dims...)}
}

func loadModel(t *testing.T, b *onnxtest.Builder) *onnx.Model {
	t.Helper()
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(onnx.FloatOps); err != nil {
		t.Fatal(err)
	}
	return m
}

// lowered is a model quantized and compiled for one input.
type lowered struct {
	net   *Net
	g     *compiler.Graph
	prog  *compiler.Program
	float *onnx.Array // the float executor's output
}

// lowerModel calibrates on the input and two other waves, lowers, compiles.
func lowerModel(t *testing.T, cfg npu.Config, b *onnxtest.Builder, dims ...int64) lowered {
	t.Helper()
	m := loadModel(t, b)
	x := input(0, dims...)
	float, err := m.Graph.Run(map[string]*onnx.Array{m.Graph.Inputs[0].Name: x})
	if err != nil {
		t.Fatal(err)
	}
	net, err := Quantize(m, []*onnx.Array{x, input(1, dims...), input(2, dims...)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	return lowered{net, g, p, float[net.Output()]}
}

var (
	i64   = onnxtest.Int
	oints = onnxtest.Ints
	flt   = onnxtest.Float
)

// conv adds a Conv node x → out with weights [co,ci,3,3] and a bias,
// padding 1.
func conv(b *onnxtest.Builder, name, x, out string, co, ci int64, phase float64) *onnxtest.Builder {
	return b.Float(name+".w", []int64{co, ci, 3, 3}, wave(phase, 0.5, co, ci, 3, 3)...).
		Float(name+".b", []int64{co}, wave(phase+0.5, 0.2, co)...).
		Node(name, "Conv", []string{x, name + ".w", name + ".b"}, out, oints("pads", 1, 1, 1, 1))
}

// opCases are small nets, one per op or pattern the lowering maps beyond
// mnist-7's, each with the largest |int8 − float| of its output allowed,
// in output steps. Half a step is the output's own rounding; every int8
// rounding before it (input, weights, each activation, an operand's
// rescaling) adds up to half a step of its own scale, carried through the
// layers after it: 1 step for a chain like mnist-7's, 1.5 with a rescaled
// residual operand or a standalone requantization in the chain.
var opCases = []struct {
	name  string
	model func() *onnxtest.Builder
	dims  []int64
	steps float64
}{
	{"Gemm transB alpha beta, Clip inputs (ReLU6)", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{5, 32}, wave(3, 0.6, 5, 32)...).Float("c", []int64{5}, wave(4, 1, 5)...).
			Float("lo", []int64{}, 0).Float("hi", []int64{}, 6).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w", "c"}, "g", i64("transB", 1), flt("alpha", 1.5), flt("beta", 2)).
			Node("relu6", "Clip", []string{"g", "lo", "hi"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"Conv, Clip attributes (opset 10), GlobalAveragePool as a pool, Gemm", func() *onnxtest.Builder {
		b := onnxtest.New(10).Input("x", 1, 2, 6, 6).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 5).
			Node("clip", "Clip", []string{"c"}, "k", flt("min", 0), flt("max", 1)).
			Node("gap", "GlobalAveragePool", []string{"k"}, "p").
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{4, 3}, wave(6, 1, 4, 3)...).Float("c0", []int64{1, 3}, wave(7, 0.3, 1, 3)...).
			Node("gemm", "Gemm", []string{"f", "w", "c0"}, "y")
	}, []int64{1, 2, 6, 6}, 1.5},
	{"GlobalAveragePool of a 10x10 plane as a reduce", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 8).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("gap", "GlobalAveragePool", []string{"r"}, "p").
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{3, 4}, posWave(9, 1, 3, 4)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 10, 10}, 1.5},
	{"Abs of a conv result", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 19).
			Node("abs", "Abs", []string{"c"}, "a").
			Node("flat", "Flatten", []string{"a"}, "f").
			Float("w", []int64{64, 3}, wave(20, 0.5, 64, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Neg of a conv result", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 19).
			Node("neg", "Neg", []string{"c"}, "a").
			Node("flat", "Flatten", []string{"a"}, "f").
			Float("w", []int64{64, 3}, wave(25, 0.5, 64, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"AveragePool 2x2 stride 2", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 10).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("avg", "AveragePool", []string{"r"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2)).
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{16, 3}, posWave(11, 0.5, 16, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"AveragePool 3x3 pads 1 count_include_pad 1 on the input", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Node("avg", "AveragePool", []string{"x"}, "p", oints("kernel_shape", 3, 3), oints("pads", 1, 1, 1, 1), i64("count_include_pad", 1)).
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{32, 3}, wave(12, 0.5, 32, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"x.view(x.size(0), -1) folded", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 2, 2, 13).
			Node("relu", "Relu", []string{"c"}, "r").
			Int64("zero", []int64{}, 0).Int64("axes", []int64{1}, 0).Int64("m1", []int64{1}, -1).
			Node("shape", "Shape", []string{"r"}, "s").
			Node("gather", "Gather", []string{"s", "zero"}, "n").
			Node("unsq", "Unsqueeze", []string{"n", "axes"}, "n1").
			Node("cat", "Concat", []string{"n1", "m1"}, "shp", i64("axis", 0)).
			Node("view", "Reshape", []string{"r", "shp"}, "f").
			Float("w", []int64{3, 32}, wave(14, 0.5, 3, 32)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 4, 4}, 1},
	{"Transpose of weights folded, of the data a matrix transpose", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("wt", []int64{3, 32}, wave(15, 0.5, 3, 32)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("tw", "Transpose", []string{"wt"}, "w").
			Node("fc", "MatMul", []string{"f", "w"}, "m").
			Node("tr", "Transpose", []string{"m"}, "y", oints("perm", 1, 0))
	}, []int64{1, 2, 4, 4}, 1},
	{"residual Add of two feature maps, Relu after it", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 16).Node("relu1", "Relu", []string{"c1"}, "r1")
		return conv(b, "conv2", "r1", "c2", 2, 2, 17).
			Node("add", "Add", []string{"c2", "r1"}, "s").
			Node("relu2", "Relu", []string{"s"}, "r2").
			Node("flat", "Flatten", []string{"r2"}, "f").
			Float("w", []int64{32, 3}, wave(18, 0.5, 32, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"standalone Relu and Clip", func() *onnxtest.Builder {
		b := onnxtest.New(10).Input("x", 1, 2, 4, 4).Output("y").
			Node("relu", "Relu", []string{"x"}, "r")
		return conv(b, "conv", "r", "c", 2, 2, 19).
			Node("pool", "MaxPool", []string{"c"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2)).
			Node("clip", "Clip", []string{"p"}, "k", flt("min", -0.3), flt("max", 0.4)).
			Node("flat", "Flatten", []string{"k"}, "f").
			Float("w", []int64{8, 3}, wave(20, 0.5, 8, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Flatten of a Gemm result (nothing to do), then its Transpose", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{32, 3}, wave(29, 0.5, 32, 3)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w"}, "g").
			Node("flat2", "Flatten", []string{"g"}, "g2").
			Node("tr", "Transpose", []string{"g2"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"Squeeze after GlobalAveragePool, then Gemm", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 24).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("gap", "GlobalAveragePool", []string{"r"}, "p").
			Int64("axes", []int64{2}, 2, 3).
			Node("sq", "Squeeze", []string{"p", "axes"}, "f").
			Float("w", []int64{3, 4}, posWave(25, 1, 3, 4)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 4, 4}, 1.5},
	{"1x1 Conv classifier after GlobalAveragePool", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y")
		return conv(b, "conv", "x", "c", 4, 2, 26).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("gap", "GlobalAveragePool", []string{"r"}, "p").
			Float("w1", []int64{3, 4, 1, 1}, posWave(27, 1, 3, 4, 1, 1)...).
			Node("cls", "Conv", []string{"p", "w1"}, "k").
			Node("flat", "Flatten", []string{"k"}, "y")
	}, []int64{1, 2, 6, 6}, 1.5},
	{"ReduceSum, Sqrt fused, then a standalone Reciprocal: 1/‖x‖ per channel", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").Node("abs", "Abs", []string{"x"}, "a").
			Int64("axes", []int64{2}, 2, 3).
			Node("sum", "ReduceSum", []string{"a", "axes"}, "s").
			Node("sqrt", "Sqrt", []string{"s"}, "n").
			Node("recip", "Reciprocal", []string{"n"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Max of two feature maps, ReduceMax across rows with Sqrt fused", func() *onnxtest.Builder {
		b := onnxtest.New(18).Input("x", 1, 2, 4, 5).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 70).Node("relu1", "Relu", []string{"c1"}, "r1")
		return conv(b, "conv2", "r1", "c2", 2, 2, 71).
			Node("max", "Max", []string{"c2", "r1"}, "m").
			Int64("axes", []int64{1}, 2).
			Node("rmax", "ReduceMax", []string{"m", "axes"}, "s").
			Node("sqrt", "Sqrt", []string{"s"}, "y")
	}, []int64{1, 2, 4, 5}, 1.5},
	{"GlobalMaxPool of a 10x10 plane as a reduce max, Flatten, Gemm", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y")
		return conv(b, "conv", "x", "c", 3, 2, 72).
			Node("gmp", "GlobalMaxPool", []string{"c"}, "p").
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{2, 3}, posWave(73, 1, 2, 3)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 10, 10}, 1.5},
	{"ReduceMax over a 6x6 plane as a max pool, then a 1x1 Conv", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y")
		return conv(b, "conv", "x", "c", 3, 2, 74).
			Node("rmax", "ReduceMax", []string{"c"}, "p", oints("axes", 2, 3)).
			Float("w1", []int64{2, 3, 1, 1}, posWave(75, 1, 2, 3, 1, 1)...).
			Node("cls", "Conv", []string{"p", "w1"}, "y")
	}, []int64{1, 2, 6, 6}, 1.5},
}

// Each op beyond mnist-7's lowers and runs on the reference machine bit
// for bit the golden models, and its dequantized output is within the
// case's steps of the float executor's.
func TestOpsLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range opCases {
		t.Run(tt.name, func(t *testing.T) { checkLowered(t, cfg, tt.model(), tt.steps, tt.dims...) })
	}
}

// checkLowered lowers the model, runs it on the reference machine and
// checks it bit for bit against the golden models, and its dequantized
// output within steps output steps of the float executor's.
func checkLowered(t *testing.T, cfg npu.Config, model *onnxtest.Builder, steps float64, dims ...int64) {
	t.Helper()
	checkLoweredWithin(t, cfg, model, func(*Net) float64 { return steps }, dims...)
}

// checkLoweredWithin is checkLowered with the bound computed from the
// lowered net (its scales).
func checkLoweredWithin(t *testing.T, cfg npu.Config, model *onnxtest.Builder, bound func(*Net) float64, dims ...int64) {
	t.Helper()
	lw := lowerModel(t, cfg, model, dims...)
	steps := bound(lw.net)
	got, _, err := compiler.Interpret(lw.prog)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := lw.g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := lw.net.Output()
	if d := cmp.Diff(ref[out], got[out]); d != "" {
		t.Fatalf("reference machine vs golden models (-golden +machine):\n%s", d)
	}
	deq, err := lw.net.Dequantize(got[out])
	if err != nil {
		t.Fatal(err)
	}
	step := lw.net.OutputScale()
	var worst float64
	for i, v := range lw.float.Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-v))/step)
	}
	t.Logf("%s; int8 %v; max |int8 − float| = %.2f output steps of %.4g", lw.prog.Summary(), got[out].Data, worst, step)
	if worst > steps {
		t.Errorf("max |int8 − float| = %.2f output steps, more than %.1f\n int8 %v\nfloat %v", worst, steps, deq.Data, lw.float.Data)
	}
}

// Every net of opCases runs on the Go simulator of the NPU bit for bit as
// on the reference machine: the planar engine's average pool, reduce,
// eltwise, requantization with clamp and the transposes, as the compiler
// emits them for these ops.
func TestOpsLoweredSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range opCases {
		t.Run(tt.name, func(t *testing.T) {
			lw := lowerModel(t, cfg, tt.model(), tt.dims...)
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

// A net of Conv, ReLU6 (Clip), GlobalAveragePool, Gemm with a Clip and a
// Transpose runs on the Go simulator of the NPU bit for bit as on the
// reference machine.
func TestOpsSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y").
		Float("zero", []int64{}, 0).Float("six", []int64{}, 6).Float("one", []int64{}, 1)
	b = conv(b, "conv", "x", "c", 4, 2, 21).
		Node("relu6", "Clip", []string{"c", "zero", "six"}, "k").
		Node("gap", "GlobalAveragePool", []string{"k"}, "p").
		Node("flat", "Flatten", []string{"p"}, "f").
		Float("w", []int64{5, 4}, wave(22, 1, 5, 4)...).Float("c0", []int64{5}, wave(23, 0.3, 5)...).
		Node("gemm", "Gemm", []string{"f", "w", "c0"}, "g", i64("transB", 1), flt("alpha", 0.5)).
		Node("clip", "Clip", []string{"g", "", "one"}, "h").
		Node("tr", "Transpose", []string{"h"}, "y")
	lw := lowerModel(t, cfg, b, 1, 2, 6, 6)
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
	if d := cmp.Diff([]int{5, 1}, res.Outputs[out].Shape); d != "" {
		t.Errorf("output shape (-want +got):\n%s", d)
	}
	t.Logf("%s: %s; y %v", lw.prog.Summary(), res.Summary(), res.Outputs[out].Data)
}

// The planar engine divides a window sum by n through its post-processor:
// out = floor((sum·Scale + 2^(Shift−1))/2^Shift) with Scale/2^Shift ≈
// sx/(sy·n). Over every sum n int8 values can have, this measures how
// often that differs from the exactly rounded quotient round(sum·sx/(sy·n))
// and by how much: never by more than 1.
func TestAverageDivision(t *testing.T) {
	l := &lowering{cfg: npu.DefaultConfig(), net: &Net{}}
	for _, tt := range []struct {
		n      int
		sx, sy float64
	}{{4, 1, 1}, {9, 1, 1}, {9, 0.05, 0.03}, {36, 0.02, 0.011}, {49, 1, 1}, {100, 0.3, 0.1}} {
		q, err := l.rescale("avg", tt.sx, tt.sy, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		m := tt.sx / (tt.sy * float64(tt.n))
		var differ, total int
		var worst int64
		for sum := int64(-127 * tt.n); sum <= int64(127*tt.n); sum++ {
			got := q.Apply(sum, golden.S(8))
			want := int64(max(min(math.Floor(float64(sum)*m+0.5), 127), -128))
			if d := got - want; d != 0 {
				differ++
				worst = max(worst, d, -d)
			}
			total++
		}
		t.Logf("n %3d, M %.6f ≈ %d/2^%d: %d of %d sums (%.3f%%) differ from the exact rounding, by at most %d",
			tt.n, m, q.Scale, q.Shift, differ, total, 100*float64(differ)/float64(total), worst)
		if worst > 1 {
			t.Errorf("n %d: a quotient is %d off the exact rounding", tt.n, worst)
		}
	}
}

// What the lowering cannot map is one error line naming the node, the op
// and what is supported.
func TestOpsErrors(t *testing.T) {
	base := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"Gemm transA", base().Float("w", []int64{1, 3}, wave(0, 1, 1, 3)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transA", 1)),
			`node "gemm" (Gemm): transA 1: only 0 is supported`},
		{"Transpose of a feature map", base().Node("t", "Transpose", []string{"x"}, "y", oints("perm", 0, 1, 3, 2)),
			`node "t" (Transpose): perm [0 1 3 2] of a [1 2 4 4] value: only the transpose of a matrix (rank 2, perm [1 0])`},
		{"Transpose of a flattened feature map", base().Node("flat", "Flatten", []string{"x"}, "f").
			Node("tr", "Transpose", []string{"f"}, "y"),
			`node "tr" (Transpose): input "f" is not the result of a Gemm or MatMul: only those are transposed on the data path`},
		{"Add broadcast", base().Float("w", []int64{2, 2, 3, 3}, wave(0, 1, 2, 2, 3, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "c").
			Node("gap", "GlobalAveragePool", []string{"x"}, "p").
			Node("add", "Add", []string{"c", "p"}, "y"),
			`node "add" (Add): shapes [1 2 2 2] and [1 2 1 1]: only the Add of two values of one shape`},
		{"Conv after a GlobalAveragePool reduced to a vector", onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y").
			Float("w", []int64{3, 2, 1, 1}, wave(0, 1, 3, 2, 1, 1)...).
			Node("gap", "GlobalAveragePool", []string{"x"}, "p").
			Node("cls", "Conv", []string{"p", "w"}, "y"),
			`node "gap" (GlobalAveragePool): the plane 10x10 is wider than max_kernel = 8, so it is summed per channel into a vector, which "cls" (Conv) cannot read`},
		{"Clip bound computed", base().Float("w", []int64{1, 2, 3, 3}, wave(0, 1, 1, 2, 3, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "c").
			Node("gap", "GlobalAveragePool", []string{"c"}, "m").
			Node("clip", "Clip", []string{"c", "", "m"}, "y"),
			`node "clip" (Clip): bound "m" depends on the data; supported: constant bounds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}

// checkRefused quantizes the model and wants one error line containing
// want.
func checkRefused(t *testing.T, model *onnxtest.Builder, want string) {
	t.Helper()
	data, err := model.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var dims []int64
	for _, d := range m.Graph.Inputs[0].Shape {
		dims = append(dims, d.Size)
	}
	_, err = Quantize(m, []*onnx.Array{input(0, dims...)}, npu.DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %v", err)
	}
}
