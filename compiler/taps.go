package compiler

// Tap mapping: a convolution that reads a graph input with few channels
// would keep most PE rows idle (one input channel uses 1 of Rows rows for
// each of its kh·kw passes). When the input comes from external memory
// anyway, its binding can gather the kh·kw shifted copies of every
// channel into partitions instead: the input is laid out as the
// [C·kh·kw][OH][OW] matrix of the convolution's windows (padding as
// zeros, the stride applied) and the layer runs as a 1×1 convolution
// over C·kh·kw rows. The weights need no reordering: [Cout][C][kh][kw]
// flattened is [Cout][C·kh·kw]. The integer sums are the same, so the
// result is bit for bit the direct convolution's.

// tapInput is the window layout of a graph input read by one conv.
type tapInput struct {
	rows   int // C·kh·kw
	oh, ow int
	gather []int32 // (row, pixel) → flat index into the input, -1 for padding
}

// tapMapping decides whether conv node n, which reads graph input x,
// runs on x's windows, and returns their layout, or nil. It maps when x
// has no other reader and the windows take fewer NE passes than the
// direct convolution (TapsAuto), or whenever it can (TapsWindows).
// Without groups that is ⌈C·kh·kw/Rows⌉ passes against ⌈C/Rows⌉·kh·kw
// per output tile; with groups, each output tile counts the input
// tiles its groups touch (a depthwise conv: kh·kw either way, so it
// stays direct).
func (c *ctx) tapMapping(x *Value, n *node) *tapInput {
	if c.noTaps || n == nil || n.kind != opConv || n.conv.Taps == TapsDirect || x.uses != 1 || x.trans || n.in[0] != x {
		return nil
	}
	ci, kh, kw := x.p, n.weights.Shape[2], n.weights.Shape[3]
	rows, co, groups := ci*kh*kw, n.out.p, n.conv.Groups
	windows := groupPasses(rows, co, groups, c.R, c.C)
	direct := groupPasses(ci, co, groups, c.R, c.C) * kh * kw
	if n.conv.Taps == TapsAuto && windows >= direct {
		return nil
	}
	oh, ow, s := n.out.h, n.out.w, n.conv.Stride
	t := &tapInput{rows: rows, oh: oh, ow: ow, gather: make([]int32, rows*oh*ow)}
	for ch := 0; ch < ci; ch++ {
		for ky := 0; ky < kh; ky++ {
			for kx := 0; kx < kw; kx++ {
				r := (ch*kh+ky)*kw + kx
				for oy := 0; oy < oh; oy++ {
					for ox := 0; ox < ow; ox++ {
						y, xx := oy*s+ky-n.conv.PadH, ox*s+kx-n.conv.PadW
						idx := int32(-1)
						if y >= 0 && y < x.h && xx >= 0 && xx < x.w {
							idx = int32((ch*x.h+y)*x.w + xx)
						}
						t.gather[r*oh*ow+oy*ow+ox] = idx
					}
				}
			}
		}
	}
	return t
}

// tapBinding is the binding of input x laid out as the windows t.
func (c *ctx) tapBinding(name string, x *Value, pl *place, t *tapInput) *Binding {
	lines := pl.tiles * pl.f
	b := &Binding{Name: name, Shape: x.Shape(), Lines: lines, Rows: c.R, Index: make([]int32, lines*c.R)}
	for i := range b.Index {
		b.Index[i] = -1
	}
	f := t.oh * t.ow
	for r := 0; r < t.rows; r++ {
		tile, p := r/pl.part, r%pl.part
		for j := 0; j < f; j++ {
			b.Index[(tile*pl.f+j)*c.R+p] = t.gather[r*f+j]
		}
	}
	return b
}

// groupPasses is the NE passes per output pixel of a 1×1 conv of cin
// input channels (tiles of part partitions) to n outputs (tiles of
// cols lanes) in groups.
func groupPasses(cin, n, groups, part, cols int) int {
	j := &convJob{cin: cin, n: n, groups: groups}
	ct, total := ceilDiv(cin, part), 0
	for t := range ceilDiv(n, cols) {
		total += len(j.tilesFor(t, cols, part, ct))
	}
	return total
}

// consumer is the one node reading v, or nil.
func consumer(g *Graph, v *Value) *node {
	for _, n := range g.nodes {
		for _, in := range n.in {
			if in == v {
				return n
			}
		}
	}
	return nil
}
