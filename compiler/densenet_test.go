package compiler

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// denseNet builds a DenseNet-121-like graph at res×res with random int8
// weights: a 7×7 stride-2 stem conv and a 3×3 stride-2 max pool, dense
// blocks of layers (ReLU of the concatenation, 1×1 conv to 4·growth
// channels, 3×3 conv to growth channels, concat), transitions (ReLU, 1×1
// conv halving the channels, 2×2 average pool) and the classifier
// (ReLU, global average, FC). DenseNet-121 is blocks 6, 12, 24, 16,
// growth 32, 64 stem channels, 1000 classes: 120 convs and the FC, 58
// concats.
func denseNet(rng *rand.Rand, res, growth, stem, classes int, blocks []int) *Graph {
	relu := golden.Requant{Scale: 1, Relu: true}
	q := func(fanIn int) golden.Requant { // keeps int8 activations in range
		s := 7
		for 1<<s < fanIn*16 {
			s++
		}
		return golden.Requant{Scale: 1, Shift: s, Relu: true}
	}
	w := func(co, ci, k int) *golden.Tensor { return randTensor(rng, -8, 8, co, ci, k, k) }
	g := NewGraph()
	x := g.Input("image", randTensor(rng, -128, 127, 3, res, res))
	y := g.Conv2D(x, w(stem, 3, 7), Conv{Stride: 2, PadH: 3, PadW: 3, Requant: q(3 * 49)})
	y = g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore})
	c := stem
	for b, layers := range blocks {
		feats := []*Value{y}
		for range layers {
			in := y
			if len(feats) > 1 {
				in = g.Concat(feats...)
			}
			l := g.Conv2D(g.Requant(in, relu), w(4*growth, c, 1), Conv{Requant: q(c)})
			l = g.Conv2D(l, w(growth, 4*growth, 3), Conv{PadH: 1, PadW: 1, Requant: q(4 * growth * 9)})
			feats = append(feats, l)
			c += growth
		}
		y = g.Concat(feats...)
		if b == len(blocks)-1 {
			break
		}
		y = g.Conv2D(g.Requant(y, relu), w(c/2, c, 1), Conv{Requant: q(c)})
		c /= 2
		y = g.Pool2D(y, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)})
	}
	hw := y.shape[1] * y.shape[2]
	y = g.Reduce(g.Requant(y, relu), golden.ReduceSum, AvgRequant(hw))
	g.Output("logits", g.GEMM(g.Flatten(g.Requant(y, golden.Requant{Scale: 1})), randTensor(rng, -8, 8, c, classes), q(c)))
	return g
}

// A reduced DenseNet (two blocks, growth 8, 40×40 input) on a 16×16
// array with a 256-deep state buffer: most maps do not fit on chip,
// so they go to external memory and come back (spilled), the stem's
// max pool streams in bands, and the concats extend one storage per
// block; bit for bit against the golden models.
func TestDenseNetReduced(t *testing.T) {
	cfg := npu.DefaultConfig()
	cfg.StateDepth = 256
	g := denseNet(rand.New(rand.NewPCG(1, 2)), 40, 8, 16, 10, []int{3, 2})
	p, err := CompileWith(cfg, g, Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	verifyProgram(t, g, p, 1)
	t.Logf("%s; ext_addr_width %d", p.Summary(), p.Config.ExtAddrWidth)
}

// BenchmarkCompileDenseNet224 compiles the DenseNet-121-like graph at
// 224×224 (121 convs and the FC, 58 concats; docs/notes/npu-utilization.md
// has the figures):
//
//	go test ./compiler -run '^$' -bench DenseNet224 -benchmem
func BenchmarkCompileDenseNet224(b *testing.B) {
	g := denseNet(rand.New(rand.NewPCG(1, 2)), 224, 32, 64, 1000, []int{6, 12, 24, 16})
	b.ResetTimer()
	for range b.N {
		p, err := CompileWith(npu.DefaultConfig(), g, Options{GrowExt: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(p.Tasks)), "tasks")
		b.ReportMetric(float64(p.Config.ExtAddrWidth), "ext_addr_width")
	}
}

// NEVectors is what the reference machine's PE array streams: the
// static count matches the machine's on a reduced DenseNet.
func TestNEVectors(t *testing.T) {
	cfg := npu.DefaultConfig()
	cfg.StateDepth = 256
	g := denseNet(rand.New(rand.NewPCG(1, 2)), 24, 8, 16, 10, []int{2, 2})
	p, err := CompileWith(cfg, g, Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, v := range p.NEVectors() {
		total += v
	}
	if got, want := total*int64(cfg.Rows*cfg.Cols), m.Stats.NEMACs; got != want {
		t.Errorf("NEVectors: %d array MACs, the machine counted %d", got, want)
	}
}

// The whole DenseNet-121-like graph (120 convs and the FC, 58 concats)
// compiles at a reduced resolution, as CI's check of the 224×224
// benchmark; its concats copy nothing.
func TestDenseNet121Compiles(t *testing.T) {
	g := denseNet(rand.New(rand.NewPCG(1, 2)), 64, 32, 64, 1000, []int{6, 12, 24, 16})
	counts := map[OpKind]int{}
	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		counts[op.Kind]++
	}
	if got, want := [3]int{counts[OpConv2D], counts[OpGEMM], counts[OpConcat]}, [3]int{120, 1, 58}; got != want {
		t.Fatalf("convs, GEMMs, concats: %v, want %v", got, want)
	}
	p, err := CompileWith(npu.DefaultConfig(), g, Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, parts := copies(p); r+parts > 0 {
		t.Errorf("%d relayout and %d part-copy tasks, want none", r, parts)
	}
}
