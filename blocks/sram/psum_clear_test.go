package sram

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// A clear zeroes base, base+1, ... (modulo the depth) one entry per cycle
// after it is accepted. A write accepted in the same cycle as the clear
// lands before it (and is zeroed); a write presented while it runs stalls
// until it is done and lands after it. Read-outs during the clear are
// checked by the harness model; the final arrays and the timing here.
func TestPsumClear(t *testing.T) {
	cfg := PsumConfig{Partitions: 4, Depth: 16, AccWidth: 32}
	const at = 30 // the clear and the first racing write are presented here
	cases := []struct {
		name        string
		base, count int
		zeroed      []int // entries the clear zeroes
	}{
		{"wrapping region", 14, 4, []int{14, 15, 0, 1}},
		{"whole buffer", 3, 16, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{"count zero is a no-op", 5, 0, nil},
		{"count above depth wraps", 9, 20, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
	}
	fill := func(e, k int) uint64 { return uint64(0x100*e + k + 1) }
	for _, macros := range []bool{false, true} {
		d := psumDesign(t, cfg, macros)
		for _, tc := range cases {
			t.Run(form(macros)+"/"+tc.name, func(t *testing.T) {
				full := lanesOf(cfg.Partitions)
				vec := func(f func(k int) uint64) []uint64 {
					v := make([]uint64, cfg.Partitions)
					for k := range v {
						v[k] = f(k)
					}
					return v
				}
				var q [psClients][]timed
				for e := range cfg.Depth {
					q[psWr] = append(q[psWr], timed{0, psReq{addr: e, mask: full, data: vec(func(k int) uint64 { return fill(e, k) })}})
				}
				q[psWr] = append(q[psWr],
					timed{at, psReq{addr: tc.base, mask: full, data: vec(func(int) uint64 { return 0x55 })}},
					timed{at, psReq{addr: tc.base, acc: true, mask: full, data: vec(func(int) uint64 { return 7 })}})
				q[psClr] = []timed{{at, psReq{addr: tc.base, count: tc.count}}}
				for e := range cfg.Depth { // read every entry while the clear runs and after
					q[psRd] = append(q[psRd], timed{at + 1, psReq{addr: (tc.base + e) % cfg.Depth, mask: full}})
				}
				res := runPsum(t, d, cfg, at+cfg.Depth+40, 1, psumScript(q))

				if diff := cmp.Diff([]int{at}, res.acceptedAt[psClr]); diff != "" {
					t.Errorf("clear accepted at (-want +got):\n%s", diff)
				}
				wrAt := res.acceptedAt[psWr][cfg.Depth:]
				if diff := cmp.Diff([]int{at, at + 1 + tc.count}, wrAt); diff != "" {
					t.Errorf("racing writes accepted at (-want +got): the second must wait out the clear\n%s", diff)
				}
				want := make([][]uint64, cfg.Depth)
				for e := range want {
					want[e] = vec(func(k int) uint64 { return fill(e, k) })
				}
				want[tc.base] = vec(func(int) uint64 { return 0x55 })
				for _, e := range tc.zeroed {
					want[e] = vec(func(int) uint64 { return 0 })
				}
				for k := range cfg.Partitions {
					want[tc.base][k] += 7
				}
				got := make([][]uint64, cfg.Depth)
				for e := range got {
					got[e] = vec(func(k int) uint64 { return res.drv.MemRead(fmt.Sprintf("lane_%d.ram", k), e).Uint64() })
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("arrays after the clear (-want +got):\n%s", diff)
				}
				tooltest.Need(t, "verilator")
				res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
			})
		}
	}
}
