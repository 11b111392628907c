package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu/isa"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// With the DMA's own state-buffer read port, stores no longer take read
// cycles from the PE array: the NE never stalls on the state buffer, the
// same program finishes sooner with the same results, and the run
// replays on Verilator.
func TestDMAReadPort(t *testing.T) {
	w := compiler.Workload{Op: "gemm", M: 32, K: 16, N: 16}
	run := func(t *testing.T, port bool) *Result {
		cfg := roomy()
		cfg.DMAReadPort = port
		want, p := compileWorkload(t, cfg, w)
		res, err := Run(cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Fatalf("dma_read_port %v (-golden +simulator):\n%s", port, d)
		}
		ne := res.Engines[isa.NE]
		t.Logf("dma_read_port %v: %d cycles, NE busy %d stall %d", port, res.Cycles, ne.Busy, ne.Stall)
		return res
	}
	shared, own := run(t, false), run(t, true)
	if s := shared.Engines[isa.NE].Stall; s == 0 {
		t.Errorf("with a shared read port the NE never stalled: the workload does not show the conflict")
	}
	if s := own.Engines[isa.NE].Stall; s != 0 {
		t.Errorf("with the DMA's own read port the NE stalled %d cycles", s)
	}
	if own.Cycles >= shared.Cycles {
		t.Errorf("own port %d cycles, shared %d: no gain", own.Cycles, shared.Cycles)
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(own.Design, own.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator identical on %d outputs × %d cycles", cr.Outputs, cr.Cycles)
}
