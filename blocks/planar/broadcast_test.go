package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// A broadcast eltwise adds (or multiplies by) one value per lane: lane
// p's element at src2, the same for the whole plane, like a per-channel
// bias. The model's result is checked by hand here, the hardware's
// against the model (runSuite), and src2 is read exactly once.
func TestBroadcastPerLaneOperand(t *testing.T) {
	c := smallConfig()
	const src, src2, dst, h, w = 30, 7, 140, 3, 5
	perLane := []int64{-3, 0, 11, -100}
	b := newBenchWith(t, c, 62, 0, func(state, _ [][]int64) {
		for p := range state {
			state[p][src2] = perLane[p]
		}
	})
	before := make([][]int64, c.Lanes)
	for p := range before {
		before[p] = append([]int64(nil), b.state[p][src:src+h*w]...)
	}
	for _, tc := range []struct {
		fn isaplanar.Fn
		f  func(a, b int64) int64
	}{
		{isaplanar.FnAdd, func(a, b int64) int64 { return a + b }},
		{isaplanar.FnMul, func(a, b int64) int64 { return a * b }},
		{isaplanar.FnMax, func(a, b int64) int64 { return max(a, b) }},
	} {
		task := withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: tc.fn, Mask: all4, Src: src, Src2: src2, Dst: dst, H: h, W: w, Broadcast: true})
		res := b.run(task)
		b.expect(task)
		b.checkMemory("broadcast")
		if res.reads != h*w+1 || res.cycles != h*w+11 || c.Cycles(task) != h*w+11 {
			t.Errorf("fn %d: %d reads in %d cycles (formula %d), want %d reads in %d cycles", tc.fn, res.reads, res.cycles, c.Cycles(task), h*w+1, h*w+11)
		}
		et := c.ElemType()
		for p := range c.Lanes {
			var want []int64
			for _, a := range before[p] {
				want = append(want, min(max(tc.f(a, perLane[p]), minOf(et)), maxOf(et)))
			}
			if diff := cmp.Diff(want, b.state[p][dst:dst+h*w]); diff != "" {
				t.Errorf("fn %d lane %d (-want +got):\n%s", tc.fn, p, diff)
			}
		}
	}
}
