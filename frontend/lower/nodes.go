package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// node lowers one node (and the Add and Relu it absorbs).
func (l *lowering) node(n *onnx.Node) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return fmt.Errorf("domain %q not supported", n.Domain)
	}
	if len(n.Inputs) == 0 || len(n.Outputs) != 1 && n.OpType != "Split" { // a Split has a part per output
		return fmt.Errorf("%d inputs and %d outputs, want at least one and one", len(n.Inputs), len(n.Outputs))
	}
	f, ok := lowerings[n.OpType]
	if !ok {
		return fmt.Errorf("op not supported by the lowering; supported: %s", strings.Join(Ops, ", "))
	}
	return f(l, n)
}

// Ops are the ops the lowering maps: those onnx.OpTable marks NPU
// (constant subgraphs of any onnx.FloatOps op are folded before).
var Ops = onnx.OpNames(func(o onnx.Op) bool { return o.NPU })

// lowerings is the lowering's dispatch: how each op of Ops is lowered,
// keyed by op name (a test keeps the keys and onnx.OpTable in step).
var lowerings = map[string]func(l *lowering, n *onnx.Node) error{
	"Reshape": (*lowering).reshape, // a reshape of a constant is folded
	"Concat":  (*lowering).concat,
	"Flatten": func(l *lowering, n *onnx.Node) error {
		if a := n.Int("axis", 1); a != 1 {
			return fmt.Errorf("axis %d: only 1 is supported", a)
		}
		return l.flatten(n)
	},
	"Squeeze":            (*lowering).flatten,
	"Unsqueeze":          (*lowering).flatten,
	"MaxPool":            (*lowering).maxPool,
	"Conv":               (*lowering).conv,
	"MatMul":             (*lowering).matMul,
	"Gemm":               (*lowering).gemm,
	"AveragePool":        (*lowering).avgPool,
	"GlobalAveragePool":  func(l *lowering, n *onnx.Node) error { return l.globalPool(n, false) },
	"GlobalMaxPool":      func(l *lowering, n *onnx.Node) error { return l.globalPool(n, true) },
	"Relu":               (*lowering).requantOnly,
	"Clip":               (*lowering).requantOnly,
	"Add":                (*lowering).affineAlone, // of two feature maps: residual
	"Sub":                (*lowering).affineAlone,
	"Mul":                (*lowering).affineAlone,
	"Div":                (*lowering).affineAlone,
	"Sum":                (*lowering).affineAlone, // of more than two: split into Adds before (onnx.Graph.Inference)
	"BatchNormalization": (*lowering).affineAlone,
	"Min":                func(l *lowering, n *onnx.Node) error { return l.binary(n, golden.EltMin) },
	"Max":                func(l *lowering, n *onnx.Node) error { return l.binary(n, golden.EltMax) },
	"ReduceSum":          (*lowering).reduce,
	"ReduceMean":         (*lowering).reduce,
	"ReduceMax":          (*lowering).reduce,
	"Sqrt":               (*lowering).postOnly,
	"Reciprocal":         (*lowering).postOnly,
	"Transpose":          (*lowering).transposeData,
	"Softmax":            (*lowering).softmax,
	"LRN":                (*lowering).lrn,
	"PRelu":              (*lowering).prelu,
	"Pad":                (*lowering).pad, // folded into the window reading it
	"Split":              (*lowering).split,
	"Resize":             (*lowering).resize,
	"Upsample":           (*lowering).resize,
}

// The unary elementwise ops of the table (onnx.Op.Eltwise) lower alike:
// the planar engine's function, then the requantization.
func init() {
	for _, o := range onnx.OpTable {
		if o.Eltwise != "" && o.NPU {
			lowerings[o.Name] = (*lowering).requantOnly
		}
	}
}

// unaryEltwise is the golden function of a unary elementwise op of the
// table (ok false for any other op).
func unaryEltwise(opType string) (golden.EltOp, bool) {
	o, ok := onnx.LookupOp(opType)
	if !ok || o.Eltwise == "" {
		return 0, false
	}
	op, err := golden.ParseEltOp(o.Eltwise)
	if err != nil {
		panic(fmt.Sprintf("onnx op table: %s: %v", opType, err)) // a test keeps the table's names golden's
	}
	return op, true
}

// input is the lowered value n reads as its data input, with its scale.
func (l *lowering) input(n *onnx.Node) (string, float64, error) {
	s, err := l.value(n.Inputs[0])
	return n.Inputs[0], s, err
}

