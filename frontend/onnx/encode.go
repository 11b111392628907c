package onnx

import (
	"fmt"
	"maps"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// Marshal serializes the model back to an ONNX ModelProto, so that a model
// changed in Go (folded by Fold, given weights by RandomWeights) can be run
// by another runtime, ONNX Runtime in the tests, on exactly the values the
// float executor sees. Attributes the reader keeps only by kind (graphs,
// sparse tensors) cannot be written and are an error. Files of IR version
// below 4 list the initializers among the graph inputs, as that IR
// requires.
func (m *Model) Marshal() ([]byte, error) {
	p := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(m.IRVersion),
		ProducerName: proto.String(m.Producer),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(m.Opset)}},
	}
	for _, d := range slices.Sorted(maps.Keys(m.OtherOpsets)) { // sorted: the same model, the same bytes
		p.OpsetImport = append(p.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(d), Version: proto.Int64(m.OtherOpsets[d])})
	}
	g := &onnxpb.GraphProto{Name: proto.String(m.Graph.Name)}
	for _, v := range m.Graph.Inputs {
		g.Input = append(g.Input, encodeValue(v))
	}
	for _, t := range m.Graph.Initializers {
		g.Initializer = append(g.Initializer, encodeTensor(t))
		if m.IRVersion < 4 {
			g.Input = append(g.Input, encodeValue(Value{Name: t.Name, DType: t.DType, Shape: dimsOf(t.Dims)}))
		}
	}
	for _, v := range m.Graph.Outputs {
		g.Output = append(g.Output, encodeValue(v))
	}
	for i, n := range m.Graph.Nodes {
		np, err := encodeNode(n)
		if err != nil {
			return nil, fmt.Errorf("onnx: %s: %w", n.label(i), err)
		}
		g.Node = append(g.Node, np)
	}
	p.Graph = g
	return proto.Marshal(p)
}

func dimsOf(d []int64) []Dim {
	out := make([]Dim, len(d))
	for i, s := range d {
		out[i] = Dim{Size: s}
	}
	return out
}

func encodeValue(v Value) *onnxpb.ValueInfoProto {
	tt := &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(v.DType))}
	if v.Shape != nil {
		tt.Shape = &onnxpb.TensorShapeProto{}
		for _, d := range v.Shape {
			dp := &onnxpb.TensorShapeProto_Dimension{}
			switch {
			case d.Param != "":
				dp.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
			case d.Size > 0:
				dp.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d.Size}
			}
			tt.Shape.Dim = append(tt.Shape.Dim, dp)
		}
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(v.Name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}}
}

// encodeTensor writes t in the typed fields (INT8 and UINT8 in
// int32_data, as the format has it).
func encodeTensor(t *Tensor) *onnxpb.TensorProto {
	p := &onnxpb.TensorProto{Name: proto.String(t.Name), DataType: proto.Int32(int32(t.DType)), Dims: t.Dims}
	switch t.DType {
	case Float32:
		p.FloatData = t.Float32
	case Float64:
		p.DoubleData = t.Float64
	case Int64:
		p.Int64Data = t.Int64
	case Int32:
		p.Int32Data = t.Int32
	case Int8:
		for _, v := range t.Int8 {
			p.Int32Data = append(p.Int32Data, int32(v))
		}
	case Uint8:
		for _, v := range t.Uint8 {
			p.Int32Data = append(p.Int32Data, int32(v))
		}
	}
	return p
}

func encodeNode(n *Node) (*onnxpb.NodeProto, error) {
	p := &onnxpb.NodeProto{Name: proto.String(n.Name), OpType: proto.String(n.OpType), Input: n.Inputs, Output: n.Outputs}
	if n.Domain != "" {
		p.Domain = proto.String(n.Domain)
	}
	for _, name := range slices.Sorted(maps.Keys(n.Attrs)) {
		a := n.Attrs[name]
		ap := &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_AttributeType(a.Kind).Enum()}
		switch a.Kind {
		case AttrFloat:
			ap.F = proto.Float32(a.Float)
		case AttrInt:
			ap.I = proto.Int64(a.Int)
		case AttrString:
			ap.S = []byte(a.String)
		case AttrFloats:
			ap.Floats = a.Floats
		case AttrInts:
			ap.Ints = a.Ints
		case AttrTensor:
			ap.T = encodeTensor(a.Tensor)
		default:
			return nil, fmt.Errorf("attribute %q of kind %s cannot be written back", name, a.Kind)
		}
		p.Attribute = append(p.Attribute, ap)
	}
	return p, nil
}
