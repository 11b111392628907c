package export

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// seeded is a source of random weights, uniform in ±scale.
type seeded struct{ r *rand.Rand }

func (s seeded) vals(scale float64, dims ...int64) []float32 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * (2*s.r.Float64() - 1))
	}
	return v
}

// conv adds a Conv x → out, weights [co, ci/group, k, k], a bias, pads
// k/2, the stride and group given.
func (s seeded) conv(b *onnxtest.Builder, name, x, out string, co, ci, k, stride, group int64) *onnxtest.Builder {
	return b.Float(name+".w", []int64{co, ci / group, k, k}, s.vals(0.6, co, ci/group, k, k)...).
		Float(name+".b", []int64{co}, s.vals(0.1, co)...).
		Node(name, "Conv", []string{x, name + ".w", name + ".b"}, out, onnxtest.Ints("pads", k/2, k/2, k/2, k/2),
			onnxtest.Ints("strides", stride, stride), onnxtest.Int("group", group))
}

// moveNets are nets of Concat, grouped and depthwise Conv and the channel
// shuffle, with weights from a seed.
func moveNets(seed uint64) []opNet {
	s := func() seeded { return seeded{rand.New(rand.NewPCG(seed, 0xe4b047))} }
	return []opNet{
		{fmt.Sprintf("Concat of a Relu'd conv, a rescaled conv read twice and a max pool (seed %d)", seed), func() *onnxtest.Builder {
			r := s()
			b := onnxtest.New(13).Input("x", 1, 3, 6, 6).Output("y")
			b = r.conv(b, "a", "x", "ca", 4, 3, 3, 1, 1).Node("ra", "Relu", []string{"ca"}, "pa")
			b = r.conv(b, "b", "x", "pb", 5, 3, 1, 1, 1)
			b = b.Node("mp", "MaxPool", []string{"x"}, "pc", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("pads", 1, 1, 1, 1)).
				Node("cat", "Concat", []string{"pa", "pb", "pc"}, "cat", onnxtest.Int("axis", 1))
			b = r.conv(b, "c", "cat", "cc", 5, 12, 3, 1, 1)
			return b.Node("add", "Add", []string{"cc", "pb"}, "y")
		}, []int64{1, 3, 6, 6}, nil, []string{"concat0/concat", "eltwise0/add"}},
		{fmt.Sprintf("grouped convs: group 2, group 4 1x1, depthwise stride 2 (seed %d)", seed), func() *onnxtest.Builder {
			r := s()
			b := onnxtest.New(13).Input("x", 1, 4, 8, 8).Output("y")
			b = r.conv(b, "g2", "x", "c1", 8, 4, 3, 1, 2).Node("r1", "Relu", []string{"c1"}, "p1")
			b = r.conv(b, "g4", "p1", "c2", 8, 8, 1, 1, 4).Node("r2", "Relu", []string{"c2"}, "p2")
			return r.conv(b, "dw", "p2", "y", 8, 8, 3, 2, 8)
		}, []int64{1, 4, 8, 8}, nil, []string{"conv2d0/acc", "conv2d2/acc"}},
		{fmt.Sprintf("channel shuffles, into a depthwise conv and as the output (seed %d)", seed), func() *onnxtest.Builder {
			r := s()
			b := onnxtest.New(13).Input("x", 1, 4, 6, 6).Output("y").
				Int64("s5", []int64{5}, 1, 2, 6, 6, 6).Int64("s4", []int64{4}, 1, 12, 6, 6).
				Int64("t5", []int64{5}, 1, 3, 4, 6, 6)
			b = r.conv(b, "g", "x", "c1", 12, 4, 1, 1, 2).Node("r1", "Relu", []string{"c1"}, "p1").
				Node("re1", "Reshape", []string{"p1", "s5"}, "q1").
				Node("tr1", "Transpose", []string{"q1"}, "q2", onnxtest.Ints("perm", 0, 2, 1, 3, 4)).
				Node("re2", "Reshape", []string{"q2", "s4"}, "sh1")
			return r.conv(b, "dw", "sh1", "c2", 12, 12, 3, 1, 12).
				Node("re3", "Reshape", []string{"c2", "t5"}, "q3").
				Node("tr2", "Transpose", []string{"q3"}, "q4", onnxtest.Ints("perm", 0, 2, 1, 3, 4)).
				Node("re4", "Reshape", []string{"q4", "s4"}, "y")
		}, []int64{1, 4, 6, 6}, nil, []string{"permute0/gather", "permute1/gather"}},
	}
}

