package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// TestScheduleShape pins the shape of a streamed GEMM's schedule on the
// default NPU (256×256×256, the utilization benchmark): blocks of
// output rows of balanced height, and a first step split per channel
// tile whose first NE task waits only for the first tile's weights and
// input rows, not for the whole band.
func TestScheduleShape(t *testing.T) {
	cfg := npu.DefaultConfig()
	rng := rand.New(rand.NewPCG(3, 4))
	g := NewGraph()
	a := g.Input("a", randTensor(rng, -128, 127, 256, 256))
	g.Output("c", g.GEMM(a, randTensor(rng, -128, 127, 256, 256), golden.Requant{Scale: 1, Shift: 8}))
	p := verifyGraph(t, cfg, g, 1)
	var ohs []int // output rows of each block (its first NE task)
	firstNE := -1
	for i := range p.Tasks {
		d := &p.Tasks[i].Desc
		if d.Engine != isa.NE {
			continue
		}
		if firstNE < 0 {
			firstNE = i
		}
		if pr := cfg.NEParams().Unpack(d.Param); pr["acc"] == 0 {
			ohs = append(ohs, int(pr["oh"]))
		}
	}
	lo, hi := ohs[0], ohs[0]
	for _, oh := range ohs {
		lo, hi = min(lo, oh), max(hi, oh)
	}
	if hi-lo > 2 || hi != 86 {
		t.Errorf("blocks of output rows %d..%d high, want balanced blocks of 86 (256 rows in 3)", lo, hi)
	}
	// The first NE task reads one channel tile (d2 = 1) and depends on
	// nothing but the two loads before it (16 weight rows, then 86 input
	// lines; the second implies the first).
	ne := p.Tasks[firstNE]
	if ne.Desc.D2 != 1 || firstNE != 2 {
		t.Fatalf("first NE task is task %d with %d channel tiles, want task 2 with 1", firstNE, ne.Desc.D2)
	}
	for _, dep := range ne.Desc.Deps {
		l := p.Tasks[dep]
		n := 0
		for _, s := range l.Writes {
			n += s.Hi - s.Lo
		}
		if l.Desc.Engine != isa.DMAIn || n > 86 {
			t.Errorf("first NE task depends on %s (%d addresses)", l.Label, n)
		}
	}
	if len(ne.Desc.Deps) != 1 || ne.Desc.Deps[0] != 1 {
		t.Errorf("first NE task has dependencies %v, want [1] (the first input tile)", ne.Desc.Deps)
	}
}

// TestTwoBlocks: a layer of one output tile whose output fits one psum
// block still runs as two (the act of the first overlaps the NE of the
// second); one whose halves would be short passes stays whole.
func TestTwoBlocks(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tc := range []struct{ h, blocks int }{{16, 2}, {8, 2}, {6, 1}} {
		rng := rand.New(rand.NewPCG(5, uint64(tc.h)))
		g := NewGraph()
		x := g.Input("x", randTensor(rng, -128, 127, 3, tc.h, 8))
		g.Output("y", g.Conv2D(x, randTensor(rng, -128, 127, 16, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}}))
		p := verifyGraph(t, cfg, g, 2)
		blocks := 0
		for i := range p.Tasks {
			d := &p.Tasks[i].Desc
			if d.Engine == isa.NE && cfg.NEParams().Unpack(d.Param)["acc"] == 0 {
				blocks++
			}
		}
		if blocks != tc.blocks {
			t.Errorf("conv 3×%d×8 → 16: %d blocks of output rows, want %d", tc.h, blocks, tc.blocks)
		}
	}
}
