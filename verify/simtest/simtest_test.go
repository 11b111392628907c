package simtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify"
)

// accumulator adds x to a signed 8-bit register while en is high.
func accumulator() *hdl.Module {
	m := hdl.NewModule("simtest_acc")
	x, en := m.Input("x", hdl.SInt(8)), m.Input("en", hdl.Bool)
	acc := m.Reg("acc", hdl.SInt(8), 0)
	acc.SetNext(acc.Add(x).Trunc(8))
	acc.SetEnable(en)
	m.Output("sum", hdl.SInt(8)).Set(acc)
	m.Output("neg", hdl.Bool).Set(acc.Slice(7, 7))
	return m
}

// Reset, pokes and peeks of either sign, Until, and the recording.
func TestDriver(t *testing.T) {
	dr := New(t, Elaborate(t, accumulator()))
	dr.Reset(2)
	dr.PokeAll(map[string]uint64{"en": 1})
	dr.PokeInt("x", -3)
	n := dr.Until("a negative sum", 10, func() bool { return dr.PeekBool("neg") })
	type got struct {
		Steps, Cycle int
		Sum          int64
		Bits         uint64
	}
	want := got{Steps: 1, Cycle: 3, Sum: -3, Bits: 0xfd}
	if diff := cmp.Diff(want, got{n, int(dr.Sim.Cycle()), dr.PeekInt("sum"), dr.Peek("sum")}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if rows := dr.Stimulus().Cycles(); rows != 3 {
		t.Errorf("%d cycles recorded, want 3", rows)
	}
	dr.CrossCheck(verify.Options{Dir: t.TempDir()})
}
