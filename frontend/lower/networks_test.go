package lower

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// ResNet-50 (testdata/light, seeded random weights, 224×224: its Reshape
// before the classifier fixes the size), calibrated on one seeded random
// input in [0,1), lowers node by node up to its last Gemm: every
// BatchNormalization folds into its Conv, every shortcut Sum is an
// eltwise add. (Its final Softmax is left out: the logits are the graph
// output.)
func TestResNet50Lowered(t *testing.T) {
	m, err := onnx.LoadFile(filepath.Join("..", "onnx", "testdata", "light", "light_resnet50.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := onnx.RandomWeights(m, 1); err != nil {
		t.Fatal(err)
	}
	last := m.Graph.Nodes[len(m.Graph.Nodes)-1]
	if last.OpType != "Softmax" {
		t.Fatalf("last node %s, want the Softmax", last.OpType)
	}
	m.Graph.Nodes, m.Graph.Outputs[0].Name = m.Graph.Nodes[:len(m.Graph.Nodes)-1], last.Inputs[0]
	rng := rand.New(rand.NewPCG(1, 0))
	x := onnx.NewArray(1, 3, 224, 224)
	for i := range x.Data {
		x.Data[i] = float32(rng.Float64())
	}
	net, err := Quantize(m, []*onnx.Array{x}, npu.DefaultConfig(), Int32Output())
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]string{}
	for _, n := range m.Graph.Nodes {
		ops[n.Name] = n.OpType
	}
	count := map[string]int{}
	for _, l := range net.Layers {
		count[ops[l.Node]]++ // an Add's operand rescale is no node: ""
	}
	want := map[string]int{"Conv": 53, "Add": 16, "": count[""], "AveragePool": 1, "Gemm": 1}
	if d := cmp.Diff(want, count); d != "" {
		t.Errorf("layers per op (-want +got):\n%s", d)
	}
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Ops(); err != nil {
		t.Fatal(err)
	}
}
