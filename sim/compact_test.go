package sim_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// The compiled simulator keeps most values in narrow arrays of its own
// while its code runs, and hands them back to the value array whenever
// the interpreter takes over (a reset edge, a VCD trace). Every named
// signal, peeked every cycle, and every register set from outside
// (RandomizeUnreset) agree with the interpreter across those hand-overs:
// a reset in the middle of the run, a trace opened and closed again.
func TestCompactStorageAgrees(t *testing.T) {
	tooltest.SkipHeavy(t, "builds a plugin per design")
	for seed := uint64(1); seed <= 3; seed++ {
		d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		st := stim.Random(d, 240, seed)
		want := peekAll(t, d, st, sim.Options{})
		got := peekAll(t, d, st, sim.Options{Compiled: true})
		for c := range want {
			if diff := cmp.Diff(want[c], got[c]); diff != "" {
				t.Fatalf("seed %d, cycle %d: signals differ (-interpreter +compiled):\n%s", seed, c, diff)
			}
		}
	}
}

// peekAll runs st on a new simulator of d, with a reset at cycle 80 and a
// VCD trace from cycle 120 to 160, and returns every signal's value after
// every cycle.
func peekAll(t *testing.T, d *hdl.Design, st *stim.Stimulus, opt sim.Options) [][]string {
	t.Helper()
	s, err := sim.NewWith(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	s.RandomizeUnreset(7)
	sigs := s.Signals()
	var rows [][]string
	var trace bytes.Buffer
	for c, row := range st.Rows {
		switch c {
		case 80:
			s.Reset(2)
		case 120:
			if err := s.DumpVCD(&trace); err != nil {
				t.Fatal(err)
			}
		case 160:
			if err := s.CloseVCD(); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range st.Inputs {
			if err := s.PokeBig(p.Name, row[i]); err != nil {
				t.Fatal(err)
			}
		}
		s.Step(1)
		vals := make([]string, len(sigs))
		for i, g := range sigs {
			v, err := s.PeekBig(g.Name)
			if err != nil {
				t.Fatal(err)
			}
			vals[i] = fmt.Sprintf("%s=%s", g.Name, v)
		}
		rows = append(rows, vals)
	}
	return rows
}
