package sim

import (
	"math/rand"
	"testing"
)

// The partitioned simulator, interpreted and compiled, follows the
// per-register one cycle by cycle on the 16x16 array.
func TestPartitionedWSArray(t *testing.T) {
	const n = 16
	d := elab(t, wsArray(n))
	ev, err := newSim(d, modeLevels)
	if err != nil {
		t.Fatal(err)
	}
	pi, err := newSim(d, modeParts)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewWith(d, Options{Compiled: true})
	if err != nil {
		t.Fatal(err)
	}
	sims := []*Sim{ev, pi, pc}
	for _, s := range sims {
		loadWeights(t, s, n, rand.New(rand.NewSource(1)))
	}
	r := rand.New(rand.NewSource(2))
	for c := 0; c < 2000; c++ {
		for i := range n {
			v := uint64(int64(r.Intn(256) - 128))
			for _, s := range sims {
				if err := s.Poke(fmtA(i), v); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, s := range sims {
			s.Step(1)
		}
		for j := range n {
			a, _ := ev.Peek(fmtP(j))
			b, _ := pi.Peek(fmtP(j))
			cc, _ := pc.Peek(fmtP(j))
			if a != b || a != cc {
				t.Fatalf("cycle %d p%d: event %x partitioned %x compiled %x", c, j, a, b, cc)
			}
		}
	}
}
