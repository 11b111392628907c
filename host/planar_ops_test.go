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
		{"rowsum_rowmax", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 5, 7))
			g.Output("sum", g.Reduce(x, golden.ReduceRowSum, golden.Requant{Scale: 1, Shift: 2}))
			g.Output("max", g.Reduce(x, golden.ReduceRowMax, golden.Requant{}))
			g.Output("mean", g.Reduce(x, golden.ReduceRowSum, compiler.AvgRequant(5)))
		}},
		{"sqrt_recip", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 5, 4, 6))
			sq := g.Eltwise(golden.EltMul, x, x, golden.Requant{Scale: 1, Shift: 7})
			norm := g.ReduceWith(sq, compiler.Reduction{Kind: golden.ReduceRowSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 4}})
			g.Output("norm", norm)
			g.Output("inv", g.ReduceWith(g.Flatten(norm), compiler.Reduction{Kind: golden.ReduceSum, Post: golden.PostRecip, RecipBits: 12}))
			g.Output("rmax", g.ReduceWith(x, compiler.Reduction{Kind: golden.ReduceMax, Post: golden.PostRecip, RecipBits: 10, Requant: golden.Requant{Scale: 1, Shift: 1, Rounding: golden.HalfEven}}))
			g.Output("sqrt", g.ReduceWith(x, compiler.Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 16, Bias: 3}}))
		}},
		{"rowsum_of_conv", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 3, 6, 5))
			c := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
			g.Output("y", g.ReduceWith(c, compiler.Reduction{Kind: golden.ReduceRowMax, Post: golden.PostRecip, RecipBits: 9, Requant: golden.Requant{Scale: 3, Bias: 1}}))
		}},
		{"per_channel", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 5, 7))
			mean := g.Reduce(x, golden.ReduceSum, compiler.AvgRequant(35))
			centred := g.EltwiseChannel(golden.EltSub, x, mean, golden.Requant{})
			g.Output("centred", centred)
			g.Output("scaled", g.EltwiseChannel(golden.EltMul, centred, g.Input("s", randTensor(rng, 6)), golden.Requant{Scale: 1, Shift: 6}))
		}},
		{"per_channel_of_conv", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 3, 6, 5))
			c := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
			m := g.ReduceWith(c, compiler.Reduction{Kind: golden.ReduceMax, Post: golden.PostRecip, RecipBits: 10})
			g.Output("y", g.EltwiseChannel(golden.EltMul, c, m, golden.Requant{Scale: 1, Shift: 3}))
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
