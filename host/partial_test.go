package host

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
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
		{"net", func(g *compiler.Graph, _ *rand.Rand) { *g = *ringNet() }},
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

// TestPartialGatingCrossCheck replays a gated run on Verilator.
func TestPartialGatingCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	res := run(t, gated(small()), ringNet())
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles (build %v, cached %v)", cr.Outputs, cr.Cycles, cr.BuildTime, cr.Cached)
}
