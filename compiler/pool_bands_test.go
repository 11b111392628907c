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

// A pool of a conv's result runs in bands of rows, each right after the
// act that completes its rows (so the planar engine pools while the NE
// still convolves, and the next conv starts on the first bands), with
// the golden result in program order and in random legal orders, and
// declared accesses that cover the traced ones; a pool with padding
// above and below, or Pool.Whole, stays one task per channel tile.
func TestPoolBands(t *testing.T) {
	relu := golden.Requant{Scale: 1, Shift: 7, Relu: true}
	cases := []struct {
		name       string
		cfg        npu.Config
		c, h, w, o int
		pool       Pool
		banded     bool
		fc         bool // the pool's result is read through a view: flattened, then a fully-connected layer
	}{
		{"2x2 stride 2, max", small(), 3, 12, 8, 4, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}, true, false},
		{"3x3 stride 3, max", small(), 3, 15, 9, 4, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 3}, true, false},
		{"3x3 stride 2, overlapping windows, avg", small(), 2, 13, 7, 4, Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 2, Requant: AvgRequant(9)}, true, false},
		{"2x2 stride 1, side padding, min", small(), 2, 10, 6, 4, Pool{Kind: golden.PoolMin, KH: 2, KW: 2, Stride: 1, PadW: 1, Padding: golden.PadEdge}, true, false},
		{"two channel tiles", narrow(), 5, 12, 10, 7, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}, true, false},
		{"flattened into a fully-connected layer", small(), 3, 12, 8, 4, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}, true, true},
		{"padding above and below", small(), 3, 12, 10, 4, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Padding: golden.PadIgnore}, false, false},
		{"Whole", small(), 3, 12, 8, 4, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2, Whole: true}, false, false},
		// Placed first, the pool's result would leave the conv too little
		// room to stream: the pool runs whole, after.
		{"no room for both", small(), 3, 16, 12, 4, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}, false, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -100, 100, tc.c, tc.h, tc.w))
			y := g.Conv2D(x, randTensor(rng, -20, 20, tc.o, tc.c, 3, 3), Conv{PadH: 1, PadW: 1, Requant: relu})
			p := g.Pool2D(y, tc.pool)
			// The next layer reads the pool on chip, as a CNN's does.
			if tc.fc {
				f := g.Flatten(p)
				g.Output("z", g.GEMM(f, randTensor(rng, -20, 20, f.Shape()[1], 5), golden.Requant{Scale: 1, Shift: 9}))
			} else {
				g.Output("z", g.Conv2D(p, randTensor(rng, -20, 20, 3, tc.o, 3, 3), Conv{PadH: 1, PadW: 1, Requant: relu}))
			}
			prog := verifyGraph(t, tc.cfg, g, 3)
			var pools, acts []int // task indices
			for k, task := range prog.Tasks {
				switch {
				case strings.HasPrefix(task.Label, "pool0"):
					pools = append(pools, k)
				case strings.HasPrefix(task.Label, "conv2d0") && strings.HasSuffix(task.Label, " act"):
					acts = append(acts, k)
				}
			}
			tiles := ceilDiv(tc.o, tc.cfg.Cols)
			if len(acts) < 2 {
				t.Fatalf("%d acts of the first conv: the case should take several blocks of rows", len(acts))
			}
			interleaved := pools[0] < acts[len(acts)-1]
			if got, want := [2]bool{len(pools) > tiles, interleaved}, [2]bool{tc.banded, tc.banded}; got != want {
				t.Errorf("%d pool tasks for %d channel tiles, first before the last act: %v; want banded %v (tasks %v)",
					len(pools), tiles, interleaved, tc.banded, prog.Labels())
			}
			for _, k := range pools {
				if prog.Tasks[k].Desc.Engine != isa.Planar {
					t.Errorf("%s runs on engine %d", prog.Tasks[k].Label, prog.Tasks[k].Desc.Engine)
				}
			}
		})
	}
}

// Banding changes the pool's tasks, not the outputs: the same graph with
// Pool.Whole gives the same ones.
func TestPoolBandsMatchWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	x := randTensor(rng, -100, 100, 3, 12, 8)
	w1, w2 := randTensor(rng, -20, 20, 4, 3, 3, 3), randTensor(rng, -20, 20, 2, 4, 3, 3)
	relu := golden.Requant{Scale: 1, Shift: 7, Relu: true}
	run := func(whole bool) (map[string]*golden.Tensor, int) {
		g := NewGraph()
		y := g.Conv2D(g.Input("x", x), w1, Conv{PadH: 1, PadW: 1, Requant: relu})
		p := g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2, Whole: whole})
		g.Output("z", g.Conv2D(p, w2, Conv{PadH: 1, PadW: 1, Requant: relu}))
		prog, err := Compile(small(), g)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Interpret(prog)
		if err != nil {
			t.Fatal(err)
		}
		pools := 0
		for _, task := range prog.Tasks {
			if strings.HasPrefix(task.Label, "pool0") {
				pools++
			}
		}
		return out, pools
	}
	whole, n1 := run(true)
	banded, n2 := run(false)
	if d := cmp.Diff(whole, banded); d != "" {
		t.Errorf("outputs (-whole +banded):\n%s", d)
	}
	if n1 != 1 || n2 < 2 {
		t.Errorf("%d pool tasks whole, %d banded; want 1 and several", n1, n2)
	}
}
