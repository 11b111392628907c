package onnx

import (
	"fmt"
	"slices"
)

// Array is a dense row-major float tensor: a value of the float reference
// executor.
type Array struct {
	Shape []int
	Data  []float32
}

// NewArray is a zero array of the given shape.
func NewArray(shape ...int) *Array {
	return &Array{Shape: slices.Clone(shape), Data: make([]float32, numel(shape))}
}

// ArrayOf converts a FLOAT tensor (an initializer or a test_data_set
// file) to an Array.
func ArrayOf(t *Tensor) (*Array, error) {
	if t.DType != Float32 {
		return nil, fmt.Errorf("onnx: tensor %q is %s, want FLOAT", t.Name, t.DType)
	}
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[i] = int(d)
	}
	if numel(shape) != len(t.Float32) {
		return nil, fmt.Errorf("onnx: tensor %q has %d values for dims %v", t.Name, len(t.Float32), t.Dims)
	}
	return &Array{Shape: shape, Data: slices.Clone(t.Float32)}, nil
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Run evaluates the graph in float on the given inputs and returns its
// outputs.
func (g *Graph) Run(inputs map[string]*Array) (map[string]*Array, error) {
	env, err := g.Execute(inputs)
	if err != nil {
		return nil, err
	}
	out := map[string]*Array{}
	for _, v := range g.Outputs {
		a, ok := env[v.Name]
		if !ok {
			return nil, fmt.Errorf("onnx: graph output %q is never computed", v.Name)
		}
		out[v.Name] = a
	}
	return out, nil
}

// Execute evaluates the graph in float and returns every value: the
// inputs, the FLOAT initializers and each node's output. It is the
// framework side that quantized results are checked against, written for
// clarity rather than speed, and supports only the ops FloatOps lists.
func (g *Graph) Execute(inputs map[string]*Array) (map[string]*Array, error) {
	env := map[string]*Array{}
	for _, t := range g.Initializers {
		if t.DType != Float32 {
			continue // shapes: read by the ops that take them
		}
		a, err := ArrayOf(t)
		if err != nil {
			return nil, err
		}
		env[t.Name] = a
	}
	for _, v := range g.Inputs {
		a, ok := inputs[v.Name]
		if !ok {
			return nil, fmt.Errorf("onnx: no value for graph input %q", v.Name)
		}
		env[v.Name] = a
	}
	for _, n := range g.Nodes {
		y, err := g.evalNode(n, env)
		if err != nil {
			return nil, fmt.Errorf("onnx: node %q (%s): %w", n.Name, n.OpType, err)
		}
		if len(n.Outputs) != 1 {
			return nil, fmt.Errorf("onnx: node %q (%s): %d outputs, want 1", n.Name, n.OpType, len(n.Outputs))
		}
		env[n.Outputs[0]] = y
	}
	return env, nil
}

// FloatOps are the ops Execute runs: those of mnist-7.
var FloatOps = []string{"Conv", "Add", "Relu", "MaxPool", "Reshape", "MatMul", "Flatten"}

func (g *Graph) evalNode(n *Node, env map[string]*Array) (*Array, error) {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return nil, fmt.Errorf("domain %q not supported", n.Domain)
	}
	if !slices.Contains(FloatOps, n.OpType) {
		return nil, fmt.Errorf("op not supported by the float executor (supported: %v)", FloatOps)
	}
	in := func(i int) (*Array, error) {
		if i >= len(n.Inputs) || n.Inputs[i] == "" {
			return nil, fmt.Errorf("input %d missing", i)
		}
		a, ok := env[n.Inputs[i]]
		if !ok {
			return nil, fmt.Errorf("input %q is not a computed FLOAT value", n.Inputs[i])
		}
		return a, nil
	}
	x, err := in(0)
	if err != nil {
		return nil, err
	}
	switch n.OpType {
	case "Relu":
		return relu(x), nil
	case "Flatten":
		return flatten(x, int(n.Int("axis", 1)))
	case "MaxPool":
		return maxPool(x, n)
	case "Reshape":
		shape, err := g.shapeInput(n, 1)
		if err != nil {
			return nil, err
		}
		return reshape(x, shape)
	}
	y, err := in(1)
	if err != nil {
		return nil, err
	}
	switch n.OpType {
	case "Add":
		return add(x, y)
	case "MatMul":
		return matMul(x, y)
	case "Conv":
		var b *Array
		if len(n.Inputs) > 2 && n.Inputs[2] != "" {
			if b, err = in(2); err != nil {
				return nil, err
			}
		}
		return conv(x, y, b, n)
	}
	return nil, fmt.Errorf("op %s is listed in FloatOps but not evaluated", n.OpType)
}

// shapeInput reads input i of n, a shape, from an INT64 initializer.
func (g *Graph) shapeInput(n *Node, i int) ([]int64, error) {
	if i >= len(n.Inputs) {
		return nil, fmt.Errorf("shape input %d missing", i)
	}
	t := g.Initializer(n.Inputs[i])
	if t == nil || t.DType != Int64 {
		return nil, fmt.Errorf("shape %q is not an INT64 initializer", n.Inputs[i])
	}
	return t.Int64, nil
}

// Argmax is the index of the largest value, the first on ties.
func Argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
