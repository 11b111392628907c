package compiler

import "fmt"

// A grouped conv reading permuted channels (a channel shuffle that no
// depthwise conv absorbed, layout.go) runs, per output tile, the input
// tiles that hold its groups' channels: a shuffle scatters each group
// over many tiles, so the conv can take several times the passes of the
// dense order. denseInput then copies the input into channel order
// first (a relayout conv, 1×1) when that copy's passes plus the
// conv's in order are fewer than the conv's on the scattered channels.

// denseInput gives conv job j (of node n) its input in channel order
// when that is cheaper (see above), and returns what frees the copy.
func (c *ctx) denseInput(n *node, j *convJob) (func(), error) {
	x := n.in[0]
	if j.groups <= 1 || j.inCh == nil || c.taps[x] != nil {
		return func() {}, nil
	}
	scattered := passesOf(c, j) * j.oh * j.ow
	dense := *j
	dense.inCh = nil
	dense.in = &place{part: c.C}
	rj := c.relayoutJob(n.label+" relayout", x, c.operand(x), &place{part: c.C}, &layout{slots: x.p})
	if scattered <= passesOf(c, &dense)*j.oh*j.ow+passesOf(c, rj)*x.h*x.w {
		return func() {}, nil
	}
	tmp, release, err := c.denseCopy(n.label+" relayout", x)
	if err != nil {
		return nil, err
	}
	dense.in = tmp
	*j = dense
	return release, nil
}

// denseCopy copies v into channel order (the dense layout, tiles of
// Cols partitions) with a relayout conv, in the state buffer or in
// external memory (residentOrSpilled). It
// returns the copy's place and what frees it.
func (c *ctx) denseCopy(label string, v *Value) (*place, func(), error) {
	tmp := &place{part: c.C, tiles: ceilDiv(v.p, c.C), f: v.f, ext: -1}
	c.residentOrSpilled(tmp, false)
	release := func() {
		if tmp.resident {
			c.state.free(tmp.base)
		}
	}
	if err := c.runConv(c.relayoutJob(label, v, c.operand(v), tmp, &layout{slots: v.p})); err != nil {
		release()
		return nil, nil, fmt.Errorf("%s: copying %v into channel order: %w", label, v.shape, err)
	}
	return tmp, release, nil
}

// passesOf is job j's NE passes per output pixel.
func passesOf(c *ctx, j *convJob) int {
	ct, nt := ceilDiv(j.inSlots(), j.in.part), ceilDiv(j.outSlots(), c.C)
	total := 0
	for t := range nt {
		total += len(j.tilesFor(t, c.C, j.in.part, ct))
	}
	return total * j.kh * j.kw
}
