package sram

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Read data arrives exactly one cycle after acceptance; a read accepted
// in the same cycle as a write of its word returns the old word; the
// PE-array row read returns one element from every partition at one
// address; lanes outside a read's mask read as 0; single-partition writes
// to different partitions proceed in the same cycle.
func TestStateLatencyAndOrdering(t *testing.T) {
	cfg := StateConfig{Partitions: 4, Depth: 16, ElemWidth: 8}
	const (
		pe, wl, dmar = 0, 1, 2
		dmaw, plw    = 4, 5
	)
	one := func(p int, v uint64) stReq { return writeOne(cfg, 3, p, v) }
	script := map[int][]stTimed{
		dmaw: {{3, one(0, 0x11)}, {3, one(1, 0x22)}, {3, one(2, 0x33)}}, // cycles 3, 4, 5
		plw:  {{5, one(3, 0x44)}},                                       // cycle 5, beside dmaw's lane 2
		pe:   {{5, stReq{addr: 3, mask: 0xf}}, {5, stReq{addr: 3, mask: 0xf}}},
		dmar: {{6, stReq{addr: 3, mask: 1 << 2}}},
		wl:   {{6, stReq{addr: 3, mask: 0}}},
	}
	runForms(t, cfg, script, func(t *testing.T, res *stateResult) {
		got := map[string]any{
			"pe accepted":   res.acceptedAt[pe],
			"dmaw accepted": res.acceptedAt[dmaw],
			"plw accepted":  res.acceptedAt[plw],
			"pe data":       res.responses[pe],
			"dmar data":     res.responses[dmar],
			"wl data":       res.responses[wl],
		}
		want := map[string]any{
			"pe accepted":   []int{5, 6},
			"dmaw accepted": []int{3, 4, 5},
			"plw accepted":  []int{5},
			// The first row read races the writes of lanes 2 and 3.
			"pe data":   [][]uint64{{0x11, 0x22, 0, 0}, {0x11, 0x22, 0x33, 0x44}},
			"dmar data": [][]uint64{{0, 0, 0x33, 0}},
			"wl data":   [][]uint64{{0, 0, 0, 0}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// runForms runs script on the state buffer of cfg built as arrays and as
// SRAM macros, 20 cycles each, and hands each run's result to check.
func runForms(t *testing.T, cfg StateConfig, script map[int][]stTimed, check func(*testing.T, *stateResult)) {
	t.Helper()
	for _, macros := range []bool{false, true} {
		t.Run(form(macros), func(t *testing.T) {
			m, err := StateBuffer(cfg, macros)
			d := elaborate(t, m, err)
			check(t, runState(t, d, cfg, 20, 1, stateScript(cloneScript(script))))
		})
	}
}

// writeOne is a write of v to partition p alone at addr.
func writeOne(cfg StateConfig, addr, p int, v uint64) stReq {
	d := make([]uint64, cfg.Partitions)
	d[p] = v
	return stReq{addr: addr, mask: 1 << p, data: d}
}

func cloneScript(s map[int][]stTimed) map[int][]stTimed {
	c := map[int][]stTimed{}
	for k, v := range s {
		c[k] = append([]stTimed(nil), v...)
	}
	return c
}

// With the planar engine's own read port, plr2 is granted in the cycle
// it asks even while pe and plr contend for the shared port over the
// same banks, its data follows by one cycle, and a read of a word being
// written returns the old word, as on the shared port.
func TestStatePlanarReadPort(t *testing.T) {
	cfg := StateConfig{Partitions: 4, Depth: 16, ElemWidth: 8, PlanarReadPort: true}
	const (
		pe, plr, plr2 = 0, 3, 4
		dmaw, plw     = 5, 6
	)
	one := func(p int, v uint64) stReq { return writeOne(cfg, 3, p, v) }
	full := stReq{addr: 3, mask: 0xf}
	script := map[int][]stTimed{
		dmaw: {{3, one(0, 0x11)}},               // cycle 3
		plw:  {{5, one(1, 0x22)}},               // cycle 5, as plr2 first reads the word
		pe:   {{5, full}},                       // pe and plr want the shared port of every bank
		plr:  {{5, full}},                       // in the same cycle: one waits
		plr2: {{5, full}, {5, full}, {5, full}}, // cycles 5, 6, 7: never waits
	}
	runForms(t, cfg, script, func(t *testing.T, res *stateResult) {
		got := map[string]any{
			"pe accepted":   res.acceptedAt[pe],
			"plr accepted":  res.acceptedAt[plr],
			"plr2 accepted": res.acceptedAt[plr2],
			"plr data":      res.responses[plr],
			"plr2 data":     res.responses[plr2],
		}
		want := map[string]any{
			"pe accepted":   []int{5},
			"plr accepted":  []int{6},
			"plr2 accepted": []int{5, 6, 7},
			"plr data":      [][]uint64{{0x11, 0x22, 0, 0}},
			"plr2 data":     [][]uint64{{0x11, 0, 0, 0}, {0x11, 0x22, 0, 0}, {0x11, 0x22, 0, 0}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if w := res.maxWait[plr2]; w != 0 {
			t.Errorf("plr2 waited %d cycles, want 0 (a port of its own)", w)
		}
	})
}

// Both own read ports need a third read port in every bank: refused
// with SRAM macros (at most two read ports), by the config's Validate
// and by StateBuffer; each alone, or both as arrays, is built.
func TestStateMacroPorts(t *testing.T) {
	const msg = "state.planar_read_port = true is not allowed: with dma_read_port a bank would need three read ports, and an SRAM macro has at most two: leave one of them out, or macros"
	for _, tc := range []struct {
		dma, planar, macros bool
		want                string
	}{
		{true, true, true, msg},
		{true, true, false, ""},
		{false, true, true, ""},
		{true, false, true, ""},
	} {
		st := StateConfig{Partitions: 3, Depth: 8, ElemWidth: 5, DMAReadPort: tc.dma, PlanarReadPort: tc.planar}
		cfg := Config{State: st, Psum: PsumConfig{Partitions: 2, Depth: 8, AccWidth: 10}, Macros: tc.macros}
		errText := func(err error) string {
			if err == nil {
				return ""
			}
			return err.Error()
		}
		_, berr := StateBuffer(st, tc.macros)
		got := []string{errText(cfg.Validate()), strings.TrimPrefix(errText(berr), "sram: state buffer: ")}
		if diff := cmp.Diff([]string{tc.want, tc.want}, got); diff != "" {
			t.Errorf("dma %v planar %v macros %v (-want +got):\n%s", tc.dma, tc.planar, tc.macros, diff)
		}
	}
}
