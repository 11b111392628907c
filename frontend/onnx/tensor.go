package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// DType is an ONNX element type; the values are TensorProto.DataType's.
type DType int32

// The element types whose data the reader decodes.
const (
	Float32 DType = DType(onnxpb.TensorProto_FLOAT)
	Uint8   DType = DType(onnxpb.TensorProto_UINT8)
	Int8    DType = DType(onnxpb.TensorProto_INT8)
	Int32   DType = DType(onnxpb.TensorProto_INT32)
	Int64   DType = DType(onnxpb.TensorProto_INT64)
	Float64 DType = DType(onnxpb.TensorProto_DOUBLE)
)

// SupportedDTypes lists the element types the reader decodes, in the
// order error messages name them.
var SupportedDTypes = []DType{Float32, Int8, Uint8, Int32, Int64, Float64}

// String gives the ONNX name (FLOAT, INT8, ...).
func (d DType) String() string {
	if s, ok := onnxpb.TensorProto_DataType_name[int32(d)]; ok {
		return s
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

func supportedDType(d DType) bool {
	for _, s := range SupportedDTypes {
		if d == s {
			return true
		}
	}
	return false
}

func dtypeError(what string, d DType) error {
	names := make([]string, len(SupportedDTypes))
	for i, s := range SupportedDTypes {
		names[i] = s.String()
	}
	return fmt.Errorf("%s: element type %s not supported; supported: %s", what, d, strings.Join(names, ", "))
}

// Tensor is a constant tensor. Exactly one of the data slices, the one
// matching DType, is set (it may be empty for a zero-size tensor).
type Tensor struct {
	Name    string
	DType   DType
	Dims    []int64
	Float32 []float32
	Int8    []int8
	Uint8   []uint8
	Int32   []int32
	Int64   []int64
	Float64 []float64
}

// MaxElements bounds the element count of any tensor the reader decodes
// or the executor makes (2³¹: 8 GiB of FLOAT), so that dims whose product
// overflows, or a shape input asking for terabytes, are refused in one
// line instead of wrapping or exhausting memory.
const MaxElements = 1 << 31

// Len is the number of elements the dims call for.
func (t *Tensor) Len() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// decodeTensor converts a TensorProto; what names it in errors. Raw data
// is little-endian, as the ONNX spec fixes it. INT8 and UINT8 typed data
// travel in int32_data, one element per int32.
func decodeTensor(p *onnxpb.TensorProto, what string) (*Tensor, error) {
	t := &Tensor{Name: p.GetName(), DType: DType(p.GetDataType()), Dims: p.GetDims()}
	if t.Dims == nil {
		t.Dims = []int64{}
	}
	if !supportedDType(t.DType) {
		return nil, dtypeError(what, t.DType)
	}
	if p.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, fmt.Errorf("%s: external tensor data not supported", what)
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return nil, fmt.Errorf("%s: negative dimension in %v", what, t.Dims)
		}
		// A product past MaxElements (or one that overflows int64 and
		// wraps to a small number that the data could match) is a damaged
		// or hostile file, never a real tensor.
		if d != 0 && n > MaxElements/d {
			return nil, fmt.Errorf("%s: dims %v hold more than %d elements", what, t.Dims, int64(MaxElements))
		}
		n *= d
	}
	raw := p.GetRawData()
	var got int
	switch t.DType {
	case Float32:
		if raw != nil {
			t.Float32 = make([]float32, len(raw)/4)
			for i := range t.Float32 {
				t.Float32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		} else {
			t.Float32 = p.GetFloatData()
		}
		got = len(t.Float32)
	case Int8:
		if raw != nil {
			t.Int8 = make([]int8, len(raw))
			for i, b := range raw {
				t.Int8[i] = int8(b)
			}
		} else {
			for _, v := range p.GetInt32Data() {
				t.Int8 = append(t.Int8, int8(v))
			}
		}
		got = len(t.Int8)
	case Uint8:
		if raw != nil {
			t.Uint8 = append([]uint8{}, raw...)
		} else {
			for _, v := range p.GetInt32Data() {
				t.Uint8 = append(t.Uint8, uint8(v))
			}
		}
		got = len(t.Uint8)
	case Int32:
		if raw != nil {
			t.Int32 = make([]int32, len(raw)/4)
			for i := range t.Int32 {
				t.Int32[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		} else {
			t.Int32 = p.GetInt32Data()
		}
		got = len(t.Int32)
	case Int64:
		if raw != nil {
			t.Int64 = make([]int64, len(raw)/8)
			for i := range t.Int64 {
				t.Int64[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		} else {
			t.Int64 = p.GetInt64Data()
		}
		got = len(t.Int64)
	case Float64:
		if raw != nil {
			t.Float64 = make([]float64, len(raw)/8)
			for i := range t.Float64 {
				t.Float64[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		} else {
			t.Float64 = p.GetDoubleData()
		}
		got = len(t.Float64)
	}
	if raw != nil && len(raw)%elemSize(t.DType) != 0 {
		return nil, fmt.Errorf("%s: raw data of %d bytes is not a whole number of %s elements", what, len(raw), t.DType)
	}
	if int64(got) != n {
		return nil, fmt.Errorf("%s: %d values of data, dims %v need %d", what, got, t.Dims, n)
	}
	return t, nil
}

func elemSize(d DType) int {
	switch d {
	case Int8, Uint8:
		return 1
	case Int64, Float64:
		return 8
	}
	return 4
}
