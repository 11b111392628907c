package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// machineRun builds net's graph on x, compiles it for cfg and runs it on
// the reference machine; it fails the test unless the machine's output
// "y" equals the golden models' bit for bit, and returns that output
// dequantized, with the program.
func machineRun(t *testing.T, cfg npu.Config, net *Net, x *onnx.Array) (*onnx.Array, *compiler.Program) {
	t.Helper()
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	return machineRunGraph(t, cfg, net, g)
}

// machineRunGraph is machineRun of net's graph g (GraphOf's, for a net of
// several inputs).
func machineRunGraph(t *testing.T, cfg npu.Config, net *Net, g *compiler.Graph) (*onnx.Array, *compiler.Program) {
	t.Helper()
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ref["y"], got["y"]); d != "" {
		t.Fatalf("reference machine vs golden models (-golden +machine):\n%s", d)
	}
	deq, err := net.Dequantize(got["y"])
	if err != nil {
		t.Fatal(err)
	}
	return deq, p
}

// checkWithin runs net on x on the reference machine (machineRun) and
// wants its output of float's shape and within bound output steps of
// float, the float executor's output; it returns the largest difference.
func checkWithin(t *testing.T, cfg npu.Config, net *Net, x, float *onnx.Array, bound float64) float64 {
	t.Helper()
	deq, p := machineRun(t, cfg, net, x)
	if d := cmp.Diff(float.Shape, deq.Shape); d != "" {
		t.Fatalf("output shape (-float +int8):\n%s", d)
	}
	sy := net.OutputScale()
	var worst float64
	for i, v := range float.Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
	}
	t.Logf("%s; max |int8 − float| = %.2f output steps (bound %.2f)", p.Summary(), worst, bound)
	if worst > bound {
		t.Errorf("max |int8 − float| = %.2f output steps, more than %.2f\n int8 %v\nfloat %v", worst, bound, deq.Data, float.Data)
	}
	return worst
}

// poolBound is the pools' bound in output steps: half a step of the
// input's rounding carried to the output, half of the output's own, half
// of amp (a divisor map's rounding, KH·KW/n), and a margin.
func poolBound(net *Net, amp float64) float64 {
	return 0.5*net.InputScale()/net.OutputScale() + 0.5 + 0.5*amp + 0.1
}

// floatAndQuantize runs model m on input x (named "x") with the float
// executor and quantizes it for cfg calibrated on x: the float outputs
// and the network.
func floatAndQuantize(t *testing.T, m *onnx.Model, x *onnx.Array, cfg npu.Config) (map[string]*onnx.Array, *Net) {
	t.Helper()
	float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	net, err := Quantize(m, []*onnx.Array{x}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return float, net
}

// lowerGraph runs model m on input x with the float executor, quantizes
// it for cfg calibrated on x, and lowers it: the float outputs, the
// network, its graph and the graph's ops.
func lowerGraph(t *testing.T, m *onnx.Model, x *onnx.Array, cfg npu.Config) (map[string]*onnx.Array, *Net, *compiler.Graph, []compiler.Op) {
	t.Helper()
	float, net := floatAndQuantize(t, m, x, cfg)
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	return float, net, g, ops
}
