package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers a model of batch N > 1 (inputs [N,C,H,W], [N,C,L] or
// [N,K]) image by image: calibration runs the float executor on the
// whole batch (one scale per tensor over every image), and the net is
// the one image's, every value [1,...]: Graph and GraphOf take one image
// (Net.Images splits a batch), Dequantize gives one image's output
// (Net.Stack joins them); the program runs the images one after another
// (compiler.Batch runs them in one program). That is the model's own
// computation only when no node mixes the images: every value computed
// from the inputs must keep the batch as its first axis, and no op may
// work along it (an axis 0 of Concat, Split, Softmax, a reduction, a
// Transpose moving it); anything else is refused.

// perImage finds the batch N (the first input's first axis when it has
// two axes or more) and, for N > 1, checks that every value computed
// from the inputs has N as its first axis and views it as one image's.
func (l *lowering) perImage() error {
	x := l.first[l.g.Inputs[0].Name].Shape
	l.net.batch = 1
	if len(x) < 2 || x[0] == 1 {
		return nil
	}
	n := x[0]
	l.net.batch = n
	for name, s := range l.shapes {
		if _, c := l.consts[name]; c {
			continue
		}
		if _, c := l.ints[name]; c {
			continue
		}
		if len(s) < 2 || s[0] != n {
			return fmt.Errorf("lower: batch %d: value %q has shape %v: supported: every value computed from the inputs of shape [N,...], each image on its own", n, name, s)
		}
		l.shapes[name] = append([]int{1}, s[1:]...)
	}
	return nil
}

// imageShape is the ONNX shape of value name for one image: batch 1.
func (l *lowering) imageShape(name string) []int {
	s := slices.Clone(l.first[name].Shape)
	if l.net.batch > 1 {
		s[0] = 1
	}
	return s
}

// batchAxis refuses a node that works along the batch axis.
func (l *lowering) batchAxis(n *onnx.Node) error {
	if l.net.batch == 1 {
		return nil
	}
	rank := len(l.first[n.Inputs[0]].Shape)
	zero := func(a int64) bool { return a == 0 || a == int64(-rank) }
	if a, ok := n.Attrs["axis"]; ok && a.Kind == onnx.AttrInt && zero(a.Int) {
		return fmt.Errorf("axis %d of a %v value with batch %d: supported: an axis other than the batch's", a.Int, l.first[n.Inputs[0]].Shape, l.net.batch)
	}
	axes := n.Ints("axes", nil)
	if len(n.Inputs) > 1 && n.OpType != "Split" {
		axes = append(axes, l.ints[n.Inputs[1]]...)
	}
	if n.OpType != "Pad" && n.OpType != "Reshape" && slices.ContainsFunc(axes, zero) {
		return fmt.Errorf("axes %v with batch %d: supported: axes other than the batch's (0)", axes, l.net.batch)
	}
	if p := n.Ints("perm", nil); n.OpType == "Transpose" && len(p) > 0 && p[0] != 0 {
		return fmt.Errorf("perm %v with batch %d: supported: the batch's axis kept first", p, l.net.batch)
	}
	return nil
}

// Batch is the number of images the model takes at once (its inputs'
// first axis; 1 for a model of one image): Graph, GraphOf, InputShape
// and Dequantize are one image's.
func (n *Net) Batch() int { return n.batch }

// Images splits a batch of inputs (each [N,...], by name) into N sets of
// one image each ([1,...]), for GraphOf.
func (n *Net) Images(xs map[string]*onnx.Array) ([]map[string]*onnx.Array, error) {
	sets := make([]map[string]*onnx.Array, n.batch)
	for k := range sets {
		sets[k] = map[string]*onnx.Array{}
	}
	for _, in := range n.ins {
		x, ok := xs[in.name]
		if !ok {
			return nil, fmt.Errorf("lower: no value for input %q", in.name)
		}
		want := append([]int{n.batch}, in.dims[1:]...)
		if !slices.Equal(x.Shape, want) {
			return nil, fmt.Errorf("lower: input %q: shape %v, want the batch %v", in.name, x.Shape, want)
		}
		size := len(x.Data) / n.batch
		for k := range sets {
			sets[k][in.name] = &onnx.Array{Shape: slices.Clone(in.dims), Data: slices.Clone(x.Data[k*size : (k+1)*size])}
		}
	}
	return sets, nil
}

// Stack joins the images' dequantized outputs (Dequantize's, in order)
// into the batch's output [N,...].
func (n *Net) Stack(ys []*onnx.Array) (*onnx.Array, error) {
	if len(ys) != n.batch {
		return nil, fmt.Errorf("lower: %d outputs, want one per image of the batch of %d", len(ys), n.batch)
	}
	out := &onnx.Array{Shape: append([]int{n.batch}, n.outShape[1:]...)}
	for _, y := range ys {
		if !slices.Equal(y.Shape, n.outShape) {
			return nil, fmt.Errorf("lower: an image's output has shape %v, want %v", y.Shape, n.outShape)
		}
		out.Data = append(out.Data, y.Data...)
	}
	return out, nil
}

// StackValues joins the images' lowered values (one map per image, in
// order, as compiler.Graph.ReferenceOf returns them for GraphValuesOf)
// into the batch's: each value the images' elements one after another,
// the order of the ONNX value [N,...], so that Quality measures the
// batch against the float executor's values of the whole batch. A value
// missing from an image is left out.
func (n *Net) StackValues(images []map[string]*golden.Tensor) map[string]*golden.Tensor {
	out := map[string]*golden.Tensor{}
	if len(images) == 0 {
		return out
	}
	for name, t := range images[0] {
		s := &golden.Tensor{Shape: append([]int{len(images)}, t.Shape...)}
		for _, im := range images {
			v, ok := im[name]
			if !ok || len(v.Data) != len(t.Data) {
				s = nil
				break
			}
			s.Data = append(s.Data, v.Data...)
		}
		if s != nil {
			out[name] = s
		}
	}
	return out
}

// dequantizeAll is Dequantize of one image's output or of several
// images' outputs one after another (StackValues'), joined.
func (n *Net) dequantizeAll(t *golden.Tensor) (*onnx.Array, error) {
	size := len(onnx.NewArray(n.outShape...).Data)
	if len(n.outShape) == 0 || size == 0 || len(t.Data) <= size || len(t.Data)%size != 0 {
		return n.Dequantize(t)
	}
	var ys []*onnx.Array
	for k := 0; k < len(t.Data); k += size {
		y, err := n.Dequantize(&golden.Tensor{Shape: []int{size}, Data: t.Data[k : k+size]})
		if err != nil {
			return nil, err
		}
		ys = append(ys, y)
	}
	out := &onnx.Array{Shape: append([]int{len(ys) * n.outShape[0]}, n.outShape[1:]...)}
	for _, y := range ys {
		out.Data = append(out.Data, y.Data...)
	}
	return out, nil
}
