package compiler

import "fmt"

// The nearest upsampling by 2 (Graph.Upsample) on the DMA engines. The
// NE and the planar engine have no spatial scatter, but a DMA task is
// strided on its external side (dma_out: state address src+k·d0+l →
// line ext+k·d2+l). A value of T channel tiles of an H×W plane is
// T·H rows of W lines, one after another in the state buffer or in
// external memory, and its upsampling is 2·T·H rows of 2W lines: input
// row r gives output rows 2r and 2r+1 (a tile's last row is followed by
// the next tile's first, on both sides). Each input row goes out in
// four stores of single lines (d0 = 1, d1 = W, d2 = 2) to output row
// 2r+a, column offset b (a, b = 0, 1): every line to its four places,
// 4·T·H tasks that move exactly the result's lines. An operand in
// external memory is loaded first, in bands of rows through two slots
// (the next band loads while the last one's stores run).
//
// A store cannot do more than one row: d2 = 2 spreads a row's lines, and
// the next output row is 4W lines on, not 2W. The other mapping at hand
// does the rows in bands with five tasks a band: two stores (d0 = 1,
// d1 = rows·W, d2 = 2) widen the band into a staging region of external
// memory, a load brings it back, and two stores (d0 = 2W, d2 = 4W) write
// each widened row twice. It moves 8 lines per input line instead of 4,
// and each stage waits for the whole one before. On the Go simulator
// (default configuration, conv 1×1 – upsample – conv 1×1) one store per
// row and copy ran the whole net in 11106 cycles against 13411 at
// 64×13×13 (208 stores against 5 tasks), 19582 against 24745 at
// 32×26×26, 39945 against 50544 at 16×52×52 (streamed), 306 against 316
// at 16×2×2: a store's fixed cost (about 10 cycles) is less than the
// lines saved, and the first rows go out as soon as the producer has
// written them.
//
// The result stays in external memory, where its consumers stream it
// from as from any spilled value; a Concat's part (U-Net's decoder) is
// produced in place like a conv's (layout.go, placeable): straight into
// the lines of a spilled concatenation, or staged and brought into one
// in the state buffer by a single load.

// lowerUpsample emits upsample node n.
func (c *ctx) lowerUpsample(n *node) error {
	x, v := n.in[0], n.out
	in := c.operand(x)
	dim := 1<<c.cfg.TaskMgr().DimBits - 1
	if x.w > dim {
		return fmt.Errorf("%s: a row of %d elements is one store of d1 = W = %d lines, the task manager's size operands hold at most %d (taskmgr dim_bits = %d)", n.label, x.w, x.w, dim, c.cfg.TaskMgr().DimBits)
	}
	tiles := ceilDiv(c.lay(v).slots, c.partOf(v))
	if tiles != in.tiles || in.f != x.f {
		return fmt.Errorf("%s: compiler bug: operand place of %d tiles of %d lines, want %d of %d", n.label, in.tiles, in.f, tiles, x.f)
	}
	out, err := c.upsamplePlace(n, tiles)
	if err != nil {
		return err
	}
	dst := out.ext
	if out.resident {
		// A part of a concatenation in the state buffer: staged out,
		// then loaded into its tiles in one go.
		dst = c.extAlloc(tiles * v.f)
	}
	if err := c.upsampleRows(n.label, in, dst, tiles*x.h, x.w); err != nil {
		return err
	}
	if out.resident {
		c.load(n.label+" load result", dst, out.base, v.f, tiles, v.f)
		c.storeResident(n.label, out)
	}
	return nil
}

// upsampleRows writes rows input rows of w lines (in place in) to the
// external lines from dst, each row four times: rows 2r and 2r+1 of 2w
// lines, every line twice side by side. A streamed operand comes in in
// bands of rows.
func (c *ctx) upsampleRows(label string, in *place, dst, rows, w int) error {
	rowOut := func(r, src int) {
		for a := range 2 {
			for b := range 2 {
				c.store(fmt.Sprintf("%s row %d copy %d", label, r, 2*a+b), src, dst+(2*r+a)*2*w+b, 1, w, 2)
			}
		}
	}
	if in.resident {
		for r := range rows {
			rowOut(r, in.base+r*w)
		}
		return nil
	}
	dim := 1<<c.cfg.TaskMgr().DimBits - 1
	free := c.state.largest()
	k := min(rows, dim/w, free/(2*w)) // two slots: band i+1 loads while band i is stored
	if k < 1 {
		k = min(rows, free/w)
	}
	if k < 1 {
		return fmt.Errorf("%s: a row of %d elements needs %d state addresses to upsample, the state buffer has at most %d free (state_depth %d)", label, w, w, free, c.cfg.StateDepth)
	}
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(k * w)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	for r0 := 0; r0 < rows; r0 += k {
		kk := min(k, rows-r0)
		slot := rs[0].get()
		c.load(fmt.Sprintf("%s load rows %d-%d", label, r0, r0+kk), in.ext+r0*w, slot, w, kk, w)
		for r := r0; r < r0+kk; r++ {
			rowOut(r, slot+(r-r0)*w)
		}
	}
	return nil
}

// upsamplePlace places upsample n's result: its part of a concatenation
// (a Concat reads it: planConcat), in external memory or in the state
// buffer, else external lines of its own.
func (c *ctx) upsamplePlace(n *node, tiles int) (*place, error) {
	v := n.out
	if c.stor[v] != nil {
		return c.outPlace(n, "upsample")
	}
	out := &place{part: c.partOf(v), tiles: tiles, f: v.f, ext: -1}
	out.ext = c.extAlloc(tiles * v.f)
	c.bindOutputs(v, out)
	c.loc[v] = out
	return out, nil
}
