package host

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// TestMeasureCNNLayers runs the layers of docs/notes/npu-utilization.md
// ("ImageNet-class CNNs") on the Go simulator of the default NPU,
// ext_addr_width grown to each program, and prints their cycles against
// the ideal (useful MACs / 256) and the compiler's mapping bound.
//
//	HWGEN_MEASURE=1 go test ./host -run TestMeasureCNNLayers -v -timeout 30m
func TestMeasureCNNLayers(t *testing.T) {
	if os.Getenv("HWGEN_MEASURE") == "" {
		t.Skip("set HWGEN_MEASURE=1")
	}
	type layer struct {
		name                        string
		c, h, co, k, s, pad, groups int
	}
	layers := []layer{
		{"conv 64×112×112 → 64, 3×3", 64, 112, 64, 3, 1, 1, 1},
		{"ResNet-50 conv1, 3×224×224 → 64, 7×7 stride 2 (taps)", 3, 224, 64, 7, 2, 3, 1},
		{"AlexNet conv2, 96×27×27 → 256, 5×5, 2 groups", 96, 27, 256, 5, 1, 2, 2},
		{"ShuffleNet GConv 240×28×28 → 60, 1×1, 3 groups", 240, 28, 60, 1, 1, 0, 3},
		{"depthwise 3×3, 64×56×56", 64, 56, 64, 3, 1, 1, 64},
		{"depthwise 3×3, 240×28×28", 240, 28, 240, 3, 1, 1, 240},
	}
	cfg := npu.DefaultConfig()
	for _, l := range layers {
		rng := rand.New(rand.NewPCG(1, 1))
		g := compiler.NewGraph()
		x := g.Input("x", randTensor(rng, l.c, l.h, l.h))
		y := g.Conv2D(x, randTensor(rng, l.co, l.c/l.groups, l.k, l.k), compiler.Conv{Stride: l.s, PadH: l.pad, PadW: l.pad, Groups: l.groups,
			Requant: golden.Requant{Scale: 1, Shift: 12}})
		g.Output("y", y)
		p, err := compiler.CompileWith(cfg, g, compiler.Options{GrowExt: true})
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		res, err := Run(cfg, p, WithoutStimulus())
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		want, err := g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Fatalf("%s (-golden +simulator):\n%s", l.name, d)
		}
		var vec int64
		for _, v := range p.NEVectors() {
			vec += v
		}
		fmt.Printf("| %s | %d | %d | %.1f%% | %.1f%% | %d | %v |\n", l.name, res.Cycles, p.Ideal,
			100*res.Utilization(), 100*float64(p.MACs)/float64(vec*int64(cfg.Rows*cfg.Cols)), p.Config.ExtAddrWidth, res.Wall.Round(1e8))
	}
}

// TestMeasureDenseNet224 runs a DenseNet-121-like graph at 224×224
// (compiler/densenet_test.go's, random int8 weights) on the Go simulator
// of the default NPU and checks it against the golden models.
//
//	HWGEN_MEASURE=1 go test ./host -run TestMeasureDenseNet224 -v -timeout 60m
func TestMeasureDenseNet224(t *testing.T) {
	if os.Getenv("HWGEN_MEASURE") == "" {
		t.Skip("set HWGEN_MEASURE=1")
	}
	g := denseNet(rand.New(rand.NewPCG(1, 2)), 224, 32, 64, 1000, []int{6, 12, 24, 16})
	cfg := npu.DefaultConfig()
	p, err := compiler.CompileWith(cfg, g, compiler.Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(cfg, p, WithoutStimulus(), WithProgress(1000000, func(pr Progress) {
		fmt.Printf("%s %d/%d (%d tasks done)\n", pr.Phase, pr.Cycle, pr.Total, pr.Completed)
	}))
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Fatalf("(-golden +simulator):\n%s", d)
	}
	fmt.Printf("%s\n%s (%v)\n", p.Summary(), res.Summary(), res.Wall)
	neWaits(g, p, res)
}

