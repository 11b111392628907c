package stim_test

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// The recorder skips pokes of the value an input holds and lets rows
// without a change share a slice; the recorded table must still be every
// cycle's inputs, and a later change must not reach rows already taken.
func TestRecorderRows(t *testing.T) {
	ex, _ := examples.Lookup("mac")
	d := hdl.MustElaborate(ex.Build())
	r, err := stim.NewRecorder(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Stimulus().Inputs {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"rst", "a", "b", "en", "clear"}, names); diff != "" {
		t.Fatalf("inputs (-want +got):\n%s", diff)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Poke("rst", 1))
	r.Step(2) // two rows, shared
	must(r.Poke("rst", 0))
	must(r.Poke("a", 5))
	must(r.Poke("a", 5)) // no change
	r.Step(1)
	must(r.PokeBig("b", big.NewInt(-2))) // signed: recorded as its bit pattern
	must(r.Poke("a", 5))
	r.Step(1)
	must(r.PokeBig("b", big.NewInt(-2)))
	r.Step(1) // the same inputs again
	must(r.Poke("en", 1))
	must(r.Poke("a", 0))
	r.Step(1)
	got := [][]int64{}
	for _, row := range r.Stimulus().Rows {
		var g []int64
		for _, v := range row {
			g = append(g, v.Int64())
		}
		got = append(got, g)
	}
	b := int64(r.Stimulus().Inputs[2].Type.Bits(big.NewInt(-2)).Int64())
	want := [][]int64{
		{1, 0, 0, 0, 0},
		{1, 0, 0, 0, 0},
		{0, 5, 0, 0, 0},
		{0, 5, b, 0, 0},
		{0, 5, b, 0, 0},
		{0, 0, b, 1, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded rows (-want +got):\n%s", diff)
	}
	if b < 0 {
		t.Errorf("b recorded as %d, want its unsigned bit pattern", b)
	}
	if y, err := r.Peek("y"); err != nil || y != 0 {
		t.Errorf("y = %d, %v: en was low until the last row", y, err)
	}
	if err := r.Poke("nope", 1); err == nil {
		t.Errorf("poke of an unknown port accepted")
	}
}

// Record(false) stops the recording (a long run nobody replays); the
// simulation goes on and the rows taken before stay.
func TestRecorderOff(t *testing.T) {
	ex, _ := examples.Lookup("mac")
	r, err := stim.NewRecorder(hdl.MustElaborate(ex.Build()))
	if err != nil {
		t.Fatal(err)
	}
	r.Poke("rst", 1)
	r.Step(2)
	r.Record(false)
	r.Poke("rst", 0)
	r.Poke("en", 1)
	r.Poke("a", 3)
	r.Poke("b", 2)
	r.Step(5)
	if got := r.Stimulus().Cycles(); got != 2 {
		t.Errorf("%d rows recorded, want the 2 before Record(false)", got)
	}
	if y, err := r.Peek("y"); err != nil || y != 30 {
		t.Errorf("y = %d, %v after 5 unrecorded cycles of 3·2, want 30", y, err)
	}
}
