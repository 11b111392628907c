package export

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
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

func waveInput(phase float64, dims ...int64) *onnx.Array {
	shape := make([]int, len(dims))
	for i, d := range dims {
		shape[i] = int(d)
	}
	return &onnx.Array{Shape: shape, Data: wave(phase, 1, dims...)}
}

// convNode adds a Conv x → out with weights [co,ci,3,3], a bias, pads 1.
func convNode(b *onnxtest.Builder, name, x, out string, co, ci int64, phase float64) *onnxtest.Builder {
	return b.Float(name+".w", []int64{co, ci, 3, 3}, wave(phase, 0.5, co, ci, 3, 3)...).
		Float(name+".b", []int64{co}, wave(phase+0.5, 0.2, co)...).
		Node(name, "Conv", []string{x, name + ".w", name + ".b"}, out, onnxtest.Ints("pads", 1, 1, 1, 1))
}

// bnNode adds an inference BatchNormalization x → out of c channels
// whose scale has both signs.
func bnNode(b *onnxtest.Builder, name, x, out string, c int64, phase float64) *onnxtest.Builder {
	v := around1(wave(phase+0.3, 0.5, c)) // var 0.5..1.5
	return b.Float(name+".s", []int64{c}, wave(phase, 1.5, c)...).Float(name+".b", []int64{c}, wave(phase+0.1, 0.2, c)...).
		Float(name+".m", []int64{c}, wave(phase+0.2, 0.2, c)...).Float(name+".v", []int64{c}, v...).
		Node(name, "BatchNormalization", []string{x, name + ".s", name + ".b", name + ".m", name + ".v"}, out)
}

// around1 is 1 + v.
func around1(v []float32) []float32 {
	for i := range v {
		v[i]++
	}
	return v
}

// opNets are small float nets with the ops frontend/lower maps beyond
// mnist-7's, so that their exported forms use every translation:
// eltwise adds and standalone requantizations, average pools, sums per
// channel, transposes, clamps, int32 outputs.
var opNets = []opNet{
	{"residual Add of two feature maps, Relu, AveragePool, int32 output", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y")
		b = convNode(b, "conv1", "x", "c1", 3, 2, 16).Node("relu1", "Relu", []string{"c1"}, "r1")
		return convNode(b, "conv2", "r1", "c2", 3, 3, 17).
			Node("add", "Add", []string{"c2", "r1"}, "s").
			Node("relu2", "Relu", []string{"s"}, "r2").
			Node("avg", "AveragePool", []string{"r2"}, "p", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("pads", 1, 1, 1, 1),
				onnxtest.Ints("strides", 2, 2), onnxtest.Int("count_include_pad", 1)).
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{27, 4}, wave(18, 0.5, 27, 4)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 6, 6}, []lower.Option{lower.Int32Output()}, []string{"eltwise0/add", "pool0/sum", "gemm0/acc"}},
	{"standalone Relu and Clip, GlobalAveragePool of 10x10 as a sum, Gemm with Clip, half-even", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y").
			Node("relu", "Relu", []string{"x"}, "r").
			Float("lo", []int64{}, -0.3).Float("hi", []int64{}, 0.4)
		return convNode(b, "conv", "r", "c", 4, 2, 19).
			Node("clip", "Clip", []string{"c", "lo", "hi"}, "k").
			Node("gap", "GlobalAveragePool", []string{"k"}, "p").
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{3, 4}, wave(20, 1, 3, 4)...).Float("z", []int64{}, 0).Float("six", []int64{}, 6).
			Node("gemm", "Gemm", []string{"f", "w"}, "g", onnxtest.Int("transB", 1), onnxtest.Float("alpha", 1.5)).
			Node("relu6", "Clip", []string{"g", "z", "six"}, "y")
	}, []int64{1, 2, 10, 10}, []lower.Option{lower.WithRounding(golden.HalfEven)},
		[]string{"eltwise0/add", "conv2d0/clamp_hi", "reduce0/sum", "gemm0/clamp_hi"}},
	{"BatchNormalization, Mul, Add folded into a Conv; alone (DenseNet), a depthwise conv; Sum of three", func() *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 3, 6, 6).Output("y")
		b = bnNode(convNode(b, "conv1", "x", "c1", 4, 3, 30), "bn1", "c1", "n1", 4, 31).
			Float("k1", []int64{4, 1, 1}, around1(wave(32, 0.2, 4, 1, 1))...).Node("mul1", "Mul", []string{"n1", "k1"}, "m1").
			Float("a1", []int64{4, 1, 1}, wave(33, 0.1, 4, 1, 1)...).Node("add1", "Add", []string{"m1", "a1"}, "s1").
			Node("relu1", "Relu", []string{"s1"}, "r1").
			Node("pool", "MaxPool", []string{"r1"}, "p", onnxtest.Ints("kernel_shape", 2, 2), onnxtest.Ints("strides", 2, 2))
		b = bnNode(b, "bn2", "p", "n2", 4, 34).
			Float("k2", []int64{4, 1, 1}, around1(wave(35, 0.2, 4, 1, 1))...).Node("mul2", "Mul", []string{"n2", "k2"}, "m2").
			Float("a2", []int64{}, 0.05).Node("sub2", "Sub", []string{"m2", "a2"}, "s2").
			Node("relu2", "Relu", []string{"s2"}, "r2")
		b = convNode(b, "conv2", "r2", "c2", 4, 4, 36)
		b = convNode(b, "conv3", "r2", "c3", 4, 4, 37)
		return b.Node("sum", "Sum", []string{"c2", "c3", "p"}, "y")
	}, []int64{1, 3, 6, 6}, nil, []string{"conv2d1/acc", "eltwise0/add", "eltwise1/add"}},
	{"a ResNet bottleneck: Conv, BatchNormalization, Relu three times, the shortcut Sum, Relu", func() *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 4, 6, 6).Output("y")
		b = bnNode(convNode(b, "2a", "x", "a", 3, 4, 50), "2a_bn", "a", "an", 3, 51).Node("2a_relu", "Relu", []string{"an"}, "ar")
		b = bnNode(convNode(b, "2b", "ar", "b", 3, 3, 52), "2b_bn", "b", "bn", 3, 53).Node("2b_relu", "Relu", []string{"bn"}, "br")
		b = bnNode(convNode(b, "2c", "br", "c", 4, 3, 54), "2c_bn", "c", "cn", 4, 55)
		return b.Node("sum", "Sum", []string{"cn", "x"}, "s").Node("relu", "Relu", []string{"s"}, "y")
	}, []int64{1, 4, 6, 6}, nil, []string{"conv2d2/acc", "eltwise1/add"}},
	{"a ResNet downsampling block: 1x1 stride-2 conv and projection on one subsample", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 6, 7, 7).Output("y").
			Float("wa", []int64{5, 6, 1, 1}, wave(56, 0.5, 5, 6, 1, 1)...).Float("wp", []int64{5, 6, 1, 1}, wave(57, 0.5, 5, 6, 1, 1)...).
			Node("2a", "Conv", []string{"x", "wa"}, "a", onnxtest.Ints("strides", 2, 2)).Node("2a_relu", "Relu", []string{"a"}, "ar").
			Node("proj", "Conv", []string{"x", "wp"}, "p", onnxtest.Ints("strides", 2, 2))
		return b.Node("sum", "Add", []string{"ar", "p"}, "y")
	}, []int64{1, 6, 7, 7}, nil, []string{"pool0/max", "conv2d1/acc", "eltwise0/add"}},
	{"Gemm, BatchNormalization and a scalar Div folded, int32 output", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Node("flat", "Flatten", []string{"x"}, "f").
			Float("w", []int64{5, 32}, wave(40, 0.4, 5, 32)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "g", onnxtest.Int("transB", 1))
		return bnNode(b, "bn", "g", "n", 5, 41).
			Float("d", []int64{}, 0.7).Node("div", "Div", []string{"n", "d"}, "y")
	}, []int64{1, 2, 4, 4}, []lower.Option{lower.Int32Output()}, []string{"gemm0/acc"}},
	{"Transpose of a Gemm result", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{32, 3}, wave(29, 0.5, 32, 3)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w"}, "g").
			Node("tr", "Transpose", []string{"g"}, "y")
	}, []int64{1, 2, 4, 4}, nil, []string{"view1/transpose"}},
}

