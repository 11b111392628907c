package host

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// The operations ImageNet-class CNNs add, on the Go simulator: grouped
// and depthwise convolutions, a concat whose parts are produced in
// place (one with holes), a channel shuffle absorbed by a depthwise
// conv, and one the NE copies into channel order (relayout).
func TestCNNOps(t *testing.T) {
	q := golden.Requant{Scale: 1, Shift: 7}
	cases := []struct {
		name  string
		cfg   npu.Config
		build func(g *compiler.Graph, rng *rand.Rand)
	}{
		{"grouped and depthwise", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 5, 5))
			y := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: q, Groups: 2})
			g.Output("y", g.Conv2D(y, randTensor(rng, 6, 1, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q, Groups: 6}))
		}},
		{"shufflenet unit", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Conv2D(g.Input("x", randTensor(rng, 3, 6, 6)), randTensor(rng, 6, 3, 1, 1), compiler.Conv{Requant: q})
			b := g.Conv2D(x, randTensor(rng, 6, 2, 1, 1), compiler.Conv{Requant: q, Groups: 3})
			b = g.Conv2D(g.ChannelShuffle(b, 3), randTensor(rng, 6, 1, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q, Groups: 6})
			b = g.Conv2D(b, randTensor(rng, 9, 2, 1, 1), compiler.Conv{Requant: q, Groups: 3})
			p := g.Pool2D(x, compiler.Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Requant: compiler.AvgRequant(9)})
			g.Output("y", g.Requant(g.Concat(p, b), golden.Requant{Scale: 1, Relu: true}))
		}},
		{"relayout of a shuffle", small(), func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 6, 3, 3))
			a := g.Pool2D(x, compiler.Pool{Kind: golden.PoolMax, KH: 1, KW: 1})
			b := g.Pool2D(x, compiler.Pool{Kind: golden.PoolMin, KH: 1, KW: 1})
			g.Output("y", g.Eltwise(golden.EltAdd, g.ChannelShuffle(a, 2), b, golden.Requant{Scale: 1}))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := compiler.NewGraph()
			tc.build(g, rand.New(rand.NewPCG(3, 4)))
			run(t, tc.cfg, g)
		})
	}
}

// Maps larger than the state buffer go to external memory and back, a
// pool of one streams in bands, and the external memory is sized from
// the program: compiled with GrowExt for ext_addr_width 10, run on the
// configuration the compiler grew.
func TestSpilledNet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	q := golden.Requant{Scale: 1, Shift: 7, Relu: true}
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 18, 18))
	y := g.Conv2D(x, randTensor(rng, 8, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: q})
	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore})
	y = g.Conv2D(y, randTensor(rng, 4, 8, 1, 1), compiler.Conv{Requant: q})
	g.Output("y", y)
	cfg := small()
	p, err := compiler.CompileWith(cfg, g, compiler.Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.ExtAddrWidth <= cfg.ExtAddrWidth {
		t.Fatalf("ext_addr_width %d: the case should need more than %d", p.Config.ExtAddrWidth, cfg.ExtAddrWidth)
	}
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Fatalf("(-golden +simulator):\n%s", d)
	}
	t.Logf("%s: %s", p.Summary(), res.Summary())
}
