package systolic

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// sparseTiles is a mix of GEMM tiles and transposes whose inputs and
// weights are zero with the given share.
func sparseTiles(rng *rand.Rand, cfg Config, share float64) []tile {
	tiles := randTiles(rng, cfg, 6, share)
	A := randMatrix(rng, cfg.Rows, cfg.Cols, intOf(cfg.WeightType()), share)
	tiles = append(tiles, tile{w: A, tr: true, last: cfg.Rows - 1, entry: 3})
	return append(tiles, randTiles(rng, cfg, 2, share)...)
}

// Zero skipping changes no result: the stimulus recorded on the array
// with zero skipping replays on the array without it, and every output
// port they share is bit-identical in every cycle. The skipped share of
// the MACs is reported.
func TestZeroSkipBitIdentical(t *testing.T) {
	for _, share := range []float64{0, 0.5, 0.9} {
		for _, shape := range [][2]int{{4, 4}, {8, 16}} {
			cfg := DefaultConfig()
			cfg.Rows, cfg.Cols = shape[0], shape[1]
			dense := cfg
			dense.ZeroSkip = false
			t.Run(fmt.Sprintf("%dx%d/zeros%.0f%%", shape[0], shape[1], 100*share), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(100*share), 1))
				p := makePlan(t, cfg, sparseTiles(rng, cfg, share))
				res := newHarness(t, cfg).run(t, p, 4)
				checkRun(t, p, res, cfg)
				st := res.drv.Stimulus()
				onD, offD := newHarness(t, cfg).d, newHarness(t, dense).d
				on, err := verify.RunGo(onD, st, nil, "")
				if err != nil {
					t.Fatal(err)
				}
				off, err := verify.RunGo(offD, st, nil, "")
				if err != nil {
					t.Fatal(err)
				}
				_, onPorts := stim.Ports(onD)
				_, offPorts := stim.Ports(offD)
				valid := slices.IndexFunc(onPorts, func(p stim.Port) bool { return p.Name == "out_valid" })
				var shared []string
				for i, p := range onPorts {
					j := slices.Index(offPorts, p)
					if j < 0 {
						continue
					}
					shared = append(shared, p.Name)
					for c := range on {
						// A psum is a result only with out_valid; in other
						// cycles the last column shows whatever the array's
						// empty slots summed, which zero skipping makes 0.
						if strings.HasPrefix(p.Name, "out_psum_") && on[c][valid] != "1" {
							continue
						}
						if on[c][i] != off[c][j] {
							t.Fatalf("cycle %d, %s: 0x%s with zero skipping, 0x%s without", c, p.Name, on[c][i], off[c][j])
						}
					}
				}
				if len(shared) != len(offPorts) {
					t.Fatalf("the dense array has ports the other lacks: %v vs %v", offPorts, shared)
				}
				t.Logf("%d MACs, %d skipped (%.1f%%) with %.0f%% zero inputs and weights; %d output ports identical over %d cycles",
					res.macs, res.skips, 100*float64(res.skips)/float64(max(res.macs, 1)), 100*share, len(shared), len(on))
			})
		}
	}
}

