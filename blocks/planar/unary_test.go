package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The unary eltwise functions with the identity post-processor, by hand:
// |min| and −min saturate to the element maximum, every other value is
// exact; on unsigned elements neg saturates to 0. The hardware matches
// the model word for word too (runSuite).
func TestUnaryFunctions(t *testing.T) {
	exact := map[isaplanar.Fn]func(int64) int64{
		isaplanar.FnAbs: func(v int64) int64 { return max(v, -v) },
		isaplanar.FnNeg: func(v int64) int64 { return -v },
	}
	for _, fn := range isaplanar.UnaryFns() {
		if exact[fn] == nil {
			t.Fatalf("unary function %d has no hand-written expectation here", fn)
		}
	}
	for _, c := range []Config{smallConfig(), unsignedConfig()} {
		t.Run(Name(c), func(t *testing.T) {
			et := c.ElemType()
			in := []int64{minOf(et), minOf(et) + 1, -1, 0, 1, maxOf(et), minOf(et), 5}
			if !c.ElemSigned {
				in = []int64{0, 1, maxOf(et), 7, maxOf(et) - 1, 2, 0, 5}
			}
			b := newBenchWith(t, c, 61, 0, func(state, _ [][]int64) {
				for p := range state {
					copy(state[p][10:], in)
				}
			})
			var tasks []namedTask
			dst := map[isaplanar.Fn]int{}
			for i, fn := range isaplanar.UnaryFns() {
				dst[fn] = c.StateDepth/2 + 16*i
				task := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: fn, Mask: 1<<uint(c.Lanes) - 1, Src: 10, Dst: dst[fn], H: 2, W: 4, Scale: 1}
				tasks = append(tasks, namedTask{task.FnName(), task})
			}
			runSuite(t, b, tasks, true)
			for _, fn := range isaplanar.UnaryFns() {
				var want []int64
				for _, v := range in {
					want = append(want, min(max(exact[fn](v), minOf(et)), maxOf(et)))
				}
				for p := range c.Lanes {
					if diff := cmp.Diff(want, b.state[p][dst[fn]:dst[fn]+len(in)]); diff != "" {
						t.Errorf("lane %d: fn %d (-want +got):\n%s", p, fn, diff)
					}
				}
			}
		})
	}
}
