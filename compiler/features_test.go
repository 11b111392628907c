package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// A graph needing a planar feature the NPU was built without is refused
// in one line naming the op, the feature and the field to set; with
// only that feature present (the others left out) it compiles and its
// reference machine run matches the golden models.
func TestMissingPlanarFeature(t *testing.T) {
	cases := []struct {
		feature, doc, field, label string
		build                      func(g *Graph, x *Value) *Value
	}{
		{"pool_avg", "average pooling", "planar_pool_avg", "pool0", func(g *Graph, x *Value) *Value {
			return g.Pool2D(x, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)})
		}},
		{"eltwise_mul", "eltwise mul", "planar_eltwise_mul", "eltwise0", func(g *Graph, x *Value) *Value {
			return g.Eltwise(golden.EltMul, x, x, golden.Requant{Scale: 1, Shift: 6})
		}},
		{"postfn", "post functions (a reduction's sqrt or recip)", "planar_postfn", "reduce0", func(g *Graph, x *Value) *Value {
			return g.ReduceWith(x, Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt})
		}},
	}
	set := func(c *npu.Config, feature string, on bool) {
		switch feature {
		case "pool_avg":
			c.PlanarPoolAvg = on
		case "eltwise_mul":
			c.PlanarEltwiseMul = on
		case "postfn":
			c.PlanarPostFn = on
		}
	}
	for seed := uint64(1); seed <= 2; seed++ {
		for _, tc := range cases {
			x := randTensor(rand.New(rand.NewPCG(seed, 7)), -128, 127, 3, 4, 4)
			graph := func() *Graph {
				g := NewGraph()
				g.Output("y", tc.build(g, g.Input("x", x)))
				return g
			}
			lacking := small()
			set(&lacking, tc.feature, false)
			_, err := Compile(lacking, graph())
			want := "the planar engine has no " + tc.doc + " (npu " + tc.field + " = false)"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "set "+tc.field+" = true") ||
				!strings.HasPrefix(err.Error(), tc.label) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s without %s: error %v, want one line from %s saying %q and naming %s", tc.label, tc.feature, err, tc.label, want, tc.field)
			}
			only := small() // every other feature left out
			for _, c := range cases {
				set(&only, c.feature, c.feature == tc.feature)
			}
			verifyGraph(t, only, graph(), 1)
		}
	}
}
