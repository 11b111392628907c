package host

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// withRings is cfg with descriptor rings of 2^bits descriptors and task
// manager queues of depth descriptors.
func withRings(cfg npu.Config, bits, depth int) npu.Config {
	cfg.DescRingBits, cfg.QueueDepth = bits, depth
	cfg.ExtAddrWidth = max(cfg.ExtAddrWidth, 11) // room for the rings after the program
	return cfg
}

// TestDescriptorRings: the same network submitted through the command
// port and through descriptor rings (the fetch DMA reads every
// descriptor from external memory) computes the golden result; every
// descriptor is fetched once; rings shorter than the program wrap (the
// host refills them as qr_head advances). The fetch is serial (B lines
// plus the memory latency per descriptor: 8 + 4 cycles on this 4×4 NPU
// with 32-bit lines), which these 74 short tasks (43 cycles on average)
// feel: 31–41% here, 0.1% on a 48×48 layer of the default NPU
// (BENCHMARKS.md); the bound catches a fetch that stalls.
func TestDescriptorRings(t *testing.T) {
	plain := small()
	plain.ExtAddrWidth = 11
	base := run(t, plain, toyNet())
	for _, tc := range []struct {
		name        string
		bits, depth int
	}{
		{"ring_holds_program", 6, 16},
		{"ring_wraps_queue_2", 2, 2},
		{"ring_of_2", 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := withRings(small(), tc.bits, tc.depth)
			res := run(t, cfg, toyNet())
			if res.DescFetched != uint64(len(res.Timeline)) {
				t.Errorf("desc_fetched = %d, want one per task (%d)", res.DescFetched, len(res.Timeline))
			}
			if res.DescReplaced != 0 {
				t.Errorf("desc_replaced = %d with one queue", res.DescReplaced)
			}
			ratio := float64(res.Cycles) / float64(base.Cycles)
			t.Logf("rings of %d, queues of %d: %d cycles, command port %d (%.3f×)", 1<<tc.bits, tc.depth, res.Cycles, base.Cycles, ratio)
			if ratio > 1.5 {
				t.Errorf("%d cycles through the rings, %d through the command port: the fetch costs %.1f%%", res.Cycles, base.Cycles, 100*(ratio-1))
			}
		})
	}
}

// TestRingsAndGatingCrossCheck replays on Verilator a run through rings
// of 2 that wrap, with partial-output gating, in which consumers start
// before their producers end: the fetch DMA, the read mux, the queue
// records and the read gates agree cycle for cycle.
func TestRingsAndGatingCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	cfg := ringsGated()
	p, err := compiler.Compile(cfg, toyNet())
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, cfg, toyNet())
	if _, overlapped := partialOverlaps(p, res); overlapped == 0 {
		t.Error("no consumer started before its producer finished: the replay would not cover the gates")
	}
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles (build %v, cached %v)", cr.Outputs, cr.Cycles, cr.BuildTime, cr.Cached)
}

// ringsGated is the 4×4 NPU with rings of 2, queues of 2 and
// partial-output gating (one Verilator build for the tests that replay
// it).
func ringsGated() npu.Config { return gated(withRings(small(), 1, 2)) }
