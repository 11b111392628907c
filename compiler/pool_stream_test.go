package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// Pools of planes larger than the state buffer (256 addresses here)
// stream in bands of rows, with their rows of padding written into the
// slot: zeros, the value that never wins, the edge rows; padding above
// and below, strides 1 and 2, a staged result and one kept on chip for
// the next layer.
func TestPoolStream(t *testing.T) {
	cases := []struct {
		name    string
		h, w    int
		pool    Pool
		onChip  bool // a conv reads the result
		padRows bool // some band loads rows of padding
	}{
		{"max 3x3 stride 2, padding never wins", 18, 17, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore}, false, true},
		{"max 3x3 stride 2 to a conv", 19, 16, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore}, true, true},
		{"avg 3x3 stride 1, zero padding", 17, 16, Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Requant: AvgRequant(9)}, false, true},
		{"min 2x3, edge padding", 18, 16, Pool{Kind: golden.PoolMin, KH: 2, KW: 3, Stride: 1, PadH: 1, PadW: 2, Padding: golden.PadEdge}, false, true},
		{"min 3x3, padding never wins", 16, 18, Pool{Kind: golden.PoolMin, KH: 3, KW: 3, Stride: 1, PadH: 2, PadW: 1, Padding: golden.PadIgnore}, false, true},
		{"avg 2x2 stride 2, no padding", 20, 20, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)}, true, false},
		// Wider than the line buffer (64): strips of columns.
		{"max 2x2 stride 2, 70 columns out", 6, 140, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}, false, false},
		{"max 3x3 stride 1, 68 columns, padding above and below", 5, 70, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 1, PadH: 1, Padding: golden.PadIgnore}, false, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 11))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, 6, tc.h, tc.w))
			y := g.Pool2D(x, tc.pool)
			if tc.onChip {
				y = g.Conv2D(y, randTensor(rng, -128, 127, 2, 6, 1, 1), Conv{Requant: golden.Requant{Scale: 1, Shift: 8}})
			}
			g.Output("y", y)
			p, err := CompileWith(small(), g, Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			verifyProgram(t, g, p, 2)
			bands, pads := 0, false
			for _, task := range p.Tasks {
				bands += boolInt(strings.HasPrefix(task.Label, "pool0 c0 r"))
				pads = pads || strings.HasSuffix(task.Label, " pad rows")
			}
			if d := cmp.Diff(fmt.Sprint(true, tc.padRows), fmt.Sprint(bands > 1, pads)); d != "" {
				t.Errorf("tile 0 in bands, rows of padding loaded (-want +got):\n%s", d)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
