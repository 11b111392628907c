package compiler

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// postTask is the label of an eltwise run on a conv's output block.
var postTask = regexp.MustCompile(`^conv2d\d+ o\d+-\d+ n\d+ (eltwise\d+)$`)

// fusedEltwises lists the eltwises p runs on conv output blocks, and
// whether any eltwise runs on its own (chunk tasks "eltwiseN eA-B").
func fusedEltwises(p *Program) (fused []string, alone bool) {
	seen := map[string]bool{}
	alonePat := regexp.MustCompile(`^eltwise\d+ e\d+-\d+`)
	for _, t := range p.Tasks {
		if m := postTask.FindStringSubmatch(t.Label); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			fused = append(fused, m[1])
		}
		if alonePat.MatchString(t.Label) {
			alone = true
		}
	}
	return fused, alone
}

// An eltwise of a conv's result (its only use) and an earlier value runs
// on the conv's output blocks, bit for bit the golden model, in every
// legal task order; where the conditions do not hold it runs alone.
func TestConvPostEltwise(t *testing.T) {
	relu := golden.Requant{Scale: 3, Shift: 2, Relu: true}
	cases := []struct {
		name      string
		cfg       npu.Config
		build     func(g *Graph, rng *rand.Rand)
		wantFused []string
		wantAlone bool
	}{
		{"residual add with Relu, resident", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 6, 5, 5)), 6)
			g.Output("y", g.Eltwise(golden.EltAdd, conv3(g, rng, x, 6, 1), x, relu))
		}, []string{"eltwise0"}, false},
		{"the conv's result second: sub keeps the operand order", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 5, 6, 4)), 5)
			g.Output("y", g.Eltwise(golden.EltSub, x, conv3(g, rng, x, 5, 1), golden.Requant{Scale: 1}))
		}, []string{"eltwise0"}, false},
		{"max of a graph input and a conv", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 4, 5, 5))
			g.Output("y", g.Eltwise(golden.EltMax, conv1(g, rng, x, 4), x, golden.Requant{Scale: 1}))
		}, []string{"eltwise0"}, false},
		{"streamed maps: the operand loads beside each act, the sum is staged out", npu.DefaultConfig(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 16, 40, 40)), 48)
			s := g.Eltwise(golden.EltAdd, conv1(g, rng, x, 48), x, relu)
			g.Output("y", conv1(g, rng, s, 16))
		}, []string{"eltwise0"}, false},
		{"projection block: the later conv carries the add", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 6, 6))
			a := conv3(g, rng, conv1(g, rng, x, 5), 5, 1)
			p := conv1(g, rng, x, 5)
			g.Output("y", g.Eltwise(golden.EltAdd, a, p, relu))
		}, []string{"eltwise0"}, false},
		{"the other operand rescaled after the conv: the requantization runs per block too", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 6, 5, 5)), 6)
			c := conv3(g, rng, x, 6, 1)
			g.Output("y", g.Eltwise(golden.EltAdd, c, g.Requant(x, golden.Requant{Scale: 5, Shift: 3}), relu))
		}, []string{"eltwise0", "eltwise1"}, false},
		{"streamed, the rescaled shortcut of a block read by the next", npu.DefaultConfig(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 16, 40, 40)), 48)
			for range 2 {
				c := conv1(g, rng, conv1(g, rng, x, 16), 48)
				x = g.Eltwise(golden.EltAdd, g.Requant(x, golden.Requant{Scale: 3, Shift: 2}), c, relu)
			}
			g.Output("y", x)
		}, []string{"eltwise0", "eltwise1", "eltwise2", "eltwise3"}, false},
		{"the conv's result is also an output: alone", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 4, 4, 4)), 4)
			c := conv1(g, rng, x, 4)
			g.Output("c", c)
			g.Output("y", g.Eltwise(golden.EltAdd, c, x, relu))
		}, nil, true},
		{"the conv's result read twice: alone", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 4, 4, 4)), 4)
			c := conv1(g, rng, x, 4)
			g.Output("y", conv1(g, rng, g.Eltwise(golden.EltAdd, c, x, relu), 3))
			g.Output("z", conv1(g, rng, c, 3))
		}, nil, true},
	}
	for _, tc := range cases {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(len(tc.name))))
				g := NewGraph()
				tc.build(g, rng)
				p := verifyGraph(t, tc.cfg, g, 2)
				fused, alone := fusedEltwises(p)
				if d := cmp.Diff(tc.wantFused, fused); d != "" {
					t.Errorf("eltwises on conv output blocks (-want +got):\n%s", d)
				}
				if alone != tc.wantAlone {
					t.Errorf("an eltwise runs alone: %v, want %v", alone, tc.wantAlone)
				}
			})
		}
	}
}
