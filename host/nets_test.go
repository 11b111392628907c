package host

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// The operations ImageNet-class CNNs add, on the Go simulator: grouped
// and depthwise convolutions, a concat whose parts are produced in
// place (one with holes), a channel shuffle absorbed by a depthwise
// conv, and one the NE copies into channel order (relayout).
func TestCNNOps(t *testing.T) {
	q := golden.Requant{Scale: 1, Shift: 7}
	cases := []struct {
		name  string
		cfg   npu.Config
		build func(g *compiler.Graph, rng *rand.Rand)
	}{
		{"grouped and depthwise", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 5, 5))
			y := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: q, Groups: 2})
			g.Output("y", g.Conv2D(y, randTensor(rng, 6, 1, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q, Groups: 6}))
		}},
		{"shufflenet unit", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Conv2D(g.Input("x", randTensor(rng, 3, 6, 6)), randTensor(rng, 6, 3, 1, 1), compiler.Conv{Requant: q})
			b := g.Conv2D(x, randTensor(rng, 6, 2, 1, 1), compiler.Conv{Requant: q, Groups: 3})
			b = g.Conv2D(g.ChannelShuffle(b, 3), randTensor(rng, 6, 1, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q, Groups: 6})
			b = g.Conv2D(b, randTensor(rng, 9, 2, 1, 1), compiler.Conv{Requant: q, Groups: 3})
			p := g.Pool2D(x, compiler.Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Requant: compiler.AvgRequant(9)})
			g.Output("y", g.Requant(g.Concat(p, b), golden.Requant{Scale: 1, Relu: true}))
		}},
		{"relayout of a shuffle", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 3, 3))
			a := g.Pool2D(x, compiler.Pool{Kind: golden.PoolMax, KH: 1, KW: 1})
			b := g.Pool2D(x, compiler.Pool{Kind: golden.PoolMin, KH: 1, KW: 1})
			g.Output("y", g.Eltwise(golden.EltAdd, g.ChannelShuffle(a, 2), b, golden.Requant{Scale: 1}))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := compiler.NewGraph()
			tc.build(g, rand.New(rand.NewPCG(3, 4)))
			run(t, tc.cfg, g)
		})
	}
}
