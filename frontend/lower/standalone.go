package lower

import (
	"fmt"
	"math"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers the ops that stand on their own on the data path: a
// Relu or Clip no layer absorbed (a requantization of the int8 value), a
// unary elementwise op such as Abs (the planar engine's function, then
// the requantization), the
// Add, Min or Max of two feature maps (an eltwise add, min or max), the
// Min or Max of a feature map and one constant (a clamp), and
// the transpose of a matrix.

// requantOnly lowers a lone Relu or Clip to compiler.Graph.Requant (a
// unary elementwise op to its compiler.Graph.Eltwise): the
// value rescaled to its output's calibrated scale, then ReLU or the clamp.
func (l *lowering) requantOnly(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	var clip *clipRange
	if n.OpType == "Clip" {
		if clip, err = l.clipBounds(n); err != nil {
			return err
		}
	}
	return l.requantClip(n, in, sx, clip)
}

// requantClip lowers n, the op of computed value in (scale sx), to the
// rescale to its output's scale with clip as the clamp (and ReLU for a
// Relu, f(x) first for a unary elementwise op).
func (l *lowering) requantClip(n *onnx.Node, in string, sx float64, clip *clipRange) error {
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	q, err := l.rescale(n.Name, sx, sy, 1)
	if err != nil {
		return err
	}
	q.Relu = n.OpType == "Relu"
	q = clip.apply(q, sy, golden.S(l.cfg.ElemWidth))
	if fn, ok := unaryEltwise(n.OpType); ok { // f(x), then the rescale (the planar engine's eltwise f)
		l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Unary(fn, x, q) })
		return nil
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Requant(x, q) })
	return nil
}

// residual lowers the Add of two feature maps of one shape [+ Relu]
// [+ Clip] to an eltwise add, and Min and Max likewise to an eltwise min
// or max (binary).
func (l *lowering) residual(n *onnx.Node) error { return l.binary(n, golden.EltAdd) }

// binary lowers an Add, Min or Max of two computed values of one shape
// [+ Relu] [+ Clip] to the planar eltwise fn. The operands have their
// own scales: the one of the finer scale is first rescaled to the
// coarser one's units (so it cannot saturate; it loses up to half a step
// of the coarser scale), then the exact sum, minimum or maximum is
// rescaled to the output's scale.
func (l *lowering) binary(n *onnx.Node, fn golden.EltOp) error {
	if len(n.Inputs) != 2 {
		return fmt.Errorf("%d inputs, want 2", len(n.Inputs))
	}
	if fn != golden.EltAdd {
		if bounded, err := l.boundByConst(n, fn == golden.EltMax); bounded || err != nil {
			return err
		}
	}
	var sc [2]float64
	for i, name := range n.Inputs {
		if _, ok := l.consts[name]; ok { // an Add of a constant is an affine op (affineAlone)
			return fmt.Errorf("input %q is a constant: only the %s of two computed values is supported (a Clip bounds by constants)", name, n.OpType)
		}
		s, err := l.value(name)
		if err != nil {
			return err
		}
		sc[i] = s
	}
	a, b := n.Inputs[0], n.Inputs[1]
	if sa, sb := l.shapes[a], l.shapes[b]; !slices.Equal(sa, sb) {
		return fmt.Errorf("shapes %v and %v: only the %s of two values of one shape (no broadcasting) is supported", sa, sb, n.OpType)
	}
	if sc[1] > sc[0] {
		a, b, sc[0], sc[1] = b, a, sc[1], sc[0]
	}
	var qb *golden.Requant
	if sc[1] != sc[0] {
		q, err := l.rescale(n.Name+" operand "+b, sc[1], sc[0], 1)
		if err != nil {
			return err
		}
		qb = &q
	}
	out, relu := n.Outputs[0], false
	if r := l.soleUser(out, "Relu"); r != nil {
		l.done[r], out, relu = true, r.Outputs[0], true
	}
	out, clip, err := l.fuseClip(out)
	if err != nil {
		return err
	}
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	q, err := l.rescale(n.Name, sc[0], sy, 1)
	if err != nil {
		return err
	}
	q.Relu = relu
	q = clip.apply(q, sy, golden.S(l.cfg.ElemWidth))
	l.net.steps = append(l.net.steps, step{in: a, in2: b, out: out,
		apply2: func(g *compiler.Graph, x, y *compiler.Value) *compiler.Value {
			if qb != nil {
				y = g.Requant(y, *qb)
			}
			return g.Eltwise(fn, x, y, q)
		}})
	l.scales[out] = sy
	return nil
}

// boundByConst lowers the Min or Max (isMax) of a computed value and a
// constant of one element as a Clip by that constant (Max(x, 0) is a
// ReLU): the value's rescale to the output's scale, clamped. It reports
// false when neither input is such a constant.
func (l *lowering) boundByConst(n *onnx.Node, isMax bool) (bool, error) {
	for i, name := range n.Inputs {
		c, ok := l.consts[name]
		if !ok {
			continue
		}
		in := n.Inputs[1-i]
		if _, both := l.consts[in]; both {
			return false, nil // two constants: folded before, or refused below
		}
		if len(c.Data) != 1 {
			return true, fmt.Errorf("input %q is a constant of %d elements: the %s of a computed value and a constant is supported for a single value (a bound), else of two computed values", name, len(c.Data), n.OpType)
		}
		sx, err := l.value(in)
		if err != nil {
			return true, err
		}
		clip := &clipRange{lo: float32(math.Inf(-1)), hi: float32(math.Inf(1))}
		if isMax {
			clip.lo = c.Data[0]
		} else {
			clip.hi = c.Data[0]
		}
		return true, l.requantClip(n, in, sx, clip)
	}
	return false, nil
}

// transposeData lowers the Transpose of a Gemm's or MatMul's result on
// the data path (a constant one is folded) to compiler.Graph.Transpose, a
// view of the result, which the NPU stores transposed; the scale stays.
// The transpose of a flattened feature map is refused: compiler.Graph's
// Transpose of a Flatten view transposes the map's on-chip [C][H·W]
// matrix rather than the [1][C·H·W] one, a different order.
func (l *lowering) transposeData(n *onnx.Node) error {
	in, s, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	if perm := n.Ints("perm", []int64{1, 0}); len(shape) != 2 || !slices.Equal(perm, []int64{1, 0}) {
		return fmt.Errorf("perm %v of a %v value: only the transpose of a matrix (rank 2, perm [1 0]) is supported on the data path", perm, shape)
	}
	if !l.matrices[in] {
		return fmt.Errorf("input %q is not the result of a Gemm or MatMul: only those are transposed on the data path", in)
	}
	l.emit(in, n.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Transpose(x) })
	return nil
}
