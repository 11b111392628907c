package compiler

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/golden"
)

// Upsample is the nearest-neighbour upsampling of a feature map by
// factor along H and W: [C,H,W] (or [1,C,H,W]) gives [C,f·H,f·W] with
// y[c][i][j] = x[c][⌊i/f⌋][⌊j/f⌋] (ONNX Resize, mode nearest, the
// decoder of a U-Net or the neck of a YOLO). Only factor 2 is supported.
// It computes nothing: the DMA engines copy every element to its four
// places (upsample.go), and the result lives in external memory, where
// its consumers stream it from, or in its part of a concatenation.
func (g *Graph) Upsample(x *Value, factor int) *Value {
	op := fmt.Sprintf("upsample%d", g.counts[opUpsample])
	if !g.check(op, x) {
		return g.bad()
	}
	c, h, w, ok := fmapShape(x.shape)
	if !ok {
		return g.fail(op, "input shape %v: want a feature map [C,H,W] or [1,C,H,W]", x.shape)
	}
	if factor != 2 {
		return g.fail(op, "factor %d: only 2 (nearest, along H and W) is supported", factor)
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix, not a feature map")
	}
	shape := slices.Clone(x.shape)
	shape[len(shape)-2], shape[len(shape)-1] = h*factor, w*factor
	out := g.newValue(shape)
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, c, h*w*factor*factor, h*factor, w*factor
	g.add(opUpsample, []*Value{x}, out).factor = factor
	return out
}

// upsampleRef is the golden result of upsample node n of x: every
// element repeated factor times along the rows and the columns.
func upsampleRef(n *node, x *golden.Tensor) *golden.Tensor {
	in, f := n.in[0], n.factor
	out := &golden.Tensor{Shape: slices.Clone(n.out.shape), Data: make([]int64, n.out.p*n.out.f)}
	oh, ow := in.h*f, in.w*f
	for c := 0; c < in.p; c++ {
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				out.Data[(c*oh+i)*ow+j] = x.Data[(c*in.h+i/f)*in.w+j/f]
			}
		}
	}
	return out
}
