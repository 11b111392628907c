package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/machine"
	"github.com/hwgen/hwgen/isa/planar"
)

// A pool whose input streams from external memory and whose channel
// plane does not fit the state buffer (ResNet's max pool of a 64×112×112
// map: 12,544 addresses a plane) runs in bands of output rows: each band
// loads the input rows its windows cover into a slot, pools them with
// one planar task and stores (or writes on chip) its output rows. The
// planar engine pads a plane above and below alike, which a band inside
// the plane must not be, so a band's rows of padding are written into
// the slot instead, by DMA: zeros or the value that never wins from a
// constant region of external memory, or the edge row again (edge
// padding); the task pads only left and right.

// poolPlanesFit reports whether a pool streams its input whole planes
// at a time (a slot for a plane and one for its output fit).
func (c *ctx) poolPlanesFit(in, out *place) bool {
	return streamSize(in, in.f)+stageSize(out, out.f) <= c.state.largest()
}

// poolStrips is the output columns of a pool taken at a time: all of
// them, or when the output is wider than the planar line buffer
// (VGG's first pool: 112 columns), strips of at most line_depth columns;
// a strip of a plane cannot take the task's column padding, so a pool
// with pad_w > 0 cannot be cut (checkPool refuses it).
func (c *ctx) poolStrips(ow int) int {
	if ow <= c.cfg.LineDepth {
		return ow
	}
	return ceilDiv(ow, ceilDiv(ow, c.cfg.LineDepth))
}

// lowerPoolStream emits pool n of streamed input in into out, in bands
// of output rows (and strips of output columns, poolStrips).
func (c *ctx) lowerPoolStream(n *node, in, out *place) error {
	x, p, v := n.in[0], n.pool, n.out
	s := max(1, p.Stride)
	sw := c.poolStrips(v.w)
	if sw < v.w && out.resident {
		return fmt.Errorf("%s: output width ow = %d exceeds line_depth = %d and the result stays on chip: strips of columns go through external memory", n.label, v.w, c.cfg.LineDepth)
	}
	inCols := x.w // input columns a strip reads
	if sw < v.w {
		inCols = (sw-1)*s + p.KW
	}
	inRows := func(ob int) int { return (ob-1)*s + p.KH }
	free := c.state.largest()
	ob := 0
	for _, slots := range []int{2, 1} {
		for b := v.h; b >= 1 && ob == 0; b-- {
			if slots*(inRows(b)*inCols+stageSize(out, b*sw)) <= free {
				ob = b
			}
		}
	}
	if ob == 0 {
		return fmt.Errorf("%s: a band of one output row needs %d state addresses (%d input rows of %d, its output row), %d are free (state_depth %d)",
			n.label, inRows(1)*inCols+stageSize(out, sw), inRows(1), inCols, free, c.cfg.StateDepth)
	}
	ob = ceilDiv(v.h, ceilDiv(v.h, ob)) // balanced bands
	sc := &scratch{c: c}
	defer sc.release()
	rs, err := sc.rings(inRows(ob)*inCols, stageSize(out, ob*sw))
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	fn, err := machine.PoolFn(p.Kind)
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	for t := 0; t < in.tiles; t++ {
		for r0 := 0; r0 < v.h; r0 += ob {
			for c0 := 0; c0 < v.w; c0 += sw {
				pb := poolBand{t: t, r0: r0, r1: min(v.h, r0+ob), c0: c0, c1: min(v.w, c0+sw), full: sw == v.w}
				if err := c.poolBand(n, in, out, fn, rs, pb); err != nil {
					return err
				}
			}
		}
	}
	c.storeResident(n.label, out)
	return nil
}

// poolBand is one task of a streamed pool: output rows [r0, r1) and
// columns [c0, c1) of channel tile t (full: every column, the task pads
// them itself).
type poolBand struct {
	t, r0, r1, c0, c1 int
	full              bool
}

