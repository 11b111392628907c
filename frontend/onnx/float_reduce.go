package onnx

import (
	"fmt"
	"math"
)

// This file holds the float evaluators of the reductions (ReduceSum,
// ReduceMean), the elementwise Sqrt and Reciprocal, and Min.

// ReduceAxes resolves which axes of a rank-r value a ReduceSum or
// ReduceMean node n reduces. The axes come from the axes input when
// hasInput (ReduceSum since opset 13, ReduceMean since 18; input holds
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

// evalReduce is ReduceSum (mean false) or ReduceMean, summed in float64.
func evalReduce(mean bool) opFunc {
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
		kept := ReducedShape(x.Shape, mask, true) // the sums' index space
		sums := make([]float64, numel(kept))
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
			sums[o] += float64(v)
			next(idx, x.Shape)
		}
		y := NewArray(ReducedShape(x.Shape, mask, keep)...)
		for i, s := range sums {
			if mean {
				s /= float64(count)
			}
			y.Data[i] = float32(s)
		}
		return y, nil
	}
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
			if p != p || p < q {
				return p
			}
			return q
		}); err != nil {
			return nil, err
		}
	}
	return y, nil
}
