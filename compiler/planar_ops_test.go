package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/golden"
)

// Abs on the interpreter equals the golden reference, whatever the
// layout of its operand (a graph input, a conv's psum write-back tile,
// a GEMM result), including |−128|, which saturates.
func TestAbs(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *Graph, rng *rand.Rand) *Value
		q     golden.Requant
	}{
		{"input", func(g *Graph, rng *rand.Rand) *Value {
			return g.Input("x", randTensor(rng, -128, 127, 6, 5, 7))
		}, golden.Requant{}},
		{"input_halved_relu", func(g *Graph, rng *rand.Rand) *Value {
			return g.Input("x", randTensor(rng, -128, -100, 3, 40))
		}, golden.Requant{Scale: 1, Shift: 1, Relu: true}},
		{"conv_result", func(g *Graph, rng *rand.Rand) *Value {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 5, 5))
			return g.Conv2D(x, randTensor(rng, -128, 127, 6, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
		}, golden.Requant{Scale: 3, Bias: -4, Shift: 1}},
		{"gemm_result", func(g *Graph, rng *rand.Rand) *Value {
			a := g.Input("a", randTensor(rng, -128, 127, 7, 5))
			return g.GEMM(a, randTensor(rng, -128, 127, 5, 6), golden.Requant{Scale: 1, Shift: 7})
		}, golden.Requant{}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			x := tc.build(g, rand.New(rand.NewPCG(uint64(i), 17)))
			g.Output("y", g.Abs(x, tc.q))
			verifyGraph(t, small(), g, 2)
		})
	}
	t.Run("min_saturates", func(t *testing.T) {
		g := NewGraph()
		x := golden.New(2, 3)
		for i := range x.Data {
			x.Data[i] = -128
		}
		g.Output("y", g.Abs(g.Input("x", x), golden.Requant{}))
		got, _, err := Interpret(verifyGraph(t, small(), g, 0))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got["y"].Data {
			if v != 127 {
				t.Fatalf("y[%d] = %d, want |−128| saturated to 127", i, v)
			}
		}
	})
}

