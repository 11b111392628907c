package onnx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// This file holds the ops that move elements without arithmetic: the shape
// computations exporters emit (Shape, Gather, Unsqueeze, Squeeze, Concat,
// Slice, Cast, Constant) and Transpose. They take FLOAT and integer values
// alike, through pick.

// valueOf converts an initializer or a Constant's tensor to an Array:
// FLOAT to Data, every integer type to Ints.
func valueOf(t *Tensor) (*Array, error) {
	if t.DType == Float32 {
		return ArrayOf(t)
	}
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[i] = int(d)
	}
	checkAlloc(shape, numel(shape), 8)
	v := make([]int64, 0, numel(shape)) // non-nil: an integer value, even when empty
	switch t.DType {
	case Int64:
		v = append(v, t.Int64...)
	case Int32:
		for _, x := range t.Int32 {
			v = append(v, int64(x))
		}
	case Int8:
		for _, x := range t.Int8 {
			v = append(v, int64(x))
		}
	case Uint8:
		for _, x := range t.Uint8 {
			v = append(v, int64(x))
		}
	default:
		return nil, dtypeError(fmt.Sprintf("onnx: tensor %q", t.Name), t.DType)
	}
	if len(v) != numel(shape) {
		return nil, fmt.Errorf("onnx: tensor %q has %d values for dims %v", t.Name, len(v), t.Dims)
	}
	return &Array{Shape: shape, Ints: v}, nil
}

// pick is the array of the given shape whose element i is x's element
// src[i], of x's element type.
func pick(x *Array, shape []int, src []int) *Array {
	y := &Array{Shape: shape}
	if x.IsInt() {
		y.Ints = make([]int64, len(src))
		for i, s := range src {
			y.Ints[i] = x.Ints[s]
		}
		return y
	}
	y.Data = make([]float32, len(src))
	for i, s := range src {
		y.Data[i] = x.Data[s]
	}
	return y
}

// axis resolves a possibly negative axis of a rank-r tensor.
func axis(a int64, r int) (int, error) {
	if a < -int64(r) || a >= int64(r) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, r)
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), nil
}

func evalConstant(n *Node, _ operands) (*Array, error) {
	if t := n.Tensor("value"); t != nil {
		return valueOf(t)
	}
	if a, ok := n.Attrs["value_float"]; ok && a.Kind == AttrFloat {
		return &Array{Shape: []int{}, Data: []float32{a.Float}}, nil
	}
	if a, ok := n.Attrs["value_floats"]; ok && a.Kind == AttrFloats {
		return &Array{Shape: []int{len(a.Floats)}, Data: slices.Clone(a.Floats)}, nil
	}
	if a, ok := n.Attrs["value_int"]; ok && a.Kind == AttrInt {
		return &Array{Shape: []int{}, Ints: []int64{a.Int}}, nil
	}
	if a, ok := n.Attrs["value_ints"]; ok && a.Kind == AttrInts {
		return &Array{Shape: []int{len(a.Ints)}, Ints: append(make([]int64, 0, len(a.Ints)), a.Ints...)}, nil
	}
	return nil, fmt.Errorf("no value, value_float(s) or value_int(s) attribute; supported: those (not sparse_value or strings)")
}

// evalShape is Shape, with opset 15's start and end (clamped, negative
// counting from the end).
func evalShape(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	r := int64(len(x.Shape))
	clamp := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := clamp(n.Int("start", 0)), clamp(n.Int("end", r))
	v := make([]int64, 0, max(end-start, 0))
	for i := start; i < end; i++ {
		v = append(v, int64(x.Shape[i]))
	}
	return &Array{Shape: []int{len(v)}, Ints: v}, nil
}

func evalGather(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	idx, err := in.get(1)
	if err != nil {
		return nil, err
	}
	if !idx.IsInt() {
		return nil, fmt.Errorf("indices %q are FLOAT, want an integer tensor", n.Inputs[1])
	}
	ax, err := axis(n.Int("axis", 0), len(x.Shape))
	if err != nil {
		return nil, err
	}
	d := x.Shape[ax]
	outer, inner := numel(x.Shape[:ax]), numel(x.Shape[ax+1:])
	shape := slices.Concat(x.Shape[:ax], idx.Shape, x.Shape[ax+1:])
	var src []int
	for o := 0; o < outer; o++ {
		for _, j := range idx.Ints {
			if j < -int64(d) || j >= int64(d) {
				return nil, fmt.Errorf("index %d out of range for axis %d of size %d", j, ax, d)
			}
			if j < 0 {
				j += int64(d)
			}
			for i := 0; i < inner; i++ {
				src = append(src, (o*d+int(j))*inner+i)
			}
		}
	}
	return pick(x, shape, src), nil
}

