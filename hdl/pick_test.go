package hdl_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
)

// Pick agrees with the chain of compares it replaces, for every select
// value, whether the values fill the select's range, fall short of it or
// overrun it.
func TestPickMatchesCompareChain(t *testing.T) {
	for _, tc := range []struct{ selWidth, n int }{
		{1, 1}, {1, 2}, {2, 3}, {2, 4}, {3, 5}, {3, 8}, {4, 3}, {2, 6},
	} {
		t.Run(fmt.Sprintf("sel%d_n%d", tc.selWidth, tc.n), func(t *testing.T) {
			m := hdl.NewModule("pick")
			sel := m.Input("sel", hdl.UInt(tc.selWidth))
			vals := make([]hdl.Value, tc.n)
			for i := range vals {
				vals[i] = m.Input(fmt.Sprintf("v%d", i), hdl.UInt(8))
			}
			def := m.Input("def", hdl.UInt(8))
			m.Output("y", hdl.UInt(8)).Set(hdl.Pick(sel, vals, def))
			d, err := hdl.Elaborate(m)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sim.New(d)
			if err != nil {
				t.Fatal(err)
			}
			for i := range vals {
				if err := s.Poke(fmt.Sprintf("v%d", i), uint64(10+i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Poke("def", 99); err != nil {
				t.Fatal(err)
			}
			var got, want []uint64
			for v := 0; v < 1<<tc.selWidth; v++ {
				if err := s.Poke("sel", uint64(v)); err != nil {
					t.Fatal(err)
				}
				y, err := s.Peek("y")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, y)
				w := uint64(99)
				if v < tc.n {
					w = uint64(10 + v)
				}
				want = append(want, w)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("y by sel (-want +got):\n%s", diff)
			}
		})
	}
}
