package onnx

import (
	"fmt"
	"math"
	"slices"
)

// This file holds the float executor's elementwise ops: the arithmetic
// (Add, Sub, Mul, Div, Sum) with numpy broadcasting and its older
// broadcast/axis form, and the activations.

// evalArith is Add, Sub, Mul or Div, f applied with numpy broadcasting
// (opset 7 on) or with the broadcast and axis attributes of opsets 1 to 6.
func evalArith(f func(x, y float32) float32) opFunc {
	return func(n *Node, in operands) (*Array, error) {
		a, b, err := in.float2()
		if err != nil {
			return nil, err
		}
		if in.opset < 7 {
			if b, err = legacyBroadcast(n, a, b); err != nil {
				return nil, err
			}
		}
		return broadcast(a, b, f)
	}
}

// legacyBroadcast is the second operand of an opset 1-6 Add, Sub, Mul or
// Div as a numpy-broadcastable array: without broadcast 1 the two shapes
// must be equal; with it, B's shape matches the dims of A from axis on
// (default: A's trailing dims), so B gets size-1 dims around it. A
// one-element B is a scalar either way.
func legacyBroadcast(n *Node, a, b *Array) (*Array, error) {
	if n.Int("broadcast", 0) == 0 {
		if !slices.Equal(a.Shape, b.Shape) {
			return nil, fmt.Errorf("shapes %v and %v differ and broadcast is 0 (before opset 7 the shapes must be equal, or broadcast 1)", a.Shape, b.Shape)
		}
		return b, nil
	}
	if len(b.Data) == 1 {
		return &Array{Shape: []int{}, Data: b.Data}, nil
	}
	ra, rb := len(a.Shape), len(b.Shape)
	ax := int64(ra - rb)
	if _, ok := n.Attrs["axis"]; ok {
		ax = n.Int("axis", 0)
		if ax < 0 {
			ax += int64(ra)
		}
	}
	if ax < 0 || int(ax)+rb > ra {
		return nil, fmt.Errorf("broadcast axis %d: B's shape %v does not fit A's %v there", n.Int("axis", 0), b.Shape, a.Shape)
	}
	shape := slices.Repeat([]int{1}, ra)
	for i, d := range b.Shape {
		if d != a.Shape[int(ax)+i] {
			return nil, fmt.Errorf("broadcast axis %d: B's shape %v does not match A's %v from there", ax, b.Shape, a.Shape)
		}
		shape[int(ax)+i] = d
	}
	return &Array{Shape: shape, Data: b.Data}, nil
}

// evalSum is Sum: the elementwise sum of one or more inputs, with numpy
// broadcasting (before opset 8 the inputs have one shape, a case of it).
func evalSum(n *Node, in operands) (*Array, error) {
	y, err := in.float(0)
	if err != nil {
		return nil, err
	}
	y = &Array{Shape: y.Shape, Data: slices.Clone(y.Data)}
	for i := 1; i < len(n.Inputs); i++ {
		b, err := in.float(i)
		if err != nil {
			return nil, err
		}
		if y, err = add(y, b); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// unary32 is an evaluator applying f, exact in float32, to every element
// of input 0.
func unary32(f func(v float32) float32) opFunc {
	return func(n *Node, in operands) (*Array, error) {
		x, err := in.float(0)
		if err != nil {
			return nil, err
		}
		y := NewArray(x.Shape...)
		for i, v := range x.Data {
			y.Data[i] = f(v)
		}
		return y, nil
	}
}

// withAttrs is an evaluator applying f(v, alpha, beta) to every element,
// alpha and beta the node's FLOAT attributes of those names (defaults
// da, db); f computes in float64, rounded once.
func withAttrs(alpha, beta string, da, db float32, f func(v, a, b float64) float64) opFunc {
	return func(n *Node, in operands) (*Array, error) {
		a, b := float64(n.Float(alpha, da)), float64(n.Float(beta, db))
		return unary(func(v float64) float64 { return f(v, a, b) })(n, in)
	}
}

// The activations with attributes, after the ONNX spec's formulas and
// defaults.
var (
	// HardSigmoid: max(0, min(1, alpha·x + beta)).
	evalHardSigmoid = withAttrs("alpha", "beta", 0.2, 0.5, func(v, a, b float64) float64 {
		return max(0, min(1, a*v+b))
	})
	// Elu: x, or alpha·(eˣ − 1) below 0.
	evalElu = withAttrs("alpha", "", 1, 0, func(v, a, _ float64) float64 {
		if v < 0 {
			return a * math.Expm1(v)
		}
		return v
	})
	// LeakyRelu: x, or alpha·x below 0.
	evalLeakyRelu = withAttrs("alpha", "", 0.01, 0, func(v, a, _ float64) float64 {
		if v < 0 {
			return a * v
		}
		return v
	})
)

// evalPRelu is PRelu: x, or slope·x below 0, the slope broadcast to x
// (numpy, unidirectional, from opset 7). Before 7 a slope of C values
// is one per channel (axis 1).
func evalPRelu(n *Node, in operands) (*Array, error) {
	x, slope, err := in.float2()
	if err != nil {
		return nil, err
	}
	if in.opset < 7 && len(slope.Data) > 1 && len(x.Shape) > 2 {
		if len(slope.Data) != x.Shape[1] {
			return nil, fmt.Errorf("slope shape %v: want one value or one per channel (%d) before opset 7", slope.Shape, x.Shape[1])
		}
		slope = &Array{Shape: append([]int{x.Shape[1]}, slices.Repeat([]int{1}, len(x.Shape)-2)...), Data: slope.Data}
	}
	if s, err := broadcastShape(x.Shape, slope.Shape); err != nil || !slices.Equal(s, x.Shape) {
		return nil, fmt.Errorf("slope shape %v does not broadcast to the input's %v", slope.Shape, x.Shape)
	}
	return broadcast(x, slope, func(v, s float32) float32 {
		if v < 0 {
			return s * v
		}
		return v
	})
}
