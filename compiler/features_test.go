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
// only that feature present (and the op's whole feature for a
// sub-feature: needs; the others left out) it compiles and its
// reference machine run matches the golden models.
func TestMissingPlanarFeature(t *testing.T) {
	cases := []struct {
		feature, doc, field, label string
		needs                      string // the whole op's feature of a sub-feature
		build                      func(g *Graph, x *Value) *Value
	}{
		{"pool_avg", "average pooling", "planar_pool_avg", "pool0", "", func(g *Graph, x *Value) *Value {
			return g.Pool2D(x, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)})
		}},
		{"pool_min", "min pooling", "planar_pool_min", "pool0", "", func(g *Graph, x *Value) *Value {
			return g.Pool2D(x, Pool{Kind: golden.PoolMin, KH: 3, KW: 2, Stride: 1, PadW: 1, Padding: golden.PadIgnore})
		}},
		{"eltwise", "eltwise operations (add, sub, mul, max, min, abs, neg)", "planar_eltwise", "eltwise0", "", func(g *Graph, x *Value) *Value {
			return g.Eltwise(golden.EltAdd, x, x, golden.Requant{Scale: 3, Shift: 2, Relu: true})
		}},
		{"eltwise_mul", "eltwise mul", "planar_eltwise_mul", "eltwise0", "eltwise", func(g *Graph, x *Value) *Value {
			return g.Eltwise(golden.EltMul, x, x, golden.Requant{Scale: 1, Shift: 6})
		}},
		{"reduce", "reductions (sum, max, rowsum, rowmax)", "planar_reduce", "reduce0", "", func(g *Graph, x *Value) *Value {
			return g.Reduce(x, golden.ReduceRowMax, golden.Requant{Scale: 1})
		}},
		{"postfn", "post functions (a reduction's sqrt or recip)", "planar_postfn", "reduce0", "reduce", func(g *Graph, x *Value) *Value {
			return g.ReduceWith(x, Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt})
		}},
	}
	set := func(c *npu.Config, feature string, on bool) {
		switch feature {
		case "pool_avg":
			c.PlanarPoolAvg = on
		case "pool_min":
			c.PlanarPoolMin = on
		case "eltwise":
			c.PlanarEltwise = on
		case "eltwise_mul":
			c.PlanarEltwiseMul = on
		case "reduce":
			c.PlanarReduce = on
		case "postfn":
			c.PlanarPostFn = on
		default:
			t.Fatalf("no feature %s", feature)
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
				set(&only, c.feature, c.feature == tc.feature || c.feature == tc.needs)
			}
			verifyGraph(t, only, graph(), 1)
		}
	}
}
