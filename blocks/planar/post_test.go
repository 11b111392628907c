package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The hardware computes the same numbers: each lane's three elements
// sum to 0, 1, 300 and −77.
func TestPostFunctionHardware(t *testing.T) {
	c := smallConfig()
	planes := [][]int64{{0, 0, 0}, {1, 0, 0}, {100, 100, 100}, {-7, -70, 0}}
	b := newBenchWith(t, c, 65, 0, func(state, _ [][]int64) {
		for p := range state {
			copy(state[p], planes[p])
		}
	})
	tasks := []namedTask{
		{"sqrt", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 128, H: 1, W: 3, Scale: 1, Post: isaplanar.PostSqrt}},
		{"recip: 2^6 / v", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: all4, Src: 0, Dst: 129, H: 1, W: 3, Scale: 1, Shift: 29 - 6, Post: isaplanar.PostRecip}},
	}
	runSuite(t, b, tasks, true)
	var got [][]int64
	for p := range c.Lanes {
		got = append(got, b.state[p][128:130])
	}
	want := [][]int64{{0, 127}, {1, 64}, {17, 0}, {0, -1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per lane [sqrt, recip] (-want +got):\n%s", diff)
	}
}
