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

// The post functions' integer semantics, by hand (smallSizes: K = 29),
// as the machine's reductions apply them (the golden PostFn of each
// planar.Post): floor(√v) (0 below 0), trunc(2^K / v) (2^(K+1)−1 at 0),
// then the shift with its rounding and the saturation as usual.
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
		got = append(got, r.q.ApplyPost(r.x, postFns[r.post], c.RecipShift(), out))
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

// Every function of isa/planar's table has its golden model: an eltwise
// function one of the same name and the same unary attribute (a new row
// in Fns without its golden function fails here), a pooling function or
// a reduction its kind, a post function its golden PostFn; and the
// compiler's direction (EltFn, PoolFn, ReduceFn) finds the code back.
func TestFnsHaveGolden(t *testing.T) {
	for _, d := range planar.Fns {
		var code planar.Fn
		var err error
		switch d.Op {
		case planar.OpEltwise:
			op, perr := golden.ParseEltOp(d.Name)
			if perr != nil {
				t.Errorf("eltwise %s (fn %d): no golden function: %v", d.Name, d.Fn, perr)
				continue
			}
			if op.Unary() != d.Unary {
				t.Errorf("eltwise %s: unary %v in isa/planar, %v in golden", d.Name, d.Unary, op.Unary())
			}
			code, err = EltFn(op)
		case planar.OpPool:
			k, ok := poolKinds[d.Fn]
			if !ok {
				t.Errorf("pool %s (fn %d): no golden pooling kind", d.Name, d.Fn)
				continue
			}
			code, err = PoolFn(k)
		case planar.OpReduce:
			k, ok := reduceKinds[d.Fn]
			if !ok {
				t.Errorf("reduce %s (fn %d): no golden reduction", d.Name, d.Fn)
				continue
			}
			code, err = ReduceFn(k)
		default:
			t.Errorf("function %s of op %s: the machine dispatches no such op", d.Name, d.Op)
			continue
		}
		if err != nil || code != d.Fn {
			t.Errorf("%s %s: the code of its golden model is %d (%v), want %d", d.Op, d.Name, code, err, d.Fn)
		}
	}
	for p := range planar.NumPosts {
		if _, ok := postFns[p]; !ok {
			t.Errorf("post function %s: no golden PostFn of that name", p)
		}
	}
}
