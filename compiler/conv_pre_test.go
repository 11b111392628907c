package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// An eltwise of one operand whose result one conv alone reads, its
// operand streaming from external memory, runs in place on the conv's
// input bands: no task of its own stores anything, the results stay
// golden in any legal order. When something else reads the result, or
// the operand is on chip, it runs on its own.
func TestConvPre(t *testing.T) {
	cases := []struct {
		name       string
		build      func(g *Graph, x, w *Value) *Value
		alsoOutput bool
		wantFused  bool
	}{
		{"ReLU before a 1x1 conv", func(g *Graph, x, _ *Value) *Value { return g.Requant(x, golden.Requant{Scale: 1, Relu: true}) }, false, true},
		{"scalar max before a 3x3 conv", func(g *Graph, x, _ *Value) *Value {
			return g.EltwiseScalar(golden.EltMax, x, -5, golden.Requant{Scale: 3, Shift: 2})
		}, false, true},
		{"abs", func(g *Graph, x, _ *Value) *Value { return g.Abs(x, golden.Requant{}) }, false, true},
		{"the result is an output too", func(g *Graph, x, _ *Value) *Value { return g.Requant(x, golden.Requant{Scale: 1, Relu: true}) }, true, false},
		{"two operands", func(g *Graph, x, w *Value) *Value { return g.Eltwise(golden.EltAdd, x, w, golden.Requant{Scale: 1}) }, false, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(i)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, 12, 14, 12))
			var w *Value
			if tc.name == "two operands" {
				w = g.Input("w", randTensor(rng, -128, 127, 12, 14, 12))
			}
			r := tc.build(g, x, w)
			if tc.alsoOutput {
				g.Output("r", r)
			}
			k := 1 + 2*(i%2)
			g.Output("y", g.Conv2D(r, randTensor(rng, -128, 127, 5, 12, k, k), Conv{PadH: k / 2, PadW: k / 2, Requant: golden.Requant{Scale: 1, Shift: 9}}))
			p, err := CompileWith(small(), g, Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			verifyProgram(t, g, p, 3)
			on, own := 0, 0
			for _, task := range p.Tasks {
				switch {
				case strings.HasPrefix(task.Label, "eltwise0 on "):
					on++
				case strings.HasPrefix(task.Label, "eltwise0 "):
					own++
				}
			}
			if d := cmp.Diff(fmt.Sprint(tc.wantFused, !tc.wantFused), fmt.Sprint(on > 0, own > 0)); d != "" {
				t.Errorf("tasks on the conv's bands, tasks of its own (-want +got):\n%s", d)
			}
		})
	}
}
