package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// randChannels draws n scales in ±scale and biases in ±bias; extreme
// puts the ends of scale_width and acc_width on the first channels, so
// the table's sign bits and word split are exercised.
func randChannels(rng *rand.Rand, cfg npu.Config, n int, scale, bias int64, extreme bool) *ChannelRequant {
	pc := &ChannelRequant{}
	for o := 0; o < n; o++ {
		pc.Scale = append(pc.Scale, rng.Int64N(2*scale+1)-scale)
		pc.Bias = append(pc.Bias, rng.Int64N(2*bias+1)-bias)
	}
	if extreme {
		s, a := int64(1)<<uint(cfg.ScaleWidth-1), int64(1)<<uint(cfg.AccWidth-1)
		ends := [][2]int64{{-s, -a}, {s - 1, a - 1}, {-1, -1}, {s - 1, -a}}
		for o := 0; o < n && o < len(ends); o++ {
			pc.Scale[o], pc.Bias[o] = ends[o][0], ends[o][1]
		}
	}
	return pc
}

// countOps counts the program's tasks by operation name.
func countOps(p *Program) map[string]int {
	n := map[string]int{}
	for i := range p.Tasks {
		n[p.Tasks[i].OpName()]++
	}
	return n
}

// A conv2d with per-channel requantization runs like any other: the
// interpreter (program order and random legal orders) gives the golden
// reference, and the declared spans cover the traced accesses.
func TestConv2DPerChannel(t *testing.T) {
	cases := []struct {
		cfg                  npu.Config
		ci, h, w, co, kh, kw int
		stride, pad          int
		q                    golden.Requant
		extreme              bool
		twoLayers            bool // a second per-channel conv reads the first from the state buffer
	}{
		{small(), 1, 3, 3, 1, 1, 1, 1, 0, golden.Requant{Shift: 4}, false, false},
		{small(), 3, 5, 5, 2, 3, 3, 1, 0, golden.Requant{Shift: 10}, false, false},
		{small(), 3, 6, 7, 6, 3, 3, 1, 1, golden.Requant{Shift: 11, Relu: true}, false, false},                   // two output tiles
		{small(), 4, 12, 10, 9, 3, 3, 1, 1, golden.Requant{Shift: 12, Rounding: golden.HalfEven}, false, false},  // streamed bands interleave the tiles
		{small(), 5, 9, 8, 7, 3, 3, 2, 1, golden.Requant{Shift: 12, Clamp: true, Lo: -50, Hi: 60}, false, false}, // clamp, stride 2
		{small(), 2, 5, 5, 4, 1, 1, 1, 0, golden.Requant{Shift: 30}, true, false},                                // extreme scales and biases
		{small(), 3, 6, 6, 6, 3, 3, 1, 1, golden.Requant{Shift: 11, Relu: true}, false, true},                    // resident input
		{narrow(), 11, 6, 5, 7, 3, 3, 1, 1, golden.Requant{Shift: 12}, false, false},                             // rows > cols
		{npu.DefaultConfig(), 20, 10, 10, 18, 3, 3, 1, 1, golden.Requant{Shift: 13, Relu: true}, false, true},    // default config
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%dx%d/c%d_%dx%d_o%d_k%dx%d_s%d_p%d", tc.cfg.Rows, tc.cfg.Cols, tc.ci, tc.h, tc.w, tc.co, tc.kh, tc.kw, tc.stride, tc.pad)
		if tc.twoLayers {
			name += "_x2"
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.ci*tc.h), uint64(tc.co*tc.kw+7)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.ci, tc.h, tc.w))
			w := randTensor(rng, -128, 127, tc.co, tc.ci, tc.kh, tc.kw)
			conv := Conv{Stride: tc.stride, PadH: tc.pad, PadW: tc.pad, Requant: tc.q,
				PerChannel: randChannels(rng, tc.cfg, tc.co, 400, 20000, tc.extreme)}
			y := g.Conv2D(x, w, conv)
			layers := 1
			if tc.twoLayers {
				w2 := randTensor(rng, -128, 127, tc.co, tc.co, 3, 3)
				y = g.Conv2D(y, w2, Conv{PadH: 1, PadW: 1, Requant: tc.q,
					PerChannel: randChannels(rng, tc.cfg, tc.co, 400, 20000, false)})
				layers = 2
			}
			g.Output("y", y)
			p := verifyGraph(t, tc.cfg, g, 3)
			ops := countOps(p)
			tiles := ceilDiv(tc.co, tc.cfg.Cols)
			if ops["planar.loadparams"] < layers*tiles {
				t.Errorf("%d loadparams tasks, want at least one per output tile and layer (%d)", ops["planar.loadparams"], layers*tiles)
			}
			for l := 0; l < layers; l++ {
				name := fmt.Sprintf("conv2d%d.q", l)
				b, ok := p.Input(name)
				if !ok {
					t.Fatalf("no input binding %s", name)
				}
				if d := cmp.Diff([]int{tc.co, tc.cfg.Planar().ParamWords()}, b.Shape); d != "" {
					t.Errorf("%s shape (-want +got):\n%s", name, d)
				}
			}
		})
	}
}

