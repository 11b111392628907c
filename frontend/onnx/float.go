package onnx

import (
	"fmt"
	"math"
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
	checkAlloc(shape, numel(shape), 4)
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
		if d != 0 && (d < 0 || n > MaxElements/d) {
			return -1 // negative or past MaxElements: checkAlloc refuses it
		}
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
// inputs, the initializers and each node's outputs (integer ones as Ints).
// It is the framework side that quantized results are checked against
// and that calibration runs on, after the ONNX operator spec of the
// graph's opset, and supports only the ops FloatOps lists.
func (g *Graph) Execute(inputs map[string]*Array) (_ map[string]*Array, err error) {
	defer recoverBudget(&err)
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
	var kept int64
	for _, a := range env {
		kept += bytesOf(a)
	}
	for _, n := range g.Nodes {
		ys, err := g.evalNode(n, env)
		if err != nil {
			return nil, fmt.Errorf("onnx: node %q (%s): %w", n.Name, n.OpType, err)
		}
		for i, o := range n.Outputs {
			if o != "" {
				env[o] = ys[i]
				kept += bytesOf(ys[i])
			}
		}
		if err := checkKept(kept, n); err != nil {
			return nil, fmt.Errorf("onnx: %w", err)
		}
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
	"Conv":              evalConv,
	"Gemm":              evalGemm,
	"MatMul":            evalMatMul,
	"Add":               evalArith(func(x, y float32) float32 { return x + y }),
	"Sub":               evalArith(func(x, y float32) float32 { return x - y }),
	"Mul":               evalArith(func(x, y float32) float32 { return x * y }),
	"Div":               evalArith(func(x, y float32) float32 { return x / y }),
	"Sum":               evalSum,
	"Min":               evalMin,
	"Max":               evalMax,
	"Relu":              unary32(func(v float32) float32 { return max(v, 0) }),
	"Clip":              evalClip,
	"Abs":               unary32(func(v float32) float32 { return max(v, -v) }),
	"Neg":               unary32(func(v float32) float32 { return -v }),
	"Sigmoid":           unary(func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }),
	"Tanh":              unary(math.Tanh),
	"Exp":               unary(math.Exp),
	"HardSigmoid":       evalHardSigmoid,
	"HardSwish":         unary(func(v float64) float64 { return v * min(max(v/6+0.5, 0), 1) }),
	"Elu":               evalElu,
	"LeakyRelu":         evalLeakyRelu,
	"PRelu":             evalPRelu,
	"MaxPool":           evalMaxPool,
	"AveragePool":       evalAveragePool,
	"GlobalAveragePool": evalGlobalAveragePool,
	"GlobalMaxPool":     evalGlobalMaxPool,
	"ReduceSum":         evalReduce(reduceSum),
	"ReduceMean":        evalReduce(reduceMean),
	"ReduceMax":         evalReduce(reduceMax),
	"Sqrt":              evalSqrt,
	"Reciprocal":        evalReciprocal,
	"LRN":               evalLRN,
	"Softmax":           evalSoftmax,
	"Flatten":           evalFlatten,
	"Reshape":           evalReshape,
	"Squeeze":           evalSqueeze,
	"Unsqueeze":         evalUnsqueeze,
	"Transpose":         evalTranspose,
	"Concat":            evalConcat,
	"Pad":               evalPad,
	"Resize":            evalResize,
	"Upsample":          evalUpsample,
	"Identity":          evalIdentity,
	"ConstantOfShape":   evalConstantOfShape,
	"Constant":          evalConstant,
	"Shape":             evalShape,
	"Gather":            evalGather,
	"Slice":             evalSlice,
	"Cast":              evalCast,
}

// multiFunc evaluates a node of several outputs (Split, Dropout's mask):
// one array per output of n, nil where the output is omitted.
type multiFunc func(n *Node, in operands) ([]*Array, error)

// floatMultiOps are the ops of FloatOps with more than one output; the
// executor looks here after floatOps.
var floatMultiOps = map[string]multiFunc{
	"Split":              evalSplit,
	"Dropout":            evalDropout,
	"BatchNormalization": evalBatchNorm,
}

// evalNode runs n on the values computed so far: one array per output.
func (g *Graph) evalNode(n *Node, env map[string]*Array) (ys []*Array, err error) {
	defer recoverBudget(&err)
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return nil, fmt.Errorf("domain %q not supported", n.Domain)
	}
	opset := g.Opset
	if opset == 0 {
		opset = MaxOpset
	}
	in := operands{n: n, env: env, opset: opset}
	if f, ok := floatMultiOps[n.OpType]; ok {
		ys, err := f(n, in)
		if err == nil && len(ys) != len(n.Outputs) {
			err = fmt.Errorf("%d outputs, the op gives %d", len(n.Outputs), len(ys))
		}
		return ys, err
	}
	f, ok := floatOps[n.OpType]
	if !ok {
		return nil, fmt.Errorf("op not supported by the float executor; supported: %s", strings.Join(FloatOps, ", "))
	}
	if len(n.Outputs) != 1 {
		return nil, fmt.Errorf("%d outputs, want 1 (the op's optional outputs are not supported)", len(n.Outputs))
	}
	y, err := f(n, in)
	return []*Array{y}, err
}

// operands reads a node's inputs from the values computed so far.
type operands struct {
	n   *Node
	env map[string]*Array
	// opset is the graph's default-domain opset, which picks the op's
	// version (and so its attributes and semantics).
	opset int64
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

// evalReshape is Reshape: the target shape is the shape attribute before
// opset 5, input 1 from 5 on.
func evalReshape(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	var shape []int64
	if in.opset < 5 {
		if shape = n.Ints("shape", nil); shape == nil {
			return nil, fmt.Errorf("no shape attribute (Reshape before opset 5 takes the shape as an attribute)")
		}
	} else if shape, err = in.ints(1); err != nil {
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
