package compiler

import "fmt"

// The nearest upsampling by 2 (Graph.Upsample) on the DMA engines. The
// NE and the planar engine have no spatial scatter, but a DMA task is
// strided on its external side (dma_out: state address src+k·d0+l →
// line ext+k·d2+l). A value of T channel tiles of an H×W plane is
// T·H rows of W lines, one after another in the state buffer or in
// external memory, and its upsampling is T·H rows of 2W lines, each
// twice: input row r gives output rows 2r and 2r+1 (a tile's last row
// is followed by the next tile's first, on both sides). So, per band
// of input rows:
//
//  1. two stores of single lines (d0 = 1, d1 = rows·W, d2 = 2) to
//     W2 + b, b = 0, 1: every line twice side by side, the band
//     doubled horizontally in a staging region W2 of external memory;
//  2. a load of the band of W2 back into the state buffer;
//  3. two stores of whole doubled rows (d0 = 2W, d1 = rows, d2 = 4W) to
//     the result + a·2W, a = 0, 1: every row twice, one under the other.
//
// A band of an operand in external memory is loaded first. The bands
// are pipelined (step 1 of band i+1 is emitted before step 3 of band
// i), so dma_out widens the next band while dma_in brings back the
// last. Per input line that is 8 line transfers (2 out, 2 in, 4 out,
// the last 4 the result; one more in for an operand in external
// memory) in 5 tasks a band. Writing the result straight from the
// state buffer would move only the 4 result lines, but d2 cannot both
// spread a row's lines (2) and jump to the next output row (4W): one
// store per input row and copy, 4·T·H tasks, each W lines long. The
// result stays in external memory, where its consumers stream it from
// as from any spilled value.

// lowerUpsample emits upsample node n.
func (c *ctx) lowerUpsample(n *node) error {
	x, v := n.in[0], n.out
	in := c.operand(x)
	w := x.w
	dim := 1<<c.cfg.TaskMgr().DimBits - 1
	if 4*w > dim {
		return fmt.Errorf("%s: a row of %d elements needs a store stride d2 = 4·W = %d, the task manager's size operands hold at most %d (taskmgr dim_bits = %d)", n.label, w, 4*w, dim, c.cfg.TaskMgr().DimBits)
	}
	part := c.partOf(v)
	tiles := ceilDiv(c.lay(v).slots, part)
	if tiles != in.tiles || in.f != x.f {
		return fmt.Errorf("%s: compiler bug: operand place of %d tiles of %d lines, want %d of %d", n.label, in.tiles, in.f, tiles, x.f)
	}
	out := &place{part: part, tiles: tiles, f: v.f, ext: -1}
	out.ext = c.extAlloc(tiles * v.f)
	c.bindOutputs(v, out)
	c.loc[v] = out

	rows := tiles * x.h
	per := 2 * w // state addresses a band row takes: the doubled row, and the row itself when it is loaded
	if !in.resident {
		per += w
	}
	free := c.state.largest()
	k := min(rows, free/(2*per), dim/w) // two slots each: band i+1 loads while band i is stored
	if k < 1 {
		k = min(rows, free/per, dim/w)
	}
	if k < 1 {
		return fmt.Errorf("%s: a row of %d elements needs %d state addresses to upsample, the state buffer has at most %d free (state_depth %d)", n.label, w, per, free, c.cfg.StateDepth)
	}
	xs := 0
	if !in.resident {
		xs = k * w
	}
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(xs, 2*k*w)
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	wide := c.extAlloc(rows * 2 * w)
	type band struct{ r0, k int }
	widen := func(b band) {
		src := in.base + b.r0*w
		if !in.resident {
			src = rs[0].get()
			c.load(fmt.Sprintf("%s load rows %d-%d", n.label, b.r0, b.r0+b.k), in.ext+b.r0*w, src, w, b.k, w)
		}
		for h := range 2 {
			c.store(fmt.Sprintf("%s widen %d rows %d-%d", n.label, h, b.r0, b.r0+b.k), src, wide+2*b.r0*w+h, 1, b.k*w, 2)
		}
	}
	double := func(b band) {
		slot := rs[1].get()
		c.load(fmt.Sprintf("%s load wide rows %d-%d", n.label, b.r0, b.r0+b.k), wide+2*b.r0*w, slot, 2*w, b.k, 2*w)
		for a := range 2 {
			c.store(fmt.Sprintf("%s double %d rows %d-%d", n.label, a, b.r0, b.r0+b.k), slot, out.ext+b.r0*4*w+a*2*w, 2*w, b.k, 4*w)
		}
	}
	var bands []band
	for r0 := 0; r0 < rows; r0 += k {
		bands = append(bands, band{r0, min(k, rows-r0)})
	}
	widen(bands[0])
	for i, b := range bands {
		if i+1 < len(bands) {
			widen(bands[i+1])
		}
		double(b)
	}
	return nil
}
