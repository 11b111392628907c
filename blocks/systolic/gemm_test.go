package systolic

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// randTiles makes n random tiles for cfg. Every third tile is partial:
// fewer rows of weights (the other rows keep stale weights and the
// vectors' padding elements are 0), fewer columns (the rest are 0), and
// fewer vectors than R.
func randTiles(rng *rand.Rand, cfg Config, n int, zeroShare float64) []tile {
	R, C := cfg.Rows, cfg.Cols
	it, wt := intOf(cfg.InputType()), intOf(cfg.WeightType())
	var tiles []tile
	for k := 0; k < n; k++ {
		K, N, M := R, C, R+rng.IntN(3)
		if k%3 == 2 {
			K, N, M = 1+rng.IntN(R), 1+rng.IntN(C), 1+rng.IntN(R)
		}
		w := randMatrix(rng, R, C, wt, zeroShare)
		for r := range w {
			if r >= K {
				w[r] = nil // not loaded: stale weights stay
				continue
			}
			for c := N; c < C; c++ {
				w[r][c] = 0
			}
		}
		x := randMatrix(rng, M, R, it, zeroShare)
		for i := range x {
			for r := K; r < R; r++ {
				x[i][r] = 0
			}
		}
		tl := tile{w: w, x: x, entry: rng.IntN(1 << cfg.EntryWidth), acc: rng.IntN(2) == 1, loadSkew: rng.IntN(R + 2)}
		if k%4 == 1 { // bubbles inside the tile
			tl.gaps = make([]int, M)
			for i := 1; i < M; i++ {
				tl.gaps[i] = rng.IntN(2)
			}
		}
		if k%5 == 3 {
			tl.idle = 1 + rng.IntN(3)
		}
		tiles = append(tiles, tl)
	}
	return tiles
}

// checkRun compares a run with its plan: every output vector (cycle,
// entry, flag, values) and both counters.
func checkRun(t *testing.T, p *plan, res *result, cfg Config) {
	t.Helper()
	if d := cmp.Diff(p.want, res.outs); d != "" {
		t.Errorf("output vectors (-want +got):\n%s", d)
	}
	if res.macs != p.macs {
		t.Errorf("mac_count = %d, want %d", res.macs, p.macs)
	}
	if cfg.ZeroSkip && res.skips != p.skips {
		t.Errorf("skip_count = %d, want %d", res.skips, p.skips)
	}
}

var typeConfigs = []struct {
	name string
	mod  func(*Config)
}{
	{"s8xs8_s32", func(c *Config) {}},
	{"u8xs8_s32", func(c *Config) { c.InputSigned = false }},
	{"s8xu8_s20", func(c *Config) { c.WeightSigned = false; c.PsumWidth = 20 }},
	{"u4xu4_u12", func(c *Config) {
		c.InputWidth, c.WeightWidth, c.InputSigned, c.WeightSigned, c.PsumWidth = 4, 4, false, false, 12
	}},
	{"s4xs4_s8_wraps", func(c *Config) { c.InputWidth, c.WeightWidth, c.PsumWidth = 4, 4, 8 }},
	{"s16xs16_s32_wraps", func(c *Config) { c.InputWidth, c.WeightWidth = 16, 16 }},
	{"u16xu16_u40", func(c *Config) {
		c.InputWidth, c.WeightWidth, c.InputSigned, c.WeightSigned, c.PsumWidth = 16, 16, false, false, 40
	}},
	{"s8xs8_s32_dense", func(c *Config) { c.ZeroSkip = false }},
	{"s8xs8_s32_mul_stage", func(c *Config) { c.MulStage = true }},
	{"u8xs8_s32_dense_mul_stage", func(c *Config) { c.InputSigned, c.ZeroSkip, c.MulStage = false, false, true }},
}

// Random GEMM tiles, back to back with partial tiles, bubbles and idle
// gaps, on every number format, against the golden model.
func TestGEMMTiles(t *testing.T) {
	shapes := []struct{ r, c int }{{4, 4}, {3, 5}, {5, 2}, {1, 1}, {1, 6}, {6, 1}, {16, 16}, {8, 16}}
	for i, tc := range typeConfigs {
		for j, sh := range shapes {
			if sh.r*sh.c > 64 && i > 1 {
				continue // the big arrays on two formats keep the run short
			}
			cfg := DefaultConfig()
			cfg.Rows, cfg.Cols, cfg.EntryWidth = sh.r, sh.c, 5
			tc.mod(&cfg)
			t.Run(tc.name+"/"+Name(cfg), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), uint64(j)))
				h := newHarness(t, cfg)
				p := makePlan(t, cfg, randTiles(rng, cfg, 7, 0.2))
				checkRun(t, p, h.run(t, p, uint64(i*10+j)), cfg)
			})
		}
	}
}

// Extreme values: every element and weight at the format's minimum or
// maximum, summed over all R rows, and an all-zero tile; on every format,
// and for int8 also on the largest shapes (-128·-128 summed 128 times).
func TestExtremeValues(t *testing.T) {
	cases := append([]struct {
		name string
		mod  func(*Config)
	}{
		{"128x2", func(c *Config) { c.Rows, c.Cols = 128, 2 }},
		{"2x128", func(c *Config) { c.Rows, c.Cols = 2, 128 }},
	}, typeConfigs...)
	for _, tc := range cases {
		cfg := DefaultConfig()
		cfg.Rows, cfg.Cols = 8, 3
		tc.mod(&cfg)
		it, wt := intOf(cfg.InputType()), intOf(cfg.WeightType())
		t.Run(tc.name, func(t *testing.T) {
			fill := func(r, c int, v int64) [][]int64 {
				m := zeros(r, c)
				for i := range m {
					for j := range m[i] {
						m[i][j] = v
					}
				}
				return m
			}
			R, C := cfg.Rows, cfg.Cols
			tiles := []tile{
				{w: fill(R, C, wt.Min()), x: fill(R, R, it.Min())},
				{w: fill(R, C, wt.Max()), x: fill(R, R, it.Max())},
				{w: fill(R, C, wt.Min()), x: fill(R, R, it.Max()), acc: true},
				{w: fill(R, C, 0), x: fill(R, R, 0)},
				{w: fill(R, C, wt.Max()), x: fill(R, R, 0)},
				{w: fill(R, C, 0), x: fill(R, R, it.Min())},
			}
			p := makePlan(t, cfg, tiles)
			// The first tile is -128·-128 (for int8) summed R times.
			want0 := golden.Int{Width: cfg.PsumWidth, Signed: cfg.PsumType().Signed}.Wrap(int64(R) * it.Min() * wt.Min())
			if p.want[0].Psum[0] != want0 {
				t.Fatalf("golden model gives %d for the extreme tile, want %d", p.want[0].Psum[0], want0)
			}
			checkRun(t, p, newHarness(t, cfg).run(t, p, 3), cfg)
		})
	}
}
