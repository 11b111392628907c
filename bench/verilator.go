package bench

import (
	"fmt"
	"os"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify"
)

// verilatorOptions build for speed: -O2, no trace. NoMemoryAccess (which
// would be faster) stays off: with it (memories neither public nor
// flattened) and g++ -O2, Verilator 5.006's model of the default NPU
// computes an impossible value on this design (nec.array.zw_sh_1, a count of
// 16 zero flags, becomes 31 at cycle 706 of the default GEMM) and ends with a
// different skip_count; the same model at -O1, or at -O2 with the memory
// flags, agrees with the Go simulator on every cycle (TestRunNPU fails if
// it does not).
var verilatorOptions = verify.BuildOptions{OptLevel: 2, NoTrace: true}

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
