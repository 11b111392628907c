package host

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// gated is cfg with partial-output gating.
func gated(cfg npu.Config) npu.Config {
	cfg.PartialGating = true
	return cfg
}

// partialOverlaps counts the tasks with a partial dependency that started
// before that dependency finished, in a run's timeline.
func partialOverlaps(p *compiler.Program, res *Result) (partial, overlapped int) {
	span := map[int]Span{}
	for _, s := range res.Timeline {
		span[s.ID] = s
	}
	for i := range p.Tasks {
		d := &p.Tasks[i].Desc
		if !d.Partial {
			continue
		}
		partial++
		if span[i].Start <= span[int(d.Deps[0])].End {
			overlapped++
		}
	}
	return partial, overlapped
}

// TestPartialGating: with partial-output gating the NE and dma_out start
// on the part of a producer's output already written: each network
// computes its golden result, some consumers start before their producer
// finishes, and the run is no slower than with whole-task dependencies.
func TestPartialGating(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *compiler.Graph, rng *rand.Rand)
	}{
		{"net", func(g *compiler.Graph, _ *rand.Rand) { *g = *toyNet() }},
		{"conv_chain", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 4, 8, 8))
			q := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}}
			y := g.Conv2D(x, randTensor(rng, 4, 4, 3, 3), q)
			y = g.Conv2D(y, randTensor(rng, 4, 4, 3, 3), q)
			g.Output("y", g.Conv2D(y, randTensor(rng, 4, 4, 3, 3), q))
		}},
		{"gemm_eltwise_store", func(g *compiler.Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, 40, 8))
			c := g.GEMM(a, randTensor(rng, 8, 4), golden.Requant{Scale: 1, Shift: 6})
			g.Output("c", g.Eltwise(golden.EltMax, c, c, golden.Requant{}))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *compiler.Graph {
				g := compiler.NewGraph()
				tc.build(g, rand.New(rand.NewPCG(17, uint64(len(tc.name)))))
				return g
			}
			plain := run(t, small(), mk())
			cfg := gated(small())
			p, err := compiler.Compile(cfg, mk())
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, cfg, mk())
			partial, overlapped := partialOverlaps(p, res)
			t.Logf("%d cycles gated, %d whole-task; %d partial dependencies, %d overlapped", res.Cycles, plain.Cycles, partial, overlapped)
			if overlapped == 0 {
				t.Errorf("no consumer started before its producer finished (%d partial dependencies)", partial)
			}
			if res.Cycles > plain.Cycles {
				t.Errorf("gated run takes %d cycles, whole-task dependencies %d", res.Cycles, plain.Cycles)
			}
		})
	}
}

// TestPartialGatingTable measures BENCHMARKS.md "Partial outputs": cycles
// with and without gating, with and without the two-half split of
// one-block layers, on the toy net and a 32×48×48 conv of the default
// NPU (PARTIAL_BENCH=1; about a minute).
func TestPartialGatingTable(t *testing.T) {
	if os.Getenv("PARTIAL_BENCH") == "" {
		t.Skip("set PARTIAL_BENCH=1 to measure the table")
	}
	nets := []struct {
		name  string
		build func(g *compiler.Graph)
	}{
		{"toy net (4×4 NPU)", func(g *compiler.Graph) { *g = *toyNet() }},
		{"conv 32×48×48 → 32, 3×3 (default NPU)", func(g *compiler.Graph) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := g.Input("x", randTensor(rng, 32, 48, 48))
			g.Output("y", g.Conv2D(x, randTensor(rng, 32, 32, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 10, Relu: true}}))
		}},
		{"conv → conv → conv 16×16×16 (default NPU: one block each)", func(g *compiler.Graph) {
			rng := rand.New(rand.NewPCG(3, 4))
			q := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 9, Relu: true}}
			y := g.Input("x", randTensor(rng, 16, 16, 16))
			for range 3 {
				y = g.Conv2D(y, randTensor(rng, 16, 16, 3, 3), q)
			}
			g.Output("y", y)
		}},
	}
	for i, n := range nets {
		cfg := npu.DefaultConfig()
		if i == 0 {
			cfg = small()
		}
		var row []int
		for _, gate := range []bool{false, true} {
			for _, one := range []bool{false, true} {
				c := cfg
				c.PartialGating = gate
				g := compiler.NewGraph()
				n.build(g)
				g.OneBlock = one
				row = append(row, run(t, c, g).Cycles)
			}
		}
		t.Logf("| %s | %d | %d | %d | %d |", n.name, row[0], row[1], row[2], row[3])
	}
}

