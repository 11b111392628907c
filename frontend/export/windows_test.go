package export

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// padNets are Pads of zeros folded into the window reading them: into a
// Conv's padding (uneven: a larger padding and a crop), an average's
// (the Pad's zeros in its divisor), a max pool's zero padding (golden.
// PadZero: exported as a Pad before the MaxPool); 1-D windows as 1×k;
// a dilated Conv as the Conv of its spread-out weights.
var windowNets = []opNet{
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
	{"Pad [0,0,0,0,0,0,1,1], MaxPool 3x3 stride 2 of a signed value: zero padding, uneven: a crop", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 8, 8).Output("y").Int64("p", []int64{8}, 0, 0, 0, 0, 0, 0, 1, 1).
			Node("pad", "Pad", []string{"x", "p"}, "xp").
			Node("pool", "MaxPool", []string{"xp"}, "y", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("strides", 2, 2))
	}, []int64{1, 2, 8, 8}, nil, []string{"pool0/zeros", "pool0/max", "conv2d0/acc"}},
	{"Pad with axes [2,3] (opset 18), AveragePool 3x3 pads 1 count_include_pad 0", func() *onnxtest.Builder {
		return onnxtest.New(18).Input("x", 1, 2, 6, 6).Output("y").Int64("p", []int64{4}, 1, 0, 0, 1).Int64("a", []int64{2}, 2, 3).
			Node("pad", "Pad", []string{"x", "p", "", "a"}, "xp").
			Node("pool", "AveragePool", []string{"xp"}, "y", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("pads", 1, 1, 1, 1))
	}, []int64{1, 2, 6, 6}, nil, []string{"pool0/sum"}},
	{"1-D: Conv1d stride 2 pads [2,1], Relu, MaxPool1d, AvgPool1d count_include_pad 0, a [1,C,L] output", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 21).Output("y").
			Float("w", []int64{3, 2, 5}, wave(61, 0.5, 3, 2, 5)...).Float("b", []int64{3}, wave(62, 0.2, 3)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "c", onnxtest.Ints("strides", 2), onnxtest.Ints("pads", 2, 1)).
			Node("relu", "Relu", []string{"c"}, "r").
			Node("max", "MaxPool", []string{"r"}, "m", onnxtest.Ints("kernel_shape", 2), onnxtest.Ints("strides", 1)).
			Node("avg", "AveragePool", []string{"m"}, "y", onnxtest.Ints("kernel_shape", 3), onnxtest.Ints("pads", 1, 1))
	}, []int64{1, 2, 21}, nil, []string{"conv2d0/acc", "conv2d1/acc", "pool0/max", "pool1/sum"}},
	{"Conv 3x3 dilations [2,3] pads [2,3,2,3], group 2: spread-out weights", func() *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 4, 9, 11).Output("y").
			Float("w", []int64{4, 2, 3, 3}, wave(63, 0.5, 4, 2, 3, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", onnxtest.Ints("dilations", 2, 3), onnxtest.Ints("pads", 2, 3, 2, 3),
				onnxtest.Int("group", 2))
	}, []int64{1, 4, 9, 11}, nil, []string{"conv2d0/acc"}},
}

// Nets with Pads folded and 1-D windows, exported and run on ONNX Runtime, give the
// golden models' integer outputs and Net.Dequantize's floats bit for bit.
func TestORTWindows(t *testing.T) {
	node := needORT(t)
	for _, tc := range windowNets {
		t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, npu.DefaultConfig(), tc) })
	}
}
