package sram

import (
	"fmt"
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

var smallPsums = []PsumConfig{
	{Partitions: 4, Depth: 16, AccWidth: 32},
	{Partitions: 3, Depth: 8, AccWidth: 12},
	{Partitions: 4, Depth: 16, AccWidth: 32, WritePriority: true, ReadOutPort: true},
}

func TestPsumRandomTraffic(t *testing.T) {
	for _, cfg := range smallPsums {
		for _, macros := range []bool{false, true} {
			for _, rate := range []float64{0.4, 1} {
				t.Run(fmt.Sprintf("%dx%d_s%d/ro%v/%s/rate%.1f", cfg.Partitions, cfg.Depth, cfg.AccWidth, cfg.ReadOutPort, form(macros), rate), func(t *testing.T) {
					res := runPsum(t, psumDesign(t, cfg, macros), cfg, 3000, 1, randomPsum(cfg, rate), 1500)
					checkPsumRun(t, res)
				})
			}
		}
	}
}

func checkPsumRun(t *testing.T, res *psumResult) {
	t.Helper()
	for c, name := range psumClientNames {
		if res.accepted[c] == 0 {
			t.Errorf("%s never served", name)
		}
		if c != psClr && res.maxWait[c] > 1 {
			t.Errorf("%s waited %d cycles for the read port, round-robin bound 1", name, res.maxWait[c])
		}
	}
	if res.accWrites == 0 || res.clearing == 0 {
		t.Errorf("traffic had %d accumulating writes and %d clearing cycles; both must occur", res.accWrites, res.clearing)
	}
	t.Logf("%d cycles: accepted wr/rd/clr %v (%d accumulating), %d clearing cycles, lanes read %.2f/cycle, written %.2f/cycle",
		res.upCycles, res.accepted, res.accWrites, res.clearing, float64(res.bankReads)/float64(res.upCycles), float64(res.bankWrites)/float64(res.upCycles))
}

func TestPsumRandomTrafficDefault(t *testing.T) {
	cfg := DefaultConfig().Psum
	res := runPsum(t, psumDesign(t, cfg, false), cfg, 2000, 3, randomPsum(cfg, 0.6))
	checkPsumRun(t, res)
}

func TestPsumRandomTrafficVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	for _, tc := range []struct {
		cfg    PsumConfig
		macros bool
	}{{smallPsums[0], false}, {smallPsums[0], true}, {smallPsums[2], true}} {
		cfg, macros := tc.cfg, tc.macros
		name := form(macros)
		if cfg.ReadOutPort {
			name += "/read_out_port"
		}
		t.Run(name, func(t *testing.T) {
			d := psumDesign(t, cfg, macros)
			res := runPsum(t, d, cfg, 3000, 2, randomPsum(cfg, 0.7), 1000, 2000)
			res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
		})
	}
}

func TestPsumDefaultVerilator(t *testing.T) {
	tooltest.SkipHeavy(t, "default-size Verilator build")
	tooltest.Need(t, "verilator")
	cfg := DefaultConfig().Psum
	for _, macros := range []bool{false, true} {
		t.Run(form(macros), func(t *testing.T) {
			d := psumDesign(t, cfg, macros)
			res := runPsum(t, d, cfg, 1500, 4, randomPsum(cfg, 0.7))
			res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
		})
	}
}

// Resets in the middle of traffic: clients drop their requests, the
// control state restarts, the arrays keep their contents, and a clear
// cut short by a reset leaves the entries it had not reached untouched.
func TestPsumResetDuringTraffic(t *testing.T) {
	cfg := smallPsums[0]
	var resets []int
	for at := 100; at < 3000; at += 97 {
		resets = append(resets, at)
	}
	for _, macros := range []bool{false, true} {
		t.Run(form(macros), func(t *testing.T) {
			res := runPsum(t, psumDesign(t, cfg, macros), cfg, 3000, 5, randomPsum(cfg, 0.7), resets...)
			if res.abandoned == 0 {
				t.Errorf("no reset hit a running clear; pick other reset cycles")
			}
			checkPsumRun(t, res)
		})
	}
}

// With write priority an accumulating write never waits for the read
// port (the PE array cannot stall); read-outs still get through in the
// cycles without one. Cross-checked on Verilator.
func TestPsumWritePriority(t *testing.T) {
	cfg := smallPsums[0]
	cfg.WritePriority = true
	d := psumDesign(t, cfg, false)
	res := runPsum(t, d, cfg, 3000, 4, randomPsum(cfg, 0.7), 1000)
	if res.maxWait[psWr] != 0 {
		t.Errorf("an accumulating write waited %d cycles with write priority", res.maxWait[psWr])
	}
	if res.accepted[psRd] == 0 || res.accWrites == 0 {
		t.Errorf("traffic served %d read-outs and %d accumulating writes; both must occur", res.accepted[psRd], res.accWrites)
	}
	tooltest.Need(t, "verilator")
	res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
}