// poolNets are pools with asymmetric pads and count_include_pad 0, with
// weights from a seed: the planar pool, its crop (a depthwise conv) and
// the divisor map (an eltwise multiply by a constant).
func poolNets(seed uint64) []opNet {
	s := func() seeded { return seeded{rand.New(rand.NewPCG(seed, 0x9001))} }
	pool := func(op string, in, out string, k, st int64, pads []int64, cip int64) func(*onnxtest.Builder) *onnxtest.Builder {
		return func(b *onnxtest.Builder) *onnxtest.Builder {
			attrs := []*onnxpb.AttributeProto{onnxtest.Ints("kernel_shape", k, k), onnxtest.Ints("strides", st, st), onnxtest.Ints("pads", pads...)}
			if op == "AveragePool" {
				attrs = append(attrs, onnxtest.Int("count_include_pad", cip))
			}
			return b.Node("pool", op, []string{in}, out, attrs...)
		}
	}
	return []opNet{
		{fmt.Sprintf("MaxPool 3x3/s2 pads [0,0,1,1] of a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := s().conv(onnxtest.New(13).Input("x", 1, 3, 9, 9).Output("y"), "c", "x", "c1", 4, 3, 3, 1, 1)
			return pool("MaxPool", "c1", "y", 3, 2, []int64{0, 0, 1, 1}, 0)(b)
		}, []int64{1, 3, 9, 9}, nil, []string{"pool0/max", "conv2d1/acc"}},
		{fmt.Sprintf("AveragePool 3x3/s2 pad 1 count_include_pad 0, then a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := pool("AveragePool", "x", "p", 3, 2, []int64{1, 1, 1, 1}, 0)(onnxtest.New(13).Input("x", 1, 3, 8, 8).Output("y"))
			return s().conv(b, "c", "p", "y", 4, 3, 3, 1, 1)
		}, []int64{1, 3, 8, 8}, nil, []string{"pool0/sum", "eltwise0/mul"}},
		{fmt.Sprintf("AveragePool 7x7/s1 pads [0,0,1,1] count_include_pad 0 of a conv (seed %d)", seed), func() *onnxtest.Builder {
			b := s().conv(onnxtest.New(13).Input("x", 1, 2, 7, 7).Output("y"), "c", "x", "c1", 3, 2, 3, 1, 1)
			return pool("AveragePool", "c1", "y", 7, 1, []int64{0, 0, 1, 1}, 0)(b)
		}, []int64{1, 2, 7, 7}, nil, []string{"pool0/sum", "conv2d1/acc", "eltwise0/mul"}},
	}
}

// upsampleNets are U-Nets with the nearest upsampling by 2 as Resize
// (opset 13, PyTorch's half_pixel) and Upsample (opset 9), with weights
// from a seed: the upsampling's result concatenated with the skip.
func upsampleNets(seed uint64) []opNet {
	s := func() seeded { return seeded{rand.New(rand.NewPCG(seed, 0x2a2))} }
	unet := func(opset int64, up func(b *onnxtest.Builder) *onnxtest.Builder) func() *onnxtest.Builder {
		return func() *onnxtest.Builder {
			r := s()
			b := onnxtest.New(opset).Input("x", 1, 3, 8, 6).Output("y").Float("s", []int64{4}, 1, 1, 2, 2)
			b = r.conv(b, "enc", "x", "e", 4, 3, 3, 1, 1).Node("relu1", "Relu", []string{"e"}, "skip").
				Node("pool", "MaxPool", []string{"skip"}, "p", onnxtest.Ints("kernel_shape", 2, 2), onnxtest.Ints("strides", 2, 2))
			b = up(r.conv(b, "mid", "p", "m", 5, 4, 3, 1, 1).Node("relu2", "Relu", []string{"m"}, "mr"))
			b = b.Node("cat", "Concat", []string{"u", "skip"}, "c", onnxtest.Int("axis", 1))
			return r.conv(b, "dec", "c", "y", 3, 9, 3, 1, 1)
		}
	}
	return []opNet{
		{fmt.Sprintf("U-Net: Resize by 2 (opset 13), Concat with the skip (seed %d)", seed), unet(13, func(b *onnxtest.Builder) *onnxtest.Builder {
			return b.Node("up", "Resize", []string{"mr", "", "s"}, "u")
		}), []int64{1, 3, 8, 6}, nil, []string{"upsample0/resize", "concat0/concat"}},
		{fmt.Sprintf("U-Net: Upsample by 2 (opset 9), Concat with the skip (seed %d)", seed), unet(9, func(b *onnxtest.Builder) *onnxtest.Builder {
			return b.Node("up", "Upsample", []string{"mr", "s"}, "u")
		}), []int64{1, 3, 8, 6}, nil, []string{"upsample0/resize", "concat0/concat"}},
	}
}

// Concat, grouped and depthwise convs, channel shuffles, the pools of
// pool_pad.go and the nearest upsampling (frontend/lower), exported and
// run on ONNX Runtime, give the golden models' integer outputs and
// Net.Dequantize's floats bit for bit, for several seeds of weights.
func TestORTMoves(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		for _, tc := range slices.Concat(moveNets(seed), poolNets(seed), upsampleNets(seed)) {
			t.Run(tc.name, func(t *testing.T) { checkORTNet(t, node, cfg, tc) })
		}
	}
}
