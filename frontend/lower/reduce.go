package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers ReduceSum, ReduceMean and ReduceMax of a feature map
// [1,C,H,W] onto the planar engine, with a Sqrt or Reciprocal after them
// fused as the reduction's post function, and a Sqrt or Reciprocal of one
// value per channel as a reduction of one element.

// vectorFollowers are the ops that read a per-channel vector or row (a
// compiler reduction's [C] or [C,W]) where ONNX has a feature map.
var vectorFollowers = []string{"Flatten", "Reshape", "Squeeze", "Gemm", "MatMul", "Softmax"}

// checkUsers refuses a user of out whose op is not in allowed: out is
// lowered as what (a phrase ending in what the NPU makes of it).
func (l *lowering) checkUsers(out, what string, allowed []string) error {
	for _, u := range l.uses[out] {
		if !slices.Contains(allowed, u.OpType) {
			return fmt.Errorf("%s, which %q (%s) cannot read; supported after it: %s", what, u.Name, u.OpType, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// reduce lowers ReduceSum, ReduceMean or ReduceMax of [1,C,H,W] [+ Sqrt
// or Reciprocal]. The planar engine reduces within a channel, so the axes
// (attribute, or a constant axes input) must cover H and W (the plane:
// one value per channel) or H alone (across rows: W values per channel,
// W ≤ line_depth); axes of size 1 do not matter, the channel axis must
// not be reduced. Without a post function and with keepdims 1, a plane
// within max_kernel (or H rows within it) is an average pool of the
// whole window (sum, then the rescale by 1/div and the change of scale),
// or for ReduceMax a max pool of it (the maximum, then the change of
// scale: no division), which keeps a feature map any op can read;
// otherwise it is a planar reduction (sum or rowsum, max or rowmax),
// whose [C] or [C,W] result only a Flatten, Reshape, Squeeze, Gemm,
// MatMul or a standalone Sqrt or Reciprocal may read (with keepdims 0
// over the plane, the [1,C] a Gemm or MatMul reads directly). A Sqrt or
// Reciprocal that is the result's only user becomes the reduction's post
// function (postRequant has the arithmetic; the planar post unit applies
// it to a maximum as to a sum, which for it is one int8 value).
func (l *lowering) reduce(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input shape %v, want [1,C,H,W]", shape)
	}
	var axesIn []int64
	hasAxes := len(n.Inputs) > 1 && n.Inputs[1] != ""
	if hasAxes {
		a, ok := l.ints[n.Inputs[1]]
		if !ok {
			return fmt.Errorf("axes input %q is not an integer constant; supported: an initializer or a constant subgraph", n.Inputs[1])
		}
		axesIn = a
	}
	mask, err := onnx.ReduceAxes(n, axesIn, hasAxes, len(shape))
	if err != nil {
		return err
	}
	keep, err := onnx.KeepDims(n)
	if err != nil {
		return err
	}
	rows, count, err := reduceGeometry(mask, shape)
	if err != nil {
		return err
	}
	c, h, w := shape[1], shape[2], shape[3]
	if rows && w > l.cfg.LineDepth {
		return fmt.Errorf("axes %v of a plane %d wide: a reduction across rows holds a row in the planar line buffer; supported: W ≤ line_depth = %d", reducedAxes(mask), w, l.cfg.LineDepth)
	}
	out, post := n.Outputs[0], golden.PostNone
	if u := l.soleUser(out, "Sqrt"); u != nil {
		l.done[u], out, post = true, u.Outputs[0], golden.PostSqrt
	} else if u := l.soleUser(out, "Reciprocal"); u != nil {
		l.done[u], out, post = true, u.Outputs[0], golden.PostRecip
	}
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	isMax := n.OpType == "ReduceMax"
	div, maxSum := 1, count // maxSum: the int8 values a result combines by adding
	if n.OpType == "ReduceMean" {
		div = count
	}
	r := compiler.Reduction{Kind: golden.ReduceSum}
	switch {
	case isMax && rows:
		r.Kind, maxSum = golden.ReduceRowMax, 1
	case isMax:
		r.Kind, maxSum = golden.ReduceMax, 1
	case rows:
		r.Kind = golden.ReduceRowSum
	}
	if post == golden.PostNone {
		if r.Requant, err = l.rescale(n.Name, sx, sy, div); err != nil {
			return err
		}
	} else {
		kind := r.Kind
		if r, err = l.postRequant(n.Name, post, sx, sy, div, maxSum); err != nil {
			return err
		}
		r.Kind = kind
	}
	if post == golden.PostNone && keep && h <= l.cfg.MaxKernel && (rows && w <= l.cfg.LineDepth || !rows && w <= l.cfg.MaxKernel) {
		p := compiler.Pool{Kind: golden.PoolAvg, KH: h, KW: w, Padding: golden.PadZero, Requant: r.Requant}
		if isMax {
			p.Kind = golden.PoolMax
		}
		if rows {
			p.KW = 1
		}
		l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Pool2D(x, p) })
		return nil
	}
	flat := !keep && !rows // [1,C]: the vector as the matrix a Gemm reads
	if !flat {
		what := fmt.Sprintf("the reduction gives one value per channel (%d) as a vector", c)
		if rows {
			what = fmt.Sprintf("the reduction across rows gives a %dx%d matrix (one row per channel), not a feature map", c, w)
		}
		if err := l.checkUsers(out, what, append(slices.Clone(vectorFollowers), "Sqrt", "Reciprocal")); err != nil {
			return err
		}
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		y := g.ReduceWith(x, r)
		if flat {
			y = g.Flatten(y)
		}
		return y
	})
	return nil
}

