package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// The post functions' integer semantics, by hand (smallConfig: K = 29):
// floor(√v) (0 below 0), trunc(2^K / v) (2^(K+1)−1 at 0), then the
// shift with its rounding and the saturation as usual.
func TestPostFunctionValues(t *testing.T) {
	c := smallConfig()
	if k := c.RecipShift(); k != 29 {
		t.Fatalf("RecipShift = %d, the table assumes 29", k)
	}
	out := golden.Int{Width: 8, Signed: true}
	type row struct {
		name string
		post Post
		x    int64
		q    golden.Requant
		want int64
	}
	rows := []row{
		{"sqrt 99", PostSqrt, 99, golden.Requant{Scale: 1}, 9},
		{"sqrt 100", PostSqrt, 100, golden.Requant{Scale: 1}, 10},
		{"sqrt 0", PostSqrt, 0, golden.Requant{Scale: 1}, 0},
		{"sqrt of a negative v", PostSqrt, -5, golden.Requant{Scale: 1}, 0},
		{"sqrt after scale and bias", PostSqrt, 2, golden.Requant{Scale: 64, Bias: 16}, 12},
		{"sqrt 324 / 4 half up", PostSqrt, 324, golden.Requant{Scale: 1, Shift: 2}, 5},
		{"sqrt 324 / 4 half even", PostSqrt, 324, golden.Requant{Scale: 1, Shift: 2, Rounding: golden.HalfEven}, 4},
		{"sqrt saturates", PostSqrt, 1 << 20, golden.Requant{Scale: 1}, 127},
		{"recip 2^20", PostRecip, 1 << 20, golden.Requant{Scale: 1, Shift: 4}, 32},
		{"recip 3", PostRecip, 3, golden.Requant{Scale: 1, Shift: 22}, 43},
		{"recip -3", PostRecip, -3, golden.Requant{Scale: 1, Shift: 22}, -43},
		{"recip -3 floor (wrap)", PostRecip, -3, golden.Requant{Scale: 1, Shift: 22, Wrap: true}, -43},
		{"recip 7 of a bias", PostRecip, 0, golden.Requant{Scale: 1, Bias: 7, Shift: 24}, 5},
		{"recip 0 saturates", PostRecip, 0, golden.Requant{Scale: 1}, 127},
		{"recip 0, shifted all the way", PostRecip, 0, golden.Requant{Scale: 1, Shift: 30}, 1},
		{"recip relu", PostRecip, -1, golden.Requant{Scale: 1, Shift: 25, Relu: true}, 0},
		{"none", PostNone, 1000, golden.Requant{Scale: 1, Shift: 4}, 63},
	}
	var got, want []int64
	for _, r := range rows {
		got = append(got, postRequant(c, r.post, r.q, r.x, out))
		want = append(want, r.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		for i, r := range rows {
			if got[i] != want[i] {
				t.Errorf("%s: %d, want %d", r.name, got[i], want[i])
			}
		}
	}
}

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
		{"sqrt", Task{Op: OpReduce, Fn: FnSum, Mask: all4, Src: 0, Dst: 128, H: 1, W: 3, Scale: 1, Post: PostSqrt}},
		{"recip: 2^6 / v", Task{Op: OpReduce, Fn: FnSum, Mask: all4, Src: 0, Dst: 129, H: 1, W: 3, Scale: 1, Shift: 29 - 6, Post: PostRecip}},
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
