package export

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// int8s is a random int8 tensor, a third of it at the extremes −128,
// −127 and 127 (where products and sums are largest).
func int8s(rng *rand.Rand, lo, hi int64, shape ...int) *golden.Tensor {
	t := golden.New(shape...)
	for i := range t.Data {
		if lo == -128 && rng.IntN(3) == 0 {
			t.Data[i] = []int64{-128, -127, 127}[rng.IntN(3)]
			continue
		}
		t.Data[i] = lo + rng.Int64N(hi-lo+1)
	}
	return t
}

func filled(v int64, shape ...int) *golden.Tensor {
	t := golden.New(shape...)
	for i := range t.Data {
		t.Data[i] = v
	}
	return t
}

// weightsFunc gives a layer's weights in lo..hi of a shape.
type weightsFunc func(lo, hi int64, shape ...int) *golden.Tensor

// graphCase builds a graph on input data x (one graph input, "x").
type graphCase struct {
	name  string
	shape []int
	lo    int64 // the input range lo..−lo−1 (−128: int8 with extremes)
	int32 bool  // the output is an int32 result
	build func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value
}

var graphCases = []graphCase{
	{"grouped conv (2 groups) and depthwise conv (a group per channel)", []int{4, 6, 6}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			c := g.Conv2D(x, w(-128, 127, 6, 2, 3, 3), compiler.Conv{Groups: 2, PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 11, Shift: 10}})
			return g.Conv2D(c, w(-128, 127, 6, 1, 3, 3), compiler.Conv{Groups: 6, Requant: golden.Requant{Scale: 5, Shift: 9}})
		}},
	{"eltwise: rescale with ReLU, add of two activations, scalar mul with clamp, sub, max", []int{2, 5, 6}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			c := g.Conv2D(x, w(-128, 127, 3, 2, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 11, Shift: 9}})
			r := g.Requant(c, golden.Requant{Scale: 3, Shift: 2, Relu: true})
			e := g.Eltwise(golden.EltAdd, c, r, golden.Requant{Scale: 5, Bias: 3, Shift: 3, Rounding: golden.HalfEven})
			m := g.EltwiseScalar(golden.EltMul, e, -7, golden.Requant{Scale: 1, Shift: 2, Clamp: true, Lo: -50, Hi: 60})
			d := g.Eltwise(golden.EltSub, m, e, golden.Requant{})
			return g.EltwiseScalar(golden.EltMax, d, -20, golden.Requant{})
		}},
	{"average pool with zero padding, then a per-channel sum", []int{3, 6, 7}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			p := g.Pool2D(x, compiler.Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Requant: compiler.AvgRequant(9)})
			return g.Reduce(p, golden.ReduceSum, golden.Requant{Scale: 3, Bias: -40, Shift: 4})
		}},
	{"per-channel max, requantized", []int{4, 3, 5}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			return g.Reduce(x, golden.ReduceMax, golden.Requant{Scale: 9, Shift: 3, Relu: true})
		}},
	{"int32 result: conv with a bias per channel", []int{2, 6, 6}, -128, true,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			return g.Conv2D(x, w(-128, 127, 3, 2, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Int32: true, Bias: []int64{-1 << 30, 7, 1<<31 - 1<<20}})
		}},
	{"int32 result: FC on the transposed view of a GEMM result", []int{3, 20}, -128, true,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			a := g.GEMM(x, w(-128, 127, 20, 6), golden.Requant{Scale: 77, Bias: -5000, Shift: 10})
			return g.GEMMInt32(g.Transpose(a), w(-128, 127, 3, 4), []int64{5, -6, 1 << 20, 0})
		}},
	{"conv stride 2 pad 1, half-even, clamp; ignored-padding max pool; per-channel FC with ReLU", []int{3, 7, 9}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			c := g.Conv2D(x, w(-128, 127, 5, 3, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1,
				Requant: golden.Requant{Scale: -3, Bias: 1000, Shift: 4, Rounding: golden.HalfEven, Clamp: true, Lo: -100, Hi: 90}})
			p := g.Pool2D(c, compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore})
			pc := &compiler.ChannelRequant{}
			for range 4 {
				pc.Scale = append(pc.Scale, rng.Int64N(1<<16)-1<<15)
				pc.Bias = append(pc.Bias, rng.Int64N(1<<22)-1<<21)
			}
			return g.GEMMPerChannel(g.Flatten(p), w(-128, 127, 30, 4), pc, golden.Requant{Shift: 12, Relu: true})
		}},
	// Small values and shifts of 1 and 2: many sums end exactly half
	// way, where half-up and half-even differ.
	{"ties: 1×1 convs with shifts 1 and 2, half-even then half-up with ReLU, then saturation only", []int{2, 5, 6}, -4, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			c := g.Conv2D(x, w(-3, 3, 4, 2, 1, 1), compiler.Conv{Requant: golden.Requant{Scale: 1, Shift: 1, Rounding: golden.HalfEven}})
			c = g.Conv2D(c, w(-3, 3, 3, 4, 1, 1), compiler.Conv{Requant: golden.Requant{Scale: 3, Bias: -1, Shift: 2, Relu: true}})
			return g.Conv2D(c, w(-128, 127, 2, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1})
		}},
	{"u-net: conv, max pool, conv, upsample ×2, concat with the skip, conv", []int{3, 6, 8}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			skip := g.Conv2D(x, w(-128, 127, 4, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 9, Shift: 10, Relu: true}})
			down := g.Pool2D(skip, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
			mid := g.Conv2D(down, w(-128, 127, 5, 4, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 7, Shift: 10}})
			cat := g.Concat(g.Upsample(mid, 2), skip)
			return g.Conv2D(cat, w(-128, 127, 3, 9, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 5, Shift: 10}})
		}},
	{"upsample ×2 of the input as the output", []int{2, 3, 5}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			return g.Upsample(x, 2)
		}},
	{"GEMM of 3 rows, then a GEMM of its result", []int{3, 20}, -128, false,
		func(g *compiler.Graph, x *compiler.Value, w weightsFunc, rng *rand.Rand) *compiler.Value {
			a := g.GEMM(x, w(-128, 127, 20, 6), golden.Requant{Scale: 77, Bias: -5000, Shift: 10})
			return g.GEMM(a, w(-128, 127, 6, 2), golden.Requant{Scale: 1, Shift: 3, Rounding: golden.HalfEven, Relu: true})
		}},
}

