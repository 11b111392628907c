package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/isa/machine"
	"github.com/hwgen/hwgen/isa/planar"
)

// An eltwise runs in chunks: a slot of each streamed operand is loaded,
// one planar task computes the chunk, a staged result is stored. eltRun
// holds what the chunks share (places, rings, the function).
type eltRun struct {
	c      *ctx
	n      *node
	ins    []*place
	out    *place
	mask   uint64
	rings  []*ring
	outR   *ring
	fn     planar.Fn
	chunks []eltChunk
	sc     *scratch
}

// lowerEltwisePlaces emits eltwise n on operands in places a and b (b
// nil: a scalar or unary function), over the partitions of mask.
func (c *ctx) lowerEltwisePlaces(n *node, a, b *place, mask uint64) error {
	r, err := c.planElt(n, a, b, mask)
	if err != nil {
		return err
	}
	defer r.sc.release()
	for _, ch := range r.chunks {
		if err := r.emit(ch); err != nil {
			return err
		}
	}
	c.storeResident(n.label, r.out)
	return nil
}

// planElt places eltwise n's result, takes its rings and cuts it into
// chunks (the caller releases r.sc).
func (c *ctx) planElt(n *node, a, b *place, mask uint64) (*eltRun, error) {
	ins := []*place{a}
	if b != nil { // a second tensor (not a scalar, not the unary abs)
		ins = append(ins, b)
		if ins[0].part != ins[1].part {
			return nil, fmt.Errorf("%s: the operands have channel tiles of %d and %d partitions (one came from the psum write-back, rows %d ≠ cols %d)",
				n.label, ins[0].part, ins[1].part, c.R, c.C)
		}
	}
	if err := c.checkRequant(n.label, n.q); err != nil {
		return nil, err
	}
	out, err := c.outPlace(n, "eltwise")
	if err != nil {
		return nil, err
	}
	r := &eltRun{c: c, n: n, ins: ins, out: out, mask: mask, sc: &scratch{c: c}}
	if n.table != nil { // first, so the streams size their chunks around it
		if err := c.loadTable(n, r.sc); err != nil {
			r.sc.release()
			return nil, err
		}
	}
	total := ins[0].tiles * ins[0].f
	streams := 0
	for _, in := range ins {
		if !in.resident {
			streams++
		}
	}
	if !out.resident {
		streams++
	}
	chunk := total
	if streams > 0 {
		chunk = min(total, c.state.largest()/(2*streams))
		if chunk < 1 {
			r.sc.release()
			return nil, fmt.Errorf("%s: no state space left to stream its operands (%d streams, %d free addresses)", n.label, streams, c.state.largest())
		}
	}
	var sizes []int
	for i, in := range ins {
		if i == 1 && n.channel {
			sizes = append(sizes, streamSize(in, 1)) // one element per lane
			continue
		}
		sizes = append(sizes, streamSize(in, chunk))
	}
	sizes = append(sizes, stageSize(out, chunk))
	rs, err := r.sc.rings(sizes...)
	if err != nil {
		r.sc.release()
		return nil, fmt.Errorf("%s: %w", n.label, err)
	}
	r.rings, r.outR = rs[:len(ins)], rs[len(ins)]
	if r.fn, err = machine.EltFn(n.elt); err != nil {
		r.sc.release()
		return nil, fmt.Errorf("%s: %w", n.label, err)
	}
	r.chunks = eltChunks(total, ins[0].f, chunk, n.channel)
	if streams == len(ins)+1 && !n.channel && ins[0].tiles > 1 && chunk >= ins[0].tiles {
		// Everything streams: chunks of the same addresses of every
		// channel tile, so that a conv reading the result, which takes
		// rows of every tile, can start on the first chunks rather than
		// after the last tile's.
		r.chunks = eltBands(ins[0].f, ins[0].tiles, chunk/ins[0].tiles)
	}
	return r, nil
}

// emit emits one chunk: its loads, the planar task and its store.
func (r *eltRun) emit(ch eltChunk) error {
	c, n, ins, out := r.c, r.n, r.ins, r.out
	a0, k, d1, d2 := ch.a0, ch.k, 1, ch.k
	label := fmt.Sprintf("%s e%d-%d", n.label, a0, a0+k)
	if ch.tiles > 1 {
		d1, d2 = ch.tiles, ins[0].f
		label += fmt.Sprintf(" of %d tiles", ch.tiles)
	}
	srcs := make([]int, len(ins))
	for i, in := range ins {
		switch {
		case i == 1 && n.channel && in.resident:
			srcs[i] = in.addr(ch.tile, 0)
		case i == 1 && n.channel:
			srcs[i] = r.rings[i].get()
			c.load(fmt.Sprintf("%s load vec c%d", label, ch.tile), in.ext+ch.tile, srcs[i], 1, 1, 1)
		case in.resident:
			srcs[i] = in.base + a0
		default:
			srcs[i] = r.rings[i].get()
			c.load(fmt.Sprintf("%s load %c", label, 'a'+i), in.ext+a0, srcs[i], k, d1, d2)
		}
	}
	dst := 0
	if out.resident {
		dst = out.base + a0
	} else {
		dst = r.outR.get()
	}
	pt := planar.Task{Op: planar.OpEltwise, Fn: r.fn, Mask: r.mask, Src: srcs[0], Dst: dst, H: 1, W: k * d1, Lut: n.table != nil}
	switch {
	case n.scalar != nil:
		pt.ScalarOperand, pt.Scalar = true, *n.scalar
	case len(srcs) > 1:
		pt.Src2, pt.Broadcast = srcs[1], n.channel
	}
	post(&pt, n.q)
	if err := c.planarTask(label, pt); err != nil {
		return err
	}
	if !out.resident {
		c.store(label+" store", dst, out.ext+a0, k, d1, d2)
	}
	return nil
}

// eltBands cuts tiles channel tiles of f addresses into chunks of k
// addresses of every tile (tile t's at t·f + a0), for a strided load,
// one planar task over the tiles·k elements and a strided store.
func eltBands(f, tiles, k int) []eltChunk {
	var out []eltChunk
	for a0 := 0; a0 < f; a0 += k {
		out = append(out, eltChunk{a0: a0, k: min(k, f-a0), tiles: tiles})
	}
	return out
}