// value is the scale of the lowered value name.
func (l *lowering) value(name string) (float64, error) {
	s, ok := l.scales[name]
	if !ok {
		return 0, fmt.Errorf("input %q is neither the graph input nor computed on the NPU", name)
	}
	return s, nil
}

// emit appends a step defining out with scale s.
func (l *lowering) emit(in, out string, s float64, f func(g *compiler.Graph, x *compiler.Value) *compiler.Value) {
	l.net.steps = append(l.net.steps, step{in: in, out: out, apply: f})
	l.scales[out] = s
}

// reshape lowers a Reshape: the first of a channel shuffle's three
// nodes (shuffle), else a flatten.
func (l *lowering) reshape(n *onnx.Node) error {
	in, s, err := l.input(n)
	if err != nil {
		return err
	}
	if ok, err := l.shuffle(n, in, s); ok || err != nil {
		return err
	}
	return l.flatten(n)
}

// flatten maps a reshape of [1,C,H,W] to [1,C·H·W] (the only reshape of a
// feature map the NPU has) onto Flatten.
func (l *lowering) flatten(n *onnx.Node) error {
	in, s, err := l.input(n)
	if err != nil {
		return err
	}
	from, to := l.shapes[in], l.shapes[n.Outputs[0]]
	if slices.Equal(from, to) { // e.g. a Flatten of a Gemm's [1,N]: nothing to do
		l.emit(in, n.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return x })
		l.matrices[n.Outputs[0]] = l.matrices[in]
		return nil
	}
	if len(from) != 4 || from[0] != 1 || !slices.Equal(to, []int{1, from[1] * from[2] * from[3]}) {
		return fmt.Errorf("reshape %v to %v: only [1,C,H,W] to [1,C·H·W] (or to the same shape) is supported", from, to)
	}
	l.emit(in, n.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Flatten(x) })
	return nil
}

// poolWindow reads a pooling node's input (a folded Pad's input, pad.go),
// its window over its ONNX input, the Pad and how the window with the
// Pad's pads runs on the planar engine (planWindow).
func (l *lowering) poolWindow(n *onnx.Node) (in string, scale float64, win onnx.Window, pad padding, plan windowPlan, err error) {
	var shape []int
	if in, scale, shape, pad, win, err = l.windowInput(n, 0, 0); err != nil {
		return
	}
	plan, err = planWindow(pad.merge(win), shape[2], shape[3])
	return
}

// maxPool lowers MaxPool to the planar max pool whose padding never wins
// (any pads, see pool_pad.go), a dilated one as pool_dilated.go lays out;
// the scale stays. A folded Pad's zeros do
// win: its pads add to the pool's on a value known to be ≥ 0, else they
// are the pool's zero padding when it has none of its own (pad.go).
func (l *lowering) maxPool(n *onnx.Node) error {
	if u, kh, kw, dh, dw, ok, err := dilatedWindow(n, l.oneD(n)); err != nil || ok {
		if err != nil {
			return err
		}
		return l.dilatedMaxPool(n, u, kh, kw, dh, dw)
	}
	in, s, win, pad, plan, err := l.poolWindow(n)
	if err != nil {
		return err
	}
	p := compiler.Pool{Kind: golden.PoolMax, KH: win.KH, KW: win.KW, Padding: golden.PadIgnore}
	if pad.any() && !l.nonNegative(in) {
		if win.Top+win.Left+win.Bottom+win.Right > 0 {
			return fmt.Errorf("a Pad of zeros before a MaxPool with pads %d %d %d %d of its own, on %q not known to be ≥ 0: supported: the Pad alone, or either on a Relu's or Clip's (min ≥ 0) output", win.Top, win.Left, win.Bottom, win.Right, in)
		}
		p.Padding = golden.PadZero
	}
	l.emit(in, n.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return plan.pool(g, x, p) })
	return nil
}

// symmetric checks that a window fits the NPU's geometry: one stride and
// equal pads on both sides of each axis.
func symmetric(w onnx.Window) (stride, padH, padW int, err error) {
	if w.SH != w.SW {
		return 0, 0, 0, fmt.Errorf("strides %dx%d: only equal strides are supported", w.SH, w.SW)
	}
	if w.Top != w.Bottom || w.Left != w.Right {
		return 0, 0, 0, fmt.Errorf("pads top %d bottom %d left %d right %d: only symmetric padding is supported", w.Top, w.Bottom, w.Left, w.Right)
	}
	return w.SH, w.Top, w.Left, nil
}
