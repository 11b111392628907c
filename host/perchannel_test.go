package host

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// randChannels draws n per-channel scales in ±400 and biases in ±20000.
func randChannels(rng *rand.Rand, n int) *compiler.ChannelRequant {
	pc := &compiler.ChannelRequant{}
	for o := 0; o < n; o++ {
		pc.Scale = append(pc.Scale, rng.Int64N(801)-400)
		pc.Bias = append(pc.Bias, rng.Int64N(40001)-20000)
	}
	return pc
}

// Per-output-channel requantization on the simulated NPU: the loadparams
// tasks set the lane registers the per-lane acts use, and the results
// equal the golden reference (run also checks the interpreter's view of
// the timeline).
func TestPerChannel(t *testing.T) {
	cases := []struct {
		name  string
		build func(rng *rand.Rand, g *compiler.Graph)
	}{
		{"conv", func(rng *rand.Rand, g *compiler.Graph) {
			// Six output channels: two output tiles of the 4×4 array.
			x := g.Input("x", randTensor(rng, 3, 6, 6))
			g.Output("y", g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1,
				Requant: golden.Requant{Shift: 11, Relu: true}, PerChannel: randChannels(rng, 6)}))
		}},
		{"conv+fc", func(rng *rand.Rand, g *compiler.Graph) {
			x := g.Input("x", randTensor(rng, 2, 4, 4))
			y := g.Conv2D(x, randTensor(rng, 5, 2, 3, 3), compiler.Conv{PadH: 1, PadW: 1,
				Requant: golden.Requant{Shift: 11, Rounding: golden.HalfEven}, PerChannel: randChannels(rng, 5)})
			g.Output("fc", g.GEMMPerChannel(g.Flatten(y), randTensor(rng, 5*4*4, 6), randChannels(rng, 6), golden.Requant{Shift: 13}))
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(i)))
			g := compiler.NewGraph()
			tc.build(rng, g)
			run(t, small(), g)
		})
	}
}
