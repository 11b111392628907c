package compiler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// int32Bias draws n int32 biases: large ones of both signs (values that
// need all four bytes), and the int32 extremes first when extreme is set
// (sums past them wrap).
func int32Bias(rng *rand.Rand, n int, extreme bool) []int64 {
	b := make([]int64, n)
	for i := range b {
		b[i] = rng.Int64N(1<<31) - 1<<30
	}
	if extreme {
		for i, v := range []int64{1<<31 - 1, -1 << 31, -1, 0} {
			if i < n {
				b[i] = v
			}
		}
	}
	return b
}

// wantInt32 is sums [C][N] (channel c in row c) plus bias[c], wrapped to
// int32, computed here without the post-processor model.
func wantInt32(sums *golden.Tensor, bias []int64) []int64 {
	c := sums.Shape[0]
	n := len(sums.Data) / c
	out := make([]int64, len(sums.Data))
	for i, s := range sums.Data {
		if bias != nil {
			s += bias[i/n]
		}
		out[i] = int64(int32(s))
	}
	return out
}

// verifyInt32 checks the program's output y against want, the golden
// reference against it too, and that the output binding says int32 in
// digit planes; needWide: some value must need the top byte.
func verifyInt32(t *testing.T, cfg npu.Config, g *Graph, want []int64, needWide bool) {
	t.Helper()
	p := verifyGraph(t, cfg, g, 2)
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, ref["y"].Data); d != "" {
		t.Errorf("golden reference (-sums+bias +reference):\n%s", d)
	}
	got, _, err := Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got["y"].Data); d != "" {
		t.Errorf("interpreter (-sums+bias +interpreter):\n%s", d)
	}
	b, ok := p.Output("y")
	if !ok {
		t.Fatal("no output y")
	}
	if b.Digits != 4 || b.DigitWidth != 8 {
		t.Errorf("output binding: %d digits of %d bits, want 4 of 8", b.Digits, b.DigitWidth)
	}
	digits := 0
	for i := range p.Tasks {
		if strings.Contains(p.Tasks[i].Label, " act digit ") {
			digits++
		}
	}
	if digits == 0 || digits%4 != 0 {
		t.Errorf("%d digit acts, want four per block (one per byte)", digits)
	}
	// The values need all four bytes: some are beyond ±2^23.
	wide := false
	for _, v := range want {
		wide = wide || v >= 1<<23 || v < -1<<23
	}
	if needWide && !wide {
		t.Errorf("no value needs the top byte: the case does not test it")
	}
}

// Conv2D with Int32: the outputs are the sums plus the bias as int32, on
// the interpreter (program order and random orders) and the reference.
func TestConv2DInt32(t *testing.T) {
	cases := []struct {
		cfg                  npu.Config
		ci, h, w, co, kh, kw int
		stride, pad          int
		bias, extreme        bool
	}{
		{small(), 3, 5, 5, 2, 3, 3, 1, 1, true, true},
		{small(), 4, 9, 8, 7, 3, 3, 2, 1, true, false},   // two output tiles, stride 2
		{small(), 5, 12, 10, 3, 3, 3, 1, 1, true, false}, // streamed bands, several blocks
		{narrow(), 11, 6, 5, 7, 3, 3, 1, 1, true, true},  // rows > cols
		{npu.DefaultConfig(), 20, 10, 10, 18, 3, 3, 1, 1, true, false},
	}
	for _, tc := range cases {
		for _, bias := range []bool{true, false} {
			name := fmt.Sprintf("%dx%d/c%d_%dx%d_o%d_k%d_s%d_p%d_bias%v", tc.cfg.Rows, tc.cfg.Cols, tc.ci, tc.h, tc.w, tc.co, tc.kh, tc.stride, tc.pad, bias)
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(tc.ci*tc.h), uint64(tc.co)))
				x := randTensor(rng, -128, 127, tc.ci, tc.h, tc.w)
				w := randTensor(rng, -128, 127, tc.co, tc.ci, tc.kh, tc.kw)
				var b []int64
				if bias {
					b = int32Bias(rng, tc.co, tc.extreme)
				} else {
					// Without a bias, extreme inputs give large sums:
					// x = -128 and the weights -128 (even output
					// channels) or 127 (odd ones), so sums of ±2^14 per
					// tap, of both signs.
					for i := range x.Data {
						x.Data[i] = -128
					}
					per := tc.ci * tc.kh * tc.kw
					for i := range w.Data {
						w.Data[i] = []int64{-128, 127}[(i/per)%2]
					}
				}
				g := NewGraph()
				g.Output("y", g.Conv2D(g.Input("x", x), w, Conv{Stride: tc.stride, PadH: tc.pad, PadW: tc.pad, Int32: true, Bias: b}))
				sums, err := golden.Conv2D(x, w, tc.stride, tc.pad, tc.pad, golden.S(tc.cfg.AccWidth))
				if err != nil {
					t.Fatal(err)
				}
				verifyInt32(t, tc.cfg, g, wantInt32(&golden.Tensor{Shape: []int{tc.co, len(sums.Data) / tc.co}, Data: sums.Data}, b), bias)
			})
		}
	}
}

