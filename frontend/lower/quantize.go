package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// Net is a quantized model ready to be built into compiler graphs, one
// per input.
type Net struct {
	// ins are the graph's inputs, in the ONNX graph's order.
	ins      []netInput
	output   string
	outScale float64
	steps    []step
	outShape []int
	// consts are the int8 constant maps the graph reads besides its
	// input (an average pool's divisor map), by graph input name.
	consts map[string]*golden.Tensor
	Layers []Layer // the requantized layers, in order
	// An int32 output (Int32Output): output channel o is in units of
	// outSteps[o] = sx·sw[o]; outAxis is the channel axis of outShape.
	outSteps []float64
	outAxis  int
	// batch is the images the model takes at once; the net is one
	// image's (batch.go).
	batch int
	// scales are the int8 scale of every lowered value (the steps'
	// outputs), for Net.Probe.
	scales map[string]float64
	// logits is the input of a Softmax (Logits), "" without one.
	logits      string
	logitsScale float64
}

// netInput is one graph input of the net.
type netInput struct {
	name  string
	shape []int // the int8 tensor's: [C,H,W] (of [1,C,H,W] or [1,C,L] as [C,1,L]) or [1,N] (of [1,N] or [N])
	dims  []int // the ONNX input's
	scale float64
}

// Layer reports how one layer was requantized: a Conv, Gemm or MatMul
// (with the affine ops folded into it), a standalone affine (its
// depthwise convolution), an average pool, a standalone Relu or Clip, an
// operand or the sum of a residual Add.
type Layer struct {
	Node              string
	InScale, OutScale float64
	Shift             int
	WorstRelErr       float64 // of the per-channel multipliers (quant.LayerMultipliers)
	// Int32: the layer is the int32 output (acc + bias, not requantized;
	// OutScale, Shift and WorstRelErr are 0).
	Int32 bool
}

// Option changes how Quantize lowers a model.
type Option func(*options)

type options struct {
	int32Output bool
	rounding    golden.Rounding
}

// WithRounding sets how every requantization rounds away the bits its
// shift drops (golden.Requant has the exact formula): golden.HalfUp, the
// default, or golden.HalfEven (the planar engine does both, chosen per
// task by its round_even field).
func WithRounding(r golden.Rounding) Option { return func(o *options) { o.rounding = r } }

// Int32Output makes the graph's output leave the NPU as int32 when the
// last layer allows it: a Conv or MatMul (its bias Add folded, no Relu)
// whose result is the graph output gives acc + bias, the int32
// accumulators in units of sx·sw[o] per output channel o, instead of
// int8 requantized to the output's calibrated scale. Such logits neither
// saturate nor tie (int8 logits have a step of the whole range / 127).
// With a Relu or another op last, the output stays int8
// (Net.Int32Output says which). A Softmax last is such an op: its
// Gemm's logits are requantized to int8 (the Softmax reads int8), the
// Softmax's int8 probabilities are the output, and Net.Logits names the
// logits for a comparison of their own.
func Int32Output() Option { return func(o *options) { o.int32Output = true } }

// step adds one operation to the graph: it reads the value named in (and
// in2, for apply2; ins, for applyN) and defines the one named out.
type step struct {
	in, in2, out string
	ins          []string
	apply        func(g *compiler.Graph, x *compiler.Value) *compiler.Value
	apply2       func(g *compiler.Graph, x, y *compiler.Value) *compiler.Value
	applyN       func(g *compiler.Graph, xs []*compiler.Value) *compiler.Value
}

// lowering is the state while the nodes are mapped.
type lowering struct {
	cfg    npu.Config
	g      *onnx.Graph
	shapes map[string][]int // every value's float shape, from calibration
	calib  map[string]*quant.Calibrator
	opt    options
	consts map[string]*onnx.Array // float initializers and folded constants
	ints   map[string][]int64     // integer initializers and folded constants
	first  map[string]*onnx.Array // every value of the first calibration run
	uses   map[string][]*onnx.Node
	scales map[string]float64 // the int8 scale of every lowered value
	// matrices are the values that are Gemm or MatMul results.
	matrices map[string]bool
	// padded are the Pads folded into the window of their one user, by
	// the Pad's output (pad.go).
	padded map[string]padding
	done   map[*onnx.Node]bool
	net    *Net
}

