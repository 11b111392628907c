package lower

import (
	"math"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// ramp is a deterministic float tensor with values in ±scale.
func ramp(scale float32, dims ...int64) *onnx.Tensor {
	t := &onnx.Tensor{DType: onnx.Float32, Dims: dims}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	for i := int64(0); i < n; i++ {
		t.Float32 = append(t.Float32, scale*float32(math.Sin(float64(3*i+1))))
	}
	return t
}

func named(name string, t *onnx.Tensor) *onnx.Tensor { t.Name = name; return t }

func ints(v ...int64) onnx.Attr { return onnx.Attr{Kind: onnx.AttrInts, Ints: v} }

// tiny is x [1,2,4,4] → Conv (own bias, pads 1) → Relu → Flatten → MatMul
// [32,3] → Add [3]: the paths mnist-7 does not take.
func tiny() *onnx.Model {
	f := onnx.Value{Name: "x", DType: onnx.Float32, Shape: []onnx.Dim{{Size: 1}, {Size: 2}, {Size: 4}, {Size: 4}}}
	return &onnx.Model{IRVersion: 7, Opset: 13, Graph: onnx.Graph{
		Inputs:  []onnx.Value{f},
		Outputs: []onnx.Value{{Name: "y", DType: onnx.Float32}},
		Initializers: []*onnx.Tensor{
			named("w", ramp(0.5, 2, 2, 3, 3)), named("b", ramp(0.3, 2)),
			named("fc", ramp(0.2, 32, 3)), named("fb", ramp(1, 3)),
		},
		Nodes: []*onnx.Node{
			{Name: "conv", OpType: "Conv", Inputs: []string{"x", "w", "b"}, Outputs: []string{"c"},
				Attrs: map[string]onnx.Attr{"pads": ints(1, 1, 1, 1)}},
			{Name: "relu", OpType: "Relu", Inputs: []string{"c"}, Outputs: []string{"r"}},
			{Name: "flat", OpType: "Flatten", Inputs: []string{"r"}, Outputs: []string{"f"}},
			{Name: "fc", OpType: "MatMul", Inputs: []string{"f", "fc"}, Outputs: []string{"m"}},
			{Name: "bias", OpType: "Add", Inputs: []string{"m", "fb"}, Outputs: []string{"y"}},
		},
	}}
}

func tinyInput() *onnx.Array {
	a, err := onnx.ArrayOf(ramp(1, 1, 2, 4, 4))
	if err != nil {
		panic(err)
	}
	return a
}

// A Conv with its own bias input, the Flatten op and a MatMul whose [N]
// bias no ReLU follows lower and run like mnist-7: bit for bit the golden
// models, and within an output step of float.
func TestTiny(t *testing.T) {
	cfg := npu.DefaultConfig()
	m, x := tiny(), tinyInput()
	float, net := floatAndQuantize(t, m, x, cfg)
	deq, _ := machineRun(t, cfg, net, x)
	for i, v := range float["y"].Data {
		if d := math.Abs(float64(deq.Data[i] - v)); d > tolerance*net.OutputScale() {
			t.Errorf("logit %d: int8 %g, float %g: more than %d steps of %g apart", i, deq.Data[i], v, tolerance, net.OutputScale())
		}
	}
}

// Structure the lowering does not handle is one error naming the node
// and its op.
func TestQuantizeErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *onnx.Model)
		want string
	}{
		{"unsupported op", func(m *onnx.Model) {
			m.Graph.Nodes[2] = &onnx.Node{Name: "flat", OpType: "Einsum", Inputs: []string{"r"}, Outputs: []string{"f"}}
		}, `node "flat" (Einsum): op not supported`},
		{"uneven pads whose symmetric cover reaches the window", func(m *onnx.Model) {
			m.Graph.Nodes[0].Attrs["pads"] = ints(0, 0, 3, 3)
			m.Graph.Initializers[2] = named("fc", ramp(0.2, 50, 3))
		}, `node "conv" (Conv): pads top 0 bottom 3 with stride 1 and window 3: supported: pads whose symmetric cover`},
		{"strides differ", func(m *onnx.Model) {
			m.Graph.Nodes[0].Attrs["strides"] = ints(1, 2)
			m.Graph.Initializers[2] = named("fc", ramp(0.2, 16, 3))
		}, `node "conv" (Conv): strides 1x2`},
		{"bias not per channel", func(m *onnx.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes[:1], append([]*onnx.Node{
				{Name: "add", OpType: "Add", Inputs: []string{"c", "b"}, Outputs: []string{"c2"}}}, m.Graph.Nodes[1:]...)...)
			m.Graph.Nodes[2].Inputs[0] = "c2"
			m.Graph.Nodes[1].Inputs[1] = "b4"
			m.Graph.Initializers = append(m.Graph.Initializers, named("b4", ramp(0.3, 4)))
		}, `node "conv" (Conv): the Add "add" after it: the constant "b4": shape [4] is not per channel`},
		{"reshape of a feature map", func(m *onnx.Model) {
			m.Graph.Nodes[2] = &onnx.Node{Name: "flat", OpType: "Reshape", Inputs: []string{"r", "shape"}, Outputs: []string{"f"}}
			m.Graph.Initializers = append(m.Graph.Initializers, &onnx.Tensor{Name: "shape", DType: onnx.Int64, Dims: []int64{2}, Int64: []int64{2, 16}})
			m.Graph.Initializers[2] = named("fc", ramp(0.2, 16, 3))
			m.Graph.Nodes[3].Inputs[0] = "f"
		}, `node "flat" (Reshape): reshape [1 2 4 4] to [2 16]`},
		{"group", func(m *onnx.Model) {
			m.Graph.Nodes[0].Attrs["group"] = onnx.Attr{Kind: onnx.AttrInt, Int: 2}
		}, `node "conv" (Conv): group 2`},
		{"two outputs", func(m *onnx.Model) {
			m.Graph.Outputs = append(m.Graph.Outputs, onnx.Value{Name: "c"})
		}, "1 graph inputs and 2 outputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tiny()
			tt.edit(m)
			_, err := Quantize(m, []*onnx.Array{tinyInput()}, npu.DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %v", err)
			}
		})
	}
}
