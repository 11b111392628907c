package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers a Softmax over all N values of its input (a [1,N]
// Gemm or MatMul result, or a [1,C,1,1] or [1,C] per-channel value such
// as SqueezeNet's GlobalAveragePool) onto the planar engine, exactly:
//
//	row  the N logits in one partition row [1][N] (the planar engine
//	     reduces within a row): a Gemm result is stored transposed, so its
//	     transpose is a view, the matrix [N][1] (value i in partition i),
//	     as a per-channel value already is (compiler.Graph.Column views it
//	     so); an on-chip transpose then lays that out as [1][N]
//	m    ReduceMax of the row: the largest logit, int8 in the logits'
//	     units sx
//	r    EltwiseChannel sub: x − m, an integer δ in −255..0, plus 127 (the
//	     requantization's bias; scale 1, shift 0): r = δ + 127, saturated
//	     at −128 (δ below −255 cannot occur; exp(−255·sx) is tiny anyway)
//	e    Lookup: entry r is exp((r − 127)·sx)·127 rounded, so e is
//	     exp(x − max) in units se = 1/127 (the maximum gives exactly 127),
//	     the exactly rounded exp of the int8 difference
//	R    ReduceWith sum with the recip post function: S = Σe (at least
//	     127), R = 1/(S·se) in units of sy, the Softmax output's
//	     calibrated scale: 1/Σexp(x − max) is the largest probability,
//	     so sy (the calibrated largest probability / 127) is R's scale too
//	     and R is at most 127 (postRequant has the reciprocal's arithmetic)
//	y    EltwiseChannel mul: e·R in units se·sy, rescaled by 1/127 to
//	     units sy: y = round(e·R/127)
//
// Every step is integer arithmetic on the reference machine, the NPU and
// the export alike. Against float, the roundings are e's (half a step of
// 1/127, relative 1/(2e)), R's (half a step: relative 1/(2R), the
// reciprocal's truncation and multiplier below that) and y's (half an
// output step); the top class (e = 127, R near 127) is within about one
// output step, and a small probability within about e's rounding times
// R/127 output steps: TestSoftmaxLogits measures 1.19 output steps at
// most from the float Softmax of the int8 logits over 100 classes (ZFNet
// at 224×224 with random weights: 1.06 over 1000). The logits themselves
// are int8 of their calibrated scale, and their own error moves a
// probability p by a factor e^(±2·sx) at most; Net.Logits names them for
// a report of their SQNR.

// softmaxLength is the number of values the Softmax n normalizes
// together, which must be all of its input's: the opset's axis rule
// (before 13 the input coerced to 2-D at axis, default 1; from 13 along
// axis, default −1).
func (l *lowering) softmaxLength(n *onnx.Node, shape []int) (int, error) {
	def := int64(-1)
	if l.g.Opset < 13 {
		def = 1
	}
	a := n.Int("axis", def)
	r := int64(len(shape))
	if a < -r || a >= r {
		return 0, fmt.Errorf("axis %d of a %v value: want −%d..%d", a, shape, r, r-1)
	}
	if a < 0 {
		a += r
	}
	total := 1
	for _, d := range shape {
		total *= d
	}
	normalized := shape[a]
	if l.g.Opset < 13 {
		normalized = total
		for _, d := range shape[:a] {
			normalized /= d
		}
	}
	if normalized != total {
		return 0, fmt.Errorf("axis %d of a %v value (opset %d) normalizes %d values at a time: the NPU normalizes all of them at once; supported: an axis that takes every value (e.g. axis 1 of [1,N] or of [1,C,1,1] before opset 13)", a, shape, l.g.Opset, normalized)
	}
	return total, nil
}

// onePerChannel reports whether the value name holds one element per
// channel: a [1,C,1,1] map, or a [1,C] reduction over the plane or view
// of such a value (a flattened [1,C·H·W] map with H·W > 1 is not).
func (l *lowering) onePerChannel(name string) bool {
	shape := l.shapes[name]
	switch {
	case len(shape) == 4:
		return shape[0] == 1 && shape[2] == 1 && shape[3] == 1
	case len(shape) != 2:
		return false
	}
	for _, n := range l.g.Nodes {
		if len(n.Outputs) != 1 || n.Outputs[0] != name {
			continue
		}
		switch n.OpType {
		case "Flatten", "Reshape", "Squeeze":
			return l.onePerChannel(n.Inputs[0])
		case "ReduceSum", "ReduceMean", "ReduceMax":
			return len(l.shapes[n.Inputs[0]]) == 4 // keepdims 0 over the plane: [1,C]
		}
	}
	return false
}

// softmax lowers a Softmax over all N values of a [1,N] or [1,C,1,1]
// value (see the file's comment).
func (l *lowering) softmax(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	count, err := l.softmaxLength(n, shape)
	if err != nil {
		return err
	}
	matrix := l.matrices[in] && len(shape) == 2
	perChannel := !l.matrices[in] && l.onePerChannel(in)
	if !matrix && !perChannel || shape[0] != 1 {
		return fmt.Errorf("input %q has shape %v: supported: a [1,N] Gemm or MatMul result, or one value per channel ([1,C,1,1], [1,C])", in, shape)
	}
	out := n.Outputs[0]
	if u := l.uses[out]; len(u) > 0 {
		return fmt.Errorf("its output is read by %q (%s): supported: a Softmax whose output is the graph's output", u[0].Name, u[0].OpType)
	}
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	elem := golden.S(l.cfg.ElemWidth)
	const se = 1.0 / 127
	table, err := golden.TableOf(func(v float64) float64 { return math.Exp(v - 127*sx) }, sx, se, elem)
	if err != nil {
		return fmt.Errorf("the exp table of scale %.4g: %w", sx, err)
	}
	diff := golden.Requant{Scale: 1, Bias: 127, Rounding: l.opt.rounding}
	recip, err := l.postRequant(n.Name+" 1/sum", golden.PostRecip, se, sy, 1, count)
	if err != nil {
		return err
	}
	recip.Kind = golden.ReduceSum
	mul, err := l.rescale(n.Name, se*sy, sy, 1)
	if err != nil {
		return err
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		if perChannel {
			x = g.Column(x) // [C][1] where it lies: channel c in partition c
		} else {
			x = g.Transpose(x) // a Gemm result lies transposed: a view
		}
		row := g.Transpose(x)
		m := g.Reduce(row, golden.ReduceMax, golden.Requant{})
		e := g.Lookup(g.EltwiseChannel(golden.EltSub, row, m, diff), table, golden.Requant{})
		r := g.ReduceWith(e, recip)
		return g.EltwiseChannel(golden.EltMul, e, r, mul)
	})
	l.net.logits, l.net.logitsScale = in, sx
	return nil
}