// seq is 0..n-1: the source indices of a copy.
func seq(n int) []int {
	checkAlloc([]int{n}, n, 8+4) // the index and the value it picks
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func evalUnsqueeze(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	axes, err := in.intsArg("axes", 1)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		return nil, fmt.Errorf("no axes (attribute before opset 13, input from 13)")
	}
	r := len(x.Shape) + len(axes)
	ones := make([]bool, r)
	for _, a := range axes {
		i, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		if ones[i] {
			return nil, fmt.Errorf("axes %v repeat axis %d", axes, i)
		}
		ones[i] = true
	}
	shape, k := make([]int, r), 0
	for i := range shape {
		if ones[i] {
			shape[i] = 1
		} else {
			shape[i], k = x.Shape[k], k+1
		}
	}
	return pick(x, shape, seq(numel(shape))), nil
}

func evalSqueeze(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	axes, err := in.intsArg("axes", 1)
	if err != nil {
		return nil, err
	}
	drop := make([]bool, len(x.Shape))
	for i, d := range x.Shape {
		drop[i] = axes == nil && d == 1 // no axes: every dim of size 1
	}
	for _, a := range axes {
		i, err := axis(a, len(x.Shape))
		if err != nil {
			return nil, err
		}
		if x.Shape[i] != 1 {
			return nil, fmt.Errorf("axis %d of shape %v has size %d, not 1", i, x.Shape, x.Shape[i])
		}
		drop[i] = true
	}
	shape := []int{}
	for i, d := range x.Shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	return pick(x, shape, seq(numel(shape))), nil
}

// evalConcat is Concat along axis, which opsets 1 to 3 let default to 1
// and later ones require.
func evalConcat(n *Node, in operands) (*Array, error) {
	def := int64(1)
	if _, ok := n.Attrs["axis"]; !ok && in.opset >= 4 {
		return nil, fmt.Errorf("no axis attribute")
	}
	var xs []*Array
	for i := range n.Inputs {
		x, err := in.get(i)
		if err != nil {
			return nil, err
		}
		if len(xs) > 0 && (len(x.Shape) != len(xs[0].Shape) || x.IsInt() != xs[0].IsInt()) {
			return nil, fmt.Errorf("input %q: rank or element type differs from the first input's", n.Inputs[i])
		}
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("no inputs")
	}
	ax, err := axis(n.Int("axis", def), len(xs[0].Shape))
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(xs[0].Shape)
	shape[ax] = 0
	for i, x := range xs {
		for d := range shape {
			if d != ax && x.Shape[d] != shape[d] {
				return nil, fmt.Errorf("input %q: shape %v does not match %v outside axis %d", n.Inputs[i], x.Shape, xs[0].Shape, ax)
			}
		}
		shape[ax] += x.Shape[ax]
	}
	// Concatenate the inputs' flat elements into one array, then pick.
	all := &Array{Shape: []int{0}}
	base := make([]int, len(xs))
	for i, x := range xs {
		base[i] = len(all.Data) + len(all.Ints)
		all.Data = append(all.Data, x.Data...)
		all.Ints = append(all.Ints, x.Ints...)
	}
	if xs[0].IsInt() && all.Ints == nil {
		all.Ints = []int64{}
	}
	outer, inner := numel(shape[:ax]), numel(shape[ax+1:])
	var src []int
	for o := 0; o < outer; o++ {
		for i, x := range xs {
			rows := x.Shape[ax] * inner
			for k := 0; k < rows; k++ {
				src = append(src, base[i]+o*rows+k)
			}
		}
	}
	return pick(all, shape, src), nil
}

