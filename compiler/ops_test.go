package compiler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// Ops lists a network's operations in order with what defines them, and
// hands out copies: changing them leaves the graph as it was.
func TestOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, 127, 2, 6, 6))
	w := randTensor(rng, -128, 127, 4, 2, 3, 3)
	pc := &ChannelRequant{Scale: []int64{3, 5, 7, 9}, Bias: []int64{-1, 0, 1, 2}}
	q := golden.Requant{Shift: 6, Relu: true}
	c := g.Conv2D(x, w, Conv{Stride: 1, PadH: 1, PadW: 1, Requant: q, PerChannel: pc})
	p := g.Pool2D(c, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	fc := randTensor(rng, -128, 127, 36, 3)
	y := g.GEMM(g.Flatten(p), fc, golden.Requant{Scale: 2, Shift: 9})
	g.Output("y", y)

	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Kind, Label string
		Requant     golden.Requant
		Per         *ChannelRequant
	}
	var got []summary
	for _, op := range ops {
		got = append(got, summary{op.Kind.String(), op.Label, op.Requant, op.PerChannel})
	}
	want := []summary{
		{"conv2d", "conv2d0", q, pc},
		{"pool", "pool0", golden.Identity(), nil},
		{"view", "view0", golden.Requant{}, nil},
		{"gemm", "gemm0", golden.Requant{Scale: 2, Shift: 9}, nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("ops (-want +got):\n%s", d)
	}
	if ops[0].In[0] != x || ops[0].In[0].InputName() != "x" || ops[1].In[0] != ops[0].Out || ops[3].Out != y {
		t.Errorf("operands do not link the ops in order")
	}
	if d := cmp.Diff([]string{"y"}, ops[3].Out.OutputNames()); d != "" {
		t.Errorf("output names (-want +got):\n%s", d)
	}
	if d := cmp.Diff(w, ops[0].Weights); d != "" {
		t.Errorf("conv weights (-graph +op):\n%s", d)
	}
	if ops[0].Conv.PadH != 1 || ops[0].Conv.Stride != 1 || ops[1].Pool.KH != 2 || ops[1].Pool.Stride != 2 {
		t.Errorf("geometry: conv %+v, pool %+v", ops[0].Conv, ops[1].Pool)
	}

	before, err := g.Reference(small())
	if err != nil {
		t.Fatal(err)
	}
	ops[0].Weights.Data[0]++
	ops[0].PerChannel.Scale[0] = 1000
	ops[3].Weights.Data[0]++
	after, err := g.Reference(small())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("changing the ops changed the graph:\n%s", d)
	}
}

// A graph with build errors has no ops, only the errors.
func TestOpsBuildError(t *testing.T) {
	g := NewGraph()
	g.GEMM(g.Input("a", golden.New(2, 3)), golden.New(4, 5), golden.Requant{})
	if _, err := g.Ops(); err == nil {
		t.Error("no error for a GEMM of mismatched shapes")
	}
}

// An int32 result says so, with its bias per channel.
func TestOpsInt32(t *testing.T) {
	g := NewGraph()
	y := g.GEMMInt32(g.Input("a", golden.New(1, 4)), golden.New(4, 2), []int64{7, -8})
	g.Output("y", y)
	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	if !ops[0].Int32 || !slices.Equal(ops[0].Bias, []int64{7, -8}) {
		t.Errorf("Int32 %v, Bias %v; want true, [7 -8]", ops[0].Int32, ops[0].Bias)
	}
}
