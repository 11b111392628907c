package sim

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// TestIdleIsFree checks the event-driven property: once a design has
// settled and nothing changes, a Step evaluates no node and visits no
// register, in every mode; a pulse into one row wakes up only what it
// reaches and, once it has left the array, nothing. In the per-register
// simulator a pulse through one row evaluates fewer nodes than the whole
// array has; supernodes evaluate whole, so theirs may not.
func TestIdleIsFree(t *testing.T) {
	const n = 8
	for _, tc := range []struct {
		name    string
		mode    buildMode
		perNode bool
	}{
		{"partitioned", modeParts, false},
		{"per-register", modeLevels, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newSim(elab(t, wsArray(n)), tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(3))
			loadWeights(t, s, n, r)
			s.Step(2 * n) // zeros flow through; everything becomes stable
			idle := func(what string) Stats {
				t.Helper()
				before := s.Stats()
				s.Step(100)
				after := s.Stats()
				work := map[string]uint64{"evals": after.Evals - before.Evals, "sink evals": after.SinkEvals - before.SinkEvals}
				if diff := cmp.Diff(map[string]uint64{"evals": 0, "sink evals": 0}, work); diff != "" {
					t.Errorf("%s: idle design did work (-want +got):\n%s", what, diff)
				}
				return after
			}
			after := idle("settled")
			// One activation pulse into the last row.
			poke(t, s, map[string]int64{fmt.Sprintf("a%d", n-1): 5})
			s.Step(1)
			poke(t, s, map[string]int64{fmt.Sprintf("a%d", n-1): 0})
			s.Step(3 * n)
			pulse := s.Stats()
			if got := pulse.Evals - after.Evals; got == 0 || tc.perNode && got > uint64(pulse.Nodes) {
				t.Errorf("a pulse through one row evaluated %d nodes; want some but fewer than the %d nodes of the array", got, pulse.Nodes)
			}
			if pulse.Cycles != after.Cycles+1+3*n {
				t.Errorf("Cycles = %d, want %d", pulse.Cycles, after.Cycles+1+3*n)
			}
			idle("after the pulse")
		})
	}
}

// TestNoGlitchEvaluation checks that a diamond (one input reaching a node
// along paths of different depth) evaluates each node once per settle.
func TestNoGlitchEvaluation(t *testing.T) {
	m := hdl.NewModule("diamond")
	a := m.Input("a", hdl.UInt(16))
	x := a.Add(hdl.U(16, 1)).Trunc(16)
	y := x.Add(hdl.U(16, 1)).Trunc(16).Add(hdl.U(16, 1)).Trunc(16)
	m.Output("z", hdl.UInt(16)).Set(x.Xor(y).Xor(a))
	s := mustSim(t, m)
	if _, err := s.Peek("z"); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	poke(t, s, map[string]int64{"a": 1234})
	z, err := s.Peek("z")
	if err != nil {
		t.Fatal(err)
	}
	after := s.Stats()
	if want := uint64((1235 ^ 1237) ^ 1234); z != want {
		t.Errorf("z = %d, want %d", z, want)
	}
	if got := after.Evals - before.Evals; got != uint64(after.Nodes) {
		t.Errorf("one input change evaluated %d nodes, want each of the %d nodes once", got, after.Nodes)
	}
}
