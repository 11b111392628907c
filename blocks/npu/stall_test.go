package npu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
)

// TestStallCounts: the stall counters, read when the NPU is idle as the
// host reads them, hold every cycle in which an engine's stall flag was
// up, though each flag is registered before it is counted. The NE's
// input reads and a store of the same lines contend for the state
// buffer, so both engines stall.
func TestStallCounts(t *testing.T) {
	c := smallConfig()
	h, _ := newHost(t, c)
	const M, K = 48, 4
	for m := range M {
		h.writeLine(m, []int64{int64(m % 7), 1, -2, 3})
	}
	for k := range K {
		h.writeLine(64+k, []int64{1, 2, 3, int64(k)})
	}
	t0 := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoad, Src: 0, Dst: 0, D0: M, D1: 1})
	t1 := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoadWeights, Src: 64, Dst: 0, D0: K, D1: 1})
	h.push(isa.Descriptor{Engine: isa.NE, Op: isa.NEGEMM, Src: 0, Aux: 0, Dst: 0, D0: M, D1: 1, D2: 1, Deps: []uint64{t0, t1},
		Param: h.neParams(map[string]uint64{"kh": 1, "kw": 1, "stride": 1, "oh": M, "ow": 1})})
	h.push(isa.Descriptor{Engine: isa.DMAOut, Op: isa.DMAOutStore, Src: 0, Dst: 300, D0: M, D1: 1, Deps: []uint64{t0}})

	flags := map[string]string{"ne": "npu.nec_stall", "dma_in": "npu.dmai_stall", "dma_out": "npu.dmao_stall"}
	seen := map[string]uint64{}
	before := map[string]uint64{}
	for e := range flags {
		before[e] = h.s.Peek(e + "_stall_cycles")
	}
	for n := 0; h.s.Peek("idle") == 0 || n < 2; n++ {
		if n > 20000 {
			t.Fatal("the NPU is not idle after 20000 cycles")
		}
		for e, path := range flags {
			v, err := h.s.Sim.Peek(path)
			if err != nil {
				t.Fatal(err)
			}
			seen[e] += v
		}
		h.s.Step(1)
	}
	got := map[string]uint64{}
	for e := range flags {
		got[e] = h.s.Peek(e+"_stall_cycles") - before[e]
	}
	if diff := cmp.Diff(seen, got); diff != "" {
		t.Errorf("stall counters (-flags seen +counted):\n%s", diff)
	}
	t.Logf("stalls %v", seen)
	if seen["ne"] == 0 || seen["dma_out"] == 0 {
		t.Errorf("no contention: stalls %v", seen)
	}
}
