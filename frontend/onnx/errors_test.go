package onnx

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// tiny builds a serialized one-input model around nodes and inits.
func tiny(t *testing.T, opset int64, input onnxpb.TensorProto_DataType, nodes []*onnxpb.NodeProto, inits []*onnxpb.TensorProto) []byte {
	t.Helper()
	in := &onnxpb.ValueInfoProto{
		Name: proto.String("x"),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(input)),
			Shape: &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
				{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "batch"}},
				{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 4}},
			}},
		}}},
	}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph: &onnxpb.GraphProto{
			Name:        proto.String("tiny"),
			Input:       []*onnxpb.ValueInfoProto{in},
			Node:        nodes,
			Initializer: inits,
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func node(name, op string) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: []string{"x"}, Output: []string{name + "_out"}}
}

func floatTensor(name string) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Dims: []int64{2}, FloatData: []float32{1, 2}}
}

func TestLoadErrors(t *testing.T) {
	mnist, err := os.ReadFile(mnistPath)
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	half := &onnxpb.TensorProto{Name: proto.String("w16"), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT16)), Dims: []int64{1}, RawData: []byte{0, 0x3c}}
	// 2³²·2³²·16 wraps to 0 in int64, so the two empty data fields would
	// match it; 2³¹·2 does not wrap but is past MaxElements.
	huge := &onnxpb.TensorProto{Name: proto.String("huge"), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Dims: []int64{1 << 32, 1 << 32, 16}}
	big := &onnxpb.TensorProto{Name: proto.String("big"), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Dims: []int64{1 << 31, 2}}
	twin := node("b", "Abs")
	twin.Output = []string{"a_out"}
	overwrite := node("c", "Relu")
	overwrite.Output = []string{"w"}
	loop := node("l", "Relu")
	loop.Output = []string{"x"}
	short := floatTensor("short")
	short.FloatData = short.FloatData[:1]
	dangling := node("d", "Relu")
	dangling.Input = []string{"nowhere"}
	future := tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, nil)
	var fm onnxpb.ModelProto
	if err := proto.Unmarshal(future, &fm); err != nil {
		t.Fatal(err)
	}
	fm.IrVersion = proto.Int64(99)
	future, _ = proto.Marshal(&fm)
	hugeIn := tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, nil)
	var hm onnxpb.ModelProto
	proto.Unmarshal(hugeIn, &hm)
	hm.Graph.Input[0].Type.GetTensorType().Shape.Dim[1].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 1 << 40}
	hm.Graph.Input[0].Type.GetTensorType().Shape.Dim = append(hm.Graph.Input[0].Type.GetTensorType().Shape.Dim,
		&onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 1 << 40}})
	hugeIn, _ = proto.Marshal(&hm)
	tests := []struct {
		name string
		data []byte
		want []string // substrings the one-line error must contain
	}{
		{"truncated", mnist[:1000], []string{"not a valid ONNX model", "truncated"}},
		{"random bytes", random, []string{"not a valid ONNX model"}},
		{"empty", nil, []string{"not a valid ONNX model: empty file"}},
		{"opset 22", tiny(t, 22, onnxpb.TensorProto_FLOAT, nil, nil), []string{"opset_import", "opset 22 not supported", "1 to 21"}},
		{"dims overflow", tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, []*onnxpb.TensorProto{huge}),
			[]string{`initializer 0 "huge"`, "dims [4294967296 4294967296 16] hold more than 2147483648 elements"}},
		{"dims past the bound", tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, []*onnxpb.TensorProto{big}),
			[]string{`initializer 0 "big"`, "hold more than 2147483648 elements"}},
		{"two producers", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{node("a", "Relu"), twin}, nil),
			[]string{`node 1 "b" (Abs)`, `output "a_out" is already given by node 0 "a" (Relu)`, "one producer"}},
		{"a node writes an initializer", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{overwrite}, []*onnxpb.TensorProto{floatTensor("w")}),
			[]string{`node 0 "c" (Relu)`, `output "w" is already given by initializer "w"`}},
		{"a node writes the graph input", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{loop}, nil),
			[]string{`node 0 "l" (Relu)`, `output "x" is already given by graph input "x"`}},
		{"initializer given twice", tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, []*onnxpb.TensorProto{floatTensor("w"), floatTensor("w")}),
			[]string{`initializer "w" is given twice`, "one producer"}},
		{"input nothing produces", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{dangling}, nil),
			[]string{`node 0 "d" (Relu)`, `input "nowhere" is not a graph input`, "topological order"}},
		{"IR version 99", future, []string{"ir_version 99 not supported", "1 to 11"}},
		{"graph input dims overflow", hugeIn, []string{`graph input "x"`, "holds more than 2147483648 elements"}},
		{"float16 initializer", tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, []*onnxpb.TensorProto{floatTensor("ok"), half}),
			[]string{`initializer 1 "w16"`, "element type FLOAT16 not supported", "supported: FLOAT, INT8, UINT8, INT32, INT64, DOUBLE"}},
		{"data shorter than dims", tiny(t, 13, onnxpb.TensorProto_FLOAT, nil, []*onnxpb.TensorProto{short}),
			[]string{`initializer 0 "short"`, "1 values of data, dims [2] need 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(bytes.NewReader(tt.data))
			if err == nil {
				t.Fatal("no error")
			}
			checkMessage(t, err, tt.want)
		})
	}
}

