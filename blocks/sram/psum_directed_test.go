package sram

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// The worst case of the read-modify-write: accumulating writes to the
// same entry in every cycle, alone or with read-outs of that entry. Each
// case is checked three ways: by the harness's cycle-by-cycle reference
// model, by replaying the writes in acceptance order (every read-out must
// equal the fold of the writes accepted before it), and by the expected
// throughput. The recordings replay on Verilator.
func TestPsumBackToBackAccumulate(t *testing.T) {
	cfg := PsumConfig{Partitions: 4, Depth: 16, AccWidth: 32}
	const cycles = 300
	full := lanesOf(cfg.Partitions)
	type wr struct {
		addr int
		acc  bool
		mask uint64
	}
	cases := []struct {
		name   string
		wr     func(i int, r *rand.Rand) wr
		rd     func(i int) (addr int, mask uint64, ok bool)
		wrRate float64 // accepted writes per cycle, at least
		rdRate float64
	}{
		{name: "one entry every cycle",
			wr:     func(int, *rand.Rand) wr { return wr{5, true, full} },
			wrRate: 1},
		{name: "two entries alternating",
			wr:     func(i int, _ *rand.Rand) wr { return wr{5 + i%2, true, full} },
			wrRate: 1},
		{name: "two entries at random",
			wr:     func(_ int, r *rand.Rand) wr { return wr{5 + r.IntN(2), true, full} },
			wrRate: 1},
		{name: "overwrite and accumulate mixed",
			wr:     func(i int, r *rand.Rand) wr { return wr{5, i%3 != 0, full ^ uint64(r.IntN(2))} },
			wrRate: 1},
		{name: "read-out of the entry being overwritten, every cycle",
			wr:     func(int, *rand.Rand) wr { return wr{5, false, full} },
			rd:     func(int) (int, uint64, bool) { return 5, full, true },
			wrRate: 1, rdRate: 1},
		{name: "read-out of the entry being accumulated, sharing the read ports",
			wr:     func(int, *rand.Rand) wr { return wr{5, true, full} },
			rd:     func(int) (int, uint64, bool) { return 5, full, true },
			wrRate: 0.49, rdRate: 0.49},
		{name: "read-out of the unwritten lanes of the entry being accumulated",
			wr:     func(i int, _ *rand.Rand) wr { return wr{5, true, 0b0011} },
			rd:     func(i int) (int, uint64, bool) { return 5, 0b1100, true },
			wrRate: 1, rdRate: 1},
	}
	for _, macros := range []bool{false, true} {
		d := psumDesign(t, cfg, macros)
		for _, tc := range cases {
			t.Run(form(macros)+"/"+tc.name, func(t *testing.T) {
				var writes []psReq
				var reads []psReq
				src := func(r *rand.Rand, c, _ int) (psReq, bool) {
					switch {
					case c == psWr:
						w := tc.wr(len(writes), r)
						req := psReq{addr: w.addr, acc: w.acc, mask: w.mask}
						for range cfg.Partitions {
							req.data = append(req.data, randAcc(r, cfg.AccWidth))
						}
						writes = append(writes, req)
						return req, true
					case c == psRd && tc.rd != nil:
						a, m, ok := tc.rd(len(reads))
						if !ok {
							return psReq{}, false
						}
						reads = append(reads, psReq{addr: a, mask: m})
						return reads[len(reads)-1], true
					}
					return psReq{}, false
				}
				res := runPsum(t, d, cfg, cycles, 9, src)

				// Replay in acceptance order.
				mem := map[int][]uint64{}
				apply := func(w psReq) {
					if mem[w.addr] == nil {
						mem[w.addr] = make([]uint64, cfg.Partitions)
					}
					for k := range cfg.Partitions {
						switch {
						case w.mask>>k&1 == 0:
						case w.acc:
							mem[w.addr][k] = (mem[w.addr][k] + w.data[k]) & lanesOf(cfg.AccWidth)
						default:
							mem[w.addr][k] = w.data[k]
						}
					}
				}
				var want [][]uint64
				wi := 0
				for ri, at := range res.acceptedAt[psRd] {
					for ; wi < len(res.acceptedAt[psWr]) && res.acceptedAt[psWr][wi] < at; wi++ {
						apply(writes[wi])
					}
					v := make([]uint64, cfg.Partitions)
					for k := range v {
						if reads[ri].mask>>k&1 == 1 && mem[reads[ri].addr] != nil {
							v[k] = mem[reads[ri].addr][k]
						}
					}
					want = append(want, v)
				}
				for ; wi < len(writes); wi++ {
					apply(writes[wi])
				}
				if diff := cmp.Diff(want, res.responses); diff != "" {
					t.Errorf("read-outs differ from the writes replayed in acceptance order (-want +got):\n%s", diff)
				}
				for addr, v := range mem {
					got := make([]uint64, cfg.Partitions)
					for k := range got {
						got[k] = res.drv.MemRead(fmt.Sprintf("lane_%d.ram", k), addr).Uint64()
					}
					if diff := cmp.Diff(v, got); diff != "" {
						t.Errorf("entry %d (-replayed +array):\n%s", addr, diff)
					}
				}
				// Traffic starts after reset; the buffer accepts from the next cycle.
				window := float64(cycles - resetCycles - 1)
				if got := float64(res.accepted[psWr]) / window; got < tc.wrRate {
					t.Errorf("%.3f writes accepted per cycle, want at least %.2f", got, tc.wrRate)
				}
				if got := float64(res.accepted[psRd]) / window; got < tc.rdRate {
					t.Errorf("%.3f read-outs accepted per cycle, want at least %.2f", got, tc.rdRate)
				}
				tooltest.Need(t, "verilator")
				res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
			})
		}
	}
}
