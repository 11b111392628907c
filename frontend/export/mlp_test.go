package export

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// mlpNets are 2-layer MLPs on a [1,N] and an [N] graph input: the
// exported model reads the row (reshaping the vector) as the NPU does.
var mlpNets = []opNet{
	{"MLP on [1,N]: Gemm, Relu, Gemm, int32 output", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 12).Output("y").
			Float("w1", []int64{8, 12}, wave(70, 0.5, 8, 12)...).Float("b1", []int64{8}, wave(71, 0.1, 8)...).
			Node("fc1", "Gemm", []string{"x", "w1", "b1"}, "h", onnxtest.Int("transB", 1)).
			Node("relu", "Relu", []string{"h"}, "r").
			Float("w2", []int64{4, 8}, wave(72, 0.5, 4, 8)...).
			Node("fc2", "Gemm", []string{"r", "w2"}, "y", onnxtest.Int("transB", 1))
	}, []int64{1, 12}, []lower.Option{lower.Int32Output()}, []string{"gemm0/acc", "gemm1/acc"}},
	{"MLP on [N]: MatMul, Add, Relu, MatMul, an [M] int8 output", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 12).Output("y").
			Float("w1", []int64{12, 8}, wave(73, 0.5, 12, 8)...).Float("b1", []int64{8}, wave(74, 0.1, 8)...).
			Node("fc1", "MatMul", []string{"x", "w1"}, "h0").Node("add", "Add", []string{"h0", "b1"}, "h").
			Node("relu", "Relu", []string{"h"}, "r").
			Float("w2", []int64{8, 4}, wave(75, 0.5, 8, 4)...).
			Node("fc2", "MatMul", []string{"r", "w2"}, "y")
	}, []int64{12}, nil, []string{"x/reshape", "gemm0/acc", "gemm1/acc"}},
	{"MLP on [N]: MatMul, Relu, MatMul, an [M] int32 output", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 10).Output("y").
			Float("w1", []int64{10, 6}, wave(76, 0.5, 10, 6)...).
			Node("fc1", "MatMul", []string{"x", "w1"}, "h").
			Node("relu", "Relu", []string{"h"}, "r").
			Float("w2", []int64{6, 3}, wave(77, 0.5, 6, 3)...).
			Node("fc2", "MatMul", []string{"r", "w2"}, "y")
	}, []int64{10}, []lower.Option{lower.Int32Output()}, []string{"x/reshape", "gemm1/acc"}},
}

// MLPs on a row or vector input, exported and run on ONNX Runtime, give
// the golden models' integer outputs and Net.Dequantize's floats bit for
// bit.
func TestORTMLPs(t *testing.T) {
	node := needORT(t)
	for _, tc := range mlpNets {
		t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, npu.DefaultConfig(), tc) })
	}
}
