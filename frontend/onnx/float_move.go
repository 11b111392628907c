package onnx

import (
	"fmt"
	"slices"
)

// This file holds float ops that move, repeat or pass on elements: Pad,
// Split, Identity, Dropout (at inference) and ConstantOfShape. Resize and
// Upsample are in float_resize.go.

// remap is the array of the given shape whose element at index o is x's
// element at (src[0][o₀], src[1][o₁], ...), or fill where any src entry
// is −1: the gather behind Pad and the nearest Resize.
func remap(x *Array, shape []int, src [][]int, fill float32) *Array {
	y := NewArray(shape...)
	if len(y.Data) == 0 {
		return y
	}
	r := len(shape)
	if r == 0 {
		y.Data[0] = x.Data[0]
		return y
	}
	stride := make([]int, r)
	for d, s := r-1, 1; d >= 0; d-- {
		stride[d], s = s, s*x.Shape[d]
	}
	inner := shape[r-1]
	idx := make([]int, r-1)
	for o := 0; o < len(y.Data); o += inner {
		base, outside := 0, false
		for d, i := range idx {
			if src[d][i] < 0 {
				outside = true
			}
			base += src[d][i] * stride[d]
		}
		row := y.Data[o : o+inner]
		for i, s := range src[r-1] {
			if outside || s < 0 {
				row[i] = fill
			} else {
				row[i] = x.Data[base+s]
			}
		}
		next(idx, shape[:r-1])
	}
	return y
}

// evalPad is Pad: pads as the paddings attribute (opset 1), the pads
// attribute (2 to 10) or input 1 (11 on, with the constant as input 2
// and, from 18, the padded axes as input 3); begins first, then ends;
// negative pads crop. mode constant, reflect (mirror without repeating
// the edge) or edge (repeat the edge).
func evalPad(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	pads, value, err := padArgs(n, in, len(x.Shape))
	if err != nil {
		return nil, err
	}
	mode := n.Str("mode", "constant")
	if mode != "constant" && mode != "reflect" && mode != "edge" {
		return nil, fmt.Errorf("mode %q not supported; supported: constant, reflect, edge", mode)
	}
	r := len(x.Shape)
	shape, src := make([]int, r), make([][]int, r)
	for d, size := range x.Shape {
		begin, end := int(pads[d]), int(pads[r+d])
		shape[d] = size + begin + end
		if shape[d] < 0 {
			return nil, fmt.Errorf("pads %v crop axis %d of size %d below 0", pads, d, size)
		}
		if mode != "constant" && shape[d] > 0 && (size == 0 || mode == "reflect" && (begin >= size || end >= size)) {
			return nil, fmt.Errorf("mode %s: pads %v too large for axis %d of size %d (reflect pads must be smaller than the axis)", mode, pads, d, size)
		}
		src[d] = make([]int, shape[d])
		for o := range src[d] {
			src[d][o] = padSource(o-begin, size, mode)
		}
	}
	return remap(x, shape, src, value), nil
}

// padSource is the input index that padded position i (of an axis of
// size n) reads, or −1 for the constant.
func padSource(i, n int, mode string) int {
	switch {
	case i >= 0 && i < n:
		return i
	case mode == "edge":
		return min(max(i, 0), n-1)
	case mode == "reflect" && i < 0:
		return -i
	case mode == "reflect":
		return 2*(n-1) - i
	}
	return -1
}

// PadArgs reads a Pad node's pads (a begin per axis of a rank-r input,
// then an end per axis) and constant value in the form of opset, its
// input operands (pads, constant_value, axes) taken from env: what the
// NPU lowering folds into the reading window.
func PadArgs(n *Node, opset int64, r int, env map[string]*Array) ([]int64, float32, error) {
	return padArgs(n, operands{n: n, env: env, opset: opset}, r)
}

// padArgs reads Pad's pads (2·rank values) and constant in the form of
// the node's opset.
func padArgs(n *Node, in operands, r int) ([]int64, float32, error) {
	value := n.Float("value", 0)
	pads := n.Ints("pads", nil)
	switch {
	case in.opset < 2:
		pads = n.Ints("paddings", nil)
	case in.opset >= 11:
		p, err := in.ints(1)
		if err != nil {
			return nil, 0, err
		}
		pads, value = p, 0
		if in.given(2) {
			c, err := in.float(2)
			if err != nil {
				return nil, 0, err
			}
			if len(c.Data) != 1 {
				return nil, 0, fmt.Errorf("constant_value shape %v: want one value", c.Shape)
			}
			value = c.Data[0]
		}
		if in.given(3) {
			axes, err := in.ints(3)
			if err != nil {
				return nil, 0, err
			}
			if pads, err = padsOnAxes(pads, axes, r); err != nil {
				return nil, 0, err
			}
		}
	}
	if len(pads) != 2*r {
		return nil, 0, fmt.Errorf("pads %v: want %d values (a begin and an end per axis)", pads, 2*r)
	}
	return pads, value, nil
}

