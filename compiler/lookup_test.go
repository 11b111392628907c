package compiler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// tables of int8 functions with typical scales: a sigmoid of inputs in
// steps of 1/16 to outputs in steps of 1/128, a tanh of steps of 1/32
// to 1/127, and an exp of steps of 1/16 for inputs up to 0 (softmax's
// exp(x − max)) to 1/127.
func tables(t *testing.T) (sigmoid, tanh, exp []int64) {
	t.Helper()
	mk := func(f func(float64) float64, in, out float64) []int64 {
		tab, err := golden.TableOf(f, in, out, golden.S(8))
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	return mk(func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 1.0/16, 1.0/128),
		mk(math.Tanh, 1.0/32, 1.0/127), mk(math.Exp, 1.0/16, 1.0/127)
}

// Lookups on the reference machine equal the golden reference whatever
// the operand's layout (a graph input, a conv's psum write-back tile of
// cols partitions, a GEMM result), with a requantization before the
// table, and with two tables in turn, on a square and a narrow NPU.
func TestLookup(t *testing.T) {
	sig, tanh, exp := tables(t)
	// LRN's (k + α/n·s)^−β with k 2, α/n 0.0001·64 per step of s, β 0.75,
	// output steps of 1/127 (negative s, which a mean of squares never
	// is, gives NaN and so 0).
	power, err := golden.TableOf(func(s float64) float64 { return math.Pow(2+0.0064*s, -0.75) }, 1, 1.0/127, golden.S(8))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		lookups int
		build   func(g *Graph, rng *rand.Rand)
	}{
		{"sigmoid_of_input", 1, func(g *Graph, rng *rand.Rand) {
			g.Output("y", g.Lookup(g.Input("x", randTensor(rng, -128, 127, 6, 5, 7)), sig, golden.Requant{}))
		}},
		{"tanh_of_conv_rescaled", 1, func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 5, 5))
			c := g.Conv2D(x, randTensor(rng, -128, 127, 6, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8}})
			g.Output("y", g.Lookup(c, tanh, golden.Requant{Scale: 3, Bias: -4, Shift: 1}))
		}},
		{"exp_of_gemm_minus_max", 1, func(g *Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, -128, 127, 7, 5))
			s := g.GEMM(a, randTensor(rng, -128, 127, 5, 6), golden.Requant{Scale: 1, Shift: 7})
			g.Output("y", g.Lookup(s, exp, golden.Requant{Scale: 1, Bias: -127}))
		}},
		{"softmax", 1, func(g *Graph, rng *rand.Rand) {
			// exp(x − max) per channel, its sum's reciprocal, the product.
			x := g.Input("x", randTensor(rng, -128, 127, 5, 12))
			d := g.EltwiseChannel(golden.EltSub, x, g.Reduce(x, golden.ReduceMax, golden.Requant{}), golden.Requant{})
			e := g.Lookup(d, exp, golden.Requant{})
			inv := g.ReduceWith(e, Reduction{Kind: golden.ReduceSum, Post: golden.PostRecip, RecipBits: 14})
			g.Output("p", g.EltwiseChannel(golden.EltMul, e, inv, golden.Requant{Scale: 1, Shift: 7}))
		}},
		{"lrn_power", 1, func(g *Graph, rng *rand.Rand) {
			// x·(k + α/n·s)^−β, s the windowed mean of the squares.
			x := g.Input("x", randTensor(rng, -128, 127, 4, 6, 6))
			sq := g.Eltwise(golden.EltMul, x, x, golden.Requant{Scale: 1, Shift: 8})
			s := g.Pool2D(sq, Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1})
			pw := g.Lookup(s, power, golden.Requant{})
			g.Output("y", g.Eltwise(golden.EltMul, x, pw, golden.Requant{Scale: 1, Shift: 7}))
		}},
		{"two_tables_in_turn", 3, func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 5, 40))
			y := g.Lookup(x, sig, golden.Requant{})
			g.Output("z", g.Lookup(y, tanh, golden.Requant{Scale: 2}))
			g.Output("w", g.Lookup(x, tanh, golden.Requant{}))
		}},
	}
	for _, cfg := range []npu.Config{small(), narrow()} {
		for i, tc := range cases {
			t.Run(fmt.Sprintf("%dx%d/%s", cfg.Rows, cfg.Cols, tc.name), func(t *testing.T) {
				g := NewGraph()
				tc.build(g, rand.New(rand.NewPCG(uint64(i), 23)))
				p := verifyGraph(t, cfg, g, 2)
				if got := countOps(p)["planar.loadtable"]; got != tc.lookups {
					t.Errorf("%d loadtable tasks, want one per lookup (%d)", got, tc.lookups)
				}
			})
		}
	}
}