// evalSlice is Slice: starts, ends, axes and steps as attributes (before
// opset 10: no steps) or inputs (from 10), out-of-range bounds clamped as
// the spec says.
func evalSlice(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	starts, err := in.intsArg("starts", 1)
	if err != nil {
		return nil, err
	}
	ends, err := in.intsArg("ends", 2)
	if err != nil {
		return nil, err
	}
	axes, err := in.intsArg("axes", 3)
	if err != nil {
		return nil, err
	}
	steps, err := in.intsArg("steps", 4)
	if err != nil {
		return nil, err
	}
	if starts == nil || len(starts) != len(ends) {
		return nil, fmt.Errorf("starts %v and ends %v: want one of each per sliced axis", starts, ends)
	}
	if axes == nil {
		axes = make([]int64, len(starts))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	if steps == nil {
		steps = slices.Repeat([]int64{1}, len(starts))
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, fmt.Errorf("axes %v and steps %v: want one per start (%d)", axes, steps, len(starts))
	}
	r := len(x.Shape)
	first, step, shape := make([]int, r), slices.Repeat([]int{1}, r), slices.Clone(x.Shape)
	seen := make([]bool, r)
	for i, a := range axes {
		ax, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		if seen[ax] {
			return nil, fmt.Errorf("axes %v repeat axis %d", axes, ax)
		}
		seen[ax] = true
		d := int64(x.Shape[ax])
		s, e, st := starts[i], ends[i], steps[i]
		if st == 0 {
			return nil, fmt.Errorf("step 0 on axis %d", ax)
		}
		if s < 0 {
			s += d
		}
		if e < 0 {
			e += d
		}
		if st > 0 {
			s, e = min(max(s, 0), d), min(max(e, 0), d)
		} else {
			s, e = min(max(s, 0), d-1), min(max(e, -1), d-1)
		}
		count := int64(0)
		if st > 0 && e > s {
			count = (e - s + st - 1) / st
		} else if st < 0 && s > e {
			count = (s - e - st - 1) / -st
		}
		first[ax], step[ax], shape[ax] = int(s), int(st), int(count)
	}
	src := make([]int, 0, numel(shape))
	idx := make([]int, r)
	for range numel(shape) {
		f := 0
		for d := 0; d < r; d++ {
			f = f*x.Shape[d] + first[d] + idx[d]*step[d]
		}
		src = append(src, f)
		next(idx, shape)
	}
	return pick(x, shape, src), nil
}

// castTypes are the element types Cast converts to.
var castTypes = []DType{Float32, Int64, Int32, Int8, Uint8}

// evalCast is Cast to FLOAT or an integer type: float to integer truncates
// toward zero, as C and numpy do, and wraps to the type's width; integer
// to float rounds to the nearest float32.
func evalCast(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	to := DType(n.Int("to", 0))
	if name := n.Str("to", ""); name != "" { // Cast-1 names the type
		to = DType(onnxpb.TensorProto_DataType_value[name])
	}
	if !slices.Contains(castTypes, to) {
		names := make([]string, len(castTypes))
		for i, t := range castTypes {
			names[i] = t.String()
		}
		return nil, fmt.Errorf("to = %s not supported; supported: %s", to, strings.Join(names, ", "))
	}
	y := &Array{Shape: slices.Clone(x.Shape)}
	if to == Float32 {
		y.Data = slices.Clone(x.Data)
		if x.IsInt() {
			y.Data = make([]float32, len(x.Ints))
			for i, v := range x.Ints {
				y.Data[i] = float32(v)
			}
		}
		return y, nil
	}
	y.Ints = make([]int64, 0, numel(x.Shape))
	for i := range numel(x.Shape) {
		var v int64
		if x.IsInt() {
			v = x.Ints[i]
		} else {
			f := math.Trunc(float64(x.Data[i]))
			if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
				return nil, fmt.Errorf("element %d = %v does not fit %s", i, x.Data[i], to)
			}
			v = int64(f)
		}
		switch to {
		case Int32:
			v = int64(int32(v))
		case Int8:
			v = int64(int8(v))
		case Uint8:
			v = int64(uint8(v))
		}
		y.Ints = append(y.Ints, v)
	}
	return y, nil
}

// evalTranspose is Transpose by perm (default: the dims reversed).
func evalTranspose(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	r := len(x.Shape)
	perm := n.Ints("perm", nil)
	if perm == nil {
		for i := r - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if err := checkPerm(perm, r); err != nil {
		return nil, err
	}
	shape := make([]int, r)
	for i, p := range perm {
		shape[i] = x.Shape[p]
	}
	// stride[d] is the flat step of x's dim d.
	stride := make([]int, r)
	for d, s := r-1, 1; d >= 0; d-- {
		stride[d], s = s, s*x.Shape[d]
	}
	src := make([]int, 0, numel(shape))
	idx := make([]int, r)
	for range numel(shape) {
		f := 0
		for i, p := range perm {
			f += idx[i] * stride[p]
		}
		src = append(src, f)
		next(idx, shape)
	}
	return pick(x, shape, src), nil
}

// checkPerm reports a perm that is not a permutation of 0..r-1.
func checkPerm(perm []int64, r int) error {
	seen := make([]bool, r)
	for _, p := range perm {
		if len(perm) != r || p < 0 || p >= int64(r) || seen[p] {
			return fmt.Errorf("perm %v is not a permutation of the %d dims", perm, r)
		}
		seen[p] = true
	}
	if len(perm) != r {
		return fmt.Errorf("perm %v is not a permutation of the %d dims", perm, r)
	}
	return nil
}
