package sram

import (
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
	one := func(p int, v uint64) stReq {
		d := make([]uint64, cfg.Partitions)
		d[p] = v
		return stReq{addr: 3, mask: 1 << p, data: d}
	}
	script := map[int][]stTimed{
		dmaw: {{3, one(0, 0x11)}, {3, one(1, 0x22)}, {3, one(2, 0x33)}}, // cycles 3, 4, 5
		plw:  {{5, one(3, 0x44)}},                                       // cycle 5, beside dmaw's lane 2
		pe:   {{5, stReq{addr: 3, mask: 0xf}}, {5, stReq{addr: 3, mask: 0xf}}},
		dmar: {{6, stReq{addr: 3, mask: 1 << 2}}},
		wl:   {{6, stReq{addr: 3, mask: 0}}},
	}
	for _, macros := range []bool{false, true} {
		t.Run(form(macros), func(t *testing.T) {
			m, err := StateBuffer(cfg, macros)
			d := elaborate(t, m, err)
			res := runState(t, d, cfg, 20, 1, stateScript(cloneScript(script)))
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
}

func cloneScript(s map[int][]stTimed) map[int][]stTimed {
	c := map[int][]stTimed{}
	for k, v := range s {
		c[k] = append([]stTimed(nil), v...)
	}
	return c
}