// Lookup's results by hand: the requantization first, saturated to an
// element, then the entry (sigmoid(0) = 64/128; sigmoid(−8) rounds to
// 0; sigmoid(7.94)·128 = 127.95 saturates to 127).
func TestLookupValues(t *testing.T) {
	sig, _, _ := tables(t)
	g := NewGraph()
	x := g.Input("x", &golden.Tensor{Shape: []int{1, 4}, Data: []int64{0, -128, 127, 100}})
	g.Output("y", g.Lookup(x, sig, golden.Requant{}))
	g.Output("halved", g.Lookup(x, sig, golden.Requant{Scale: 1, Shift: 1}))
	got, _, err := Interpret(verifyGraph(t, small(), g, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{"y": {64, sig[0], 127, sig[228]}, "halved": {64, sig[64], sig[192], sig[178]}}
	if diff := cmp.Diff(want, map[string][]int64{"y": got["y"].Data, "halved": got["halved"].Data}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if want["y"][1] != 0 {
		t.Errorf("sigmoid(−8) entry %d, want 0", want["y"][1])
	}
}

// A table that is not one of the NPU's element type, and an NPU without
// the planar table, are refused with the op's label and what is wrong.
func TestLookupErrors(t *testing.T) {
	sig, _, _ := tables(t)
	noLUT := small()
	noLUT.PlanarLUT = false
	bad := append([]int64(nil), sig...)
	bad[3] = 200
	cases := []struct {
		name  string
		cfg   npu.Config
		table []int64
		want  string
	}{
		{"three entries", small(), []int64{1, 2, 3}, "lookup0: table has 3 entries: want one per element value, 2^elem_width (256 for int8)"},
		{"int4 table on int8", small(), make([]int64, 16), "lookup0: golden: a lookup table of int8 has 16 entries, not 256 (one per value)"},
		{"entry out of range", small(), bad, "lookup0: golden: lookup table entry 3 (input -125) = 200 is not a value of int8 (-128..127)"},
		{"no planar table", noLUT, sig, "lookup0: the planar engine has no lookup table (npu planar_lut = false)"},
	}
	for _, tc := range cases {
		g := NewGraph()
		g.Output("y", g.Lookup(g.Input("x", golden.New(2, 3)), tc.table, golden.Requant{}))
		_, err := Compile(tc.cfg, g)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Ops reports a lookup with its table (a copy) and kind, so an exporter
// that does not know lookups refuses them rather than dropping the
// table.
func TestLookupOp(t *testing.T) {
	sig, _, _ := tables(t)
	g := NewGraph()
	g.Output("y", g.Lookup(g.Input("x", golden.New(2, 3)), sig, golden.Requant{Scale: 2}))
	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	if op.Kind != OpLookup || op.Kind.String() != "lookup" || op.Label != "lookup0" || op.Requant.Scale != 2 {
		t.Errorf("op %+v", op)
	}
	if diff := cmp.Diff(sig, op.Table); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	op.Table[0] = 99
	if again, _ := g.Ops(); again[0].Table[0] == 99 {
		t.Error("Ops shares the graph's table")
	}
}

// lutNet is a net with two tables in turn, for the batch: copies that
// interleave on the planar engine must each find their own table.
func lutNet(x *golden.Tensor, sig, tanh []int64) *Graph {
	g := NewGraph()
	y := g.Lookup(g.Input("x", x), sig, golden.Requant{})
	g.Output("y", g.Lookup(y, tanh, golden.Requant{Scale: 1, Bias: -64}))
	return g
}

// The interleaved batch reloads the table before every lut task, so
// each copy's results are its own golden ones in any legal order.
func TestLookupBatch(t *testing.T) {
	sig, tanh, _ := tables(t)
	cfg := small()
	cfg.StateDepth = 512
	rng := rand.New(rand.NewPCG(29, 1))
	xs := []*golden.Tensor{randTensor(rng, -128, 127, 4, 30), randTensor(rng, -128, 127, 4, 30)}
	b, err := CompileBatch(cfg, lutNet(xs[0], sig, tanh), len(xs), "x")
	if err != nil {
		t.Fatal(err)
	}
	if countOps(b)["planar.loadtable"] < 4 {
		t.Fatalf("%d loadtable tasks, want one before each of the 4 lut tasks", countOps(b)["planar.loadtable"])
	}
	want := map[string]*golden.Tensor{}
	for k, x := range xs {
		if err := b.SetInput(BatchName("x", k), x); err != nil {
			t.Fatal(err)
		}
		ref, err := lutNet(x, sig, tanh).Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want[BatchName("y", k)] = ref["y"]
	}
	for i := range 4 {
		got, _, err := Interpret(b) // program order, then random legal ones
		if i > 0 {
			got, _, err = InterpretOrder(b, RandomOrder(b, rng))
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("order %d (-golden +interpreter):\n%s", i, d)
		}
	}
}
