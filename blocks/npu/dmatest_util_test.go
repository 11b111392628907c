package npu

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/emittest"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/stim"
)

// Test helpers of the DMA engines, the external arbiter and the external
// memory model (dma_test.go, extmem_test.go).

// dmaSmallConfig is the small NPU the DMA tests run: 4×4 int8, a 32-deep
// state buffer, 16 weight rows, a 64-line external memory with 3 cycles
// of read latency.
func dmaSmallConfig() Config {
	c := DefaultConfig()
	c.Rows, c.Cols, c.ElemWidth, c.AccWidth = 4, 4, 8, 32
	c.StateDepth, c.PsumDepth, c.WeightDepth = 32, 16, 16
	c.ExtAddrWidth, c.ExtLatency = 6, 3
	c.LineDepth, c.Window, c.QueueDepth = 8, 8, 4
	return c
}

// dmaWideConfig has lines wider than 64 bits (6 × 12), fewer columns than
// rows, a weight buffer deeper than the state buffer (t_dst is the weight
// row width) and latency 1.
func dmaWideConfig() Config {
	c := dmaSmallConfig()
	c.Rows, c.Cols, c.ElemWidth, c.AccWidth = 6, 3, 12, 32
	c.PlanarLUT = false // 12-bit elements: no planar table (at most 10 bits)
	c.StateDepth, c.WeightDepth = 16, 64
	c.ExtAddrWidth, c.ExtLatency = 5, 1
	return c
}

const dmaResetCycles = 2

// dmaRandBits is a random w-bit value.
func dmaRandBits(r *rand.Rand, w int) *big.Int {
	return stim.RandomValue(r, hdl.UInt(w))
}

// dmaChance is true with probability p.
func dmaChance(r *rand.Rand, p float64) bool { return p >= 1 || r.Float64() < p }

// dmaField cuts bits [lo, lo+w) out of v.
func dmaField(v *big.Int, lo, w int) uint64 {
	x := new(big.Int).Rsh(v, uint(lo))
	return x.And(x, hdl.UInt(w).Mask()).Uint64()
}

// dmaEmit writes m as Verilog into a temporary directory and returns the
// directory, the top's name and the file list.
func dmaEmit(t *testing.T, m *hdl.Module) (string, string, []string) {
	t.Helper()
	dir, d, files := emittest.Dir(t, m)
	return dir, d.Top.Name, files
}

// dmaModules are the four modules of this part, by constructor.
var dmaModules = []struct {
	name  string
	build func(Config) *hdl.Module
}{
	{"dma_in", dmaIn},
	{"dma_out", dmaOut},
	{"ext_arb", extArbiter},
	{"ext_mem", extMem},
}

// Lint (verilator -Wall, no warnings), an Icarus compile and synthesis (Yosys, check -assert:
// no latch, no loop, no driver conflict) of the four modules, for the
// small and wide configurations; the default configuration is linted, and
// synthesized except for the external-memory model (a 2^16 × 128 array
// Yosys would map to flip-flops).
func TestDMAEmit(t *testing.T) {
	tooltest.Need(t, "verilator")
	for _, cc := range []struct {
		name      string
		c         Config
		synthSkip map[string]bool
	}{
		{"small", dmaSmallConfig(), nil},
		{"wide", dmaWideConfig(), nil},
		{"default", DefaultConfig(), map[string]bool{"ext_mem": true}},
	} {
		if err := cc.c.Validate(); err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		for _, mod := range dmaModules {
			t.Run(cc.name+"/"+mod.name, func(t *testing.T) {
				dir, top, files := dmaEmit(t, mod.build(cc.c))
				if err := toolchain.Lint(dir, top, files); err != nil {
					t.Fatal(err)
				}
				if cc.name != "default" {
					t.Run("icarus", func(t *testing.T) {
						tooltest.Need(t, "iverilog")
						if err := toolchain.Icarus(dir, top, files); err != nil {
							t.Fatal(err)
						}
					})
				}
				if cc.synthSkip[mod.name] {
					return
				}
				t.Run("synth", func(t *testing.T) {
					if cc.name == "default" {
						tooltest.SkipHeavy(t, "synthesis of the default configuration")
					}
					tooltest.Need(t, "yosys")
					stat, err := toolchain.Synth(dir, top, files)
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(strings.ToLower(stat), "latch") {
						t.Errorf("latch in the synthesis report:\n%s", stat)
					}
				})
			})
		}
	}
}
