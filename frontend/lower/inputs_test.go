package lower

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// twoInputs is a net of two graph inputs, a [1,3,5,5] map "a" and a
// row "b" [1,6]: Add of a and a Conv of a (a residual), then a Gemm
// of the map's GlobalAveragePool, Add b.
func twoInputs(r shapeRnd) *onnxtest.Builder {
	return onnxtest.New(13).Input("a", 1, 3, 5, 5).Input("b", 1, 6).Output("y").
		Float("w", []int64{3, 3, 3, 3}, r.vals(0.4, false, 3, 3, 3, 3)...).
		Node("conv", "Conv", []string{"a", "w"}, "c", oints("pads", 1, 1, 1, 1)).
		Node("add", "Add", []string{"c", "a"}, "s").
		Node("gap", "GlobalAveragePool", []string{"s"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Float("fc", []int64{6, 3}, r.vals(0.5, false, 6, 3)...).
		Node("gemm", "Gemm", []string{"f", "fc"}, "h", i64("transB", 1)).
		Node("sum", "Add", []string{"h", "b"}, "y")
}

// A net of two inputs lowers with QuantizeInputs, each input quantized at
// its own scale (a value for each, by name, to GraphOf), and runs on the
// reference machine bit for bit as the golden models; its output is the
// float executor's within 3 output steps (the shapes tests' bound for
// more than one layer before the output). The one-input API refuses it
// in one line.
func TestTwoInputs(t *testing.T) {
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		r := newShapeRnd(seed)
		m := loadModel(t, twoInputs(r))
		set := func() map[string]*onnx.Array {
			return map[string]*onnx.Array{"a": {Shape: []int{1, 3, 5, 5}, Data: r.vals(1, false, 1, 3, 5, 5)},
				"b": {Shape: []int{1, 6}, Data: r.vals(2, false, 1, 6)}}
		}
		xs := set()
		float, err := m.Graph.Run(xs)
		if err != nil {
			t.Fatal(err)
		}
		net, err := QuantizeInputs(m, []map[string]*onnx.Array{xs, set(), set()}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"a", "b"}, net.Inputs()); d != "" {
			t.Errorf("inputs (-want +got):\n%s", d)
		}
		if net.InputScaleOf("a") == net.InputScaleOf("b") {
			t.Errorf("inputs a and b share the scale %v; their ranges differ", net.InputScaleOf("a"))
		}
		g, err := net.GraphOf(xs)
		if err != nil {
			t.Fatal(err)
		}
		deq, _ := machineRunGraph(t, cfg, net, g)
		sy := net.OutputScale()
		var worst float64
		for i, v := range float["y"].Data {
			worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
		}
		if worst > 3 {
			t.Errorf("seed %d: max |int8 − float| = %.2f output steps, more than 3", seed, worst)
		}
		_, err = net.Graph(xs["a"])
		if want := `lower: the net has 2 inputs [a b]: give a value for each (GraphOf)`; err == nil || err.Error() != want {
			t.Errorf("Graph of one value: error %v, want %q", err, want)
		}
		_, err = Quantize(m, []*onnx.Array{xs["a"]}, cfg)
		if want := "lower: 2 graph inputs, want one (QuantizeInputs takes several)"; err == nil || err.Error() != want {
			t.Errorf("Quantize: error %v, want %q", err, want)
		}
		_, err = QuantizeInputs(m, []map[string]*onnx.Array{{"a": xs["a"]}}, cfg)
		if want := `calibration input 0 has no value for graph input "b"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("QuantizeInputs without b: error %v, want one containing %q", err, want)
		}
	}
}