// poolBand emits one band of pool n: its loads, the pool task and the
// store of its output.
func (c *ctx) poolBand(n *node, in, out *place, fn planar.Fn, rs []*ring, b poolBand) error {
	x, p, v := n.in[0], n.pool, n.out
	s := max(1, p.Stride)
	label := fmt.Sprintf("%s c%d r%d-%d", n.label, b.t, b.r0, b.r1)
	xa, xb, padW := 0, x.w, p.PadW // input columns the band reads
	if !b.full {
		label += fmt.Sprintf(" x%d-%d", b.c0, b.c1)
		xa, xb, padW = b.c0*s, min(x.w, (b.c1-1)*s+p.KW), 0
	}
	slot := rs[0].get()
	rows := c.poolBandLoad(label, n, in, b.t, slot, b.r0, b.r1, xa, xb)
	dst := 0
	if out.resident {
		dst = out.addr(b.t, b.r0*v.w)
	} else {
		dst = rs[1].get()
	}
	pt := planar.Task{Op: planar.OpPool, Fn: fn, Mask: c.tileMask(x, b.t, in.part),
		Src: slot, Dst: dst, H: rows, W: xb - xa, KH: p.KH, KW: p.KW, Stride: p.Stride, PadW: padW,
		PadEdge: p.Padding == golden.PadEdge, PadIgnore: p.Padding == golden.PadIgnore}
	post(&pt, n.q)
	if err := c.planarTask(label, pt); err != nil {
		return err
	}
	if !out.resident {
		// Row by row into the output plane (a strip's rows are ow apart).
		c.store(label+" store", dst, out.ext+b.t*out.f+b.r0*v.w+b.c0, b.c1-b.c0, b.r1-b.r0, v.w)
	}
	return nil
}

// poolBandLoad loads into slot columns [xa, xb) of the input rows of
// channel tile t that output rows [r0, r1) of pool n read, with the
// rows of padding above and below them written in (see above); it
// returns the slot's rows.
func (c *ctx) poolBandLoad(label string, n *node, in *place, t, slot, r0, r1, xa, xb int) int {
	x, p := n.in[0], n.pool
	s, w := max(1, p.Stride), xb-xa
	top, bot := r0*s-p.PadH, (r1-1)*s-p.PadH+p.KH // virtual input rows [top, bot)
	y0, y1 := max(0, top), min(x.h, bot)
	above, below := y0-top, bot-y1
	plane := in.ext + t*in.f + xa
	fill := func(at, rows, edge int) {
		if rows == 0 {
			return
		}
		src := plane + edge*x.w
		if p.Padding != golden.PadEdge {
			src = c.constLines(c.padValue(p), w)
		}
		// Stride 0: the same w lines again for every padding row.
		c.load(fmt.Sprintf("%s pad rows", label), src, slot+at*w, w, rows, 0)
	}
	fill(0, above, 0)
	if w == x.w { // whole rows: one run of lines
		c.load(fmt.Sprintf("%s load rows %d-%d", label, y0, y1), plane+y0*w, slot+above*w, (y1-y0)*w, 1, (y1-y0)*w)
	} else {
		c.load(fmt.Sprintf("%s load rows %d-%d", label, y0, y1), plane+y0*x.w, slot+above*w, w, y1-y0, x.w)
	}
	fill(above+y1-y0, below, x.h-1)
	return above + (y1 - y0) + below
}

// padValue is the element a pool's padding rows hold: 0 (zero padding),
// or for padding that never wins the least element (max) or the
// greatest (min).
func (c *ctx) padValue(p Pool) int64 {
	if p.Padding != golden.PadIgnore {
		return 0
	}
	e := golden.S(c.cfg.ElemWidth)
	if p.Kind == golden.PoolMin {
		return e.Max()
	}
	return e.Min()
}

// constLines is the first of n external lines every element of which is
// v, placed in the image once per value (and again when a longer run is
// asked for).
func (c *ctx) constLines(v int64, n int) int {
	if r, ok := c.consts[v]; ok && r[1] >= n {
		return r[0]
	}
	base := c.extAlloc(n)
	for i := range n {
		line := make([]int64, c.R)
		for p := range line {
			line[p] = v
		}
		c.prog.Image[base+i] = line
	}
	c.consts[v] = [2]int{base, n}
	return base
}
