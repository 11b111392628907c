package compiler

import (
	"fmt"
	"slices"
)

// This file holds the graph's channel operations: Concat and
// PermuteChannels (ChannelShuffle). Neither computes anything; how they
// cost nothing on chip, and when they do copy, is in layout.go.

// Concat stacks feature maps along channels: [C1,H,W], [C2,H,W], … give
// [C1+C2+…,H,W] (all of one rank, [C,H,W] or [1,C,H,W], and one H, W).
// The compiler places the parts in one tensor so their producers write
// straight into it, each part from a channel tile of its own; a part
// that cannot be produced there (a graph input, a part already placed
// in another concat) is copied in.
func (g *Graph) Concat(xs ...*Value) *Value {
	op := fmt.Sprintf("concat%d", g.counts[opConcat])
	if !g.check(op, xs...) {
		return g.bad()
	}
	if len(xs) == 0 {
		return g.fail(op, "needs at least one value")
	}
	var h0, w0 int
	total := 0
	for i, x := range xs {
		c, h, w, ok := fmapShape(x.shape)
		if !ok {
			return g.fail(op, "operand %d has shape %v: want a feature map [C,H,W] or [1,C,H,W]", i, x.shape)
		}
		if x.producer == nil {
			x.setPlain()
		}
		if x.trans {
			return g.fail(op, "operand %d is a transposed matrix, not a feature map", i)
		}
		switch {
		case i == 0:
			h0, w0 = h, w
		case len(x.shape) != len(xs[0].shape):
			return g.fail(op, "operand %d has shape %v, operand 0 %v: want one rank", i, x.shape, xs[0].shape)
		case h != h0 || w != w0:
			return g.fail(op, "operand %d is %dx%d, operand 0 %dx%d: the planes must be equal", i, h, w, h0, w0)
		}
		total += c
	}
	shape := slices.Clone(xs[0].shape)
	shape[len(shape)-3] = total
	out := g.newValue(shape)
	// Parts from the psum write-back (Cols tiles) and from memory (Rows
	// tiles) meet in Cols tiles; the others are copied (layout.go).
	cols := xs[0].cols
	for _, x := range xs {
		cols = cols || x.cols
	}
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, cols, total, h0*w0, h0, w0
	g.add(opConcat, slices.Clone(xs), out)
	return out
}

// PermuteChannels reorders the channels of a feature map: channel i of
// the result is channel perm[i] of x (perm a permutation of 0..C-1).
// It moves no data when it can: the result is x under another channel
// order, and a conv reading it takes the order into its weights; it is
// copied (a 1×1 conv of 0/1 weights on the NE) only where a consumer
// needs the channels in order (see layout.go).
func (g *Graph) PermuteChannels(x *Value, perm []int) *Value {
	op := fmt.Sprintf("permute%d", g.counts[opPermute])
	if !g.check(op, x) {
		return g.bad()
	}
	c, h, w, ok := fmapShape(x.shape)
	if !ok {
		return g.fail(op, "input shape %v: want a feature map [C,H,W] or [1,C,H,W]", x.shape)
	}
	if len(perm) != c {
		return g.fail(op, "perm has %d entries, want one per channel (%d)", len(perm), c)
	}
	seen := make([]bool, c)
	for i, p := range perm {
		if p < 0 || p >= c || seen[p] {
			return g.fail(op, "perm[%d] = %d: want a permutation of 0..%d (each channel once)", i, p, c-1)
		}
		seen[p] = true
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix, not a feature map")
	}
	out := g.newValue(x.shape)
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, c, h*w, h, w
	g.add(opPermute, []*Value{x}, out).perm = slices.Clone(perm)
	return out
}

// ChannelShuffle is ShuffleNet's channel shuffle of x's C channels in
// groups (ONNX Reshape [g, C/g] – Transpose – Reshape): channel i of the
// result is channel (i mod g)·C/g + ⌊i/g⌋ of x. It is PermuteChannels
// of that permutation.
func (g *Graph) ChannelShuffle(x *Value, groups int) *Value {
	op := fmt.Sprintf("permute%d", g.counts[opPermute])
	if !g.check(op, x) {
		return g.bad()
	}
	c, _, _, ok := fmapShape(x.shape)
	switch {
	case !ok:
		return g.fail(op, "input shape %v: want a feature map [C,H,W] or [1,C,H,W]", x.shape)
	case groups < 1 || c%groups != 0:
		return g.fail(op, "channel shuffle in groups = %d: want a divisor of the %d channels", groups, c)
	}
	return g.PermuteChannels(x, ShufflePerm(c, groups))
}

// ShufflePerm is the channel shuffle of c channels in groups as a
// permutation (see ChannelShuffle).
func ShufflePerm(c, groups int) []int {
	perm := make([]int, c)
	for i := range perm {
		perm[i] = i%groups*(c/groups) + i/groups
	}
	return perm
}
