package onnx

// Model is a decoded ONNX model. It holds no protobuf types.
type Model struct {
	IRVersion int64
	// Opset is the version of the default ("" or "ai.onnx") operator set.
	Opset int64
	// OtherOpsets maps other imported domains to their versions; nil when
	// the model imports none.
	OtherOpsets map[string]int64
	Producer    string
	Graph       Graph
}

// Graph is the model's main graph.
type Graph struct {
	Name string
	// Opset is the model's default-domain opset, which Load copies here:
	// the float executor follows the op versions it selects (Softmax's
	// 2-D coercion before 13, Add's broadcast attribute before 7, ...).
	// 0, in a Graph built by hand, means the newest versions.
	Opset int64
	// Inputs are the graph inputs that no initializer feeds: the values a
	// caller must supply. Files of IR version < 4 also list every
	// initializer as an input; those are dropped here.
	Inputs       []Value
	Outputs      []Value
	Initializers []*Tensor
	Nodes        []*Node
}

// Value is a typed graph input or output.
type Value struct {
	Name  string
	DType DType
	// Shape is nil when the file gives no shape (unknown rank); a scalar
	// has an empty, non-nil shape.
	Shape []Dim
}

// Dim is one dimension of a Value's shape: a fixed size, a symbolic name
// (Param, e.g. "batch_size"), or neither when the file leaves it unknown.
type Dim struct {
	Size  int64
	Param string
}

// Initializer returns the initializer called name, or nil.
func (g *Graph) Initializer(name string) *Tensor {
	for _, t := range g.Initializers {
		if t.Name == name {
			return t
		}
	}
	return nil
}
