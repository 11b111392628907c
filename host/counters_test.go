package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Without the performance counters (perf_counters false) and the planar
// checks (planar_checks false) the toy network runs as before: the same
// outputs (run compares them with the golden models), the same cycles and
// the whole timeline; only the counters' statistics read 0. The run
// agrees with Verilator in every cycle.
func TestWithoutCountersAndChecks(t *testing.T) {
	full := run(t, small(), toyNet())
	cfg := small()
	cfg.PerfCounters, cfg.PlanarChecks = false, false
	lean := run(t, cfg, toyNet())
	if lean.Cycles != full.Cycles {
		t.Errorf("cycles %d, with the counters and checks %d", lean.Cycles, full.Cycles)
	}
	type stats struct {
		MACs      uint64
		Busy      []uint64
		Completed []uint64
	}
	of := func(r *Result) stats {
		s := stats{MACs: r.MACs}
		for _, e := range r.Engines {
			s.Busy, s.Completed = append(s.Busy, e.Busy), append(s.Completed, e.Completed)
		}
		return s
	}
	if d := cmp.Diff(stats{Busy: []uint64{0, 0, 0, 0}, Completed: []uint64{0, 0, 0, 0}}, of(lean)); d != "" {
		t.Errorf("statistics without the counters (-want +got):\n%s", d)
	}
	if f := of(full); f.MACs == 0 || f.Busy[1] == 0 || f.Completed[1] == 0 {
		t.Errorf("statistics with the counters: %+v, want MACs, ne busy cycles and completions", f)
	}
	tooltest.Need(t, "verilator")
	if _, err := verify.CrossCheck(lean.Design, lean.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}}); err != nil {
		t.Fatal(err)
	}
}
