package export

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// splitNets split a map along its channels: each part a 1×1 conv of 0/1
// weights on the NPU, ConvInteger in the export.
var splitNets = []opNet{
	{"Split [2,3] (opset 13), the parts concatenated in the other order", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 5, 4, 4).Output("y").Int64("s", []int64{2}, 2, 3).
			NodeN("split", "Split", []string{"x", "s"}, []string{"a", "b"}, onnxtest.Int("axis", 1)).
			Node("cat", "Concat", []string{"b", "a"}, "y", onnxtest.Int("axis", 1))
	}, []int64{1, 5, 4, 4}, nil, []string{"conv2d0/acc", "conv2d1/acc"}},
	{"a ShuffleNet v2 unit: Split in halves (opset 18 num_outputs), Conv and Relu on one, Concat", func() *onnxtest.Builder {
		return onnxtest.New(18).Input("x", 1, 6, 5, 5).Output("y").
			NodeN("split", "Split", []string{"x"}, []string{"a", "b"}, onnxtest.Int("axis", 1), onnxtest.Int("num_outputs", 2)).
			Float("w", []int64{3, 3, 1, 1}, wave(90, 0.6, 3, 3, 1, 1)...).
			Node("conv", "Conv", []string{"b", "w"}, "c").
			Node("relu", "Relu", []string{"c"}, "r").
			Node("cat", "Concat", []string{"a", "r"}, "y", onnxtest.Int("axis", 1))
	}, []int64{1, 6, 5, 5}, nil, []string{"conv2d0/acc", "conv2d2/acc"}},
}

// Nets with a Split along channels, exported and run on ONNX Runtime,
// give the golden models' integer outputs and Net.Dequantize's floats
// bit for bit.
func TestORTSplits(t *testing.T) {
	node := needORT(t)
	for _, tc := range splitNets {
		t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, npu.DefaultConfig(), tc) })
	}
}
