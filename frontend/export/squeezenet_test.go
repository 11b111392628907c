package export

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// SqueezeNet (the ONNX backend tests' light model, seeded random weights)
// at 96×96, up to its last GlobalAveragePool (the Softmax after it is not
// lowered yet): its eight Fire modules' Concats, lowered, compiled, run
// on the reference machine bit for bit the golden models, exported and
// run on ONNX Runtime bit for bit the same, for two seeds.
func TestORTSqueezeNet(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 2; seed++ {
		m, err := onnx.LoadFile("../onnx/testdata/light/light_squeezenet.onnx")
		if err != nil {
			t.Fatal(err)
		}
		if err := onnx.RandomWeights(m, seed); err != nil {
			t.Fatal(err)
		}
		g := &m.Graph
		last := g.Nodes[len(g.Nodes)-1]
		if last.OpType != "Softmax" || g.Outputs[0].Name != last.Outputs[0] {
			t.Fatalf("the model ends in %s %q, want the Softmax of its output", last.OpType, last.Name)
		}
		g.Nodes, g.Outputs[0].Name = g.Nodes[:len(g.Nodes)-1], last.Inputs[0]
		r := rand.New(rand.NewPCG(seed, 96))
		xs := make([]*onnx.Array, 2)
		for i := range xs {
			xs[i] = onnx.NewArray(1, 3, 96, 96)
			for j := range xs[i].Data {
				xs[i].Data[j] = r.Float32()
			}
		}
		net, err := lower.Quantize(m, xs[:1], cfg)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Net(net, cfg)
		if err != nil {
			t.Fatal(err)
		}
		concats := 0
		for _, n := range q.Graph.Node {
			if n.GetOpType() == "Concat" {
				concats++
			}
		}
		if concats != 8 {
			t.Errorf("seed %d: the export has %d Concat nodes, want 8", seed, concats)
		}
		res := runORT(t, node, q, []npyArray{float32NPY(xs[0].Shape, xs[0].Data), float32NPY(xs[1].Shape, xs[1].Data)})
		for i, x := range xs {
			cg, err := net.Graph(x)
			if err != nil {
				t.Fatal(err)
			}
			p, err := compiler.CompileWith(cfg, cg, compiler.Options{GrowExt: true})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := compiler.Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := cg.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out := net.Output()
			if d := cmp.Diff(ref[out], got[out]); d != "" {
				t.Fatalf("seed %d, input %d: reference machine vs golden models (-golden +machine):\n%s", seed, i, d)
			}
			if d := cmp.Diff(ref[out].Data, ints(res[i][RawOutput(net)].Data)); d != "" {
				t.Errorf("seed %d, input %d: %s (-golden +ONNX Runtime):\n%s", seed, i, RawOutput(net), d)
			}
			t.Logf("seed %d, input %d: %s", seed, i, p.Summary())
		}
	}
}