// GEMMInt32 and a fully-connected int32 layer: C = A·B + bias as int32.
func TestGEMMInt32(t *testing.T) {
	cases := []struct {
		cfg     npu.Config
		m, k, n int
		fc      bool
		extreme bool
	}{
		{small(), 1, 1, 1, false, true},
		{small(), 5, 7, 3, false, true},
		{small(), 70, 6, 5, false, false},   // M blocks
		{small(), 40, 20, 14, false, false}, // several N tiles
		{narrow(), 10, 19, 9, false, true},
		{small(), 1, 48, 10, true, false}, // fully connected on a flattened [3][4][4] map
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%dx%d/%dx%dx%d_fc%v", tc.cfg.Rows, tc.cfg.Cols, tc.m, tc.k, tc.n, tc.fc)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.m+1), uint64(tc.k*tc.n)))
			g := NewGraph()
			var a *Value
			var av *golden.Tensor
			if tc.fc {
				// A is a conv result (requantized elements), from the
				// reference of the conv alone.
				conv := func(g *Graph, rng *rand.Rand) *Value {
					return g.Conv2D(g.Input("x", randTensor(rng, -128, 127, 3, 4, 4)), randTensor(rng, -128, 127, 3, 3, 1, 1),
						Conv{Requant: golden.Requant{Scale: 1, Shift: 7}})
				}
				g0 := NewGraph()
				g0.Output("y", conv(g0, rand.New(rand.NewPCG(1, 2))))
				ref, err := g0.Reference(tc.cfg)
				if err != nil {
					t.Fatal(err)
				}
				a, av = g.Flatten(conv(g, rand.New(rand.NewPCG(1, 2)))), &golden.Tensor{Shape: []int{1, 48}, Data: ref["y"].Data}
			} else {
				av = randTensor(rng, -128, 127, tc.m, tc.k)
				a = g.Input("a", av)
			}
			bm := randTensor(rng, -128, 127, tc.k, tc.n)
			bias := int32Bias(rng, tc.n, tc.extreme)
			g.Output("y", g.GEMMInt32(a, bm, bias))
			sums, err := golden.GEMM(av, bm, golden.S(tc.cfg.AccWidth))
			if err != nil {
				t.Fatal(err)
			}
			st, err := golden.Transpose(sums) // channels (columns n) in rows
			if err != nil {
				t.Fatal(err)
			}
			w := wantInt32(st, bias)
			back, err := golden.Transpose(&golden.Tensor{Shape: st.Shape, Data: w})
			if err != nil {
				t.Fatal(err)
			}
			verifyInt32(t, tc.cfg, g, back.Data, true)
		})
	}
}

