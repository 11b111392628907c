package machine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/planar"
)

// smallSizes is a small planar engine: 4 lanes of int8,
// accumulators, 10-bit scales.
func smallSizes() planar.Sizes {
	return planar.Sizes{Lanes: 4, PsumLanes: 3, ElemWidth: 8, ElemSigned: true, AccWidth: 20, ScaleWidth: 10,
		StateDepth: 256, PsumDepth: 64, MaxKernel: 8, LineDepth: 16}
}

// The post functions' integer semantics, by hand (smallConfig: K = 29):
// floor(√v) (0 below 0), trunc(2^K / v) (2^(K+1)−1 at 0), then the
// shift with its rounding and the saturation as usual.
func TestPostFunctionValues(t *testing.T) {
	c := smallSizes()
	if k := c.RecipShift(); k != 29 {
		t.Fatalf("RecipShift = %d, the table assumes 29", k)
	}
	out := golden.Int{Width: 8, Signed: true}
	type row struct {
		name string
		post planar.Post
		x    int64
		q    golden.Requant
		want int64
	}
	rows := []row{
		{"sqrt 99", planar.PostSqrt, 99, golden.Requant{Scale: 1}, 9},
		{"sqrt 100", planar.PostSqrt, 100, golden.Requant{Scale: 1}, 10},
		{"sqrt 0", planar.PostSqrt, 0, golden.Requant{Scale: 1}, 0},
		{"sqrt of a negative v", planar.PostSqrt, -5, golden.Requant{Scale: 1}, 0},
		{"sqrt after scale and bias", planar.PostSqrt, 2, golden.Requant{Scale: 64, Bias: 16}, 12},
		{"sqrt 324 / 4 half up", planar.PostSqrt, 324, golden.Requant{Scale: 1, Shift: 2}, 5},
		{"sqrt 324 / 4 half even", planar.PostSqrt, 324, golden.Requant{Scale: 1, Shift: 2, Rounding: golden.HalfEven}, 4},
		{"sqrt saturates", planar.PostSqrt, 1 << 20, golden.Requant{Scale: 1}, 127},
		{"recip 2^20", planar.PostRecip, 1 << 20, golden.Requant{Scale: 1, Shift: 4}, 32},
		{"recip 3", planar.PostRecip, 3, golden.Requant{Scale: 1, Shift: 22}, 43},
		{"recip -3", planar.PostRecip, -3, golden.Requant{Scale: 1, Shift: 22}, -43},
		{"recip -3 floor (wrap)", planar.PostRecip, -3, golden.Requant{Scale: 1, Shift: 22, Wrap: true}, -43},
		{"recip 7 of a bias", planar.PostRecip, 0, golden.Requant{Scale: 1, Bias: 7, Shift: 24}, 5},
		{"recip 0 saturates", planar.PostRecip, 0, golden.Requant{Scale: 1}, 127},
		{"recip 0, shifted all the way", planar.PostRecip, 0, golden.Requant{Scale: 1, Shift: 30}, 1},
		{"recip relu", planar.PostRecip, -1, golden.Requant{Scale: 1, Shift: 25, Relu: true}, 0},
		{"none", planar.PostNone, 1000, golden.Requant{Scale: 1, Shift: 4}, 63},
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
