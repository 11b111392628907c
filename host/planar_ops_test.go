package host

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// The planar engine's newer functions, compiled from a graph, run on the
// simulated NPU with the golden reference's results (run compares them
// with cmp.Diff).
func TestPlanarOps(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *compiler.Graph, rng *rand.Rand)
	}{
		{"abs", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 5, 3, 4))
			g.Output("y", g.Abs(x, golden.Requant{}))
		}},
		{"abs_of_difference", func(g *compiler.Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, 6, 7))
			b := g.Input("b", randTensor(rng, 6, 7))
			d := g.Eltwise(golden.EltSub, a, b, golden.Requant{Scale: 1, Shift: 1})
			g.Output("y", g.Abs(d, golden.Requant{Scale: 3, Bias: -2, Shift: 2, Relu: true}))
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := compiler.NewGraph()
			tc.build(g, rand.New(rand.NewPCG(11, uint64(i))))
			run(t, small(), g)
		})
	}
}