// Operand isolation: in every cycle, for every PE whose product is
// skipped (its element or its weight is zero), the multiplier's operand
// registers hold their values. The weight operand changes only when a
// tile swaps in a non-zero weight. Compared with the dense array, the
// multiplier's element operand toggles far less on sparse data.
func TestOperandIsolation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols = 4, 5
	dense := cfg
	dense.ZeroSkip = false
	rng := rand.New(rand.NewPCG(7, 7))
	p := makePlan(t, cfg, sparseTiles(rng, cfg, 0.6))
	hs, hd := newHarness(t, cfg), newHarness(t, dense)
	type pe struct{ xm, wa, skip, swap int64 }
	prev := map[string]pe{}
	var isolated, xToggles, xTogglesDense int
	_, err := hs.runWatching(t, p, 5, func(c int, d *driver) {
		for r := 0; r < cfg.Rows; r++ {
			for k := 0; k < cfg.Cols; k++ {
				n := fmt.Sprintf("pe_%d_%d.", r, k)
				now := pe{d.PeekInt(n + "xm"), d.PeekInt(n + "wa"), d.PeekInt(n+"zf") | d.PeekInt(n+"wza"), d.PeekInt(n + "s_in")}
				before, seen := prev[n]
				prev[n] = now
				if !seen {
					continue
				}
				if now.xm != before.xm {
					xToggles++
				}
				if now.skip == 1 {
					if now.xm != before.xm {
						t.Errorf("cycle %d, %s: x operand changed %d → %d while the product is skipped", c, n, before.xm, now.xm)
					}
					if now.wa != before.wa && before.swap == 0 {
						t.Errorf("cycle %d, %s: weight operand changed without a swap", c, n)
					}
					isolated++
				}
				if now.wa != before.wa && (before.swap == 0 || now.wa == 0) {
					t.Errorf("cycle %d, %s: weight operand %d → %d (swap %d)", c, n, before.wa, now.wa, before.swap)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	prevDense := map[string]int64{}
	if _, err := hd.runWatching(t, p, 5, func(c int, d *driver) {
		for r := 0; r < cfg.Rows; r++ {
			for k := 0; k < cfg.Cols; k++ {
				n := fmt.Sprintf("pe_%d_%d.xf", r, k)
				v := d.PeekInt(n)
				if old, seen := prevDense[n]; seen && old != v {
					xTogglesDense++
				}
				prevDense[n] = v
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if isolated == 0 {
		t.Fatalf("no skipped products observed")
	}
	if xToggles*2 > xTogglesDense {
		t.Errorf("x operand toggled %d times with zero skipping, %d without: expected well under half", xToggles, xTogglesDense)
	}
	t.Logf("%d PE-cycles with a skipped product, operands held in all; x operand changes: %d with zero skipping, %d dense",
		isolated, xToggles, xTogglesDense)
}

// The skipped-MAC counter counts exactly the MACs with a zero element or
// weight, per valid vector, whatever the tile mix (also checked in every
// run of the other tests); this test pins the count on a hand-made case.
func TestSkipCounter(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rows, cfg.Cols = 3, 4
	W := [][]int64{{1, 0, 2, 0}, {0, 0, 0, 0}, {5, 6, 7, 8}} // zero weights per row: 2, 4, 0
	X := [][]int64{
		{1, 1, 1}, // 2+4+0 = 6
		{0, 1, 1}, // 4+4+0 = 8
		{0, 0, 0}, // 12
		{1, 2, 0}, // 2+4+4 = 10
	}
	p := makePlan(t, cfg, []tile{{w: W, x: X}})
	res := newHarness(t, cfg).run(t, p, 6)
	checkRun(t, p, res, cfg)
	if diff := cmp.Diff([2]int64{4 * 12, 6 + 8 + 12 + 10}, [2]int64{res.macs, res.skips}); diff != "" {
		t.Errorf("mac_count, skip_count (-want +got):\n%s", diff)
	}
}

// The skipped share on full 16×16×16 tiles whose elements and weights are
// zero with probability s: a MAC is skipped when either operand is zero,
// so about 1-(1-s)² of them. The counter must match the model exactly.
func TestSkippedShare(t *testing.T) {
	cfg := DefaultConfig()
	h := newHarness(t, cfg)
	for _, share := range []float64{0, 0.25, 0.5, 0.75, 0.9} {
		rng := rand.New(rand.NewPCG(uint64(share*100), 2))
		var tiles []tile
		for k := 0; k < 4; k++ {
			tiles = append(tiles, tile{
				w: randMatrix(rng, cfg.Rows, cfg.Cols, intOf(cfg.WeightType()), share),
				x: randMatrix(rng, cfg.Rows, cfg.Rows, intOf(cfg.InputType()), share),
			})
		}
		p := makePlan(t, cfg, tiles)
		res := h.run(t, p, 1)
		checkRun(t, p, res, cfg)
		got := float64(res.skips) / float64(res.macs)
		ideal := 1 - (1-share)*(1-share)
		t.Logf("zeros %3.0f%%: %5d of %5d MACs skipped (%5.1f%%; 1-(1-s)² = %5.1f%%)", 100*share, res.skips, res.macs, 100*got, 100*ideal)
		if got < ideal-0.1 || got > ideal+0.1 {
			t.Errorf("skipped share %.3f far from %.3f", got, ideal)
		}
	}
}