func checkMessage(t *testing.T, err error, want []string) {
	t.Helper()
	msg := err.Error()
	t.Log(msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	unnamed := node("", "Einsum")
	custom := node("q", "QGemm")
	custom.Domain = proto.String("com.microsoft")
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"unsupported op", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{node("c", "Conv"), node("sm", "Einsum")}, nil),
			[]string{`node 1 "sm" (Einsum)`, "op Einsum not supported", "supported ops: ConvInteger, MatMulInteger, ", ", Conv, Gemm, MatMul, ", ", Cast"}},
		{"unsupported op, unnamed node", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{unnamed}, nil),
			[]string{"node 0 (Einsum)", "op Einsum not supported"}},
		{"op of another domain", tiny(t, 13, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{custom}, nil),
			[]string{`node 0 "q" (com.microsoft.QGemm)`, "not supported"}},
		{"op older than its opset", tiny(t, 9, onnxpb.TensorProto_FLOAT, []*onnxpb.NodeProto{node("q", "QuantizeLinear")}, nil),
			[]string{`node 0 "q" (QuantizeLinear)`, "op QuantizeLinear in default-domain opset 9 not supported; supported: opsets 10 to 21"}},
		{"float16 input", tiny(t, 13, onnxpb.TensorProto_FLOAT16, []*onnxpb.NodeProto{node("r", "Relu")}, nil),
			[]string{`graph input "x"`, "element type FLOAT16 not supported", "supported: FLOAT, INT8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			err = m.Check(SupportedOps)
			if err == nil {
				t.Fatal("Check: no error")
			}
			checkMessage(t, err, tt.want)
		})
	}
}

func TestTinyModel(t *testing.T) {
	m, err := Load(bytes.NewReader(tiny(t, 13, onnxpb.TensorProto_UINT8, []*onnxpb.NodeProto{node("r", "Relu")}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{{Name: "x", DType: Uint8, Shape: []Dim{{Param: "batch"}, {Size: 4}}}}
	if d := cmp.Diff(want, m.Graph.Inputs); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}
}

// TestTensorEncodings covers each supported element type in raw_data
// (little-endian) and in its typed field.
func TestTensorEncodings(t *testing.T) {
	dt := func(d onnxpb.TensorProto_DataType) *int32 { return proto.Int32(int32(d)) }
	tests := []struct {
		name string
		in   *onnxpb.TensorProto
		want *Tensor
	}{
		{"float raw", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_FLOAT), Dims: []int64{2}, RawData: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
			&Tensor{DType: Float32, Dims: []int64{2}, Float32: []float32{1, -2}}},
		{"float typed", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_FLOAT), Dims: []int64{1, 2}, FloatData: []float32{0.5, 3}},
			&Tensor{DType: Float32, Dims: []int64{1, 2}, Float32: []float32{0.5, 3}}},
		{"int8 raw", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_INT8), Dims: []int64{3}, RawData: []byte{0x7f, 0x80, 0xff}},
			&Tensor{DType: Int8, Dims: []int64{3}, Int8: []int8{127, -128, -1}}},
		{"int8 typed", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_INT8), Dims: []int64{2}, Int32Data: []int32{-5, 7}},
			&Tensor{DType: Int8, Dims: []int64{2}, Int8: []int8{-5, 7}}},
		{"uint8 raw", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_UINT8), Dims: []int64{2}, RawData: []byte{0, 255}},
			&Tensor{DType: Uint8, Dims: []int64{2}, Uint8: []uint8{0, 255}}},
		{"uint8 typed", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_UINT8), Dims: []int64{1}, Int32Data: []int32{200}},
			&Tensor{DType: Uint8, Dims: []int64{1}, Uint8: []uint8{200}}},
		{"int32 raw", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_INT32), Dims: []int64{1}, RawData: []byte{0xfe, 0xff, 0xff, 0xff}},
			&Tensor{DType: Int32, Dims: []int64{1}, Int32: []int32{-2}}},
		{"int64 raw", &onnxpb.TensorProto{DataType: dt(onnxpb.TensorProto_INT64), Dims: []int64{1}, RawData: []byte{1, 0, 0, 0, 0, 0, 0, 1}},
			&Tensor{DType: Int64, Dims: []int64{1}, Int64: []int64{1<<56 + 1}}},
		{"int64 typed scalar", &onnxpb.TensorProto{Name: proto.String("s"), DataType: dt(onnxpb.TensorProto_INT64), Int64Data: []int64{-9}},
			&Tensor{Name: "s", DType: Int64, Dims: []int64{}, Int64: []int64{-9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := proto.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadTensor(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
