package systolic

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Runs recorded on the Go simulator (GEMM tiles, partial tiles, bubbles,
// transposes, sparse data, garbage on idle ports) replay on Verilator,
// which must agree on every output in every cycle. The Verilator build
// uses -Wall, so this is also a lint check of each configuration.
func TestCrossCheck(t *testing.T) {
	cases := []struct {
		name  string
		mod   func(*Config)
		share float64
		long  bool // skipped with -short
	}{
		{"4x4", func(c *Config) { c.Rows, c.Cols = 4, 4 }, 0.3, false},
		{"4x4_u8xs8_dense", func(c *Config) { c.Rows, c.Cols, c.InputSigned, c.ZeroSkip = 4, 4, false, false }, 0.3, false},
		{"8x16", func(c *Config) { c.Rows, c.Cols = 8, 16 }, 0.5, false},
		{"3x5_mul_stage", func(c *Config) { c.Rows, c.Cols, c.MulStage = 3, 5, true }, 0.4, false},
		{"4x3_dense_mul_stage", func(c *Config) { c.Rows, c.Cols, c.ZeroSkip, c.MulStage = 4, 3, false, true }, 0.3, false},
		{"16x16", func(c *Config) {}, 0.2, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long {
				tooltest.SkipHeavy(t, "16x16 Verilator build")
			}
			tooltest.Need(t, "verilator")
			cfg := DefaultConfig()
			tc.mod(&cfg)
			rng := rand.New(rand.NewPCG(uint64(i), 11))
			h := newHarness(t, cfg)
			p := makePlan(t, cfg, sparseTiles(rng, cfg, tc.share))
			res := h.run(t, p, uint64(i))
			checkRun(t, p, res, cfg)
			res.drv.CrossCheck(verify.Options{Dir: t.TempDir()})
		})
	}
}
