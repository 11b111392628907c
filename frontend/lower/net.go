package lower

import (
	"fmt"
	"math"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// Input and Output are the names of the graph's (first) ONNX input and
// its output, which are also the names of the compiler graph's input and
// output; Inputs names every input, in the ONNX graph's order.
func (n *Net) Input() string  { return n.ins[0].name }
func (n *Net) Output() string { return n.output }
func (n *Net) Inputs() []string {
	names := make([]string, len(n.ins))
	for i, in := range n.ins {
		names[i] = in.name
	}
	return names
}

// InputScale and OutputScale are the int8 scales of the graph's (first)
// input and output: real ≈ scale·q. An int32 output has one scale per
// channel (OutputSteps); OutputScale is then their largest.
func (n *Net) InputScale() float64 { return n.ins[0].scale }
func (n *Net) OutputScale() float64 {
	if n.outSteps != nil {
		return slices.Max(n.outSteps)
	}
	return n.outScale
}

// Int32Output reports whether the graph's output is int32 (Int32Output
// took effect), and OutputSteps is then its scale per output channel:
// real ≈ OutputSteps[o]·(acc + bias). Nil for an int8 output.
func (n *Net) Int32Output() bool      { return n.outSteps != nil }
func (n *Net) OutputSteps() []float64 { return slices.Clone(n.outSteps) }

// Logits is the ONNX name of a Softmax's input, the int8 logits, and
// their scale (ok false without a Softmax): GraphWithLogits makes them
// a second graph output of that name, and the float executor's value of
// that name is their float counterpart (for their SQNR).
func (n *Net) Logits() (name string, scale float64, ok bool) {
	return n.logits, n.logitsScale, n.logits != ""
}

// GraphWithLogits is Graph with the logits (Logits) as a second output
// (export.Net wants Graph's one output).
func (n *Net) GraphWithLogits(x *onnx.Array) (*compiler.Graph, error) {
	if n.logits == "" {
		return nil, fmt.Errorf("lower: the net has no Softmax, so no logits")
	}
	xs, err := n.one(x)
	if err != nil {
		return nil, err
	}
	g, _, err := n.graph(xs, n.logits)
	return g, err
}

// one is x as the value of the net's one input.
func (n *Net) one(x *onnx.Array) (map[string]*onnx.Array, error) {
	if len(n.ins) != 1 {
		return nil, fmt.Errorf("lower: the net has %d inputs %v: give a value for each (GraphOf)", len(n.ins), n.Inputs())
	}
	return map[string]*onnx.Array{n.ins[0].name: x}, nil
}

// QuantizeInput is QuantizeInputOf the (first) input.
func (n *Net) QuantizeInput(x *onnx.Array) (*golden.Tensor, error) {
	return n.ins[0].quantize(x)
}

// QuantizeInputOf is QuantizeInput of the input named name.
func (n *Net) QuantizeInputOf(name string, x *onnx.Array) (*golden.Tensor, error) {
	in, err := n.inputNamed(name)
	if err != nil {
		return nil, err
	}
	return in.quantize(x)
}

// inputNamed is the net's input of that name.
func (n *Net) inputNamed(name string) (*netInput, error) {
	for i := range n.ins {
		if n.ins[i].name == name {
			return &n.ins[i], nil
		}
	}
	return nil, fmt.Errorf("lower: no graph input %q; the inputs are %v", name, n.Inputs())
}

// quantize converts a float input [1,C,H,W] to the int8 feature map
// [C,H,W] the NPU reads ([1,C,L] to [C,1,L]; [1,N] or [N] to the matrix
// [1,N]): round half to even of x/scale, clamped to ±127.
// A NaN or an infinity is an error naming the element.
func (n *netInput) quantize(x *onnx.Array) (*golden.Tensor, error) {
	if !slices.Equal(x.Shape, n.dims) {
		return nil, fmt.Errorf("lower: input %q: shape %v, want %v", n.name, x.Shape, n.dims)
	}
	t := golden.New(n.shape...)
	for i, v := range x.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) { // an infinity would clamp to ±127 unseen
			return nil, fmt.Errorf("lower: input %q: element %d is %v", n.name, i, v)
		}
		q := math.RoundToEven(float64(v) / n.scale)
		t.Data[i] = int64(max(min(q, quant.QMax), -quant.QMax))
	}
	return t, nil
}