// Int32 requests that cannot be met are errors naming the layer and
// the field.
func TestInt32Errors(t *testing.T) {
	z := func(shape ...int) *golden.Tensor { return golden.New(shape...) }
	wide := small()
	wide.AccWidth = 40
	cases := []struct {
		name  string
		cfg   npu.Config
		build func(g *Graph)
		want  string
	}{
		{"bias without int32", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1), Conv{Bias: []int64{1, 2, 3}}))
		}, "conv2d0: Bias is given without Int32"},
		{"requant with int32", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1), Conv{Int32: true, Requant: golden.Requant{Shift: 3}}))
		}, "conv2d0: Int32 with Requant"},
		{"per-channel with int32", small(), func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1), Conv{Int32: true,
				PerChannel: &ChannelRequant{Scale: []int64{1, 1, 1}, Bias: []int64{0, 0, 0}}}))
		}, "conv2d0: Int32 with PerChannel"},
		{"bias length", small(), func(g *Graph) {
			g.Output("c", g.GEMMInt32(g.Input("a", z(3, 4)), z(4, 5), []int64{1, 2}))
		}, "gemm0: Bias has 2 entries, want one per output column N (5)"},
		{"bias range", small(), func(g *Graph) {
			g.Output("c", g.GEMMInt32(g.Input("a", z(3, 4)), z(4, 2), []int64{1, 1 << 31}))
		}, "gemm0: Bias[1] = 2147483648 is not an int32"},
		{"consumed", small(), func(g *Graph) {
			y := g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1), Conv{Int32: true})
			g.Output("p", g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 2, KW: 2}))
		}, "pool0: operand is an int32 result (conv2d0): it can only be a graph output"},
		{"flattened", small(), func(g *Graph) {
			y := g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1), Conv{Int32: true})
			g.Output("f", g.Flatten(y))
		}, "flatten: operand is an int32 result (conv2d0)"},
		{"not an output", small(), func(g *Graph) {
			g.GEMMInt32(g.Input("a", z(3, 4)), z(4, 2), nil)
			g.Output("c", g.GEMM(g.Input("b", z(3, 4)), z(4, 2), golden.Requant{}))
		}, "gemm0: its int32 result is not a graph output"},
		{"accumulators wider than int32", wide, func(g *Graph) {
			g.Output("c", g.GEMMInt32(g.Input("a", z(3, 4)), z(4, 2), nil))
		}, "gemm0: an int32 result needs acc_width ≤ 32 (its accumulators must fit an int32), acc_width = 40"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			_, err := Compile(tc.cfg, g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile: err = %v, want %q", err, tc.want)
			}
		})
	}
}

// FromLines puts int32 values together from digit planes, least
// significant first, the top digit's high bit the sign (worked by hand).
func TestFromLinesDigits(t *testing.T) {
	cases := []struct {
		name   string
		width  int
		digits []int64 // the digit planes of one value, as signed elements
		want   int64
	}{
		{"bytes", 8, []int64{0x44, 0x33, 0x22, 0x11}, 0x11223344},
		{"negative bytes read as unsigned below the top", 8, []int64{-1, -128, 0, 0}, 0x80ff},
		{"minus one", 8, []int64{-1, -1, -1, -1}, -1},
		{"int32 minimum", 8, []int64{0, 0, 0, -128}, -1 << 31},
		{"6-bit digits: bit 31 is the sign", 6, []int64{1, 0, 0, 0, 0, 2}, -1<<31 + 1},     // top digit at bits 30..35
		{"6-bit digits: bits above 31 dropped", 6, []int64{1, 0, 0, 0, 0, -31}, 1<<30 + 1}, // -31 = 0b100001: bits 30 and 35
	}
	for _, tc := range cases {
		b := &Binding{Name: "y", Shape: []int{1}, Base: 10, Lines: len(tc.digits), Rows: 2,
			Index: slices.Repeat([]int32{0, -1}, len(tc.digits)), Digits: len(tc.digits), DigitWidth: tc.width}
		got, err := b.FromLines(func(a int) ([]int64, error) { return []int64{tc.digits[a-10], 99}, nil })
		if err != nil {
			t.Fatal(err)
		}
		if got.Data[0] != tc.want {
			t.Errorf("%s: %d (%#x), want %d (%#x)", tc.name, got.Data[0], got.Data[0], tc.want, tc.want)
		}
	}
}
