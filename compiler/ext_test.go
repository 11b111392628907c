package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

func TestExtAddrWidthFor(t *testing.T) {
	cases := []struct{ lines, want int }{
		{0, 4}, {1, 4}, {16, 4}, {17, 5}, {65536, 16}, {65537, 17}, {1770871, 21},
	}
	for _, tc := range cases {
		if got := ExtAddrWidthFor(tc.lines); got != tc.want {
			t.Errorf("ExtAddrWidthFor(%d) = %d, want %d", tc.lines, got, tc.want)
		}
	}
}

// GrowExt widens ext_addr_width to what the program needs, and only
// then: the program's configuration is the one to run it on.
func TestGrowExt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	build := func(h int) *Graph {
		g := NewGraph()
		y := g.Conv2D(g.Input("x", randTensor(rng, -128, 127, 1, h, 16)), randTensor(rng, -128, 127, 8, 1, 1, 1), Conv{})
		g.Output("y", g.Requant(y, golden.Requant{}))
		return g
	}
	cases := []struct {
		name      string
		h         int
		wantWidth int
	}{
		{"fits: the configured width stays", 4, 10},
		{"spilled map: grown", 16, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := build(tc.h)
			p, err := CompileWith(small(), g, Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			want := small()
			want.ExtAddrWidth = tc.wantWidth
			if d := cmp.Diff(want, p.Config); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
			verifyProgram(t, g, p, 1)
		})
	}
}
