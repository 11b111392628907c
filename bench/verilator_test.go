package bench

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
)

// A recording replays on Verilator phase by phase, repetition by
// repetition, to the outputs the Go simulator ends with, whether it runs
// to the end or stops inside a phase.
func TestReplayVerilatorAgreesWithGo(t *testing.T) {
	tooltest.Need(t, "verilator")
	ex, _ := examples.Lookup("array4")
	d := hdl.MustElaborate(ex.Build())
	rec := &Recording{Stimulus: stim.Random(d, 100, 3), Phases: []Phase{{"first", 0, 40}, {"second", 40, 100}}}
	path := filepath.Join(t.TempDir(), "stimulus.bin")
	if err := stim.WriteFile(path, rec.Stimulus); err != nil {
		t.Fatal(err)
	}
	b, _, err := buildVerilator(d, false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		cycles, reps int
		reached      int // phases timed
	}{
		{"to the end", 100, 1, 2},
		{"twice", 100, 2, 2},
		{"stopping inside the second phase", 70, 1, 2},
		{"stopping inside the first phase", 30, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			laps, vOut, err := replayVerilator(b, path, rec, tc.cycles, tc.reps)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sim.New(d)
			if err != nil {
				t.Fatal(err)
			}
			_, goOut, err := replayGo(d, s, rec, tc.cycles)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(goOut, vOut); diff != "" {
				t.Errorf("final outputs (-go +verilator):\n%s", diff)
			}
			var reached []int
			for _, rep := range laps {
				n := 0
				for _, l := range rep {
					if l.Wall > 0 {
						n++
					}
				}
				reached = append(reached, n)
			}
			want := make([]int, tc.reps)
			for i := range want {
				want[i] = tc.reached
			}
			if diff := cmp.Diff(want, reached); diff != "" {
				t.Errorf("phases timed per repetition (-want +got):\n%s", diff)
			}
		})
	}
}