// padsOnAxes spreads pads given for some axes (opset 18's axes input)
// over all r.
func padsOnAxes(pads, axes []int64, r int) ([]int64, error) {
	if len(pads) != 2*len(axes) {
		return nil, fmt.Errorf("pads %v for axes %v: want two per axis", pads, axes)
	}
	full := make([]int64, 2*r)
	for i, a := range axes {
		d, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		full[d], full[r+d] = pads[i], pads[len(axes)+i]
	}
	return full, nil
}

// evalSplit is Split along axis (default 0) into the node's outputs: by
// the split sizes (attribute before opset 13, input 1 from 13; opset 1
// takes either), else into equal parts, the last one smaller when
// num_outputs (opset 18) does not divide the axis.
func evalSplit(n *Node, in operands) ([]*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	ax, err := axis(n.Int("axis", 0), len(x.Shape))
	if err != nil {
		return nil, err
	}
	dim, parts := x.Shape[ax], len(n.Outputs)
	sizes, err := in.intsArg("split", 1)
	if err != nil {
		return nil, err
	}
	if sizes == nil {
		chunk := dim / max(parts, 1)
		if _, ok := n.Attrs["num_outputs"]; ok {
			chunk = (dim + parts - 1) / max(parts, 1)
		}
		for i := range parts {
			sizes = append(sizes, int64(min(chunk, dim-i*chunk)))
		}
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("split %v: negative size", sizes)
		}
		total += s
	}
	if len(sizes) != parts || total != int64(dim) {
		return nil, fmt.Errorf("split %v into %d outputs: want one size per output, adding up to axis %d's %d", sizes, parts, ax, dim)
	}
	outer, inner := numel(x.Shape[:ax]), numel(x.Shape[ax+1:])
	ys, at := make([]*Array, parts), 0
	for i, s := range sizes {
		shape := slices.Clone(x.Shape)
		shape[ax] = int(s)
		src := make([]int, 0, outer*int(s)*inner)
		for o := range outer {
			for k := range int(s) * inner {
				src = append(src, (o*dim+at)*inner+k)
			}
		}
		ys[i], at = pick(x, shape, src), at+int(s)
	}
	return ys, nil
}

// evalIdentity passes its input on.
func evalIdentity(n *Node, in operands) (*Array, error) { return in.get(0) }

// evalDropout is Dropout at inference: the output is the input. The
// optional mask is all true from opset 10 (BOOL, held as integers); before
// 10 it is FLOAT and, as ONNX Runtime gives it, all zeros. Training, which drops at random, has no
// reproducible result: training_mode true (opset 12 on) is refused;
// is_test 0 (the default before opset 7, which old exporters left in
// inference graphs) is run as inference.
func evalDropout(n *Node, in operands) ([]*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	if in.given(2) {
		t, err := in.get(2)
		if err != nil {
			return nil, err
		}
		if len(t.Ints) > 0 && t.Ints[0] != 0 {
			return nil, fmt.Errorf("training_mode true: random dropout not supported; supported: inference (training_mode false or absent)")
		}
	}
	ys := []*Array{x}
	if len(n.Outputs) > 1 {
		mask := &Array{Shape: slices.Clone(x.Shape)}
		if in.opset < 10 {
			mask.Data = make([]float32, len(x.Data))
		} else {
			mask.Ints = slices.Repeat([]int64{1}, len(x.Data))
		}
		ys = append(ys, mask)
	}
	return ys, nil
}

// evalConstantOfShape is ConstantOfShape: a tensor of the shape input 0
// gives, every element the one value of the value attribute (FLOAT 0 by
// default; an integer value gives an integer tensor).
func evalConstantOfShape(n *Node, in operands) (*Array, error) {
	dims, err := in.ints(0)
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(dims))
	total := int64(1)
	for i, d := range dims {
		if d < 0 || d != 0 && total > MaxElements/d {
			return nil, fmt.Errorf("shape %v: want non-negative dims of at most %d elements in all", dims, int64(MaxElements))
		}
		total *= d
		shape[i] = int(d)
	}
	v := &Array{Shape: []int{}, Data: []float32{0}}
	if t := n.Tensor("value"); t != nil {
		if v, err = valueOf(t); err != nil {
			return nil, err
		}
		if len(v.Data)+len(v.Ints) != 1 {
			return nil, fmt.Errorf("value has %d elements, want one", len(v.Data)+len(v.Ints))
		}
	}
	if v.IsInt() {
		checkAlloc(shape, int(total), 8)
		return &Array{Shape: shape, Ints: slices.Repeat(v.Ints, int(total))}, nil
	}
	checkAlloc(shape, int(total), 4)
	return &Array{Shape: shape, Data: slices.Repeat(v.Data, int(total))}, nil
}
