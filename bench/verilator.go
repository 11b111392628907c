package bench

import (
	"fmt"
	"os"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify"
)

// verilatorOptions build for speed: -O2, no trace, memories neither public
// nor flattened (NoMemoryAccess: the fastest model). Builds at -O2 leave
// out g++'s SLP vectorizer, which miscompiled this model of the default
// NPU (a count of 16 zero flags came out 31; verify.BuildOptions says
// more); TestRunNPU fails if any replay disagrees with the Go simulator.
var verilatorOptions = verify.BuildOptions{OptLevel: 2, NoTrace: true, NoMemoryAccess: true}

// buildVerilator builds d (or takes it from the shared cache); with
// fresh it builds from scratch in a private, empty cache and returns the
// build time only. The stimulus is read at run time, so one build serves
// every workload on the same design.
func buildVerilator(d *hdl.Design, fresh bool) (*verify.Build, time.Duration, error) {
	opt := verilatorOptions
	if fresh {
		dir, err := os.MkdirTemp("", "hwgen-bench-cache-")
		if err != nil {
			return nil, 0, err
		}
		defer os.RemoveAll(dir)
		opt.CacheDir = dir
	}
	t0 := time.Now()
	b, err := verify.BuildVerilator(d, opt)
	if fresh {
		return nil, time.Since(t0), err
	}
	return b, time.Since(t0), err
}

// replayVerilator runs the first cycles of the stimulus file at path (of
// st) reps times on fresh models, and returns each repetition's phase
// times as the model measured them (zero for phases not reached), and the
// final outputs.
func replayVerilator(b *verify.Build, path string, st *Recording, cycles, reps int) ([][]Lap, string, error) {
	r, err := b.Run("", path, verify.RunOptions{Cycles: cycles, Reps: reps, Phases: st.ends()})
	if err != nil {
		return nil, "", err
	}
	if len(r.Laps) != reps {
		return nil, "", fmt.Errorf("bench: verilator timed %d repetitions, want %d", len(r.Laps), reps)
	}
	laps := make([][]Lap, reps)
	for i, l := range r.Laps {
		laps[i] = make([]Lap, len(st.Phases))
		copy(laps[i], l)
	}
	return laps, r.Outputs, nil
}
