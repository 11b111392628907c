package export

import (
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// The planar functions ONNX has no exact counterpart for here are
// refused by name rather than exported as something else.
func TestRefusesPlanarOnlyOps(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *compiler.Graph, x *compiler.Value) *compiler.Value
		want  string
	}{
		{"abs", func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Abs(x, golden.Requant{}) },
			"eltwise0: elementwise function abs is not exported"},
		{"rowsum", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			return g.Reduce(x, golden.ReduceRowSum, golden.Requant{})
		}, "reduce0: reduction rowsum is not exported"},
		{"sqrt", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			return g.ReduceWith(x, compiler.Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt})
		}, "reduce0: the post function sqrt of a reduction is not exported"},
		{"recip beyond its range", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			return g.ReduceWith(x, compiler.Reduction{Kind: golden.ReduceSum, Post: golden.PostRecip, Requant: golden.Requant{Scale: 1 << 40}})
		}, "reduce0: |sum·scale + bias| may reach 1.689e+15, not below 2^47, the planar engine's reciprocal range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := compiler.NewGraph()
			g.Output("y", tc.build(g, g.Input("x", golden.New(2, 3, 4))))
			if _, err := Graph(g, npu.DefaultConfig()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
