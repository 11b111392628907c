package compiler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// TestTapMapping compiles convs on graph inputs with and without tap
// mapping: both must equal the golden model, and the mapped one must
// stream ⌈C·kh·kw/Rows⌉ vectors per output pixel instead of ⌈C/Rows⌉·kh·kw
// (counting padding vectors) whenever that is fewer.
func TestTapMapping(t *testing.T) {
	type layer struct{ c, h, w, co, k, s, pad int }
	layers := []layer{
		{1, 8, 8, 3, 3, 1, 1}, // the few-channel first layer
		{1, 9, 9, 5, 5, 1, 2}, // 25 taps: two row tiles on 16 rows
		{3, 9, 7, 4, 3, 2, 0}, // stride 2, no padding
		{2, 7, 7, 6, 5, 3, 2},
		{16, 6, 6, 4, 3, 1, 1}, // as many channels as rows: never mapped on 16 rows
	}
	for _, cfg := range []npu.Config{small(), npu.DefaultConfig()} {
		for _, l := range layers {
			t.Run(fmt.Sprintf("%dx%d/c%d_%dx%d_o%d_k%d_s%d_p%d", cfg.Rows, cfg.Cols, l.c, l.h, l.w, l.co, l.k, l.s, l.pad), func(t *testing.T) {
				vectors := map[TapMapping]int{}
				for _, taps := range []TapMapping{TapsAuto, TapsDirect} {
					rng := rand.New(rand.NewPCG(uint64(l.c), uint64(l.k)))
					g := NewGraph()
					x := g.Input("x", randTensor(rng, -128, 127, l.c, l.h, l.w))
					w := randTensor(rng, -128, 127, l.co, l.c, l.k, l.k)
					g.Output("y", g.Conv2D(x, w, Conv{Stride: l.s, PadH: l.pad, PadW: l.pad, Taps: taps,
						Requant: golden.Requant{Scale: 1, Shift: 9, Rounding: golden.HalfEven}}))
					p := verifyGraph(t, cfg, g, 1)
					_, m, err := Interpret(p)
					if err != nil {
						t.Fatal(err)
					}
					vectors[taps] = m.Stats.NEVectors
				}
				oh, ow := (l.h+2*l.pad-l.k)/l.s+1, (l.w+2*l.pad-l.k)/l.s+1
				mapped, direct := ceilDiv(l.c*l.k*l.k, cfg.Rows), ceilDiv(l.c, cfg.Rows)*l.k*l.k
				want := map[TapMapping]int{TapsAuto: min(mapped, direct) * oh * ow * ceilDiv(l.co, cfg.Cols), TapsDirect: vectors[TapsDirect]}
				if d := cmp.Diff(want, vectors); d != "" {
					t.Errorf("NE vectors streamed (-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestTapMappingNeedsASoleReader keeps the direct layout for an input
// that another operation reads too.
func TestTapMappingNeedsASoleReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, 127, 1, 6, 6))
	g.Output("y", g.Conv2D(x, randTensor(rng, -128, 127, 2, 1, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 6}}))
	g.Output("m", g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}))
	p := verifyGraph(t, npu.DefaultConfig(), g, 1)
	if got, want := p.Inputs[0].Lines, 36; got != want {
		t.Errorf("input x takes %d external lines, want %d (the plain 6×6 plane)", got, want)
	}
}

// TestTapMappingFallsBack compiles the direct convolution when the
// windows' larger input does not fit external memory (25 taps on 4 rows:
// 7 tiles of 144 lines, over ext_addr_width 10's 1024 lines).
func TestTapMappingFallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, 127, 1, 12, 12))
	g.Output("y", g.Conv2D(x, randTensor(rng, -128, 127, 5, 1, 5, 5), Conv{PadH: 2, PadW: 2, Requant: golden.Requant{Scale: 1, Shift: 9}}))
	p := verifyGraph(t, small(), g, 1)
	if got, want := p.Inputs[0].Lines, 144; got != want {
		t.Errorf("input x takes %d external lines, want %d (the plain 12×12 plane)", got, want)
	}
}