// TestPartialGatingChains runs random layer chains (conv, pool, eltwise,
// requant, outputs in the middle, a last GEMM) with partial-output
// gating on random small NPUs, cols below rows included (acts then stay
// whole-task dependencies): every output equals the golden model's.
// 16 by default, PARTIAL_RANDOM=n for a campaign.
func TestPartialGatingChains(t *testing.T) {
	n := 16
	if v, err := strconv.Atoi(os.Getenv("PARTIAL_RANDOM")); err == nil {
		n = v
	}
	rng := rand.New(rand.NewPCG(51, 52))
	overlapped := 0
	for i := range n {
		cfg := gated(small())
		cfg.Rows = []int{4, 8}[rng.IntN(2)]
		cfg.Cols = min(cfg.Rows, []int{2, 4, 8}[rng.IntN(3)])
		cfg.StateDepth, cfg.WeightDepth, cfg.ExtAddrWidth = 1024, 128, 14
		cfg.MaxDeps, cfg.Window = 1+rng.IntN(3), []int{4, 16, 64}[rng.IntN(3)]
		cfg.ExtLatency = 1 + rng.IntN(6)
		g := compiler.NewGraph()
		c, h, w := 1+rng.IntN(6), 4+rng.IntN(6), 4+rng.IntN(6)
		x := g.Input("x", randTensor(rng, c, h, w))
		var ops []string
		q := golden.Requant{Scale: 1, Shift: 7, Relu: rng.IntN(2) == 0}
		for k := range 2 + rng.IntN(4) {
			switch rng.IntN(5) {
			case 0, 1:
				co, kk := 1+rng.IntN(9), 1+2*rng.IntN(2)
				x = g.Conv2D(x, randTensor(rng, co, c, kk, kk), compiler.Conv{PadH: kk / 2, PadW: kk / 2, Requant: q})
				c = co
				ops = append(ops, fmt.Sprintf("conv%d", co))
			case 2:
				if h >= 2 && w >= 2 {
					x = g.Pool2D(x, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
					h, w = h/2, w/2
					ops = append(ops, "pool")
				}
			case 3:
				x = g.Eltwise(golden.EltAdd, x, x, golden.Requant{Scale: 1, Shift: 1})
				ops = append(ops, "add")
			case 4:
				if k > 0 { // an output must be a computed value
					g.Output(fmt.Sprintf("mid%d", k), x)
				}
				x = g.Requant(x, golden.Requant{Scale: 3, Shift: 2})
				ops = append(ops, "out+requant")
			}
		}
		g.Output("fc", g.GEMM(g.Flatten(x), randTensor(rng, c*h*w, 1+rng.IntN(12)), golden.Requant{Scale: 1, Shift: 9}))
		t.Run(fmt.Sprintf("%d_%dx%d_%v", i, cfg.Rows, cfg.Cols, ops), func(t *testing.T) {
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Logf("%v", err)
				return
			}
			want, err := g.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(cfg, p, WithoutStimulus())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, res.Outputs); d != "" {
				t.Fatalf("(-golden +simulator):\n%s", d)
			}
			_, o := partialOverlaps(p, res)
			overlapped += o
		})
	}
	if overlapped == 0 {
		t.Error("no consumer started before its partial dependency finished in any chain")
	}
}
