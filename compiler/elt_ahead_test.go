package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// An eltwise whose result one conv alone reads through external memory
// is emitted in chunks just ahead of the conv's band loads: the conv's
// first NE task comes before the eltwise's last chunk in program order,
// and the results stay golden in any legal order. When something else
// reads the result too, the eltwise is emitted whole first.
func TestEltwiseAhead(t *testing.T) {
	cases := []struct {
		name        string
		alsoOutput  bool
		wantAhead   bool
		kernel, pad int
	}{
		{"1x1 conv", false, true, 1, 0},
		{"3x3 conv, padding", false, true, 3, 1},
		{"the result is an output too", true, false, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 9))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, 12, 14, 12))
			r := g.Requant(x, golden.Requant{Scale: 1, Relu: true})
			if tc.alsoOutput {
				g.Output("r", r)
			}
			g.Output("y", g.Conv2D(r, randTensor(rng, -128, 127, 5, 12, tc.kernel, tc.kernel), Conv{PadH: tc.pad, PadW: tc.pad, Requant: golden.Requant{Scale: 1, Shift: 9}}))
			p, err := CompileWith(small(), g, Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			verifyProgram(t, g, p, 3)
			firstNE, lastElt := -1, -1
			for i, task := range p.Tasks {
				if task.Engine() == isa.NE && firstNE < 0 {
					firstNE = i
				}
				if strings.HasPrefix(task.Label, "eltwise0 ") && task.Engine() == isa.Planar {
					lastElt = i
				}
			}
			if d := cmp.Diff(tc.wantAhead, firstNE < lastElt); d != "" {
				t.Errorf("the conv starts before the eltwise's last chunk (-want +got):\n%s", d)
			}
		})
	}
}
