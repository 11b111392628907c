package onnx

import (
	"fmt"
	"slices"
)

// flatten is ONNX Flatten: dims before axis become rows, the rest columns.
func flatten(x *Array, axis int) (*Array, error) {
	if axis < 0 {
		axis += len(x.Shape)
	}
	if axis < 0 || axis > len(x.Shape) {
		return nil, fmt.Errorf("axis %d out of range for rank %d", axis, len(x.Shape))
	}
	return &Array{Shape: []int{numel(x.Shape[:axis]), numel(x.Shape[axis:])}, Data: x.Data, Ints: x.Ints}, nil
}

// ReshapeDims resolves a Reshape target for a tensor of shape in: 0 copies
// the input's dim at that index, -1 takes what is left.
func ReshapeDims(in []int, shape []int64) ([]int, error) {
	out := make([]int, len(shape))
	infer := -1
	known := 1
	for i, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = i
			continue
		case s == 0 && i < len(in):
			out[i] = in[i]
		case s > 0:
			out[i] = int(s)
		default:
			return nil, fmt.Errorf("reshape %v: bad dim %d at %d", shape, s, i)
		}
		known *= out[i]
	}
	n := numel(in)
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("reshape %v of %v: -1 cannot be inferred", shape, in)
		}
		out[infer] = n / known
	} else if known != n {
		return nil, fmt.Errorf("reshape %v of %v: %d elements, want %d", shape, in, known, n)
	}
	return out, nil
}

func reshape(x *Array, shape []int64) (*Array, error) {
	dims, err := ReshapeDims(x.Shape, shape)
	if err != nil {
		return nil, err
	}
	return &Array{Shape: dims, Data: x.Data, Ints: x.Ints}, nil
}

// add is elementwise addition with multidirectional (numpy) broadcasting.
func add(a, b *Array) (*Array, error) {
	return broadcast(a, b, func(x, y float32) float32 { return x + y })
}

// broadcast applies f to a and b element by element with multidirectional
// (numpy) broadcasting. The innermost dim runs as a plain loop with a
// stride of 0 or 1 per operand, the rest by a multi-index, so a large
// feature map costs one function call per element and no index
// arithmetic.
func broadcast(a, b *Array, f func(x, y float32) float32) (*Array, error) {
	out, err := broadcastShape(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	y := NewArray(out...)
	if slices.Equal(a.Shape, b.Shape) {
		for i := range y.Data {
			y.Data[i] = f(a.Data[i], b.Data[i])
		}
		return y, nil
	}
	rank := len(out)
	sa, sb := bcastStrides(a.Shape, out), bcastStrides(b.Shape, out)
	inner, ia, ib := 1, 0, 0
	if rank > 0 {
		inner, ia, ib = out[rank-1], sa[rank-1], sb[rank-1]
	}
	idx := make([]int, max(rank-1, 0))
	for o := 0; o < len(y.Data); o += inner {
		pa, pb := 0, 0
		for d, i := range idx {
			pa += i * sa[d]
			pb += i * sb[d]
		}
		row := y.Data[o : o+inner]
		for i := range row {
			row[i] = f(a.Data[pa+i*ia], b.Data[pb+i*ib])
		}
		if rank > 1 {
			next(idx, out[:rank-1])
		}
	}
	return y, nil
}

// broadcastShape is the numpy broadcast of two shapes.
func broadcastShape(x, y []int) ([]int, error) {
	rank := max(len(x), len(y))
	px, py := padRank(x, rank), padRank(y, rank)
	out := make([]int, rank)
	for i := range out {
		switch {
		case px[i] == py[i] || py[i] == 1:
			out[i] = px[i]
		case px[i] == 1:
			out[i] = py[i]
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", x, y)
		}
	}
	return out, nil
}

// bcastStrides are the flat strides of a tensor of shape broadcast to
// out: 0 along the dims it repeats.
func bcastStrides(shape, out []int) []int {
	p := padRank(shape, len(out))
	st := make([]int, len(out))
	for d, s := len(out)-1, 1; d >= 0; d-- {
		if p[d] != 1 {
			st[d] = s
		}
		s *= p[d]
	}
	return st
}

func padRank(shape []int, rank int) []int {
	p := slices.Repeat([]int{1}, rank-len(shape))
	return append(p, shape...)
}

// bcastIndex is the flat index into a tensor of shape (rank-padded) at
// idx, with size-1 dims repeating.
func bcastIndex(idx, shape []int) int {
	f := 0
	for i, d := range shape {
		f *= d
		if d != 1 {
			f += idx[i]
		}
	}
	return f
}

// next advances a row-major multi-index.
func next(idx, shape []int) {
	for i := len(idx) - 1; i >= 0; i-- {
		if idx[i]++; idx[i] < shape[i] {
			return
		}
		idx[i] = 0
	}
}

func evalFlatten(n *Node, in operands) (*Array, error) {
	x, err := in.get(0)
	if err != nil {
		return nil, err
	}
	return flatten(x, int(n.Int("axis", 1)))
}

func evalMatMul(n *Node, in operands) (*Array, error) {
	x, y, err := in.float2()
	if err != nil {
		return nil, err
	}
	return matMul(x, y)
}

// matMul is numpy's matmul: a 1-D operand is a row (first) or a column
// (second) vector whose added dim is dropped again, and the dims before
// the last two broadcast. Sums in float64.
func matMul(a, b *Array) (*Array, error) {
	as, bs := a.Shape, b.Shape
	if len(as) == 0 || len(bs) == 0 {
		return nil, fmt.Errorf("shapes %v and %v: MatMul takes no scalars", as, bs)
	}
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	m, k, kb, nn := as[len(as)-2], as[len(as)-1], bs[len(bs)-2], bs[len(bs)-1]
	if k != kb {
		return nil, fmt.Errorf("shapes %v and %v: inner sizes %d and %d differ", a.Shape, b.Shape, k, kb)
	}
	batch, err := broadcastShape(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return nil, err
	}
	sa, sb := bcastStrides(as[:len(as)-2], batch), bcastStrides(bs[:len(bs)-2], batch)
	y := NewArray(append(slices.Clone(batch), m, nn)...)
	idx := make([]int, len(batch))
	acc := make([]float64, nn)
	for p := range numel(batch) {
		pa, pb := 0, 0
		for d, i := range idx {
			pa, pb = pa+i*sa[d], pb+i*sb[d]
		}
		A, B := a.Data[pa*m*k:(pa+1)*m*k], b.Data[pb*k*nn:(pb+1)*k*nn]
		for i := range m {
			clear(acc)
			for l, av := range A[i*k : (i+1)*k] {
				for j, bv := range B[l*nn : (l+1)*nn] {
					acc[j] += float64(av) * float64(bv)
				}
			}
			for j, s := range acc {
				y.Data[(p*m+i)*nn+j] = float32(s)
			}
		}
		next(idx, batch)
	}
	// Drop the dims a 1-D operand added.
	shape := slices.Clone(batch)
	if len(a.Shape) > 1 {
		shape = append(shape, m)
	}
	if len(b.Shape) > 1 {
		shape = append(shape, nn)
	}
	y.Shape = shape
	return y, nil
}