// neWaits prints where the NE waits: the cycles between the end of one
// NE task and the start of the next, by the kind of layer the next one
// belongs to, and the NE's busy cycles against the ideal per kind.
func neWaits(g *compiler.Graph, p *compiler.Program, res *Result) {
	ops, _ := g.Ops()
	kind := func(layer int) string {
		op := ops[layer]
		if op.Weights == nil || op.Kind != compiler.OpConv2D {
			return op.Kind.String()
		}
		s := op.Out.Shape()
		return fmt.Sprintf("%s %dx%d at %dx%d", op.Kind, op.Weights.Shape[2], op.Weights.Shape[3], s[len(s)-2], s[len(s)-1])
	}
	wait, busy, macs := map[string]int{}, map[string]int{}, map[string]int64{}
	last := 0
	for _, sp := range res.Timeline {
		if sp.Engine != "ne" {
			continue
		}
		k := kind(p.Tasks[sp.ID].Layer)
		wait[k] += max(0, sp.Start-last)
		busy[k] += sp.End - sp.Start
		last = max(last, sp.End)
	}
	for i, op := range ops {
		if op.Kind == compiler.OpConv2D || op.Kind == compiler.OpGEMM {
			macs[kind(i)] += p.LayerMACs[op.Label]
		}
	}
	fmt.Println("| layers | NE waits before them | NE busy | ideal |")
	for k, b := range busy {
		fmt.Printf("| %s | %d | %d | %d |\n", k, wait[k], b, macs[k]/256)
	}
}

// denseNet is compiler/densenet_test.go's DenseNet-121-like graph.
func denseNet(rng *rand.Rand, res, growth, stem, classes int, blocks []int) *compiler.Graph {
	relu := golden.Requant{Scale: 1, Relu: true}
	q := func(fanIn int) golden.Requant {
		s := 7
		for 1<<s < fanIn*16 {
			s++
		}
		return golden.Requant{Scale: 1, Shift: s, Relu: true}
	}
	w := func(co, ci, k int) *golden.Tensor { return randRange(rng, -8, 8, co, ci, k, k) }
	g := compiler.NewGraph()
	x := g.Input("image", randRange(rng, -128, 127, 3, res, res))
	y := g.Conv2D(x, w(stem, 3, 7), compiler.Conv{Stride: 2, PadH: 3, PadW: 3, Requant: q(3 * 49)})
	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore})
	c := stem
	for b, layers := range blocks {
		feats := []*compiler.Value{y}
		for range layers {
			in := y
			if len(feats) > 1 {
				in = g.Concat(feats...)
			}
			l := g.Conv2D(g.Requant(in, relu), w(4*growth, c, 1), compiler.Conv{Requant: q(c)})
			l = g.Conv2D(l, w(growth, 4*growth, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: q(4 * growth * 9)})
			feats = append(feats, l)
			c += growth
		}
		y = g.Concat(feats...)
		if b == len(blocks)-1 {
			break
		}
		y = g.Conv2D(g.Requant(y, relu), w(c/2, c, 1), compiler.Conv{Requant: q(c)})
		c /= 2
		y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: compiler.AvgRequant(4)})
	}
	hw := y.Shape()[1] * y.Shape()[2]
	y = g.Reduce(g.Requant(y, relu), golden.ReduceSum, compiler.AvgRequant(hw))
	g.Output("logits", g.GEMM(g.Flatten(g.Requant(y, golden.Requant{Scale: 1})), randRange(rng, -8, 8, c, classes), q(c)))
	return g
}

func randRange(rng *rand.Rand, lo, hi int64, shape ...int) *golden.Tensor {
	t := golden.New(shape...)
	for i := range t.Data {
		t.Data[i] = lo + rng.Int64N(hi-lo+1)
	}
	return t
}
