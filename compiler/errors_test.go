package compiler

import (
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// Bad shapes are errors naming the operation, the parameter, its value
// and the limit, found before anything runs.
func TestErrors(t *testing.T) {
	z := func(shape ...int) *golden.Tensor { return golden.New(shape...) }
	cases := []struct {
		name  string
		cfg   npu.Config
		build func(g *Graph)
		want  string
	}{
		{"zero dim", small(), func(g *Graph) {
			g.Output("c", g.GEMM(g.Input("a", z(0, 4)), z(4, 4), golden.Requant{}))
		}, "input a: dimension 0 = 0 must be at least 1"},
		{"gemm inner", small(), func(g *Graph) {
			g.Output("c", g.GEMM(g.Input("a", z(3, 4)), z(5, 4), golden.Requant{}))
		}, "gemm0: B has K = 5 rows, A has K = 4 columns"},
		{"gemm N zero", small(), func(g *Graph) {
			g.Output("c", g.GEMM(g.Input("a", z(3, 4)), z(4, 0), golden.Requant{}))
		}, "gemm0: N = 0 must be at least 1"},
		{"conv kernel too large", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(1, 2, 5, 3), Conv{PadH: 0}))
		}, "conv2d0: kernel height kh = 5 is larger than the padded input height h+2·pad_h = 3"},
		{"conv channels", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(1, 3, 1, 1), Conv{}))
		}, "conv2d0: weights have Cin = 3, the input has 2 channels"},
		{"conv negative stride", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(1, 2, 1, 1), Conv{Stride: -1}))
		}, "conv2d0: stride = -1 must be at least 1"},
		{"conv negative pad", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(1, 2, 1, 1), Conv{PadW: -2}))
		}, "conv2d0: padding 0, -2 must not be negative"},
		{"transpose of a flattened feature map", small(), func(g *Graph) {
			g.Output("y", g.Transpose(g.Flatten(g.Pool2D(g.Input("x", z(2, 2, 3)), Pool{Kind: golden.PoolMax, KH: 1, KW: 1}))))
		}, "transpose0: input [1 12] is a flattened feature map (the 2×6 matrix on chip): transpose is not supported on it"},
		{"conv kernel wider than max_kernel", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(1, 3, 12)), z(1, 1, 1, 9), Conv{Taps: TapsDirect}))
		}, "conv2d0: kernel width kw = 9 exceeds max_kernel = 8"},
		{"conv stride above max_kernel", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(1, 3, 12)), z(1, 1, 1, 1), Conv{Stride: 9}))
		}, "conv2d0: stride = 9 exceeds max_kernel = 8"},
		{"conv input does not fit", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(64, 20, 20)), z(1, 64, 3, 3), Conv{}))
		}, "conv2d0: streaming its input (16 channel tiles of 3×20) and staging its output needs 978 state addresses, 256 are free (state_depth 256)"},
		{"conv output wider than psum half", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(1, 1, 40)), z(1, 1, 1, 1), Conv{}))
		}, "conv2d0: output width ow = 40 exceeds half the psum buffer (psum_depth/2 = 32)"},
		// Larger than the state buffer: it goes to external memory, which
		// is too small (CompileWith's GrowExt widens it).
		{"spilled intermediate beyond external memory", small(), func(g *Graph) {
			y := g.Conv2D(g.Input("x", z(1, 16, 16)), z(8, 1, 1, 1), Conv{})
			g.Output("y", g.Requant(y, golden.Requant{}))
		}, "compiler: the program needs 1288 external lines, ext_addr_width = 10 allows 1024"},
		{"pool line buffer", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 1, 130)), Pool{KH: 1, KW: 3, PadW: 1}))
		}, "pool0: output width ow = 130 exceeds line_depth = 64 (the planar line buffer) and pad_w = 1: a wider output is pooled in strips of columns, which take no column padding"},
		{"pool window", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 2, 2)), Pool{KH: 3, KW: 2}))
		}, "pool0: window height kh = 3 is larger than the padded input height h+2·pad_h = 2"},
		{"pool padding", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 4, 4)), Pool{KH: 2, KW: 2, PadH: 2}))
		}, "pool0: padding 2, 0 must be below the window 2x2"},
		{"pool average ignoring padding", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 4, 4)), Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, PadH: 1, Padding: golden.PadIgnore}))
		}, "pool0: padding = ignore: only max and min pooling ignore the padding"},
		{"pool ignored padding as large as the window", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 4, 4)), Pool{KH: 2, KW: 2, PadW: 2, Padding: golden.PadIgnore}))
		}, "pool0: ignored padding 0, 2 must be below the window 2x2"},
		{"pool unknown padding", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 4, 4)), Pool{KH: 2, KW: 2, Padding: 7}))
		}, "pool0: padding = padding(7): want zero, edge or ignore"},
		{"pool too wide for max_kernel", small(), func(g *Graph) {
			g.Output("y", g.Pool2D(g.Input("x", z(1, 12, 12)), Pool{KH: 9, KW: 2}))
		}, "pool0: window 9x2 exceeds max_kernel = 8"},
		{"eltwise shapes", small(), func(g *Graph) {
			g.Output("y", g.Eltwise(golden.EltAdd, g.Input("a", z(2, 3)), g.Input("b", z(3, 2)), golden.Requant{}))
		}, "eltwise0: operand shapes [2 3] and [3 2] differ"},
		{"requant scale", small(), func(g *Graph) {
			g.Output("y", g.Requant(g.Input("a", z(2, 3)), golden.Requant{Scale: 1 << 20}))
		}, "eltwise0: requantization: planar task: scale = 1048576 is not allowed"},
		{"external memory", small(), func(g *Graph) {
			g.Output("y", g.Requant(g.Input("a", z(4, 600)), golden.Requant{}))
		}, "the program needs 1200 external lines, ext_addr_width = 10 allows 1024"},
		{"unused input", small(), func(g *Graph) {
			g.Input("a", z(2, 2))
			g.Output("y", g.Requant(g.Input("b", z(2, 2)), golden.Requant{}))
		}, "input a: no operation uses it"},
		{"duplicate name", small(), func(g *Graph) {
			a := g.Input("a", z(2, 2))
			g.Output("a", g.Requant(a, golden.Requant{}))
		}, `output: the name "a" is used twice`},
		{"output of an input view", small(), func(g *Graph) {
			g.Output("f", g.Flatten(g.Input("x", z(2, 2, 2))))
		}, `output f: is (a view of) the graph input "x"`},
		{"abs through eltwise", small(), func(g *Graph) {
			g.Output("y", g.Eltwise(golden.EltAbs, g.Input("a", z(2, 3)), g.Input("b", z(2, 3)), golden.Requant{}))
		}, "eltwise0: function = abs is unary: use Unary"},
		{"reduce across the rows of a matrix", small(), func(g *Graph) {
			g.Output("y", g.Reduce(g.Input("a", z(2, 3)), golden.ReduceRowSum, golden.Requant{}))
		}, "reduce0: input shape [2 3]: rowsum reduces across the rows of feature-map planes"},
		{"reduce across the rows of a batch-1 input", small(), func(g *Graph) {
			g.Output("y", g.Reduce(g.Input("x", z(1, 2, 3, 4)), golden.ReduceRowMax, golden.Requant{}))
		}, "reduce0: input shape [1 2 3 4]: rowmax reduces across the rows of feature-map planes (a [C,H,W] input, or a conv or pool result)"},
		{"reduce across rows wider than the line buffer", small(), func(g *Graph) {
			g.Output("y", g.Reduce(g.Input("x", z(1, 2, 70)), golden.ReduceRowMax, golden.Requant{}))
		}, "reduce0: width w = 70 exceeds line_depth = 64"},
		{"reduce recip_bits without recip", small(), func(g *Graph) {
			g.Output("y", g.ReduceWith(g.Input("x", z(1, 2, 2)), Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt, RecipBits: 8}))
		}, "reduce0: recip_bits = 8 without the recip post function"},
		{"reduce recip shift out of range", small(), func(g *Graph) {
			g.Output("y", g.ReduceWith(g.Input("x", z(1, 2, 2)), Reduction{Kind: golden.ReduceSum, Post: golden.PostRecip, RecipBits: 60}))
		}, "reduce0: recip_bits = 60 with shift 0 needs the post-processor shift"},
		{"reduce unknown post", small(), func(g *Graph) {
			g.Output("y", g.ReduceWith(g.Input("x", z(1, 2, 2)), Reduction{Kind: golden.ReduceSum, Post: 7}))
		}, "reduce0: post = post(7): want one of none, sqrt, recip"},
		{"per-channel operand of the wrong length", small(), func(g *Graph) {
			g.Output("y", g.EltwiseChannel(golden.EltAdd, g.Input("x", z(3, 2, 2)), g.Input("v", z(4)), golden.Requant{}))
		}, "eltwise0: vec has shape [4]: want [3], one element per channel of a [3 2 2]"},
		{"per-channel abs", small(), func(g *Graph) {
			g.Output("y", g.EltwiseChannel(golden.EltAbs, g.Input("x", z(3, 2, 2)), g.Input("v", z(3)), golden.Requant{}))
		}, "eltwise0: function = abs is unary: use Unary"},
		{"transpose rank", small(), func(g *Graph) {
			g.Output("y", g.Transpose(g.Input("a", z(2, 2, 2))))
		}, "transpose0: input shape [2 2 2]: want a matrix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			_, err := Compile(tc.cfg, g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant one containing %q", err, tc.want)
			}
		})
	}
}
