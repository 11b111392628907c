package sim

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/hwgen/hwgen/hdl"
)

func mustSim(t testing.TB, top *hdl.Module) *Sim {
	t.Helper()
	d, err := hdl.Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func poke(t testing.TB, s *Sim, vals map[string]int64) {
	t.Helper()
	for k, v := range vals {
		if err := s.Poke(k, uint64(v)); err != nil {
			t.Fatal(err)
		}
	}
}

// peekAll reads signals by their type (signed ones as negative numbers).
func peekAll(t testing.TB, s *Sim, paths ...string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, p := range paths {
		v, err := s.PeekSigned(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = v.Int64()
	}
	return out
}

func memWords(t testing.TB, s *Sim, path string, depth int) []string {
	t.Helper()
	out := make([]string, depth)
	for i := range out {
		v, err := s.MemRead(path, i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v.Text(16)
	}
	return out
}

func bigHex(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	return v
}

func elab(t testing.TB, top *hdl.Module) *hdl.Design {
	t.Helper()
	d, err := hdl.Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func fmtA(i int) string { return fmt.Sprintf("a%d", i) }
func fmtP(i int) string { return fmt.Sprintf("p%d", i) }
