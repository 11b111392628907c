package verify_test

import (
	"testing"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// A closed-loop driver (inputs chosen from outputs) is recorded and the
// recording replays identically on Verilator.
func TestRecorderReplaysOnVerilator(t *testing.T) {
	ex, _ := examples.Lookup("mac")
	d := hdl.MustElaborate(ex.Build())
	r, err := stim.NewRecorder(d)
	if err != nil {
		t.Fatal(err)
	}
	r.Poke("rst", 1)
	r.Step(2)
	r.Poke("rst", 0)
	r.Poke("en", 1)
	for c := 0; c < 40; c++ {
		y, _ := r.Peek("y")
		// Feedback: multiply by 3 until the accumulator passes 100, then clear.
		r.Poke("a", 3)
		r.Poke("b", 1)
		r.Poke("clear", map[bool]uint64{true: 1}[y > 100])
		r.Step(1)
	}
	if got := r.Stimulus().Cycles(); got != 42 {
		t.Fatalf("recorded %d cycles, want 42", got)
	}
	if err := r.Poke("nope", 1); err == nil {
		t.Errorf("poke of an unknown port accepted")
	}
	tooltest.Need(t, "verilator")
	if _, err := verify.CrossCheck(d, r.Stimulus(), verify.Options{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}
