package onnx

import (
	"fmt"
	"math"
)

// This file holds the float evaluators of the reductions (ReduceSum,
// ReduceMean, ReduceMax), GlobalMaxPool, the elementwise Sqrt and
// Reciprocal, and Min and Max.

// ReduceAxes resolves which axes of a rank-r value a ReduceSum,
// ReduceMean or ReduceMax node n reduces. The axes come from the axes
// input when hasInput (ReduceSum since opset 13, ReduceMean and ReduceMax
// since 18; input holds
// its values), else from the axes attribute. No axes (absent or empty)
// means every axis, or none when noop_with_empty_axes is 1. Negative
// axes count from the end.
func ReduceAxes(n *Node, input []int64, hasInput bool, r int) ([]bool, error) {
	axes := input
	if !hasInput {
		axes = n.Ints("axes", nil)
	}
	mask := make([]bool, r)
	if len(axes) == 0 {
		noop := n.Int("noop_with_empty_axes", 0)
		if noop != 0 && noop != 1 {
			return nil, fmt.Errorf("noop_with_empty_axes %d: want 0 or 1", noop)
		}
		for i := range mask {
			mask[i] = noop == 0
		}
		return mask, nil
	}
	for _, a := range axes {
		i, err := axis(a, r)
		if err != nil {
			return nil, fmt.Errorf("axes %v: %w", axes, err)
		}
		if mask[i] {
			return nil, fmt.Errorf("axes %v: axis %d is given twice", axes, i)
		}
		mask[i] = true
	}
	return mask, nil
}

// KeepDims is a reduction's keepdims attribute (default 1), which must be
// 0 or 1.
func KeepDims(n *Node) (bool, error) {
	k := n.Int("keepdims", 1)
	if k != 0 && k != 1 {
		return false, fmt.Errorf("keepdims %d: want 0 or 1", k)
	}
	return k == 1, nil
}

// ReducedShape is the shape of a reduction of shape over mask: a reduced
// axis becomes 1 (keep) or is dropped.
func ReducedShape(shape []int, mask []bool, keep bool) []int {
	out := []int{}
	for i, d := range shape {
		switch {
		case !mask[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

// reduceKind is how a float reduction combines its values.
type reduceKind int

const (
	reduceSum  reduceKind = iota // ReduceSum
	reduceMean                   // ReduceMean: the sum over the count
	reduceMax                    // ReduceMax: NaN if any value is NaN
)

// evalReduce is ReduceSum, ReduceMean (both summed in float64) or
// ReduceMax.
func evalReduce(kind reduceKind) opFunc {
	return func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		var axes []int64
		if in.given(1) {
			if axes, err = in.ints(1); err != nil {
				return nil, err
			}
		}
		mask, err := ReduceAxes(n, axes, in.given(1), len(x.Shape))
		if err != nil {
			return nil, err
		}
		keep, err := KeepDims(n)
		if err != nil {
			return nil, err
		}
		kept := ReducedShape(x.Shape, mask, true) // the results' index space
		acc := make([]float64, numel(kept))
		if kind == reduceMax {
			for i := range acc {
				acc[i] = math.Inf(-1) // the max of no values, as ONNX
			}
		}
		idx := make([]int, len(x.Shape))
		count := 1
		for i, d := range x.Shape {
			if mask[i] {
				count *= d
			}
		}
		for _, v := range x.Data {
			o := 0
			for i, d := range kept {
				o *= d
				if !mask[i] {
					o += idx[i]
				}
			}
			switch f := float64(v); {
			case kind != reduceMax:
				acc[o] += f
			case f != f || f > acc[o]:
				if acc[o] == acc[o] { // a NaN stays
					acc[o] = f
				}
			}
			next(idx, x.Shape)
		}
		y := NewArray(ReducedShape(x.Shape, mask, keep)...)
		for i, s := range acc {
			if kind == reduceMean {
				s /= float64(count)
			}
			y.Data[i] = float32(s)
		}
		return y, nil
	}
}

// evalGlobalMaxPool is the maximum of every [N,C,...] channel over its
// spatial dims, which become 1 (NaN if the channel holds one).
func evalGlobalMaxPool(n *Node, in operands) (*Array, error) {
	return globalPool(in, func(plane []float32) float32 {
		m := float32(math.Inf(-1))
		for _, v := range plane {
			if v != v {
				return v
			}
			m = max(m, v)
		}
		return m
	})
}

// unary is an evaluator applying f to every element of input 0.
func unary(f func(v float64) float64) opFunc {
	return func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		y := NewArray(x.Shape...)
		for i, v := range x.Data {
			y.Data[i] = float32(f(float64(v)))
		}
		return y, nil
	}
}

// evalSqrt is ONNX Sqrt (NaN for a negative element), evalReciprocal
// ONNX Reciprocal (±Inf for a zero).
var (
	evalSqrt       = unary(math.Sqrt)
	evalReciprocal = unary(func(v float64) float64 { return 1 / v })
)

// evalMin is ONNX Min: the elementwise minimum of one or more inputs,
// with multidirectional broadcasting; a NaN operand gives NaN.
func evalMin(n *Node, in operands) (*Array, error) {
	return extremum(n, in, func(p, q float32) bool { return p < q })
}

// evalMax is ONNX Max: the elementwise maximum of one or more inputs,
// with multidirectional broadcasting; a NaN operand gives NaN.
func evalMax(n *Node, in operands) (*Array, error) {
	return extremum(n, in, func(p, q float32) bool { return p > q })
}

// extremum folds the inputs of n with broadcasting, keeping p over q
// when first(p, q) or p is NaN.
func extremum(n *Node, in operands, first func(p, q float32) bool) (*Array, error) {
	y, err := in.float(0)
	if err != nil {
		return nil, err
	}
	y = &Array{Shape: y.Shape, Data: y.Data}
	for i := 1; i < len(n.Inputs); i++ {
		b, err := in.float(i)
		if err != nil {
			return nil, err
		}
		if y, err = broadcast(y, b, func(p, q float32) float32 {
			if p != p || first(p, q) {
				return p
			}
			return q
		}); err != nil {
			return nil, err
		}
	}
	return y, nil
}