// GEMM and fully-connected layers requantize per output column.
func TestGEMMPerChannel(t *testing.T) {
	cases := []struct {
		cfg     npu.Config
		m, k, n int
		fc      bool // A is a conv result [3][4][4], flattened (k = 48, m = 1)
		q       golden.Requant
	}{
		{small(), 1, 1, 1, false, golden.Requant{Shift: 3}},
		{small(), 5, 7, 3, false, golden.Requant{Shift: 10}},
		{small(), 9, 13, 11, false, golden.Requant{Shift: 12, Rounding: golden.HalfEven, Relu: true}},
		{small(), 70, 6, 5, false, golden.Requant{Shift: 11}},   // M blocks
		{small(), 40, 20, 30, false, golden.Requant{Shift: 13}}, // many N tiles, streamed weights
		{narrow(), 10, 19, 9, false, golden.Requant{Shift: 11}},
		{small(), 1, 48, 10, true, golden.Requant{Shift: 13}}, // fully connected: a [3][4][4] map, flattened
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%dx%d/%dx%dx%d", tc.cfg.Rows, tc.cfg.Cols, tc.m, tc.k, tc.n)
		if tc.fc {
			name += "_fc"
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.m+1), uint64(tc.k*tc.n)))
			g := NewGraph()
			var a *Value
			if tc.fc {
				x := g.Input("x", randTensor(rng, -128, 127, 3, 4, 4))
				y := g.Conv2D(x, randTensor(rng, -128, 127, 3, 3, 1, 1), Conv{Requant: golden.Requant{Scale: 1, Shift: 7}})
				a = g.Flatten(y)
			} else {
				a = g.Input("a", randTensor(rng, -128, 127, tc.m, tc.k))
			}
			pc := randChannels(rng, tc.cfg, tc.n, 400, 20000, false)
			g.Output("c", g.GEMMPerChannel(a, randTensor(rng, -128, 127, tc.k, tc.n), pc, tc.q))
			p := verifyGraph(t, tc.cfg, g, 3)
			if got, want := countOps(p)["planar.loadparams"], ceilDiv(tc.n, tc.cfg.Cols); got < want {
				t.Errorf("%d loadparams tasks, want at least %d", got, want)
			}
		})
	}
}

// The per-channel table holds, per channel, the scale then the bias,
// two's complement and little-endian in whole elements.
func TestChannelRequantWords(t *testing.T) {
	cfg := npu.DefaultConfig().Planar().Sizes // 8-bit elements, 16-bit scale, 32-bit accumulator
	pc := &ChannelRequant{Scale: []int64{1, -2, 0x1234}, Bias: []int64{-1, 0x01020304, -32768}}
	got := pc.words(cfg)
	want := &golden.Tensor{Shape: []int{3, 6}, Data: []int64{
		1, 0, -1, -1, -1, -1,
		-2, -1, 4, 3, 2, 1,
		0x34, 0x12, 0, -128, -1, -1,
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
}

// Per-channel parameters of the wrong length or out of range are errors
// naming the layer, the field, the channel, the value and the range.
func TestPerChannelErrors(t *testing.T) {
	z := func(shape ...int) *golden.Tensor { return golden.New(shape...) }
	ones := func(n int, v int64) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	cases := []struct {
		name  string
		build func(g *Graph)
		want  string
	}{
		{"conv scale length", func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1),
				Conv{PerChannel: &ChannelRequant{Scale: ones(2, 1), Bias: ones(3, 0)}}))
		}, "conv2d0: per-channel Scale has 2 entries, want one per output channel Cout (3)"},
		{"gemm bias length", func(g *Graph) {
			g.Output("c", g.GEMMPerChannel(g.Input("a", z(3, 4)), z(4, 5), &ChannelRequant{Scale: ones(5, 1), Bias: ones(4, 0)}, golden.Requant{}))
		}, "gemm0: per-channel Bias has 4 entries, want one per output column N (5)"},
		{"conv scale range", func(g *Graph) {
			s := ones(3, 1)
			s[2] = 40000
			g.Output("y", g.Conv2D(g.Input("x", z(2, 3, 3)), z(3, 2, 1, 1),
				Conv{PerChannel: &ChannelRequant{Scale: s, Bias: ones(3, 0)}}))
		}, "conv2d0: per-channel Scale[2] = 40000 is outside -32768..32767 (scale_width = 16 signed bits)"},
		{"gemm bias range", func(g *Graph) {
			b := ones(5, 0)
			b[1] = -1 << 31
			b[4] = 1 << 31
			g.Output("c", g.GEMMPerChannel(g.Input("a", z(3, 4)), z(4, 5), &ChannelRequant{Scale: ones(5, 1), Bias: b}, golden.Requant{}))
		}, "gemm0: per-channel Bias[4] = 2147483648 is outside -2147483648..2147483647 (acc_width = 32 signed bits)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			_, err := Compile(small(), g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile: err = %v, want %q", err, tc.want)
			}
			if g.Err() == nil {
				// Range errors need the configuration: the reference
				// finds them too.
				if _, err := g.Reference(small()); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Reference: err = %v, want %q", err, tc.want)
				}
			}
		})
	}
}
