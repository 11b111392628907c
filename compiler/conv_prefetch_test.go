package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// A step's weights for the next output tile load before this step's act
// where they go to the other half of the weight buffer, bit for bit the
// golden model in every legal order; where a step's groups take turns in
// the halves, nothing loads early and the results stay exact.
func TestPrefetchWeights(t *testing.T) {
	wide := npu.DefaultConfig()
	wide.ExtAddrWidth = 18
	cases := []struct {
		name     string
		cfg      npu.Config
		build    func(g *Graph, rng *rand.Rand)
		conv     string
		prefetch int // steps whose next weights load before their act
	}{
		{"1x1 512 → 1024 on 7×7, a half of the buffer per output tile", wide, func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 512, 7, 7))
			g.Output("y", g.Eltwise(golden.EltAdd, conv1(g, rng, x, 1024), conv1(g, rng, x, 1024), golden.Requant{Scale: 1, Shift: 1}))
		}, "conv2d1", 126}, // two bands of rows, each through the 64 output tiles: all but the last tile step
		{"3×3 on 9 channels of 4 rows: groups take turns in the halves", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 9, 6, 6))
			g.Output("y", g.Conv2D(x, randTensor(rng, -128, 127, 8, 9, 3, 3), Conv{PadH: 1, PadW: 1, Requant: q7}))
		}, "conv2d0", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			g := NewGraph()
			tc.build(g, rng)
			p := verifyGraph(t, tc.cfg, g, 1)
			var labels []string
			for _, tk := range p.Tasks {
				labels = append(labels, tk.Label)
			}
			early := 0
			for i, l := range labels {
				var o0, o1, n int
				if _, err := fmt.Sscanf(l, tc.conv+" o%d-%d n%d act", &o0, &o1, &n); err != nil {
					continue
				}
				// Between the step's last NE task and its act.
				ne := fmt.Sprintf("%s o%d-%d n%d g", tc.conv, o0, o1, n)
				for k := i - 1; k >= 0 && !strings.HasPrefix(labels[k], ne); k-- {
					if strings.HasPrefix(labels[k], fmt.Sprintf("%s load weights n%d ", tc.conv, n+1)) {
						early++
						break
					}
				}
			}
			if early != tc.prefetch {
				t.Errorf("%d steps load the next tile's weights before their act, want %d", early, tc.prefetch)
			}
		})
	}
}