// Exported int8 graphs run on ONNX Runtime give the golden models'
// results (what every compiled program must produce) bit for bit:
// strides, padding, both roundings, ReLU, clamp, saturation, max pool
// padding that never wins, per-layer and per-channel requantization, on
// random inputs and on all −128 inputs with all −128 int8 weights (the
// largest products, which a saturating 16-bit multiply-add would clip).
func TestORTGraphs(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	for ci, tc := range graphCases {
		t.Run(tc.name, func(t *testing.T) {
			random := func(lo, hi int64, shape ...int) *golden.Tensor {
				return int8s(rand.New(rand.NewPCG(uint64(ci), uint64(len(shape)*1000+shape[0]))), lo, hi, shape...)
			}
			extreme := func(lo, hi int64, shape ...int) *golden.Tensor {
				if lo == -128 {
					return filled(-128, shape...)
				}
				return random(lo, hi, shape...)
			}
			var inputs []*golden.Tensor
			for i := range 3 {
				inputs = append(inputs, int8s(rand.New(rand.NewPCG(uint64(ci), uint64(i))), tc.lo, -tc.lo-1, tc.shape...))
			}
			checkORT(t, node, cfg, tc, random, inputs)
			checkORT(t, node, cfg, tc, extreme, []*golden.Tensor{filled(tc.lo, tc.shape...)})
		})
	}
}

// checkORT exports tc's graph with weights w and compares ONNX Runtime's
// result on each input with the golden models'.
func checkORT(t *testing.T, node string, cfg npu.Config, tc graphCase, w weightsFunc, inputs []*golden.Tensor) {
	t.Helper()
	var graphs []*compiler.Graph
	var files []npyArray
	for _, x := range inputs {
		g := compiler.NewGraph()
		g.Output("y", tc.build(g, g.Input("x", x), w, rand.New(rand.NewPCG(1, 2))))
		graphs = append(graphs, g)
		shape := tc.shape
		if len(shape) == 3 {
			shape = append([]int{1}, shape...)
		}
		files = append(files, int8NPY(shape, x.Data))
	}
	m, err := Graph(graphs[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := runORT(t, node, m, files)
	for i, g := range graphs {
		ref, err := g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := res[i]["y"]
		if want := map[bool]string{false: "int8", true: "int32"}[tc.int32]; got.Type != want {
			t.Fatalf("output y is %s, want %s", got.Type, want)
		}
		if d := cmp.Diff(ref["y"].Data, ints(got.Data)); d != "" {
			t.Errorf("input %d: (-golden +ONNX Runtime):\n%s", i, d)
		}
	}
}
