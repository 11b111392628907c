package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/golden"
)

// A graph input of shape [1,C,H,W] is the feature map [C,H,W]: channels
// across partitions, the plane along addresses. Before, its batch of
// one went across partitions and a pool of it computed the wrong
// planes without an error.
func TestBatchOfOneInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(g *Graph, x *Value) *Value
	}{
		{"max pool", func(g *Graph, x *Value) *Value {
			return g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
		}},
		{"avg pool with padding", func(g *Graph, x *Value) *Value {
			return g.Pool2D(x, Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, PadH: 1, PadW: 1, Requant: AvgRequant(9)})
		}},
		{"plane sum", func(g *Graph, x *Value) *Value {
			return g.Reduce(x, golden.ReduceSum, golden.Requant{Scale: 1, Shift: 4})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			x := g.Input("x", randTensor(rand.New(rand.NewPCG(5, 1)), -128, 127, 1, 6, 4, 6))
			g.Output("y", tc.build(g, x))
			verifyGraph(t, small(), g, 2)
		})
	}
}
