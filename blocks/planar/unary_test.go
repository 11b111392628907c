package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Abs with the identity post-processor: |min| saturates to the element
// maximum, every other value is its magnitude; unsigned elements are
// unchanged. The hardware matches the model word for word (runSuite).
func TestAbsSaturatesMin(t *testing.T) {
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
			dst := c.StateDepth / 2
			task := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAbs, Mask: 1<<uint(c.Lanes) - 1, Src: 10, Dst: dst, H: 2, W: 4, Scale: 1}
			runSuite(t, b, []namedTask{{"abs", task}}, true)
			var want []int64
			for _, v := range in {
				want = append(want, min(max(v, -v), maxOf(et)))
			}
			for p := range c.Lanes {
				if diff := cmp.Diff(want, b.state[p][dst:dst+len(in)]); diff != "" {
					t.Errorf("lane %d: abs (-want +got):\n%s", p, diff)
				}
			}
		})
	}
}