// opNet is a small float net whose export must have the nodes named.
type opNet struct {
	name  string
	model func() *onnxtest.Builder
	dims  []int64
	opts  []lower.Option
	nodes []string // nodes the export must have: the translations under test
}

// Nets with the other ops frontend/lower maps, exported and run on ONNX
// Runtime, give the golden models' integer outputs (what the NPU
// computes) and Net.Dequantize's floats bit for bit.
func TestORTOps(t *testing.T) {
	node := needORT(t)
	for _, tc := range opNets {
		t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, npu.DefaultConfig(), tc) })
	}
}

// checkORTNet lowers the net, exports it, runs it on ONNX Runtime and
// compares with the golden models' integer outputs and Net.Dequantize's
// floats bit for bit.
func checkORTNet(t *testing.T, node string, cfg npu.Config, tc opNet) {
	t.Helper()
	data, err := tc.model().Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dims := tc.dims
	xs := []*onnx.Array{waveInput(0, dims...), waveInput(1, dims...), waveInput(2, dims...)}
	net, err := lower.Quantize(m, xs, cfg, tc.opts...)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Net(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, n := range q.Graph.Node {
		names[n.GetName()] = true
	}
	for _, n := range tc.nodes {
		if !names[n] {
			t.Errorf("the export has no node %q (it has %v)", n, names)
		}
	}
	var inputs []npyArray
	for _, x := range xs {
		inputs = append(inputs, float32NPY(x.Shape, x.Data))
	}
	res := runORT(t, node, q, inputs)
	for i, x := range xs {
		g, err := net.Graph(x)
		if err != nil {
			t.Fatal(err)
		}
		checkORTOutput(t, cfg, net, g, res[i], fmt.Sprintf("input %d", i))
	}
}

// checkORTOutput wants res, ONNX Runtime's outputs of net's export on the
// input g was built on, to equal the golden models' integer output of g
// and Net.Dequantize's floats bit for bit; what names the input.
func checkORTOutput(t *testing.T, cfg npu.Config, net *lower.Net, g *compiler.Graph, res map[string]ortTensor, what string) {
	t.Helper()
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := ref[net.Output()]
	if d := cmp.Diff(want.Data, ints(res[RawOutput(net)].Data)); d != "" {
		t.Errorf("%s: %s (-golden +ONNX Runtime):\n%s", what, RawOutput(net), d)
		return
	}
	deq, err := net.Dequantize(want)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(bits32(deq.Data), bits32(floats32(res[net.Output()].Data))); d != "" {
		t.Errorf("%s: float output bits (-Net.Dequantize +ONNX Runtime):\n%s", what, d)
	}
}
