package hdl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPassages: a request goes through an arbiter-like block (its ready
// follows its valid combinationally) and back into a requester whose
// stall follows that ready; a registered block breaks the path.
func TestPassages(t *testing.T) {
	// through: out = in (combinational).
	through := NewModule("through")
	through.Output("out", Bool).Set(through.Input("in", Bool))
	// flop: out = in delayed.
	flop := NewModule("flop")
	q := flop.Reg("q", Bool, 0)
	q.SetNext(flop.Input("in", Bool))
	flop.Output("out", Bool).Set(q)

	top := NewModule("top")
	a := top.Instance("a", through).Connect("in", top.Input("req", Bool))
	b := top.Instance("b", through).Connect("in", a.Out("out"))
	f := top.Instance("f", flop).Connect("in", b.Out("out"))
	c := top.Instance("c", through).Connect("in", f.Out("out"))
	top.Output("ready", Bool).Set(b.Out("out"))
	r := top.Reg("seen", Bool, 0)
	r.SetNext(c.Out("out").And(a.Out("out")))
	top.Output("late", Bool).Set(r)

	got := Passages(MustElaborate(top), 1)
	want := []Passage{
		{Module: "top", From: "req", Through: []string{"a[in->out]", "b[in->out]"}, To: "f.in"},
		{Module: "top", From: "req", Through: []string{"a[in->out]", "b[in->out]"}, To: "ready"},
		{Module: "top", From: "req", Through: []string{"a[in->out]"}, To: "b.in"},
		{Module: "top", From: "f.out", Through: []string{"c[in->out]"}, To: "seen"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("passages (-want +got):\n%s", diff)
	}
	if got := Passages(MustElaborate(top), 2); len(got) != 2 {
		t.Errorf("min 2: got %v, want the two paths through a and b", got)
	}
}
