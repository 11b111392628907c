package onnx

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// DOUBLE tensors decode from raw little-endian data and from double_data
// alike (exported int8 models keep their exact scales in them).
func TestDoubleTensor(t *testing.T) {
	want := []float64{0.1, -3, 1 << 53, math.SmallestNonzeroFloat64}
	var raw []byte
	for _, v := range want {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	dtype := proto.Int32(int32(onnxpb.TensorProto_DOUBLE))
	for name, p := range map[string]*onnxpb.TensorProto{
		"raw_data":    {Name: proto.String("d"), DataType: dtype, Dims: []int64{2, 2}, RawData: raw},
		"double_data": {Name: proto.String("d"), DataType: dtype, Dims: []int64{2, 2}, DoubleData: want},
	} {
		b, err := proto.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		x, err := LoadTensor(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if x.DType != Float64 {
			t.Errorf("%s: dtype %s, want DOUBLE", name, x.DType)
		}
		if d := cmp.Diff(want, x.Float64); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	p := &onnxpb.TensorProto{Name: proto.String("d"), DataType: dtype, Dims: []int64{2}, RawData: raw[:12]}
	b, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTensor(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "not a whole number of DOUBLE elements") {
		t.Errorf("12 raw bytes as DOUBLE: error %v, want one about whole elements", err)
	}
}
