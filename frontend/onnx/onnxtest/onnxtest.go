// Package onnxtest builds small serialized ONNX models for tests, so that
// they go through the real loader (onnx.Load) like a file would: a graph
// of named float inputs and outputs, initializers and nodes with typed
// attributes. It uses only the generated protobuf types, so package onnx's
// own tests can import it. RunORT runs a model on ONNX Runtime, the judge
// of the float executor and of the exported int8 models.
package onnxtest

import (
	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// Builder collects one graph; the zero value is not usable, call New.
type Builder struct {
	opset int64
	g     *onnxpb.GraphProto
}

// New starts a model importing the default-domain opset.
func New(opset int64) *Builder {
	return &Builder{opset: opset, g: &onnxpb.GraphProto{Name: proto.String("test")}}
}

func valueInfo(name string, dt onnxpb.TensorProto_DataType, dims []int64) *onnxpb.ValueInfoProto {
	tt := &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(dt))}
	if dims != nil {
		tt.Shape = &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			tt.Shape.Dim = append(tt.Shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}}
}

// Input adds a FLOAT graph input of the given shape.
func (b *Builder) Input(name string, dims ...int64) *Builder {
	b.g.Input = append(b.g.Input, valueInfo(name, onnxpb.TensorProto_FLOAT, dims))
	return b
}

// Output adds a FLOAT graph output of unknown shape.
func (b *Builder) Output(name string) *Builder {
	b.g.Output = append(b.g.Output, valueInfo(name, onnxpb.TensorProto_FLOAT, nil))
	return b
}

// FloatTensor is a FLOAT TensorProto.
func FloatTensor(name string, dims []int64, v ...float32) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Dims: dims, FloatData: v}
}

// Int64Tensor is an INT64 TensorProto.
func Int64Tensor(name string, dims []int64, v ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Dims: dims, Int64Data: v}
}

// Float adds a FLOAT initializer.
func (b *Builder) Float(name string, dims []int64, v ...float32) *Builder {
	b.g.Initializer = append(b.g.Initializer, FloatTensor(name, dims, v...))
	return b
}

// Int64 adds an INT64 initializer.
func (b *Builder) Int64(name string, dims []int64, v ...int64) *Builder {
	b.g.Initializer = append(b.g.Initializer, Int64Tensor(name, dims, v...))
	return b
}

// Node adds a node with one output; an empty input name is an omitted
// optional input.
func (b *Builder) Node(name, op string, inputs []string, output string, attrs ...*onnxpb.AttributeProto) *Builder {
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op),
		Input: inputs, Output: []string{output}, Attribute: attrs})
	return b
}

// NodeN adds a node with several outputs; an empty output name is an
// omitted optional output.
func (b *Builder) NodeN(name, op string, inputs, outputs []string, attrs ...*onnxpb.AttributeProto) *Builder {
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op),
		Input: inputs, Output: outputs, Attribute: attrs})
	return b
}

// Bytes is the serialized model.
func (b *Builder) Bytes() ([]byte, error) {
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(b.opset)}},
		Graph:       b.g,
	}
	return proto.Marshal(m)
}

func attr(name string, t onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: t.Enum()}
}

// Int is an INT attribute.
func Int(name string, v int64) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_INT)
	a.I = proto.Int64(v)
	return a
}

// Ints is an INTS attribute.
func Ints(name string, v ...int64) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_INTS)
	a.Ints = v
	return a
}

// Float is a FLOAT attribute.
func Float(name string, v float32) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_FLOAT)
	a.F = proto.Float32(v)
	return a
}

// Floats is a FLOATS attribute.
func Floats(name string, v ...float32) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_FLOATS)
	a.Floats = v
	return a
}

// String is a STRING attribute.
func String(name, v string) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_STRING)
	a.S = []byte(v)
	return a
}

// Tensor is a TENSOR attribute.
func Tensor(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	a := attr(name, onnxpb.AttributeProto_TENSOR)
	a.T = t
	return a
}
