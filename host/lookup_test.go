package host

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// Lookups compiled from a graph run on the simulated NPU's planar table
// with the golden reference's results (run compares them): a sigmoid of
// an input, then a tanh of a conv's requantized result, so the second
// loadtable replaces the first table between the two.
func TestLookupNPU(t *testing.T) {
	mk := func(f func(float64) float64, in, out float64) []int64 {
		tab, err := golden.TableOf(f, in, out, golden.S(8))
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	sigmoid := mk(func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 1.0/16, 1.0/128)
	tanh := mk(math.Tanh, 1.0/32, 1.0/127)
	rng := rand.New(rand.NewPCG(41, 1))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 6, 5))
	g.Output("sig", g.Lookup(x, sigmoid, golden.Requant{}))
	c := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
	g.Output("tanh", g.Lookup(c, tanh, golden.Requant{Scale: 3, Bias: -2, Shift: 1}))
	run(t, small(), g)
}
