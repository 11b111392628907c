package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// LayerMACs splits the useful MACs by layer, and every NE task's label
// starts with the label of a layer it lists.
func TestLayerMACs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	q := golden.Requant{Scale: 1, Shift: 8}
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, 127, 3, 6, 6))
	y := g.Conv2D(x, randTensor(rng, -128, 127, 4, 3, 3, 3), Conv{Requant: q, PadH: 1, PadW: 1})
	y = g.Conv2D(y, randTensor(rng, -128, 127, 5, 4, 3, 3), Conv{Requant: q})
	g.Output("y", g.GEMM(g.Flatten(y), randTensor(rng, -128, 127, 5*4*4, 7), q))
	p, err := Compile(npu.DefaultConfig(), g)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"conv2d0": 4 * 3 * 3 * 3 * 6 * 6, // Cout·C·kh·kw·OH·OW
		"conv2d1": 5 * 4 * 3 * 3 * 4 * 4,
		"gemm0":   5 * 4 * 4 * 7, // K·N
	}
	if d := cmp.Diff(want, p.LayerMACs); d != "" {
		t.Errorf("LayerMACs (-want +got):\n%s", d)
	}
	if sum := want["conv2d0"] + want["conv2d1"] + want["gemm0"]; p.MACs != sum {
		t.Errorf("MACs %d, want the layers' sum %d", p.MACs, sum)
	}
	for _, task := range p.Tasks {
		if task.Engine() != isa.NE {
			continue
		}
		if layer, _, _ := strings.Cut(task.Label, " "); want[layer] == 0 {
			t.Errorf("NE task %q: its first word is no layer", task.Label)
		}
	}
}
