package compiler

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/machine"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/planar"
)

// A pool that reads a conv's result (and nothing else does) runs in bands
// of output rows, each emitted right after the act that completes the
// conv rows it reads, instead of as one task per channel tile once the
// whole plane is done. The planar engine runs its tasks in program order,
// so the bands fill the time between the acts, and a consumer of the
// pool (the next conv) waits only for the bands it reads: on mnist-7 the
// NE no longer idles while the planar engine pools a whole plane.
// Pool.Whole keeps the single task.

// poolBands is the banded pool of one conv's result.
type poolBands struct {
	n       *node         // the pool
	in, out *place        // the conv's result (the pool's input) and the pool's
	done    []int         // per channel tile: conv rows complete from row 0
	ahead   []map[int]int // per channel tile: blocks done past a gap, o0 → o1
	next    []int         // per channel tile: the first pool row not yet emitted
}

// fusablePool returns the pool node that reads conv n's result and can
// run in bands, or nil: the pool is the result's only reader, has no
// padding above or below, keeps its result on chip and only there (not
// a graph output, itself or as a view), passes lowerPool's checks and did not ask for
// one task (Pool.Whole); the conv's result is not an int32 one nor a
// graph output, and its channel tiles are the act's.
func (c *ctx) fusablePool(n *node, out *place) *node {
	v := n.out
	if c.g == nil || v.uses != 1 || v.isInt32 || len(v.outputs) > 0 || !out.resident || out.part != c.C || hasView(c.g, v) {
		return nil
	}
	p := consumer(c.g, v)
	if p == nil || p.kind != opPool || p.in[0] != v || p.pool.Whole || p.pool.PadH != 0 || c.stor[p.out] != nil || p.out.w > c.cfg.LineDepth ||
		c.live[p.out] == 0 || isOutput(c.g, p.out) {
		return nil
	}
	if c.checkPool(p) != nil {
		return nil // lowerPool reports it
	}
	return p
}

// hasView reports a value of g that is a view of v.
func hasView(g *Graph, v *Value) bool {
	for _, w := range g.values {
		if w.alias == v {
			return true
		}
	}
	return false
}

// isOutput reports whether v, or a view of it, is a graph output.
func isOutput(g *Graph, v *Value) bool {
	if len(v.outputs) > 0 {
		return true
	}
	for _, w := range g.values {
		if w.alias == v && len(w.outputs) > 0 {
			return true
		}
	}
	return false
}

// planWithBands plans conv j with pool p's result placed first (its
// bands then write it while the conv runs), or returns nil bands when
// the conv does not fit around it: the pool then runs whole, after.
func (c *ctx) planWithBands(j *convJob, p *node) (*convPlan, *poolBands) {
	out := &place{part: c.partOf(p.out), tiles: ceilDiv(c.lay(p.out).slots, c.partOf(p.out)), f: p.out.f, ext: -1}
	if !c.tryResident(out) {
		return nil, nil // the pool's result would be spilled: it runs whole
	}
	c.loc[p.out] = out
	plan, err := planConv(c.cfg, j, c.state.largest(), c.wring)
	if err != nil {
		c.state.free(out.base)
		delete(c.loc, p.out)
		return nil, nil
	}
	b := &poolBands{n: p, in: j.out, out: out, done: make([]int, j.out.tiles), ahead: make([]map[int]int, j.out.tiles), next: make([]int, j.out.tiles)}
	for t := range b.ahead {
		b.ahead[t] = map[int]int{}
	}
	return plan, b
}

// rowsDone records that the conv's rows [o0, o1) of channel tile t are
// written and emits the bands they complete. The conv's blocks come in
// row order; one that did not would wait for the rows before it.
func (b *poolBands) rowsDone(c *ctx, t, o0, o1 int) error {
	b.ahead[t][o0] = max(b.ahead[t][o0], o1)
	for {
		o1, ok := b.ahead[t][b.done[t]]
		if !ok {
			break
		}
		delete(b.ahead[t], b.done[t])
		b.done[t] = max(b.done[t], o1)
	}
	return b.emit(c, t)
}

// emit emits, for channel tile t, the pool rows whose windows lie within
// the conv rows done.
func (b *poolBands) emit(c *ctx, t int) error {
	x, p := b.n.in[0], b.n.pool
	s := max(p.Stride, 1)
	upTo := 0 // pool rows computable
	if b.done[t] >= p.KH {
		upTo = min((b.done[t]-p.KH)/s+1, b.n.out.h)
	}
	r0, r1 := b.next[t], upTo
	if r1 <= r0 {
		return nil
	}
	fn, err := machine.PoolFn(p.Kind)
	if err != nil {
		return fmt.Errorf("%s: %w", b.n.label, err)
	}
	pt := planar.Task{Op: planar.OpPool, Fn: fn, Mask: c.tileMask(x, t, b.in.part),
		Src: b.in.addr(t, r0*s*x.w), Dst: b.out.addr(t, r0*b.n.out.w), H: (r1-r0-1)*s + p.KH, W: x.w,
		KH: p.KH, KW: p.KW, Stride: p.Stride, PadW: p.PadW,
		PadEdge: p.Padding == golden.PadEdge, PadIgnore: p.Padding == golden.PadIgnore}
	post(&pt, b.n.q)
	if err := c.planarTask(fmt.Sprintf("%s c%d r%d-%d", b.n.label, t, r0, r1), pt); err != nil {
		return err
	}
	b.next[t] = r1
	return nil
}

// finish checks that every pool row was emitted and stores the result
// if it is also a graph output.
func (b *poolBands) finish(c *ctx) error {
	for t, r := range b.next {
		if r != b.n.out.h {
			return fmt.Errorf("%s: channel tile %d pooled %d of %d rows after its conv", b.n.label, t, r, b.n.out.h)
		}
	}
	c.storeResident(b.n.label, b.out)
	c.fused[b.n] = true
	return nil
}
