package lower

import (
	"maps"
	"slices"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// This file maps 1-D feature maps ([1,C,L], PyTorch's Conv1d, MaxPool1d,
// AvgPool1d, BatchNorm1d) onto the NPU's planes: every [1,C,L] value is
// a [1,C,1,L] map (H = 1), and a 1-D window of kernel k, stride s, pads
// (b, e) and dilation d is the 2-D window 1×k with strides s×s (the
// stride along an axis of one row and a window of one row changes
// nothing: one output row either way, and the planar engine wants equal
// strides), pads (0, b, 0, e) and dilations 1×d. The float executor keeps
// the ONNX shapes; the graph's input and output keep theirs
// (Net.InputShape, Net.OutputShape). Likewise a vector [N] is the row
// [1,N] that Gemm and MatMul read and give (asRow).

// as2D views every [1,C,L] value of shapes as [1,C,1,L].
func as2D(shapes map[string][]int) {
	for name, s := range shapes {
		if len(s) == 3 && s[0] == 1 {
			shapes[name] = []int{1, s[1], 1, s[2]}
		}
	}
}

// asRow views every [N] value of shapes as the row [1,N] (a graph input
// of an MLP, a MatMul's result of a vector).
func asRow(shapes map[string][]int) {
	for name, s := range shapes {
		if len(s) == 1 {
			shapes[name] = []int{1, s[0]}
		}
	}
}

// oneD reports whether n's data input is a [1,C,L] value (its ONNX
// shape, from calibration).
func (l *lowering) oneD(n *onnx.Node) bool {
	a, ok := l.first[n.Inputs[0]]
	return ok && len(a.Shape) == 3
}

// window2D is the node n with its 1-D window attributes written as the
// 2-D ones of a 1×k window (n unchanged when they are not 1-D).
func window2D(n *onnx.Node) *onnx.Node {
	c := *n
	c.Attrs = maps.Clone(n.Attrs)
	for name, a := range n.Attrs {
		v := a.Ints
		if a.Kind != onnx.AttrInts {
			continue
		}
		switch {
		case name == "kernel_shape" && len(v) == 1:
			a.Ints = []int64{1, v[0]}
		case name == "strides" && len(v) == 1:
			a.Ints = []int64{v[0], v[0]}
		case name == "dilations" && len(v) == 1:
			a.Ints = []int64{1, v[0]}
		case name == "pads" && len(v) == 2:
			a.Ints = []int64{0, v[0], 0, v[1]}
		default:
			continue
		}
		c.Attrs[name] = a
	}
	return &c
}

// weights2D views a 1-D Conv's weights [M,C/g,k] as [M,C/g,1,k].
func weights2D(w *onnx.Array) *onnx.Array {
	if len(w.Shape) != 3 {
		return w
	}
	return &onnx.Array{Shape: []int{w.Shape[0], w.Shape[1], 1, w.Shape[2]}, Data: w.Data}
}

// pads2D writes a Pad's pads of a [1,C,L] value (begins, then ends) as
// those of [1,C,1,L].
func pads2D(p []int64) []int64 {
	if len(p) != 6 {
		return p
	}
	return slices.Concat(p[:2], []int64{0}, p[2:5], []int64{0}, p[5:])
}