// Graph builds the compiler graph that runs the net of one input on x.
func (n *Net) Graph(x *onnx.Array) (*compiler.Graph, error) {
	g, _, err := n.GraphValues(x)
	return g, err
}

// GraphOf builds the compiler graph that runs the net on a value for
// each of its inputs, by name.
func (n *Net) GraphOf(xs map[string]*onnx.Array) (*compiler.Graph, error) {
	g, _, err := n.graph(xs, "")
	return g, err
}

// GraphValues builds the compiler graph that runs the net of one input
// on x and returns with it the graph's value of every lowered ONNX value,
// by name (the input and each step's output), for Probe and
// compiler.Graph.ReferenceOf.
func (n *Net) GraphValues(x *onnx.Array) (*compiler.Graph, map[string]*compiler.Value, error) {
	xs, err := n.one(x)
	if err != nil {
		return nil, nil, err
	}
	return n.graph(xs, "")
}

// GraphValuesOf is GraphValues with a value for each input, by name.
func (n *Net) GraphValuesOf(xs map[string]*onnx.Array) (*compiler.Graph, map[string]*compiler.Value, error) {
	return n.graph(xs, "")
}

// graph builds the graph, with the value named extra as a second output
// unless it is "".
func (n *Net) graph(xs map[string]*onnx.Array, extra string) (*compiler.Graph, map[string]*compiler.Value, error) {
	if len(xs) != len(n.ins) {
		return nil, nil, fmt.Errorf("lower: %d input values, want one for each of %v", len(xs), n.Inputs())
	}
	g := compiler.NewGraph()
	vals := map[string]*compiler.Value{}
	for _, in := range n.ins {
		x, ok := xs[in.name]
		if !ok {
			return nil, nil, fmt.Errorf("lower: no value for input %q", in.name)
		}
		xq, err := in.quantize(x)
		if err != nil {
			return nil, nil, err
		}
		vals[in.name] = g.Input(in.name, xq)
	}
	for _, s := range n.steps {
		if s.applyN != nil {
			xs := make([]*compiler.Value, len(s.ins))
			for i, in := range s.ins {
				xs[i] = vals[in]
			}
			vals[s.out] = s.applyN(g, xs)
			continue
		}
		if s.apply2 != nil {
			vals[s.out] = s.apply2(g, vals[s.in], vals[s.in2])
			continue
		}
		vals[s.out] = s.apply(g, vals[s.in])
	}
	g.Output(n.output, vals[n.output])
	if extra != "" {
		g.Output(extra, vals[extra])
	}
	if err := g.Err(); err != nil {
		return nil, nil, fmt.Errorf("lower: building the graph: %w", err)
	}
	return g, vals, nil
}

// Dequantize turns the graph's output back into floats of the ONNX
// output's shape: int8 times the output's scale, or int32 times its
// channel's scale.
func (n *Net) Dequantize(t *golden.Tensor) (*onnx.Array, error) {
	if len(t.Data) != len(onnx.NewArray(n.outShape...).Data) {
		return nil, fmt.Errorf("lower: output has %d values, want shape %v", len(t.Data), n.outShape)
	}
	y := onnx.NewArray(n.outShape...)
	inner := 1 // elements per channel index step (row-major, after the channel axis)
	for _, d := range n.outShape[n.outAxis+1:] {
		inner *= d
	}
	for i, v := range t.Data {
		s := n.outScale
		if n.outSteps != nil {
			s = n.outSteps[i/inner%len(n.outSteps)]
		}
		y.Data[i] = float32(float64(v) * s)
	}
	return y, nil
}