// reduceGeometry maps the reduced axes of a [1,C,H,W] value onto a
// planar reduction: the whole plane (rows false) or across rows (H only,
// rows true), and the count of values each result combines.
func reduceGeometry(mask []bool, shape []int) (rows bool, count int, err error) {
	axes := reducedAxes(mask)
	reduced := func(i int) bool { return mask[i] && shape[i] > 1 }
	h, w := shape[2], shape[3]
	switch {
	case reduced(1):
		return false, 0, fmt.Errorf("axes %v reduce the channel axis 1 (C = %d): the planar engine reduces within a channel; supported: axes 2 and 3 (the plane) or 2 (across rows), with any axes of size 1", axes, shape[1])
	case !reduced(2) && !reduced(3):
		return false, 0, fmt.Errorf("axes %v of shape %v reduce only axes of size 1 (or none): nothing to compute; supported: axes 2 and 3 (the plane) or 2 (across rows)", axes, shape)
	case reduced(3) && !mask[2] && h > 1:
		return false, 0, fmt.Errorf("axes %v reduce W (axis 3) but not H (axis 2, H = %d): the planar engine reduces a channel's whole plane or across its rows; supported: axes 2 and 3, or 2", axes, h)
	case reduced(2) && !mask[3] && w > 1:
		return true, h, nil
	}
	return false, h * w, nil
}

// postOnly lowers a Sqrt or Reciprocal that follows no reduction: the
// planar engine has them only as a reduction's post function, so a value
// with one element per channel ([1,C,1,1] or [1,C]: a pool of the whole
// plane, a reduction) is reduced over that one element with the post
// function (postRequant, a sum of one value); anything else is refused.
func (l *lowering) postOnly(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	perChannel := len(shape) == 4 && shape[0] == 1 && shape[2] == 1 && shape[3] == 1 || len(shape) == 2 && shape[0] == 1
	if !perChannel || l.matrices[in] {
		return fmt.Errorf("%s of a %v value: the planar engine has it only as the post function of a reduction; supported: right after a ReduceSum, ReduceMean or ReduceMax (fused), or of one value per channel ([1,C,1,1], or [1,C] not computed by a Gemm or MatMul)", n.OpType, shape)
	}
	post := golden.PostSqrt
	if n.OpType == "Reciprocal" {
		post = golden.PostRecip
	}
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	r, err := l.postRequant(n.Name, post, sx, sy, 1, 1)
	if err != nil {
		return err
	}
	flat := len(shape) == 2
	if !flat {
		if err := l.checkUsers(out, fmt.Sprintf("it gives one value per channel (%d) as a vector", shape[1]), append(slices.Clone(vectorFollowers), "Sqrt", "Reciprocal")); err != nil {
			return err
		}
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		y := g.ReduceWith(x, r)
		if flat {
			y = g.Flatten(y)
		}
		return y
	})
	return nil
}

// reducedAxes lists the axes mask reduces.
func reducedAxes(mask []bool) []int {
	axes := []int{}
	for i, m := range mask {
		if m {
			axes = append(axes, i)
		}
	}
	return axes
}
