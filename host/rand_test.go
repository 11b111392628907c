package host

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// TestRandomGraphs runs random small graphs on the Go simulator of random
// small configurations: 50 by default (about 2 s), HOST_RANDOM=n for a
// longer campaign (600 passed).
func TestRandomGraphs(t *testing.T) {
	n := 50
	if v, err := strconv.Atoi(os.Getenv("HOST_RANDOM")); err == nil {
		n = v
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for i := 0; i < n; i++ {
		cfg := small()
		cfg.Rows = []int{2, 4, 8}[rng.IntN(3)]
		cfg.Cols = min(cfg.Rows, []int{1, 2, 4, 8}[rng.IntN(4)])
		cfg.PsumDepth = []int{16, 32, 64}[rng.IntN(3)]
		cfg.WeightDepth = []int{32, 64, 128}[rng.IntN(3)]
		cfg.MaxDeps, cfg.Window = 1+rng.IntN(4), []int{4, 8, 64}[rng.IntN(3)]
		cfg.ExtLatency = 1 + rng.IntN(6)
		cfg.ExtAddrWidth = 12
		cfg.PartialGating = rng.IntN(2) == 0
		g := compiler.NewGraph()
		var desc string
		switch rng.IntN(4) {
		case 0:
			ci, co := 1+rng.IntN(8), 1+rng.IntN(8)
			kh, kw := 1+rng.IntN(4), 1+rng.IntN(4)
			s := 1 + rng.IntN(2)
			ph, pw := rng.IntN(kh), rng.IntN(kw)
			h, w := max(1, kh-2*ph)+rng.IntN(7), max(1, kw-2*pw)+rng.IntN(7)
			desc = fmt.Sprintf("conv c%d %dx%d o%d k%dx%d s%d p%d,%d", ci, h, w, co, kh, kw, s, ph, pw)
			x := g.Input("x", randTensor(rng, ci, h, w))
			g.Output("y", g.Conv2D(x, randTensor(rng, co, ci, kh, kw), compiler.Conv{Stride: s, PadH: ph, PadW: pw, Requant: golden.Requant{Scale: 1, Shift: 8}}))
		case 1:
			m, k, nn := 1+rng.IntN(30), 1+rng.IntN(30), 1+rng.IntN(12)
			desc = fmt.Sprintf("gemm %dx%dx%d", m, k, nn)
			a := g.Input("a", randTensor(rng, m, k))
			g.Output("c", g.GEMM(a, randTensor(rng, k, nn), golden.Requant{Scale: 1, Shift: 8}))
		case 2:
			m, nn := 1+rng.IntN(20), 1+rng.IntN(20)
			desc = fmt.Sprintf("transpose %dx%d", m, nn)
			a := g.Input("a", randTensor(rng, m, nn))
			g.Output("at", g.Transpose(a))
		case 3:
			kh, kw := 1+rng.IntN(3), 1+rng.IntN(3)
			c, h, w := 1+rng.IntN(8), kh+rng.IntN(6), kw+rng.IntN(6)
			p := compiler.Pool{Kind: golden.PoolKind(rng.IntN(2)), KH: kh, KW: kw, Stride: 1 + rng.IntN(2), PadH: rng.IntN(kh), PadW: rng.IntN(kw), Padding: golden.Padding(rng.IntN(2))}
			if p.Kind == golden.PoolAvg {
				p.Requant = compiler.AvgRequant(kh * kw)
			}
			desc = fmt.Sprintf("pool c%d %dx%d %v", c, h, w, p)
			x := g.Input("x", randTensor(rng, c, h, w))
			y := g.Pool2D(x, p)
			g.Output("y", g.Eltwise(golden.EltSub, y, y, golden.Requant{}))
			g.Output("z", y)
		}
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Logf("%s: %v", desc, err)
				return
			}
			want, _ := g.Reference(cfg)
			res, err := Run(cfg, p)
			if err != nil {
				t.Fatalf("%s on %+v: %v", desc, cfg, err)
			}
			if d := cmp.Diff(want, res.Outputs); d != "" {
				t.Fatalf("%s on %dx%d: (-golden +simulator):\n%s", desc, cfg.Rows, cfg.Cols, d)
			}
		})
	}
}

// TestNEDoneLostRepro was a hang of the NE (blocks/npu/ne.go, fixed in
// 6aac16b): when the NE took its next task while draining, in the very
// cycle the previous task's last vector left the array, the previous
// task's done pulse was lost; every later done came one task late and
// the last task never completed. Kept as a regression test.
func TestNEDoneLostRepro(t *testing.T) {
	cfg := small()
	cfg.Cols, cfg.PsumDepth, cfg.MaxDeps, cfg.Window, cfg.ExtLatency, cfg.ExtAddrWidth = 2, 32, 2, 8, 1, 12
	rng := rand.New(rand.NewPCG(1, 2))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 29, 2))
	g.Output("c", g.GEMM(a, randTensor(rng, 2, 7), golden.Requant{Scale: 1, Shift: 8}))
	run(t, cfg, g)
}
