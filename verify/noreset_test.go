package verify_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verilog"
)

// noResetDesign has a counter with a reset and a datapath register
// without one, which keeps clocking while rst is high.
func noResetDesign(t *testing.T) *hdl.Design {
	t.Helper()
	m := hdl.NewModule("noreset")
	in := m.Input("in", hdl.UInt(8))
	en := m.Input("en", hdl.Bool)
	c := m.Reg("count", hdl.UInt(8), 5)
	c.SetNext(c.Add(hdl.U(1, 1)).Trunc(8))
	d := m.RegNoReset("data", hdl.UInt(8))
	d.SetNext(in.Add(c).Trunc(8))
	d.SetEnable(en)
	m.Output("count_q", hdl.UInt(8)).Set(c)
	m.Output("data_q", hdl.UInt(8)).Set(d)
	return hdl.MustElaborate(m)
}

// A register without a reset is emitted outside the reset branch and
// agrees with Verilator, rst high or low.
func TestNoResetRegisterAgreesWithVerilator(t *testing.T) {
	d := noResetDesign(t)
	var src string
	for _, f := range verilog.Emit(d) {
		if strings.HasSuffix(f.Name, ".v") {
			src += string(f.Data)
		}
	}
	_, afterReset, _ := strings.Cut(src, "if (rst) begin")
	resetBranch, _, _ := strings.Cut(afterReset, "end else begin")
	if strings.Contains(resetBranch, "data") || !strings.Contains(resetBranch, "count") {
		t.Errorf("reset branch %q: want count reset and data left alone", resetBranch)
	}
	tooltest.Need(t, "verilator")
	rng := rand.New(rand.NewPCG(7, 0))
	st, err := stim.Generate(d, 300, func(c int, in *stim.Drive) {
		in.Set("rst", int64(min(1, max(0, 20-c)))) // high for 20 cycles: data still clocks
		in.Set("en", rng.Int64N(2))
		in.Set("in", rng.Int64N(256))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

// Rst leaves a register without a reset alone, and RandomizeUnreset
// gives only such registers a power-on value.
func TestRandomizeUnreset(t *testing.T) {
	d := noResetDesign(t)
	s, err := sim.New(d)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RandomizeUnreset(3); n != 1 {
		t.Fatalf("RandomizeUnreset set %d registers, want 1 (data)", n)
	}
	peek := func(p string) uint64 {
		v, err := s.Peek(p)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	powerOn := peek("data_q")
	if err := s.Poke("en", 0); err != nil {
		t.Fatal(err)
	}
	s.Reset(2)
	if diff := cmp.Diff([]uint64{5, powerOn}, []uint64{peek("count_q"), peek("data_q")}); diff != "" {
		t.Errorf("after reset with en low (count, data), -want +got:\n%s", diff)
	}
	s.Poke("en", 1)
	s.Poke("in", 10)
	s.Poke("rst", 1)
	s.Step(1)
	if got := peek("data_q"); got != 15 {
		t.Errorf("data clocked under rst = %d, want in + count = 15", got)
	}
}
