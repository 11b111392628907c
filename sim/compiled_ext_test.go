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

// Every simulator agrees with the per-register interpreter, cycle by
// cycle, on the random netlists of the fuzzer (every operator, widths
// 1..200, registers, memories, hierarchy), which the fuzzer cross-checks
// with Verilator: the partitioned interpreter (the default) on many, the
// compiled ones (a go build of about a second each) on a few.
// HWGEN_MODE_SEEDS multiplies the counts, for a longer campaign.
func TestModesAgreeOnRandomNetlists(t *testing.T) {
	scale := 1
	if v, err := strconv.Atoi(os.Getenv("HWGEN_MODE_SEEDS")); err == nil {
		scale = v
	}
	event := func(d *hdl.Design) (*sim.Sim, error) { return sim.NewWith(d, sim.Options{Event: true}) }
	for _, tc := range []struct {
		name   string
		seeds  int
		heavy  bool
		newSim func(*hdl.Design) (*sim.Sim, error)
	}{
		{"partitioned", 40, false, func(d *hdl.Design) (*sim.Sim, error) { return sim.NewWith(d, sim.Options{}) }},
		{"partitioned compiled", 10, true, func(d *hdl.Design) (*sim.Sim, error) { return sim.NewWith(d, sim.Options{Compiled: true}) }},
		{"per-register compiled", 2, true, func(d *hdl.Design) (*sim.Sim, error) {
			return sim.NewWith(d, sim.Options{Compiled: true, Event: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy {
				tooltest.SkipHeavy(t, "builds a plugin per design")
			}
			for seed := uint64(1); seed <= uint64(tc.seeds*scale); seed++ {
				d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
				if err != nil {
					t.Fatal(err)
				}
				st := stim.Random(d, 300, seed)
				want, err := verify.RunGo(d, st, event, "")
				if err != nil {
					t.Fatal(err)
				}
				got, err := verify.RunGo(d, st, tc.newSim, "")
				if err != nil {
					t.Fatal(err)
				}
				for c := range want {
					if diff := cmp.Diff(want[c], got[c]); diff != "" {
						t.Fatalf("seed %d, cycle %d: outputs differ (-per-register +%s):\n%s", seed, c, tc.name, diff)
					}
				}
			}
		})
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
