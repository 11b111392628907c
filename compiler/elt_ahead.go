package compiler

// An eltwise whose result only one conv reads, through external memory
// (DenseNet's ReLU of each concatenation, spilled, before the layer's
// 1×1 conv), is emitted chunk by chunk just ahead of the conv's band
// loads instead of whole before it. Every engine runs its tasks in
// program order, so emitted whole, all of the eltwise's loads would
// stand in dma_in's order before the conv's first band, and the NE would
// wait for the whole eltwise; interleaved, the conv starts after the
// chunks of its first band and the planar engine works while the NE
// does. The eltwise reads and writes only external memory, which
// nothing else writes meanwhile, so emitting it later changes no value.

// eltAhead is such an eltwise, its chunks not yet emitted from next on.
type eltAhead struct {
	r    *eltRun
	next int
}

// eltAheadCandidate: eltwise n's operands and result all stream through
// external memory in chunks across the channel tiles, and one conv
// alone reads the result.
func (c *ctx) eltAheadCandidate(n *node, ins []*place, out *place) bool {
	if out.resident || n.channel || len(c.views[n.out]) > 0 || c.isOutput(n.out) || c.stor[n.out] != nil || c.live[c.key(n.out)] != 1 {
		return false
	}
	for _, in := range ins {
		if in.resident {
			return false
		}
	}
	rd := consumer(c.g, n.out)
	return rd != nil && rd.kind == opConv && rd.in[0] == n.out && c.taps[n.out] == nil
}

// eltAheadOK: r is planned in chunks across tiles (eltBands) and is a
// candidate.
func (c *ctx) eltAheadOK(n *node, r *eltRun) bool {
	return len(r.chunks) > 0 && r.chunks[0].tiles > 1 && c.eltAheadCandidate(n, r.ins, r.out)
}

// upTo emits the chunks that start before address a of each tile.
func (e *eltAhead) upTo(a int) error {
	for ; e.next < len(e.r.chunks) && e.r.chunks[e.next].a0 < a; e.next++ {
		if err := e.r.emit(e.r.chunks[e.next]); err != nil {
			return err
		}
	}
	return nil
}

// finish emits what is left and frees the eltwise's slots.
func (e *eltAhead) finish() error {
	defer e.r.sc.release()
	return e.upTo(int(^uint(0) >> 1))
}

// takeAhead returns the pending eltwise producing v (nil if none) and
// forgets it: the caller emits it.
func (c *ctx) takeAhead(v *Value) *eltAhead {
	e := c.ahead[c.root(v)]
	delete(c.ahead, c.root(v))
	return e
}
