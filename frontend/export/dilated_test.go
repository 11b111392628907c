package export

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// dilatedPoolNets are dilated pools (frontend/lower's pool_dilated.go)
// with weights from a seed: MaxPools as shifted copies (depthwise convs
// of one weight 1), eltwise mins with the constant maps of the taps that
// read padding, eltwise maxes; the phase conv and planar pool of a
// stride that is a multiple of the dilation; a 1-D one; AveragePools as
// a depthwise conv of the spread-out window's ones, a crop, the divisor
// map's multiply.
func dilatedPoolNets(seed uint64) []opNet {
	s := func() seeded { return seeded{rand.New(rand.NewPCG(seed, 0xd11a7e))} }
	pool := func(in, out string, attrs ...[]int64) func(*onnxtest.Builder) *onnxtest.Builder {
		return func(b *onnxtest.Builder) *onnxtest.Builder {
			return b.Node("pool", "MaxPool", []string{in}, out, onnxtest.Ints("kernel_shape", attrs[0]...), onnxtest.Ints("dilations", attrs[1]...),
				onnxtest.Ints("strides", attrs[2]...), onnxtest.Ints("pads", attrs[3]...))
		}
	}
	return []opNet{
		{fmt.Sprintf("MaxPool 3x3 dilations 2 pads 2 of a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := s().conv(onnxtest.New(13).Input("x", 1, 3, 10, 10).Output("y"), "c", "x", "c1", 4, 3, 3, 1, 1)
			return pool("c1", "y", []int64{3, 3}, []int64{2, 2}, []int64{1, 1}, []int64{2, 2, 2, 2})(b)
		}, []int64{1, 3, 10, 10}, nil, []string{"conv2d1/acc", "eltwise0/min", "eltwise1/max", "eltwise3/max"}},
		{fmt.Sprintf("MaxPool 2x2 dilations 2 stride 2 of the input, then a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := pool("x", "p", []int64{2, 2}, []int64{2, 2}, []int64{2, 2}, []int64{0, 0, 0, 0})(onnxtest.New(13).Input("x", 1, 3, 9, 9).Output("y"))
			return s().conv(b, "c", "p", "y", 4, 3, 3, 1, 1)
		}, []int64{1, 3, 9, 9}, nil, []string{"conv2d0/acc", "pool0/max", "conv2d1/acc"}},
		{fmt.Sprintf("MaxPool 3x2 dilations [2,3] stride 2 pads [2,1,1,2] of a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := s().conv(onnxtest.New(13).Input("x", 1, 2, 11, 9).Output("y"), "c", "x", "c1", 3, 2, 3, 1, 1)
			return pool("c1", "y", []int64{3, 2}, []int64{2, 3}, []int64{2, 2}, []int64{2, 1, 1, 2})(b)
		}, []int64{1, 2, 11, 9}, nil, []string{"conv2d1/acc", "eltwise1/min", "eltwise2/max"}},
		{fmt.Sprintf("Relu, MaxPool 3x3 dilations 3 stride 3 pads 3, a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := onnxtest.New(13).Input("x", 1, 3, 11, 11).Output("y").Node("relu", "Relu", []string{"x"}, "r")
			b = pool("r", "p", []int64{3, 3}, []int64{3, 3}, []int64{3, 3}, []int64{3, 3, 3, 3})(b)
			return s().conv(b, "c", "p", "y", 4, 3, 3, 1, 1)
		}, []int64{1, 3, 11, 11}, nil, []string{"conv2d0/acc", "pool0/max"}},
		{fmt.Sprintf("MaxPool1d kernel 3 dilation 2 pads [2,1] of a Conv1d (seed %d)", seed), func() *onnxtest.Builder {
			r := s()
			b := onnxtest.New(13).Input("x", 1, 2, 14).Output("y").
				Float("w", []int64{3, 2, 3}, r.vals(0.6, 3, 2, 3)...).
				Node("conv", "Conv", []string{"x", "w"}, "c", onnxtest.Ints("pads", 1, 1))
			return pool("c", "y", []int64{3}, []int64{2}, []int64{1}, []int64{2, 1})(b)
		}, []int64{1, 2, 14}, nil, []string{"conv2d1/acc", "eltwise0/min", "eltwise1/max"}},
		{fmt.Sprintf("AveragePool 3x3 dilations 2 pads 2 count_include_pad 0 of a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := s().conv(onnxtest.New(13).Input("x", 1, 3, 10, 10).Output("y"), "c", "x", "c1", 4, 3, 3, 1, 1)
			return b.Node("avg", "AveragePool", []string{"c1"}, "y", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("dilations", 2, 2),
				onnxtest.Ints("pads", 2, 2, 2, 2))
		}, []int64{1, 3, 10, 10}, nil, []string{"conv2d1/acc", "eltwise0/mul"}},
		{fmt.Sprintf("AveragePool 2x2 dilations [2,3] stride 2 pads [1,0,0,2], then a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := onnxtest.New(13).Input("x", 1, 2, 9, 10).Output("y").
				Node("avg", "AveragePool", []string{"x"}, "p", onnxtest.Ints("kernel_shape", 2, 2), onnxtest.Ints("dilations", 2, 3),
					onnxtest.Ints("strides", 2, 2), onnxtest.Ints("pads", 1, 0, 0, 2))
			return s().conv(b, "c", "p", "y", 3, 2, 3, 1, 1)
		}, []int64{1, 2, 9, 10}, nil, []string{"conv2d0/acc", "conv2d1/acc", "eltwise0/mul"}},
	}
}

// Dilated pools, exported and run on ONNX Runtime, give the golden
// models' integer outputs and Net.Dequantize's floats bit for bit, for
// several seeds of weights.
func TestORTDilatedPools(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		for _, tc := range dilatedPoolNets(seed) {
			t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, cfg, tc) })
		}
	}
}
