package host

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// withPlanarLanes is the small NPU with n planar post units.
func withPlanarLanes(n int) npu.Config {
	c := small()
	c.PlanarLanes = n
	return c
}

// Fewer planar post units than PE rows (planar_lanes 1 and 2 of 4):
// every operation, and a network of a conv with per-channel
// requantization (loadparams), a pool, an eltwise with a second conv's
// result, a lookup (loadtable) and a reduction across rows, run on the
// simulated NPU with the reference machine's results, the seeds
// differing per lane count; the network's run is replayed on Verilator.
func TestPlanarLanesNPU(t *testing.T) {
	for _, lanes := range []int{1, 2} {
		cfg := withPlanarLanes(lanes)
		for i, w := range everyOp() {
			t.Run(fmt.Sprintf("lanes_%d/%d_%s", lanes, i, w.Op), func(t *testing.T) {
				want, p := compileWorkload(t, cfg, w)
				res, err := Run(cfg, p)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, res.Outputs); d != "" {
					t.Fatalf("(-reference +simulator):\n%s", d)
				}
			})
		}
		t.Run(fmt.Sprintf("lanes_%d/net", lanes), func(t *testing.T) {
			res := run(t, cfg, lanesNet(t, uint64(lanes)))
			// The same run replayed on Verilator: every output port in
			// every cycle (results, counters, cycle counts).
			tooltest.Need(t, "verilator")
			if _, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// lanesNet is conv (per-channel) → max pool → + conv → sigmoid lookup,
// and column sums of the pool, on random 5-channel inputs.
func lanesNet(t *testing.T, seed uint64) *compiler.Graph {
	rng := rand.New(rand.NewPCG(seed, 77))
	sigmoid, err := golden.TableOf(func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 1.0/16, 1.0/128, golden.S(8))
	if err != nil {
		t.Fatal(err)
	}
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 8, 8))
	const cout = 5
	pc := &compiler.ChannelRequant{Scale: make([]int64, cout), Bias: make([]int64, cout)}
	for o := range cout {
		pc.Scale[o], pc.Bias[o] = 1+rng.Int64N(7), rng.Int64N(2001)-1000
	}
	a := g.Conv2D(x, randTensor(rng, cout, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, PerChannel: pc, Requant: golden.Requant{Shift: 9, Relu: true}})
	p := g.Pool2D(a, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	b := g.Conv2D(g.Pool2D(x, compiler.Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: golden.Requant{Scale: 1, Shift: 2}}),
		randTensor(rng, cout, 3, 1, 1), compiler.Conv{Requant: golden.Requant{Scale: 1, Shift: 6}})
	s := g.Eltwise(golden.EltAdd, p, b, golden.Requant{Scale: 1})
	g.Output("sig", g.Lookup(s, sigmoid, golden.Requant{}))
	g.Output("cols", g.Reduce(p, golden.ReduceRowSum, golden.Requant{Scale: 1, Shift: 2}))
	return g
}

// With partial-output gating a consumer reads what the planar engine
// has written so far; with passes an address is complete only once the
// last pass has written it, so the progress counts the last pass's
// writes alone. Consumers of planar results (convs after an act, a store
// after an eltwise) equal the reference machine at 1 and 2 post units.
func TestPlanarLanesPartialGating(t *testing.T) {
	for _, lanes := range []int{1, 2} {
		t.Run(fmt.Sprintf("lanes_%d", lanes), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, uint64(lanes)))
			g := compiler.NewGraph()
			x := g.Input("x", randTensor(rng, 4, 8, 8))
			q := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}}
			y := g.Conv2D(x, randTensor(rng, 4, 4, 3, 3), q)
			y = g.Conv2D(y, randTensor(rng, 4, 4, 3, 3), q)
			g.Output("y", g.Conv2D(y, randTensor(rng, 4, 4, 3, 3), q))
			a := g.Input("a", randTensor(rng, 40, 8))
			c := g.GEMM(a, randTensor(rng, 8, 4), golden.Requant{Scale: 1, Shift: 6})
			g.Output("c", g.Eltwise(golden.EltMax, c, c, golden.Requant{}))
			cfg := gated(withPlanarLanes(lanes))
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, cfg, g)
			if partial, _ := partialOverlaps(p, res); partial == 0 {
				t.Error("no task has a partial dependency: the gating is not exercised")
			}
		})
	}
}

// An 8×8 NPU with 2 planar post units (four passes): the network on
// the Go simulator equals the reference machine, and the run replayed
// on Verilator is identical in every output port and cycle.
func TestPlanarLanes8x8Verilator(t *testing.T) {
	cfg := small()
	cfg.Rows, cfg.Cols, cfg.PlanarLanes = 8, 8, 2
	res := run(t, cfg, lanesNet(t, 8))
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Cycles < res.Cycles {
		t.Errorf("Verilator compared %d cycles of a %d-cycle run", cr.Cycles, res.Cycles)
	}
	t.Logf("verilator agrees on %d outputs for %d cycles (build cached %v, %v)", cr.Outputs, cr.Cycles, cr.Cached, cr.BuildTime)
}