// Quantize calibrates m on the calib inputs (values for its one graph
// input) and lowers it for cfg (QuantizeInputs for a model of several
// inputs).
func Quantize(m *onnx.Model, calib []*onnx.Array, cfg npu.Config, opts ...Option) (*Net, error) {
	if n := len(m.Graph.Inputs); n != 1 {
		return nil, fmt.Errorf("lower: %d graph inputs, want one (QuantizeInputs takes several)", n)
	}
	sets := make([]map[string]*onnx.Array, len(calib))
	for i, x := range calib {
		sets[i] = map[string]*onnx.Array{m.Graph.Inputs[0].Name: x}
	}
	return QuantizeInputs(m, sets, cfg, opts...)
}

// QuantizeInputs calibrates m on the calib sets (each a value for every
// graph input, by name) and lowers it for cfg. It works on
// m.Graph.Inference(), without the nodes that pass their input on and
// with every Sum of more than two inputs split into Adds; m is not
// changed.
func QuantizeInputs(m *onnx.Model, calib []map[string]*onnx.Array, cfg npu.Config, opts ...Option) (*Net, error) {
	g := m.Graph.Inference()
	if len(g.Inputs) == 0 || len(g.Outputs) != 1 {
		return nil, fmt.Errorf("lower: %d graph inputs and %d outputs, want at least one and one", len(g.Inputs), len(g.Outputs))
	}
	if len(calib) == 0 {
		return nil, fmt.Errorf("lower: no calibration inputs")
	}
	l := &lowering{cfg: cfg, g: g, consts: map[string]*onnx.Array{}, ints: map[string][]int64{}, uses: map[string][]*onnx.Node{},
		scales: map[string]float64{}, done: map[*onnx.Node]bool{}, matrices: map[string]bool{},
		net: &Net{output: g.Outputs[0].Name}}
	for _, o := range opts {
		o(&l.opt)
	}
	if err := l.calibrate(calib); err != nil {
		return nil, err
	}
	if err := l.prepare(); err != nil {
		return nil, err
	}
	for _, n := range g.Nodes {
		if l.done[n] {
			continue
		}
		if err := l.batchAxis(n); err != nil {
			return nil, fmt.Errorf("lower: node %q (%s): %w", n.Name, n.OpType, err)
		}
		if err := l.node(n); err != nil {
			return nil, fmt.Errorf("lower: node %q (%s): %w", n.Name, n.OpType, err)
		}
	}
	s, ok := l.scales[l.net.output]
	if !ok {
		return nil, fmt.Errorf("lower: graph output %q is not computed on the NPU", l.net.output)
	}
	l.net.outScale, l.net.outShape = s, l.imageShape(l.net.output)
	l.net.outAxis = min(l.net.outAxis, len(l.net.outShape)-1) // a MatMul's [N]: its one axis
	l.net.scales = l.scales
	return l.net, nil
}

// calibrate runs the float graph on every calibration input and records
// each value's shape and range.
func (l *lowering) calibrate(calib []map[string]*onnx.Array) error {
	l.calib = map[string]*quant.Calibrator{}
	for i, xs := range calib {
		for _, in := range l.g.Inputs {
			if xs[in.Name] == nil {
				return fmt.Errorf("lower: calibration input %d has no value for graph input %q", i, in.Name)
			}
		}
		env, err := l.g.Execute(xs)
		if err != nil {
			return fmt.Errorf("lower: calibration input %d: %w", i, err)
		}
		if l.shapes == nil {
			l.first = env
			l.shapes = map[string][]int{}
			for name, a := range env {
				l.shapes[name] = a.Shape
			}
		}
		for name, a := range env {
			c := l.calib[name]
			if c == nil {
				c = &quant.Calibrator{}
				l.calib[name] = c
			}
			if err := c.Observe(a.Data); err != nil {
				return fmt.Errorf("lower: calibration input %d, value %q: %w", i, name, err)
			}
		}
	}
	return nil
}

