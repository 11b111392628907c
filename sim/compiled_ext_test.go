package sim_test

import (
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// The compiled simulator agrees with the interpreter, cycle by cycle, on
// the random netlists of the fuzzer (every operator, widths 1..200,
// registers, memories, hierarchy); the interpreter is cross-checked with
// Verilator on the same netlists. HWGEN_COMPILED_SEEDS sets how many
// (default 12; each design costs a go build of about a second).
func TestCompiledAgreesOnRandomNetlists(t *testing.T) {
	tooltest.SkipHeavy(t, "builds a plugin per design")
	n := 12
	if v, err := strconv.Atoi(os.Getenv("HWGEN_COMPILED_SEEDS")); err == nil {
		n = v
	}
	compiled := func(d *hdl.Design) (*sim.Sim, error) {
		return sim.NewWith(d, sim.Options{Compiled: true})
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		st := stim.Random(d, 300, seed)
		want, err := verify.RunGo(d, st, sim.New, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := verify.RunGo(d, st, compiled, "")
		if err != nil {
			t.Fatal(err)
		}
		for c := range want {
			if diff := cmp.Diff(want[c], got[c]); diff != "" {
				t.Fatalf("seed %d, cycle %d: outputs differ (-interpreter +compiled):\n%s", seed, c, diff)
			}
		}
	}
}

// Memories that write their own read data (a read and a write each
// reading the other directly, at the same addresses) agree with Verilator
// on random addresses and enables, memories compared at the end, in both
// modes.
func TestMemoryLoopAgreesWithVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	m := hdl.NewModule("memloop2")
	ra, wa, we := m.Input("ra", hdl.UInt(2)), m.Input("wa", hdl.UInt(2)), m.Input("we", hdl.Bool)
	rb, wb := m.Input("rb", hdl.UInt(2)), m.Input("wb", hdl.UInt(2))
	a := m.Memory("a", 4, hdl.UInt(8))
	b := m.Memory("b", 4, hdl.UInt(8))
	qa := a.Read("qa", ra)
	qb := b.Read("qb", rb)
	a.Write(wa, qb, we) // a and b copy words into each other
	b.Write(wb, qa, we.Not())
	a.Write(wb, qa.Add(hdl.U(8, 1)).Trunc(8), we) // and a into itself, incremented
	m.Output("oa", hdl.UInt(8)).Set(qa)
	m.Output("ob", hdl.UInt(8)).Set(qb)
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	var init []verify.MemWord
	for i := range 4 {
		init = append(init, verify.MemWord{Path: "a", Addr: i, Value: big.NewInt(int64(10 + i))}, verify.MemWord{Path: "b", Addr: i, Value: big.NewInt(int64(20 + i))})
	}
	st := stim.Random(d, 400, 7)
	for _, newSim := range []func(*hdl.Design) (*sim.Sim, error){sim.New, func(d *hdl.Design) (*sim.Sim, error) {
		return sim.NewWith(d, sim.Options{Compiled: true})
	}} {
		if _, err := verify.CrossCheck(d, st, verify.Options{NewSim: newSim, MemInit: init, CompareMemories: true}); err != nil {
			t.Fatal(err)
		}
	}
}
