package sram

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Small configurations: a power-of-two and an odd partition count, a
// narrow element.
var smallStates = []StateConfig{
	{Partitions: 4, Depth: 16, ElemWidth: 8},
	{Partitions: 3, Depth: 8, ElemWidth: 5},
	{Partitions: 4, Depth: 16, ElemWidth: 8, DMAReadPort: true},
	{Partitions: 4, Depth: 16, ElemWidth: 8, PlanarReadPort: true},
	{Partitions: 3, Depth: 8, ElemWidth: 5, DMAReadPort: true, PlanarReadPort: true},
}

// Long random traffic from every client at once, on the Go simulator,
// checked against the reference model; both memory forms.
func TestStateRandomTraffic(t *testing.T) {
	for _, cfg := range smallStates {
		for _, macros := range []bool{false, true} {
			if macros && cfg.DMAReadPort && cfg.PlanarReadPort {
				continue // three read ports: no macro (TestStateMacroPorts)
			}
			for _, rate := range []float64{0.3, 1} {
				t.Run(fmt.Sprintf("%dx%dx%d/dr%v/pr%v/%s/rate%.1f", cfg.Partitions, cfg.Depth, cfg.ElemWidth, cfg.DMAReadPort, cfg.PlanarReadPort, form(macros), rate), func(t *testing.T) {
					m, err := StateBuffer(cfg, macros)
					d := elaborate(t, m, err)
					res := runState(t, d, cfg, 3000, 1, randomState(cfg, rate), 1500)
					checkStateRun(t, res)
				})
			}
		}
	}
}

// checkStateRun asserts what every random run must show: every client was
// served, nobody waited longer than the round-robin bound.
func checkStateRun(t *testing.T, res *stateResult) {
	t.Helper()
	names := stateClientNames(res.cfg)
	shared, own := readGroups(res.cfg)
	for c, name := range names {
		bound := len(shared) - 1
		switch {
		case c >= len(res.cfg.ReadClients()):
			bound = len(StateWriteClients) - 1
		case slices.Contains(own, c):
			bound = 0
		}
		if res.accepted[c] == 0 {
			t.Errorf("%s never served", name)
		}
		if res.maxWait[c] > bound {
			t.Errorf("%s waited %d cycles, round-robin bound %d", name, res.maxWait[c], bound)
		}
	}
	t.Logf("%d cycles: accepted %v, bank reads %.2f/cycle, bank writes %.2f/cycle, max waits %v",
		res.upCycles, res.accepted, float64(res.bankReads)/float64(res.upCycles), float64(res.bankWrites)/float64(res.upCycles), res.maxWait)
}

// The default-size state buffer (16 x 4096 x int8) under the same traffic
// on the Go simulator.
func TestStateRandomTrafficDefault(t *testing.T) {
	cfg := DefaultConfig().State
	m, err := StateBuffer(cfg, false)
	d := elaborate(t, m, err)
	res := runState(t, d, cfg, 2000, 3, randomState(cfg, 0.5))
	checkStateRun(t, res)
}

// The same random traffic, recorded on the Go simulator, replays on
// Verilator with identical outputs every cycle and identical arrays
// (also with the DMA's own read port, as two-read-port macros).
func TestStateRandomTrafficVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	for _, tc := range []struct {
		cfg    StateConfig
		macros bool
	}{{smallStates[0], false}, {smallStates[0], true}, {smallStates[2], true}} {
		cfg, macros := tc.cfg, tc.macros
		name := form(macros)
		if cfg.DMAReadPort {
			name += "/dma_read_port"
		}
		t.Run(name, func(t *testing.T) {
			m, err := StateBuffer(cfg, macros)
			d := elaborate(t, m, err)
			res := runState(t, d, cfg, 3000, 2, randomState(cfg, 0.6), 1000, 2000)
			res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
		})
	}
}

// The default size on Verilator: slow to build, so not in -short runs.
func TestStateDefaultVerilator(t *testing.T) {
	tooltest.SkipHeavy(t, "default-size Verilator build")
	tooltest.Need(t, "verilator")
	cfg := DefaultConfig().State
	for _, macros := range []bool{false, true} {
		t.Run(form(macros), func(t *testing.T) {
			m, err := StateBuffer(cfg, macros)
			d := elaborate(t, m, err)
			res := runState(t, d, cfg, 1500, 4, randomState(cfg, 0.7))
			res.drv.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
		})
	}
}

// A client under a continuous conflicting stream from another is served
// at least every other cycle (the round-robin bound with two contenders),
// in both directions; four clients all streaming full vectors share the
// read ports equally, each waiting at most three cycles.
func TestStateNoStarvation(t *testing.T) {
	cfg := smallStates[0]
	m, err := StateBuffer(cfg, false)
	d := elaborate(t, m, err)
	full := lanesOf(cfg.Partitions)
	const cycles = 400
	cases := []struct {
		name    string
		streams map[int]uint64 // client -> mask it streams, every cycle
		minEach int            // fewest grants each streaming client must get
		bound   int            // longest wait allowed
	}{
		{"pe vs dmar", map[int]uint64{0: full, 2: 1 << 2}, cycles/2 - 2, 1},
		{"dmar vs pe", map[int]uint64{2: full, 0: full}, cycles/2 - 2, 1},
		{"plr one lane vs wl", map[int]uint64{1: full, 3: 1}, cycles/2 - 2, 1},
		{"dmaw vs plw", map[int]uint64{4: full, 5: 1 << 3}, cycles/2 - 2, 1},
		{"all readers", map[int]uint64{0: full, 1: full, 2: full, 3: full}, cycles/4 - 2, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := func(r *rand.Rand, c, _ int) (stReq, bool) {
				mask, ok := tc.streams[c]
				if !ok {
					return stReq{}, false
				}
				req := stReq{addr: r.IntN(cfg.Depth), mask: mask}
				if c >= len(cfg.ReadClients()) {
					for range cfg.Partitions {
						req.data = append(req.data, r.Uint64()&0xff)
					}
				}
				return req, true
			}
			res := runState(t, d, cfg, cycles, 5, src)
			for c := range tc.streams {
				name := stateClientNames(cfg)[c]
				if res.accepted[c] < tc.minEach {
					t.Errorf("%s served %d times in %d cycles, want at least %d", name, res.accepted[c], res.upCycles, tc.minEach)
				}
				if res.maxWait[c] > tc.bound {
					t.Errorf("%s waited %d cycles in a row, want at most %d", name, res.maxWait[c], tc.bound)
				}
				if res.maxWait[c] == 0 {
					t.Errorf("%s never waited: the streams did not conflict, the test proves nothing", name)
				}
			}
		})
	}
}
