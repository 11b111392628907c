package export

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// padNets are Pads of zeros folded into the window reading them: into a
// Conv's padding (uneven: a larger padding and a crop), an average's
// (the Pad's zeros in its divisor), a max pool's zero padding (golden.
// PadZero: exported as a Pad before the MaxPool).
var padNets = []opNet{
	{"Pad [0,0,0,0,0,0,1,1], Conv 3x3 stride 2: uneven, a crop", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 8, 8).Output("y").Int64("p", []int64{8}, 0, 0, 0, 0, 0, 0, 1, 1).
			Float("w", []int64{3, 2, 3, 3}, wave(60, 0.5, 3, 2, 3, 3)...).
			Node("pad", "Pad", []string{"x", "p"}, "xp").
			Node("conv", "Conv", []string{"xp", "w"}, "y", onnxtest.Ints("strides", 2, 2))
	}, []int64{1, 2, 8, 8}, nil, []string{"conv2d0/acc", "conv2d1/acc"}},
	{"Pad [0,0,1,1,0,0,1,1], MaxPool 3x3 stride 2 of a signed value: zero padding", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 3, 7, 7).Output("y").Int64("p", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1).
			Node("pad", "Pad", []string{"x", "p"}, "xp").
			Node("pool", "MaxPool", []string{"xp"}, "y", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("strides", 2, 2))
	}, []int64{1, 3, 7, 7}, nil, []string{"pool0/zeros", "pool0/max"}},
	{"Pad with axes [2,3] (opset 18), AveragePool 3x3 pads 1 count_include_pad 0", func() *onnxtest.Builder {
		return onnxtest.New(18).Input("x", 1, 2, 6, 6).Output("y").Int64("p", []int64{4}, 1, 0, 0, 1).Int64("a", []int64{2}, 2, 3).
			Node("pad", "Pad", []string{"x", "p", "", "a"}, "xp").
			Node("pool", "AveragePool", []string{"xp"}, "y", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 6, 6}, nil, []string{"pool0/sum"}},
}

// Nets with Pads folded, exported and run on ONNX Runtime, give the
// golden models' integer outputs and Net.Dequantize's floats bit for bit.
func TestORTPads(t *testing.T) {
	node := needORT(t)
	for _, tc := range padNets {
		t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, npu.DefaultConfig(), tc) })
	}
}