// The unary abs has no second operand: the binary builders refuse it.
func TestAbsIsUnary(t *testing.T) {
	for _, build := range []func(g *Graph, a *Value) *Value{
		func(g *Graph, a *Value) *Value { return g.Eltwise(golden.EltAbs, a, a, golden.Requant{}) },
		func(g *Graph, a *Value) *Value { return g.EltwiseScalar(golden.EltAbs, a, 1, golden.Requant{}) },
	} {
		g := NewGraph()
		g.Output("y", build(g, g.Input("a", golden.New(2, 2))))
		want := "eltwise0: function = abs is unary: use Unary"
		if err := g.Err(); err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// Unary refuses a binary function: it has no second operand to take.
func TestUnaryRefusesBinary(t *testing.T) {
	g := NewGraph()
	g.Output("y", g.Unary(golden.EltAdd, g.Input("a", golden.New(2, 2)), golden.Requant{}))
	want := "eltwise0: function = add is not unary: use Eltwise"
	if err := g.Err(); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// Reductions of whole planes and across rows, with and without post
// functions, on the interpreter equal the golden reference: inputs in
// external memory and results of earlier layers (resident), tiles of
// Rows and of Cols partitions, and a mean (AvgRequant).
func TestReduceWith(t *testing.T) {
	input := func(shape ...int) func(g *Graph, rng *rand.Rand) *Value {
		return func(g *Graph, rng *rand.Rand) *Value { return g.Input("x", randTensor(rng, -128, 127, shape...)) }
	}
	positive := func(g *Graph, rng *rand.Rand) *Value { return g.Input("x", randTensor(rng, 0, 127, 6, 5, 7)) }
	conv := func(g *Graph, rng *rand.Rand) *Value {
		x := g.Input("x", randTensor(rng, -128, 127, 3, 6, 5))
		return g.Conv2D(x, randTensor(rng, -128, 127, 5, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
	}
	cases := []struct {
		name  string
		build func(g *Graph, rng *rand.Rand) *Value
		r     Reduction
	}{
		{"rowsum", input(6, 5, 7), Reduction{Kind: golden.ReduceRowSum, Requant: golden.Requant{Scale: 1, Shift: 2}}},
		{"rowmax", input(9, 4, 3), Reduction{Kind: golden.ReduceRowMax}},
		{"rowmean", input(6, 5, 7), Reduction{Kind: golden.ReduceRowSum, Requant: AvgRequant(5)}},
		{"rowsum_of_conv", conv, Reduction{Kind: golden.ReduceRowSum, Requant: golden.Requant{Scale: 1, Shift: 1, Relu: true}}},
		{"rowmax_single_row", input(3, 1, 8), Reduction{Kind: golden.ReduceRowMax}},
		{"rowsum_of_pool", func(g *Graph, rng *rand.Rand) *Value {
			return g.Pool2D(g.Input("x", randTensor(rng, -128, 127, 5, 6, 6)), Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
		}, Reduction{Kind: golden.ReduceRowSum}},
		{"sqrt_of_sum", positive, Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt}},
		{"sqrt_scaled", input(6, 5, 7), Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 16, Shift: 2}}},
		{"sqrt_rowsum", positive, Reduction{Kind: golden.ReduceRowSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 4, Shift: 1, Rounding: golden.HalfEven}}},
		{"recip_of_max", input(6, 5, 7), Reduction{Kind: golden.ReduceMax, Post: golden.PostRecip, RecipBits: 10}},
		{"recip_rowsum", input(6, 5, 7), Reduction{Kind: golden.ReduceRowSum, Post: golden.PostRecip, RecipBits: 12, Requant: golden.Requant{Scale: 1, Shift: 1}}},
		{"recip_of_conv", conv, Reduction{Kind: golden.ReduceRowMax, Post: golden.PostRecip, RecipBits: 9, Requant: golden.Requant{Scale: 3, Bias: 1}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			x := tc.build(g, rand.New(rand.NewPCG(uint64(i), 23)))
			g.Output("y", g.ReduceWith(x, tc.r))
			verifyGraph(t, small(), g, 2)
		})
	}
	t.Run("chained", func(t *testing.T) { // 1/√(Σx²): a mul, a sum with sqrt, a recip
		rng := rand.New(rand.NewPCG(5, 5))
		g := NewGraph()
		x := g.Input("x", randTensor(rng, -128, 127, 5, 4, 6))
		sq := g.Eltwise(golden.EltMul, x, x, golden.Requant{Scale: 1, Shift: 7})
		norm := g.ReduceWith(sq, Reduction{Kind: golden.ReduceRowSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 4}})
		g.Output("norm", norm)
		g.Output("inv", g.ReduceWith(g.Flatten(norm), Reduction{Kind: golden.ReduceSum, Post: golden.PostRecip, RecipBits: 12}))
		verifyGraph(t, small(), g, 2)
	})
}

// An eltwise with a per-channel operand (the planar broadcast) equals
// the golden reference: vectors from memory and from reductions,
// several channel tiles, planes streamed in chunks, psum tiles.
func TestEltwiseChannel(t *testing.T) {
	cases := []struct {
		name  string
		fn    golden.EltOp
		build func(g *Graph, rng *rand.Rand) (x, vec *Value)
		q     golden.Requant
	}{
		{"add_input_vector", golden.EltAdd, func(g *Graph, rng *rand.Rand) (*Value, *Value) {
			return g.Input("x", randTensor(rng, -128, 127, 9, 4, 5)), g.Input("v", randTensor(rng, -128, 127, 9))
		}, golden.Requant{}},
		{"mul_matrix_rows", golden.EltMul, func(g *Graph, rng *rand.Rand) (*Value, *Value) {
			return g.Input("x", randTensor(rng, -128, 127, 6, 11)), g.Input("v", randTensor(rng, -128, 127, 6))
		}, golden.Requant{Scale: 1, Shift: 7}},
		{"sub_mean", golden.EltSub, func(g *Graph, rng *rand.Rand) (*Value, *Value) {
			x := g.Input("x", randTensor(rng, -128, 127, 7, 5, 6))
			return x, g.Reduce(x, golden.ReduceSum, AvgRequant(30))
		}, golden.Requant{}},
		{"max_streamed", golden.EltMax, func(g *Graph, rng *rand.Rand) (*Value, *Value) {
			return g.Input("x", randTensor(rng, -128, 127, 5, 12, 14)), g.Input("v", randTensor(rng, -128, 127, 5))
		}, golden.Requant{Scale: 3, Shift: 2, Relu: true}},
		{"conv_scaled_by_its_max", golden.EltMul, func(g *Graph, rng *rand.Rand) (*Value, *Value) {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 6, 5))
			c := g.Conv2D(x, randTensor(rng, -128, 127, 6, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
			return c, g.ReduceWith(c, Reduction{Kind: golden.ReduceMax, Post: golden.PostRecip, RecipBits: 10})
		}, golden.Requant{Scale: 1, Shift: 3}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			x, vec := tc.build(g, rand.New(rand.NewPCG(uint64(i), 31)))
			g.Output("y", g.EltwiseChannel(tc.fn, x, vec, tc.q))
			verifyGraph(t, small(), g, 2)
		})
	}
}
