package systolic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// Back-to-back full tiles (R vectors each, new weights every tile, the
// next tile's weights loading during the current one): one vector in and
// one out every cycle, no idle cycle between tiles, and the documented
// latencies: first input to first output R+C cycles, first input to last
// output N·M-1+R+C.
func TestBackToBackLatency(t *testing.T) {
	for _, sh := range []struct{ r, c, n int }{{4, 4, 5}, {8, 16, 4}, {16, 16, 3}, {3, 7, 4}} {
		cfg := DefaultConfig()
		cfg.Rows, cfg.Cols = sh.r, sh.c
		t.Run(Name(cfg), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(sh.r), uint64(sh.c)))
			var tiles []tile
			for k := 0; k < sh.n; k++ {
				tiles = append(tiles, tile{
					w:     randMatrix(rng, cfg.Rows, cfg.Cols, intOf(cfg.WeightType()), 0.1),
					x:     randMatrix(rng, cfg.Rows, cfg.Rows, intOf(cfg.InputType()), 0.1),
					entry: k * cfg.Rows,
				})
			}
			p := makePlan(t, cfg, tiles)
			M := sh.n * cfg.Rows
			var in []int
			for c, b := range p.beats {
				if b.vec != nil {
					in = append(in, c)
				}
			}
			if len(in) != M || in[M-1]-in[0] != M-1 {
				t.Fatalf("the plan is not back to back: vectors in cycles %v", in)
			}
			res := newHarness(t, cfg).run(t, p, 1)
			checkRun(t, p, res, cfg)
			if len(res.outs) != M {
				t.Fatalf("%d outputs, want %d", len(res.outs), M)
			}
			first, last := res.outs[0].Cycle-in[0], res.outs[M-1].Cycle-in[0]
			if first != cfg.Rows+cfg.Cols || last != M-1+cfg.Rows+cfg.Cols {
				t.Errorf("first input to first output %d cycles, to last output %d; want R+C = %d and N·M-1+R+C = %d",
					first, last, cfg.Rows+cfg.Cols, M-1+cfg.Rows+cfg.Cols)
			}
			if res.outs[M-1].Cycle-res.outs[0].Cycle != M-1 {
				t.Errorf("outputs are not one per cycle")
			}
		})
	}
}

// The weight-load window: row r of the next tile's weights may load in
// cycles T+r … T'+r-1, where T is the cycle the running tile's first
// vector (in_swap) was taken and T' the next tile's. The test moves one
// row to each end of its window and one cycle beyond: inside, every tile
// gets its own weights; one cycle early, the running tile swaps in that
// row too; one cycle late, the next tile misses it and keeps the old row.
func TestLoadWindow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols = 3, 4
	R, span := cfg.Rows, 6
	rng := rand.New(rand.NewPCG(3, 3))
	var W, X [3][][]int64
	for k := range W {
		W[k] = randMatrix(rng, R, cfg.Cols, intOf(cfg.WeightType()), 0)
		X[k] = randMatrix(rng, span, R, intOf(cfg.InputType()), 0)
	}
	T := []int{1, 1 + span, 1 + 2*span} // first vector of each tile
	psum := golden.S(cfg.PsumWidth)
	for row := 0; row < R; row++ {
		for _, off := range []struct {
			name  string
			delta int // load cycle is T[1]+row+delta
			ok    bool
		}{{"one early", -1, false}, {"earliest", 0, true}, {"latest", span - 1, true}, {"one late", span, false}} {
			t.Run(fmt.Sprintf("row%d/%s", row, off.name), func(t *testing.T) {
				loads := map[int]load{}
				put := func(c int, l load) {
					if _, busy := loads[c]; busy {
						t.Fatalf("two loads in cycle %d", c)
					}
					loads[c] = l
				}
				for r := 0; r < R; r++ {
					put(r, load{row: r, w: W[0][r]})
					put(T[0]+2+r, load{row: r, w: W[1][r]})
				}
				put(T[1]+row+off.delta, load{row: row, w: W[2][row]})
				for r := 0; r < R; r++ {
					if r == row {
						continue
					}
					for _, d := range []int{2, 3, 1, 4} { // anywhere inside its own window
						if _, busy := loads[T[1]+r+d]; !busy {
							put(T[1]+r+d, load{row: r, w: W[2][r]})
							break
						}
					}
				}
				p := &plan{first: T[0]}
				p.beats = make([]beat, T[2]+span+cfg.Latency()+2)
				for c, l := range loads {
					p.beats[c].load = &l
				}
				// The contract: the swap of a vector taken in cycle T
				// takes row r from the last load of row r before cycle
				// T+r. Predict every tile's weights from it.
				for k := range T {
					w := zeros(R, cfg.Cols)
					for r := 0; r < R; r++ {
						best := -1
						for c, l := range loads {
							if l.row == r && c <= T[k]+r-1 && c > best {
								best, w[r] = c, l.w
							}
						}
					}
					intended := k
					if !off.ok && ((off.delta < 0 && k == 1) || (off.delta > 0 && k == 2)) {
						intended = -1
					}
					if got := cmp.Equal(w, W[k]); got != (intended == k) {
						t.Fatalf("tile %d: the contract gives weights %v, intended %v", k, w, W[k])
					}
					out, _ := golden.GEMM(mustTensor(t, X[k]), mustTensor(t, w), psum)
					for i, row := range out.Rows() {
						p.beats[T[k]+i].vec = &vec{x: X[k][i], entry: 8*k + i, swap: i == 0}
						p.want = append(p.want, outVec{Cycle: T[k] + i + cfg.Latency(), Entry: 8*k + i, Psum: row})
						p.macs += int64(R * cfg.Cols)
						p.skips += skipsOf(X[k][i], w)
					}
				}
				checkRun(t, p, newHarness(t, cfg).run(t, p, 2), cfg)
			})
		}
	}
}