// prepare folds the constants and records the users of every value and
// the input's shape and scale.
func (l *lowering) prepare() error {
	l.fold(l.first)
	if err := l.perImage(); err != nil {
		return err
	}
	for _, n := range l.g.Nodes {
		if l.done[n] {
			continue // folded: not a user
		}
		for _, in := range n.Inputs {
			if !slices.Contains(l.uses[in], n) { // a node reading a value twice is one user
				l.uses[in] = append(l.uses[in], n)
			}
		}
	}
	as2D(l.shapes)
	asRow(l.shapes)
	for _, v := range l.g.Inputs {
		in := netInput{name: v.Name, dims: l.imageShape(v.Name)}
		shape := l.shapes[v.Name]
		switch {
		case len(shape) == 4 && shape[0] == 1: // a feature map [C,H,W]
			in.shape = shape[1:]
		case len(shape) == 2 && shape[0] == 1: // a row [1,N], as a Gemm's result
			in.shape = shape
			l.matrices[v.Name] = true
		default:
			return fmt.Errorf("lower: input %q has shape %v, want [1,C,H,W], [1,C,L], [1,N] or [N]", v.Name, in.dims)
		}
		s, err := l.calib[v.Name].Scale()
		if err != nil {
			return fmt.Errorf("lower: input %q: %w", v.Name, err)
		}
		in.scale, l.scales[v.Name] = s, s
		l.net.ins = append(l.net.ins, in)
	}
	return nil
}

// scaleOf is the int8 scale value name is given: its calibrated one, or,
// when its one user is a Concat along channels, the concat's (its range
// holds the value's), so that the producer's requantization writes the
// part in the concat's units and the concat only places data. A value
// whose one user is a Resize or Upsample whose one user is such a Concat
// takes the concat's scale too: the upsampling copies values (U-Net's
// decoder), so no requantization of the four times larger map is needed.
// A value whose one user is the Add of it and another computed value
// takes the coarser of their calibrated scales: binary would rescale the
// finer operand to it anyway, a planar pass over the whole map (a
// ResNet block's last conv before its shortcut Add), while the
// producer's own requantization writes it in those units with one
// rounding instead of two.
func (l *lowering) scaleOf(name string) (float64, error) {
	if a := l.soleUser(name, "Add"); a != nil && len(a.Inputs) == 2 {
		other := a.Inputs[0]
		if other == name {
			other = a.Inputs[1]
		}
		if _, isConst := l.consts[other]; !isConst {
			so, err1 := l.calibScale(other)
			s, err2 := l.calibScale(name)
			if err1 == nil && err2 == nil {
				return max(s, so), nil
			}
		}
	}
	if c := l.soleUser(name, "Concat"); c != nil && l.channelAxis(c) == nil {
		return l.scaleOf(c.Outputs[0])
	}
	for _, op := range []string{"Resize", "Upsample"} {
		if r := l.soleUser(name, op); r != nil {
			if c := l.soleUser(r.Outputs[0], "Concat"); c != nil && l.channelAxis(c) == nil {
				return l.scaleOf(c.Outputs[0])
			}
		}
	}
	return l.calibScale(name)
}

// calibScale is value name's calibrated scale.
func (l *lowering) calibScale(name string) (float64, error) {
	c, ok := l.calib[name]
	if !ok {
		return 0, fmt.Errorf("value %q was not calibrated", name)
	}
	s, err := c.Scale()
	if err != nil {
		return 0, fmt.Errorf("value %q: %w", name, err)
	}
	return s, nil
}
