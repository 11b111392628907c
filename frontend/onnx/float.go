package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// Array is a dense row-major tensor: a value of the float reference
// executor. A FLOAT value has its elements in Data; an integer value (an
// INT64, INT32, INT8 or UINT8 tensor: shapes, indices, axes) has them in
// Ints, exactly, and Data nil. Integer values exist for the shape
// computations of exported models (Shape, Gather, Concat, ...); the
// arithmetic ops take FLOAT values only.
type Array struct {
	Shape []int
	Data  []float32
	Ints  []int64
}

// IsInt reports whether a is an integer value.
func (a *Array) IsInt() bool { return a.Ints != nil }

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
// inputs, the initializers and each node's output (integer ones as Ints).
// It is the framework side that quantized results are checked against,
// written for clarity rather than speed, and supports only the ops
// FloatOps lists.
func (g *Graph) Execute(inputs map[string]*Array) (map[string]*Array, error) {
	env := map[string]*Array{}
	for _, t := range g.Initializers {
		a, err := valueOf(t)
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

// FloatOps are the ops Execute runs: those OpTable marks Float (mnist-7's,
// the other NPU ops, and the shape computations exporters emit, e.g.
// PyTorch's x.view(x.size(0), -1): Shape, Gather, Unsqueeze, Concat, then
// a Reshape reading the computed shape).
var FloatOps = OpNames(func(o Op) bool { return o.Float })

// opFunc evaluates one node on its operands.
type opFunc func(n *Node, in operands) (*Array, error)

// floatOps is the float executor's dispatch: the evaluator of every op in
// FloatOps, keyed by op name (a test keeps the keys and OpTable in step).
var floatOps = map[string]opFunc{
	"Conv": func(n *Node, in operands) (*Array, error) {
		x, w, err := in.float2()
		if err != nil {
			return nil, err
		}
		b, err := in.optFloat(2)
		if err != nil {
			return nil, err
		}
		return conv(x, w, b, n)
	},
	"MatMul": func(n *Node, in operands) (*Array, error) {
		x, y, err := in.float2()
		if err != nil {
			return nil, err
		}
		return matMul(x, y)
	},
	"Add": func(n *Node, in operands) (*Array, error) {
		x, y, err := in.float2()
		if err != nil {
			return nil, err
		}
		return add(x, y)
	},
	"Relu": func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		return relu(x), nil
	},
	"Abs": func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		return abs(x), nil
	},
	"Neg": func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		y := NewArray(x.Shape...)
		for i, v := range x.Data {
			y.Data[i] = -v
		}
		return y, nil
	},
	"MaxPool": func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		return maxPool(x, n)
	},
	"Flatten": func(n *Node, in operands) (*Array, error) {
		x, err := in.get(0)
		if err != nil {
			return nil, err
		}
		return flatten(x, int(n.Int("axis", 1)))
	},
	"Reshape":           evalReshape,
	"Gemm":              evalGemm,
	"Clip":              evalClip,
	"AveragePool":       evalAveragePool,
	"GlobalAveragePool": evalGlobalAveragePool,
	"GlobalMaxPool":     evalGlobalMaxPool,
	"ReduceSum":         evalReduce(reduceSum),
	"ReduceMean":        evalReduce(reduceMean),
	"ReduceMax":         evalReduce(reduceMax),
	"Sqrt":              evalSqrt,
	"Reciprocal":        evalReciprocal,
	"Min":               evalMin,
	"Max":               evalMax,
	"Transpose":         evalTranspose,
	"Constant":          evalConstant,
	"Shape":             evalShape,
	"Gather":            evalGather,
	"Unsqueeze":         evalUnsqueeze,
	"Squeeze":           evalSqueeze,
	"Concat":            evalConcat,
	"Slice":             evalSlice,
	"Cast":              evalCast,
}

func (g *Graph) evalNode(n *Node, env map[string]*Array) (*Array, error) {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return nil, fmt.Errorf("domain %q not supported", n.Domain)
	}
	f, ok := floatOps[n.OpType]
	if !ok {
		return nil, fmt.Errorf("op not supported by the float executor; supported: %s", strings.Join(FloatOps, ", "))
	}
	return f(n, operands{n: n, env: env})
}

// operands reads a node's inputs from the values computed so far.
type operands struct {
	n   *Node
	env map[string]*Array
}

// given reports whether optional input i is there (not omitted).
func (in operands) given(i int) bool { return i < len(in.n.Inputs) && in.n.Inputs[i] != "" }

// get is input i, of either element type.
func (in operands) get(i int) (*Array, error) {
	if !in.given(i) {
		return nil, fmt.Errorf("input %d missing", i)
	}
	a, ok := in.env[in.n.Inputs[i]]
	if !ok {
		return nil, fmt.Errorf("input %q is not computed before the node", in.n.Inputs[i])
	}
	return a, nil
}

// float is input i, which must be a FLOAT value.
func (in operands) float(i int) (*Array, error) {
	a, err := in.get(i)
	if err == nil && a.IsInt() {
		err = fmt.Errorf("input %q is an integer tensor; the op takes FLOAT", in.n.Inputs[i])
	}
	return a, err
}

// float2 is inputs 0 and 1, FLOAT values.
func (in operands) float2() (*Array, *Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, nil, err
	}
	y, err := in.float(1)
	return x, y, err
}

// optFloat is optional input i, a FLOAT value, or nil when omitted.
func (in operands) optFloat(i int) (*Array, error) {
	if !in.given(i) {
		return nil, nil
	}
	return in.float(i)
}

// ints is input i, which must be an integer value.
func (in operands) ints(i int) ([]int64, error) {
	a, err := in.get(i)
	if err != nil {
		return nil, err
	}
	if !a.IsInt() {
		return nil, fmt.Errorf("input %q is FLOAT; the op wants an integer tensor there", in.n.Inputs[i])
	}
	return a.Ints, nil
}

// intsArg is an integer list given as attribute name (older opsets) or as
// input i (newer ones), or nil when neither is.
func (in operands) intsArg(name string, i int) ([]int64, error) {
	if in.given(i) {
		return in.ints(i)
	}
	return in.n.Ints(name, nil), nil
}

func evalReshape(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	shape, err := in.ints(1)
	if err != nil {
		return nil, err
	}
	if n.Int("allowzero", 0) != 0 && slices.Contains(shape, 0) {
		return nil, fmt.Errorf("allowzero 1 with a 0 in the shape %v: only allowzero 0 (0 copies the input's dim) is supported", shape)
	}
	return reshape(x, shape)
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
