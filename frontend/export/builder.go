package export

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// builder assembles a GraphProto: nodes in order, constants as
// initializers (raw little-endian data, as the ONNX spec fixes it), and
// names that are unique within the graph.
type builder struct {
	g     *onnxpb.GraphProto
	names map[string]bool
}

func newBuilder(name string) *builder {
	return &builder{g: &onnxpb.GraphProto{Name: proto.String(name)}, names: map[string]bool{}}
}

// fresh reserves name, or name with a numeric suffix if it is taken.
func (b *builder) fresh(name string) string {
	n := name
	for i := 1; b.names[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	b.names[n] = true
	return n
}

// node appends op reading inputs and returns its one output, named out
// (made unique); the node takes the output's name.
func (b *builder) node(op, out string, inputs []string, attrs ...*onnxpb.AttributeProto) string {
	return b.exact(op, b.fresh(out), inputs, attrs...)
}

// exact is node with the output name out as it is: a graph output's
// name, reserved before any node was added.
func (b *builder) exact(op, out string, inputs []string, attrs ...*onnxpb.AttributeProto) string {
	b.names[out] = true
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(out),
		Input: inputs, Output: []string{out}, Attribute: attrs})
	return out
}

// cast converts x to the element type to.
func (b *builder) cast(x, out string, to onnxpb.TensorProto_DataType) string {
	return b.node("Cast", out, []string{x}, castTo(to))
}

func castTo(t onnxpb.TensorProto_DataType) *onnxpb.AttributeProto { return attrInt("to", int64(t)) }

func (b *builder) constant(name string, t onnxpb.TensorProto_DataType, dims []int64, raw []byte) string {
	name = b.fresh(name)
	b.g.Initializer = append(b.g.Initializer, &onnxpb.TensorProto{Name: proto.String(name),
		DataType: proto.Int32(int32(t)), Dims: dims, RawData: raw})
	return name
}

// doubles is a DOUBLE constant.
func (b *builder) doubles(name string, dims []int64, v []float64) string {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(x))
	}
	return b.constant(name, onnxpb.TensorProto_DOUBLE, dims, raw)
}

// scalar is a DOUBLE constant of rank 0.
func (b *builder) scalar(name string, v float64) string {
	return b.doubles(name, []int64{}, []float64{v})
}

// int8s is an INT8 constant; every value must fit int8.
func (b *builder) int8s(name string, dims []int64, v []int64) string {
	raw := make([]byte, len(v))
	for i, x := range v {
		raw[i] = byte(int8(x))
	}
	return b.constant(name, onnxpb.TensorProto_INT8, dims, raw)
}

// int32s is an INT32 constant; every value must fit int32.
func (b *builder) int32s(name string, dims []int64, v []int64) string {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(int32(x)))
	}
	return b.constant(name, onnxpb.TensorProto_INT32, dims, raw)
}

// int64s is an INT64 constant (a shape).
func (b *builder) int64s(name string, v []int) string {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(int64(x)))
	}
	return b.constant(name, onnxpb.TensorProto_INT64, []int64{int64(len(v))}, raw)
}

// value declares a graph input or output.
func value(name string, t onnxpb.TensorProto_DataType, shape []int) *onnxpb.ValueInfoProto {
	s := &onnxpb.TensorShapeProto{}
	for _, d := range shape {
		s.Dim = append(s.Dim, &onnxpb.TensorShapeProto_Dimension{
			Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{
		Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(t)), Shape: s}}}}
}

func attrInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func attrString(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func dims64(shape []int) []int64 {
	d := make([]int64, len(shape))
	for i, v := range shape {
		d[i] = int64(v)
	}
	return d
}
