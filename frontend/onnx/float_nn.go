package onnx

import (
	"fmt"
	"math"
)

// This file holds the float ops beyond mnist-7's that compute: Gemm, Clip
// and the global average pool, each after the ONNX operator spec.

// evalGemm is Y = alpha·A'·B' + beta·C with A' = A or Aᵀ (transA), B' = B
// or Bᵀ (transB), C optional and broadcast to Y's [M,N] (unidirectionally:
// [N], [1,N], [M,1], [M,N] or a scalar). Sums in float64, one rounding to
// float32 at the end.
func evalGemm(n *Node, in operands) (*Array, error) {
	a, b, err := in.float2()
	if err != nil {
		return nil, err
	}
	c, err := in.optFloat(2)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 2 || len(b.Shape) != 2 {
		return nil, fmt.Errorf("shapes %v and %v: A and B must be matrices", a.Shape, b.Shape)
	}
	ta, tb := n.Int("transA", 0) != 0, n.Int("transB", 0) != 0
	alpha, beta := float64(n.Float("alpha", 1)), float64(n.Float("beta", 1))
	m, k := a.Shape[0], a.Shape[1]
	if ta {
		m, k = k, m
	}
	kb, nn := b.Shape[0], b.Shape[1]
	if tb {
		kb, nn = nn, kb
	}
	if kb != k {
		return nil, fmt.Errorf("A %v (transA %v) and B %v (transB %v): inner sizes %d and %d differ", a.Shape, ta, b.Shape, tb, k, kb)
	}
	var cPad []int
	if c != nil {
		if len(c.Shape) > 2 {
			return nil, fmt.Errorf("C shape %v does not broadcast to [%d %d]", c.Shape, m, nn)
		}
		cPad = padRank(c.Shape, 2)
		if (cPad[0] != 1 && cPad[0] != m) || (cPad[1] != 1 && cPad[1] != nn) {
			return nil, fmt.Errorf("C shape %v does not broadcast to [%d %d]", c.Shape, m, nn)
		}
	}
	// Aᵀ and B (not transposed) are copied into rows of K so that every
	// output is a dot product of two contiguous rows.
	ar, br := rowsOf(a.Data, a.Shape[0], a.Shape[1], ta), rowsOf(b.Data, b.Shape[0], b.Shape[1], !tb)
	y := NewArray(m, nn)
	parallel(m*nn, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			i, j := o/nn, o%nn
			var s float64
			for l, v := range ar[i*k : (i+1)*k] {
				s += float64(v) * float64(br[j*k+l])
			}
			s *= alpha
			if c != nil {
				s += beta * float64(c.Data[bcastIndex([]int{i, j}, cPad)])
			}
			y.Data[o] = float32(s)
		}
	})
	return y, nil
}

// rowsOf is the r×c matrix v (row-major) as rows, transposed first when
// trans, so that it is then c×r.
func rowsOf(v []float32, r, c int, trans bool) []float32 {
	if !trans {
		return v
	}
	t := make([]float32, len(v))
	for i := range r {
		for j := range c {
			t[j*r+i] = v[i*c+j]
		}
	}
	return t
}

// ClipBounds are a Clip node's bounds: the min and max inputs (opset 11
// on, each optional, a one-element tensor) when given, else the min and
// max attributes (before 11); −Inf and +Inf when absent. in reads the
// inputs; the lowering passes the constants it knows.
func ClipBounds(n *Node, input func(i int) (*Array, error)) (lo, hi float32, err error) {
	lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
	lo, hi = n.Float("min", lo), n.Float("max", hi)
	for i, p := range []*float32{&lo, &hi} {
		if i+1 >= len(n.Inputs) || n.Inputs[i+1] == "" {
			continue
		}
		v, err := input(i + 1)
		if err != nil {
			return 0, 0, err
		}
		if v.IsInt() || len(v.Data) != 1 {
			return 0, 0, fmt.Errorf("bound %q: want a FLOAT scalar, got shape %v", n.Inputs[i+1], v.Shape)
		}
		*p = v.Data[0]
	}
	return lo, hi, nil
}

// evalClip is Clip: min(max(x, lo), hi); with lo > hi every element is hi,
// as the spec says.
func evalClip(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	lo, hi, err := ClipBounds(n, in.get)
	if err != nil {
		return nil, err
	}
	y := NewArray(x.Shape...)
	for i, v := range x.Data {
		y.Data[i] = min(max(v, lo), hi)
	}
	return y, nil
}

// evalGlobalAveragePool is the mean of every [N,C,...] channel over its
// spatial dims, which become 1.
func evalGlobalAveragePool(n *Node, in operands) (*Array, error) {
	return globalPool(in, func(plane []float32) float32 {
		var s float64
		for _, v := range plane {
			s += float64(v)
		}
		return float32(s / float64(len(plane)))
	})
}

// globalPool folds every [N,C,...] channel of input 0 over its spatial
// dims, which become 1.
func globalPool(in operands, fold func(plane []float32) float32) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) < 3 {
		return nil, fmt.Errorf("shape %v: want [N,C,D1,...] with at least one spatial dim", x.Shape)
	}
	shape := []int{x.Shape[0], x.Shape[1]}
	for range x.Shape[2:] {
		shape = append(shape, 1)
	}
	y := NewArray(shape...)
	plane := numel(x.Shape[2:])
	for p := range y.Data {
		y.Data[p] = fold(x.Data[p*plane : (p+1)*plane])
	}
	return y, nil
}
