package onnx

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const mnistPath = "testdata/mnist-7.onnx"

func loadMnist(t *testing.T) *Model {
	t.Helper()
	m, err := LoadFile(mnistPath)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func dims(sizes ...int64) []Dim {
	d := make([]Dim, len(sizes))
	for i, s := range sizes {
		d[i] = Dim{Size: s}
	}
	return d
}

func TestMnistHeader(t *testing.T) {
	m := loadMnist(t)
	type header struct {
		IR, Opset      int64
		Producer       string
		Inputs, Output []Value
	}
	got := header{m.IRVersion, m.Opset, m.Producer, m.Graph.Inputs, m.Graph.Outputs}
	want := header{3, 7, "CNTK",
		[]Value{{Name: "Input3", DType: Float32, Shape: dims(1, 1, 28, 28)}},
		[]Value{{Name: "Plus214_Output_0", DType: Float32, Shape: dims(1, 10)}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	if err := m.Check(SupportedOps); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestMnistNodes(t *testing.T) {
	ints := func(v ...int64) Attr { return Attr{Kind: AttrInts, Ints: v} }
	str := func(s string) Attr { return Attr{Kind: AttrString, String: s} }
	conv := func(k int64) map[string]Attr {
		return map[string]Attr{
			"kernel_shape": ints(k, k), "strides": ints(1, 1), "dilations": ints(1, 1),
			"auto_pad": str("SAME_UPPER"), "group": {Kind: AttrInt, Int: 1},
		}
	}
	pool := func(k int64) map[string]Attr {
		return map[string]Attr{
			"kernel_shape": ints(k, k), "strides": ints(k, k),
			"pads": ints(0, 0, 0, 0), "auto_pad": str("NOTSET"),
		}
	}
	names := func(s ...string) []string { return s }
	// CNTK's export reshapes the 16x4x4x10 dense weights to 256x10 in the
	// graph, so the first node is a Reshape, not the first Conv.
	want := []*Node{
		{Name: "Times212_reshape1", OpType: "Reshape", Inputs: names("Parameter193", "Parameter193_reshape1_shape"), Outputs: names("Parameter193_reshape1")},
		{Name: "Convolution28", OpType: "Conv", Inputs: names("Input3", "Parameter5"), Outputs: names("Convolution28_Output_0"), Attrs: conv(5)},
		{Name: "Plus30", OpType: "Add", Inputs: names("Convolution28_Output_0", "Parameter6"), Outputs: names("Plus30_Output_0")},
		{Name: "ReLU32", OpType: "Relu", Inputs: names("Plus30_Output_0"), Outputs: names("ReLU32_Output_0")},
		{Name: "Pooling66", OpType: "MaxPool", Inputs: names("ReLU32_Output_0"), Outputs: names("Pooling66_Output_0"), Attrs: pool(2)},
		{Name: "Convolution110", OpType: "Conv", Inputs: names("Pooling66_Output_0", "Parameter87"), Outputs: names("Convolution110_Output_0"), Attrs: conv(5)},
		{Name: "Plus112", OpType: "Add", Inputs: names("Convolution110_Output_0", "Parameter88"), Outputs: names("Plus112_Output_0")},
		{Name: "ReLU114", OpType: "Relu", Inputs: names("Plus112_Output_0"), Outputs: names("ReLU114_Output_0")},
		{Name: "Pooling160", OpType: "MaxPool", Inputs: names("ReLU114_Output_0"), Outputs: names("Pooling160_Output_0"), Attrs: pool(3)},
		{Name: "Times212_reshape0", OpType: "Reshape", Inputs: names("Pooling160_Output_0", "Pooling160_Output_0_reshape0_shape"), Outputs: names("Pooling160_Output_0_reshape0")},
		{Name: "Times212", OpType: "MatMul", Inputs: names("Pooling160_Output_0_reshape0", "Parameter193_reshape1"), Outputs: names("Times212_Output_0")},
		{Name: "Plus214", OpType: "Add", Inputs: names("Times212_Output_0", "Parameter194"), Outputs: names("Plus214_Output_0")},
	}
	got := loadMnist(t).Graph.Nodes
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
}

func TestNodeAccessors(t *testing.T) {
	conv := loadMnist(t).Graph.Nodes[1]
	tests := []struct {
		name      string
		got, want any
	}{
		{"Ints present", conv.Ints("kernel_shape", nil), []int64{5, 5}},
		{"Ints absent", conv.Ints("pads", []int64{0, 0, 0, 0}), []int64{0, 0, 0, 0}},
		{"Int present", conv.Int("group", 0), int64(1)},
		{"Int of another kind", conv.Int("strides", -1), int64(-1)},
		{"Str present", conv.Str("auto_pad", "NOTSET"), "SAME_UPPER"},
		{"Float absent", conv.Float("alpha", 0.5), float32(0.5)},
		{"Floats absent", conv.Floats("scales", nil), []float32(nil)},
		{"Tensor absent", conv.Tensor("value"), (*Tensor)(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestMnistInitializers(t *testing.T) {
	g := loadMnist(t).Graph
	tests := []struct {
		name  string
		dtype DType
		dims  []int64
		int64 []int64 // the values, for the shape tensors
	}{
		{"Parameter193", Float32, []int64{16, 4, 4, 10}, nil},
		{"Parameter87", Float32, []int64{16, 8, 5, 5}, nil},
		{"Parameter5", Float32, []int64{8, 1, 5, 5}, nil},
		{"Parameter6", Float32, []int64{8, 1, 1}, nil},
		{"Parameter88", Float32, []int64{16, 1, 1}, nil},
		{"Pooling160_Output_0_reshape0_shape", Int64, []int64{2}, []int64{1, 256}},
		{"Parameter193_reshape1_shape", Int64, []int64{2}, []int64{256, 10}},
		{"Parameter194", Float32, []int64{1, 10}, nil},
	}
	if len(g.Initializers) != len(tests) {
		t.Errorf("%d initializers, want %d", len(g.Initializers), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := g.Initializer(tt.name)
			if x == nil {
				t.Fatal("missing")
			}
			type summary struct {
				DType DType
				Dims  []int64
				Len   int
				Int64 []int64
			}
			n := len(x.Float32) + len(x.Int64)
			want := summary{tt.dtype, tt.dims, int(x.Len()), tt.int64}
			got := summary{x.DType, x.Dims, n, nil}
			if tt.dtype == Int64 {
				got.Int64 = x.Int64
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestMnistTestDataSet(t *testing.T) {
	tests := []struct {
		file string
		dims []int64
	}{
		{"testdata/test_data_set_0/input_0.pb", []int64{1, 1, 28, 28}},
		{"testdata/test_data_set_0/output_0.pb", []int64{1, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			x, err := LoadTensorFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.dims, x.Dims); d != "" {
				t.Errorf("dims (-want +got):\n%s", d)
			}
			if x.DType != Float32 || int64(len(x.Float32)) != x.Len() {
				t.Errorf("got %s with %d values, want FLOAT with %d", x.DType, len(x.Float32), x.Len())
			}
		})
	}
	// The reference output classifies the sample as digit 2.
	out, err := LoadTensorFile("testdata/test_data_set_0/output_0.pb")
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, v := range out.Float32 {
		if v > out.Float32[best] {
			best = i
		}
	}
	if best != 2 {
		t.Errorf("reference output argmax %d, want 2", best)
	}
}
