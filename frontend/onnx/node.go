package onnx

import "github.com/hwgen/hwgen/frontend/onnx/onnxpb"

// Node is one operator application. An empty input name marks an omitted
// optional input, as in the file.
type Node struct {
	Name    string
	OpType  string
	Domain  string // "" for the default operator set
	Inputs  []string
	Outputs []string
	Attrs   map[string]Attr
}

// AttrKind says which field of an Attr holds the value.
type AttrKind int32

// The attribute kinds the reader decodes. Others (graphs, string lists,
// sparse tensors, types) are kept with their ONNX kind and no value.
const (
	AttrFloat   AttrKind = AttrKind(onnxpb.AttributeProto_FLOAT)
	AttrInt     AttrKind = AttrKind(onnxpb.AttributeProto_INT)
	AttrString  AttrKind = AttrKind(onnxpb.AttributeProto_STRING)
	AttrTensor  AttrKind = AttrKind(onnxpb.AttributeProto_TENSOR)
	AttrFloats  AttrKind = AttrKind(onnxpb.AttributeProto_FLOATS)
	AttrInts    AttrKind = AttrKind(onnxpb.AttributeProto_INTS)
	AttrStrings AttrKind = AttrKind(onnxpb.AttributeProto_STRINGS)
	AttrGraph   AttrKind = AttrKind(onnxpb.AttributeProto_GRAPH)
)

// String gives the ONNX name (INT, INTS, ...).
func (k AttrKind) String() string {
	return onnxpb.AttributeProto_AttributeType(k).String()
}

// Attr is a node attribute; Kind says which field is meaningful.
type Attr struct {
	Kind   AttrKind
	Int    int64
	Ints   []int64
	Float  float32
	Floats []float32
	String string
	Tensor *Tensor
}

// The accessors below return def when the attribute is absent or of
// another kind, which is what ONNX's optional attributes with defaults
// need. Use Attrs directly to tell the two apart.

// Int returns the INT attribute name, or def.
func (n *Node) Int(name string, def int64) int64 {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrInt {
		return a.Int
	}
	return def
}

// Ints returns the INTS attribute name, or def.
func (n *Node) Ints(name string, def []int64) []int64 {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrInts {
		return a.Ints
	}
	return def
}

// Float returns the FLOAT attribute name, or def.
func (n *Node) Float(name string, def float32) float32 {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrFloat {
		return a.Float
	}
	return def
}

// Floats returns the FLOATS attribute name, or def.
func (n *Node) Floats(name string, def []float32) []float32 {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrFloats {
		return a.Floats
	}
	return def
}

// Str returns the STRING attribute name, or def. (Not String, so that
// Node does not look like a fmt.Stringer.)
func (n *Node) Str(name string, def string) string {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrString {
		return a.String
	}
	return def
}

// Tensor returns the TENSOR attribute name, or nil.
func (n *Node) Tensor(name string) *Tensor {
	if a, ok := n.Attrs[name]; ok && a.Kind == AttrTensor {
		return a.Tensor
	}
	return nil
}
