package export

import (
	"fmt"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// fnNets are small float nets with the nonlinear functions frontend/lower
// maps onto the planar engine's lookup table, softmax and LRN.
var fnNets = []struct {
	name  string
	model func() *onnxtest.Builder
	dims  []int64
	opts  []lower.Option
	nodes []string
}{
	{"every table activation after a Conv", func() *onnxtest.Builder {
		b := onnxtest.New(14).Input("x", 1, 2, 5, 5).Output("y")
		acts := []struct {
			op    string
			attrs []any
		}{{"Sigmoid", nil}, {"Tanh", nil}, {"Exp", nil}, {"HardSigmoid", nil}, {"HardSwish", nil}, {"Elu", nil}, {"LeakyRelu", nil}}
		x := "x"
		for i, a := range acts {
			c, y := fmt.Sprintf("c%d", i), fmt.Sprintf("a%d", i)
			if i == len(acts)-1 {
				y = "y"
			}
			b = convNode(b, fmt.Sprintf("conv%d", i), x, c, 2, 2, float64(40+i))
			b = b.Node(a.op, a.op, []string{c}, y)
			x = y
		}
		return b
	}, []int64{1, 2, 5, 5}, nil, []string{"lookup0/gather", "lookup6/gather"}},
	{"Gemm, Sigmoid, Gemm, HardSwish (lookups of a matrix)", func() *onnxtest.Builder {
		return onnxtest.New(14).Input("x", 1, 2, 4, 4).Output("y").
			Float("w1", []int64{32, 20}, wave(67, 0.5, 32, 20)...).Float("w2", []int64{20, 7}, wave(68, 0.8, 20, 7)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm1", "Gemm", []string{"f", "w1"}, "g1").
			Node("sigmoid", "Sigmoid", []string{"g1"}, "s").
			Node("gemm2", "Gemm", []string{"s", "w2"}, "g2").
			Node("hswish", "HardSwish", []string{"g2"}, "y")
	}, []int64{1, 2, 4, 4}, nil, []string{"lookup0/gather", "lookup1/gather"}},
	{"LeakyRelu, Elu, HardSigmoid with attributes", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y")
		b = convNode(b, "conv", "x", "c", 3, 2, 50).
			Node("leaky", "LeakyRelu", []string{"c"}, "l", onnxtest.Float("alpha", 0.2)).
			Node("elu", "Elu", []string{"l"}, "e", onnxtest.Float("alpha", 0.5))
		return b.Node("hs", "HardSigmoid", []string{"e"}, "y", onnxtest.Float("alpha", 0.4), onnxtest.Float("beta", 0.3))
	}, []int64{1, 2, 5, 5}, nil, []string{"lookup2/gather"}},
	{"Gemm, Softmax over 1000 (int32 output asked for)", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{32, 1000}, wave(60, 0.5, 32, 1000)...).Float("c", []int64{1000}, wave(61, 0.3, 1000)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w", "c"}, "g").
			Node("softmax", "Softmax", []string{"g"}, "y")
	}, []int64{1, 2, 4, 4}, []lower.Option{lower.Int32Output()}, []string{"transpose0/transpose", "reduce1/recip", "lookup0/gather", "eltwise1/mul"}},
	{"Conv, GlobalAveragePool, Softmax (opset 9)", func() *onnxtest.Builder {
		b := onnxtest.New(9).Input("x", 1, 2, 5, 5).Output("y")
		return convNode(b, "conv", "x", "c", 12, 2, 62).
			Node("gap", "GlobalAveragePool", []string{"c"}, "g").
			Node("softmax", "Softmax", []string{"g"}, "y")
	}, []int64{1, 2, 5, 5}, nil, []string{"view0/reshape", "transpose0/transpose", "reduce1/recip"}},
	{"Conv of 40 channels, GlobalAveragePool of 10x10 (a reduce), Softmax (opset 11)", func() *onnxtest.Builder {
		b := onnxtest.New(11).Input("x", 1, 2, 10, 10).Output("y")
		return convNode(b, "conv", "x", "c", 40, 2, 66).
			Node("gap", "GlobalAveragePool", []string{"c"}, "g").
			Node("softmax", "Softmax", []string{"g"}, "y")
	}, []int64{1, 2, 10, 10}, nil, []string{"transpose0/transpose", "reduce2/recip"}},
	{"ReduceSum over the plane, Reciprocal", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y").Int64("axes", []int64{2}, 2, 3)
		return convNode(b, "conv", "x", "c", 3, 2, 63).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("sum", "ReduceSum", []string{"r", "axes"}, "s").
			Node("recip", "Reciprocal", []string{"s"}, "y")
	}, []int64{1, 2, 5, 5}, nil, []string{"reduce0/recip"}},
	{"Conv, LRN (ZFNet's), Relu, LRN (size 3, defaults)", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y")
		return convNode(b, "conv", "x", "c", 6, 2, 64).
			Node("lrn1", "LRN", []string{"c"}, "l", onnxtest.Int("size", 5), onnxtest.Float("alpha", 5e-4), onnxtest.Float("bias", 2)).
			Node("relu", "Relu", []string{"l"}, "r").
			Node("lrn2", "LRN", []string{"r"}, "y", onnxtest.Int("size", 3), onnxtest.Float("alpha", 0.5))
	}, []int64{1, 2, 5, 5}, nil, []string{"conv2d1/acc", "lookup1/gather", "eltwise3/mul"}},
	{"PRelu per channel, then PRelu of one slope", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 5, 5).Output("y").
			Float("slope", []int64{4, 1, 1}, 0.25, -1.5, 0, 2).Float("one", []int64{1}, 0.1)
		return convNode(b, "conv", "x", "c", 4, 2, 65).
			Node("prelu", "PRelu", []string{"c", "slope"}, "p").
			Node("prelu1", "PRelu", []string{"p", "one"}, "y")
	}, []int64{1, 2, 5, 5}, nil, []string{"conv2d1/acc", "eltwise2/add", "lookup0/gather"}},
}

// The nets of fnNets, exported and run on ONNX Runtime, give the
// reference machine's integer outputs and Net.Dequantize's floats bit
// for bit.
func TestORTFunctions(t *testing.T) {
	node := needORT(t)
	for _, tc := range fnNets {
		t.Run(tc.name, func(t *testing.T) {
			checkORTNet(t, node, npu.DefaultConfig(), opNet{tc.name, tc.model, tc.dims, tc.opts, tc.nodes})
		})
	}
}
