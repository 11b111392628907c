package sim

import (
	"math/rand"
	"testing"
)

// The compiled simulator of the 16x16 array follows the interpreter's
// outputs cycle by cycle.
func TestCompiledWSArray(t *testing.T) {
	const n = 16
	d := elab(t, wsArray(n))
	si, err := newSim(d, modeParts) // the interpreter, whatever HWGEN_SIM says
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewWith(d, Options{Compiled: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Compiled() || si.Compiled() {
		t.Fatalf("Compiled(): %v for NewWith(Compiled), %v for New", sc.Compiled(), si.Compiled())
	}
	for _, s := range []*Sim{si, sc} {
		loadWeights(t, s, n, rand.New(rand.NewSource(1)))
	}
	r := rand.New(rand.NewSource(2))
	for c := 0; c < 2000; c++ {
		for i := range n {
			v := uint64(int64(r.Intn(256) - 128))
			for _, s := range []*Sim{si, sc} {
				if err := s.Poke(fmtA(i), v); err != nil {
					t.Fatal(err)
				}
			}
		}
		si.Step(1)
		sc.Step(1)
		for j := range n {
			a, _ := si.Peek(fmtP(j))
			b, _ := sc.Peek(fmtP(j))
			if a != b {
				t.Fatalf("cycle %d p%d: interpreter %x compiled %x", c, j, a, b)
			}
		}
	}
}
