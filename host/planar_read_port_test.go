package host

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
)

// residualNet is a residual block: x → conv 3×3 (ReLU) → conv 3×3,
// + x (a two-tensor eltwise add, requantized), ReLU, and a max of the
// block's output with its first conv (another two-tensor eltwise).
func residualNet(seed uint64) *compiler.Graph {
	rng := rand.New(rand.NewPCG(seed, 41))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 4, 6, 6))
	q := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}}
	a := g.Conv2D(x, randTensor(rng, 4, 4, 3, 3), q)
	b := g.Conv2D(a, randTensor(rng, 4, 4, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
	y := g.Eltwise(golden.EltAdd, b, x, golden.Requant{Scale: 3, Shift: 2, Relu: true})
	g.Output("y", y)
	g.Output("m", g.Eltwise(golden.EltMax, y, a, golden.Requant{Scale: 1}))
	return g
}

// With planar_read_port a residual block runs on the simulated NPU with
// the reference machine's results (run compares every output), with a
// post unit per row and with passes (planar_lanes 2 of 4), and the
// planar engine is busy for fewer cycles than without the port; the run
// with passes is replayed on Verilator (every output port, every cycle).
func TestPlanarReadPortNet(t *testing.T) {
	for _, lanes := range []int{0, 2} {
		t.Run(fmt.Sprintf("planar_lanes_%d", lanes), func(t *testing.T) {
			cfg := small()
			cfg.PlanarLanes = lanes
			port := cfg
			port.PlanarReadPort = true
			g := residualNet(uint64(7 + lanes))
			without, with := run(t, cfg, g), run(t, port, g)
			b0, b1 := without.Engines[isa.Planar].Busy, with.Engines[isa.Planar].Busy
			t.Logf("planar busy %d cycles, %d with the port; run %d, %d cycles", b0, b1, without.Cycles, with.Cycles)
			if b1 >= b0 {
				t.Errorf("planar busy %d cycles with the port, %d without: no gain", b1, b0)
			}
			if lanes == 2 {
				tooltest.Need(t, "verilator")
				if _, err := verify.CrossCheck(with.Design, with.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
