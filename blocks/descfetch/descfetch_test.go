package descfetch

import (
	"fmt"
	"testing"

	"github.com/hwgen/hwgen/verify"
)

// The closed-loop bench over configurations that cover one line per
// descriptor (W < LW), several (W = 271 on 128-bit lines), one queue,
// queue numbers past the last (Q = 3), eight queues, rings of two
// descriptors that wrap all the time, and pointers wider than addresses.
func TestClosedLoop(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"one line", Config{Queues: 2, DescWidth: 12, LineWidth: 16, AddrWidth: 6, RingBits: 2}},
		{"271 bits on 128-bit lines", Config{Queues: 2, DescWidth: 271, LineWidth: 128, AddrWidth: 8, RingBits: 2}},
		{"one queue", Config{Queues: 1, DescWidth: 20, LineWidth: 8, AddrWidth: 4, RingBits: 2}},
		{"one queue, pointers wider than addresses", Config{Queues: 1, DescWidth: 8, LineWidth: 8, AddrWidth: 4, RingBits: 4}},
		{"three queues", Config{Queues: 3, DescWidth: 16, LineWidth: 8, AddrWidth: 5, RingBits: 2}},
		{"four queues, rings of two", Config{Queues: 4, DescWidth: 24, LineWidth: 8, AddrWidth: 6, RingBits: 1}},
		{"eight queues", Config{Queues: 8, DescWidth: 8, LineWidth: 8, AddrWidth: 5, RingBits: 1}},
	}
	for _, tc := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", tc.name, seed), func(t *testing.T) {
				b := newBench(t, tc.cfg, seed)
				last := b.run(3000)
				if tc.cfg.Queues > 1 && (last.Replaced == 0 || b.md.discarded == 0) {
					t.Errorf("%d fetches replaced, %d responses discarded: the stimulus should bring higher-priority queues during lower ones' fetches, with reads in flight",
						last.Replaced, b.md.discarded)
				}
				if b.heads == 0 {
					t.Errorf("no head rewrite happened")
				}
			})
		}
	}
}

// One small run, replayed on Verilator: every output in every cycle must
// agree with the Go simulator.
func TestCrossCheck(t *testing.T) {
	cfg := Config{Queues: 2, DescWidth: 20, LineWidth: 8, AddrWidth: 6, RingBits: 1}
	b := newBench(t, cfg, 7)
	last := b.run(1700)
	if last.Replaced == 0 {
		t.Errorf("no fetch was replaced in the run replayed on Verilator")
	}
	b.dr.CrossCheck(verify.Options{Dir: t.TempDir()})
}
