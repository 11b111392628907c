package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/workload"
)

// The buffers' extra read ports: with the DMA's own state-buffer read
// port, stores no longer take read cycles from the PE array, so the NE
// never stalls on the state buffer; with the read-out's own psum port,
// acts no longer wait while the array accumulates, so the planar engine
// stalls less. Same program, same results, fewer cycles; the run with
// both replays on Verilator.
func TestOwnReadPorts(t *testing.T) {
	w := workload.Workload{Op: "gemm", M: 32, K: 16, N: 16}
	run := func(t *testing.T, dma, psum bool) *Result {
		cfg := roomy()
		cfg.DMAReadPort, cfg.PsumReadPort = dma, psum
		want, p := compileWorkload(t, cfg, w)
		res, err := Run(cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Fatalf("dma_read_port %v psum_read_port %v (-golden +simulator):\n%s", dma, psum, d)
		}
		ne, pl := res.Engines[isa.NE], res.Engines[isa.Planar]
		t.Logf("dma_read_port %-5v psum_read_port %-5v: %d cycles, NE stall %d, planar stall %d", dma, psum, res.Cycles, ne.Stall, pl.Stall)
		return res
	}
	shared, dma, both := run(t, false, false), run(t, true, false), run(t, true, true)
	stall := func(r *Result, e isa.Engine) uint64 { return r.Engines[e].Stall }
	if stall(shared, isa.NE) == 0 {
		t.Errorf("with shared ports the NE never stalled: the workload does not show the conflict")
	}
	if s := stall(dma, isa.NE); s != 0 {
		t.Errorf("with the DMA's own read port the NE stalled %d cycles", s)
	}
	if dma.Cycles >= shared.Cycles {
		t.Errorf("DMA port: %d cycles, shared %d: no gain", dma.Cycles, shared.Cycles)
	}
	if stall(both, isa.Planar) >= stall(dma, isa.Planar) {
		t.Errorf("psum read-out port: planar stall %d, without it %d: no gain", stall(both, isa.Planar), stall(dma, isa.Planar))
	}
	if both.Cycles > dma.Cycles {
		t.Errorf("psum read-out port: %d cycles, without it %d", both.Cycles, dma.Cycles)
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(both.Design, both.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator identical on %d outputs × %d cycles", cr.Outputs, cr.Cycles)
}
