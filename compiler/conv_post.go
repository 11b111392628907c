package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/machine"
	"github.com/hwgen/hwgen/isa/planar"
)

// An eltwise of two feature maps, one of them a conv's result that
// nothing else reads (a ResNet block's last conv and its shortcut Add),
// runs on the conv's output blocks: after each act, the other operand's
// block is loaded beside the act's, one planar task combines them, and
// only the eltwise's result is stored. Run on its own, the eltwise would
// stream both whole operands in and its result out after the conv, and
// the next layer, which reads that result, would queue behind all of it
// (each engine runs its tasks in program order): the NE idled about
// 300,000 cycles a block in ResNet-50's first stage. Fused, the conv's
// result never leaves the chip and the other operand's loads interleave
// with the conv's.

// The other operand may be a requantization of an earlier map that only
// this eltwise reads (the lowering rescales the finer of an Add's
// operands to the coarser one's scale; a ResNet block's shortcut is the
// finer one as often as not): it then runs on each loaded block too,
// into the slot's second half, before the eltwise.

// postElt is the eltwise a conv runs on its output blocks.
type postElt struct {
	n     *node
	first bool   // the conv's result is the eltwise's first operand
	other *place // the other operand (rq's operand when rq is set)
	rq    *node  // the requantization of the other operand run per block, or nil
	out   *place // the eltwise's result
}

// postFusable returns the eltwise that conv n's result feeds and that can
// run on its output blocks, or nil: the result is the eltwise's only use
// (no output, view or storage), the other operand is already placed, and
// both operands and the result are dense feature maps of the act's
// channel tiles.
func (c *ctx) postFusable(n *node) *postElt {
	v := n.out
	if c.g == nil || !c.onlyRead(v) || c.taps[v] != nil {
		return nil
	}
	e := consumer(c.g, v)
	if e == nil || e.kind != opEltwise || len(e.in) != 2 || e.scalar != nil || e.channel || e.table != nil || e.in[0] == e.in[1] {
		return nil
	}
	pe := &postElt{n: e, first: e.in[0] == v}
	o := e.in[0]
	if pe.first {
		o = e.in[1]
	}
	if r := o.producer; c.loc[c.key(o)] == nil && r != nil && isRequant(r) && c.onlyRead(o) && c.checkRequant(r.label, r.q) == nil {
		pe.rq, o = r, r.in[0]
	}
	if c.loc[c.key(o)] == nil || c.stor[e.out] != nil || c.pre[o] != nil || c.taps[o] != nil || c.outCopies[e.out] != nil {
		return nil
	}
	for _, x := range []*Value{v, o, e.out} {
		if !c.lay(x).dense() || c.partOf(x) != c.C {
			return nil
		}
	}
	if c.checkRequant(e.label, e.q) != nil {
		return nil // lowerEltwise reports it
	}
	pe.other = c.operand(o)
	return pe
}

// onlyRead reports whether v's one use is an operation's operand: no
// graph output, view or storage of its own.
func (c *ctx) onlyRead(v *Value) bool {
	return v.uses == 1 && !v.isInt32 && len(v.outputs) == 0 && !hasView(c.g, v) && c.stor[v] == nil
}

// isRequant reports whether n is a requantization (an eltwise add of
// the scalar 0, Graph.Requant) of one dense map.
func isRequant(n *node) bool {
	return n.kind == opEltwise && len(n.in) == 1 && n.scalar != nil && *n.scalar == 0 && n.elt == golden.EltAdd && n.table == nil && !n.channel
}

// postBlock runs the fused eltwise on one act's block: rows [o0, o1) of
// output tile t, whose act wrote slot (np elements); a streamed other
// operand loads into the slot's second half.
func (e *convEmitter) postBlock(st *convStep, slot, np int, mask uint64, blk string) error {
	j, pe := e.j, e.j.post
	at := st.o0 * j.ow
	other := 0
	if pe.other.resident {
		other = pe.other.addr(st.t, at)
	} else {
		other = slot + np
		e.c.load(fmt.Sprintf("%s load %s operand", blk, pe.n.label), pe.other.ext+st.t*pe.other.f+at, other, np, 1, np)
	}
	if pe.rq != nil {
		if err := e.postRequant(other, slot+np, st, blk); err != nil {
			return err
		}
		other = slot + np
	}
	a, b := slot, other
	if !pe.first {
		a, b = other, slot
	}
	dst := slot
	if pe.out.resident {
		dst = pe.out.addr(st.t, at)
	}
	fn, err := machine.EltFn(pe.n.elt)
	if err != nil {
		return fmt.Errorf("%s: %w", pe.n.label, err)
	}
	pt := planar.Task{Op: planar.OpEltwise, Fn: fn, Mask: mask, Src: a, Src2: b, Dst: dst, H: st.o1 - st.o0, W: j.ow}
	post(&pt, pe.n.q)
	if err := e.c.planarTask(fmt.Sprintf("%s %s", blk, pe.n.label), pt); err != nil {
		return err
	}
	if !pe.out.resident {
		e.c.store(fmt.Sprintf("%s %s store", blk, pe.n.label), dst, pe.out.ext+st.t*pe.out.f+at, np, 1, np)
	}
	return nil
}

// postRequant runs the other operand's requantization on one block: np
// elements at src into dst (the slot's second half).
func (e *convEmitter) postRequant(src, dst int, st *convStep, blk string) error {
	r := e.j.post.rq
	fn, err := machine.EltFn(r.elt)
	if err != nil {
		return fmt.Errorf("%s: %w", r.label, err)
	}
	pt := planar.Task{Op: planar.OpEltwise, Fn: fn, Mask: e.j.outMask(st.t, e.c.C), Src: src, Dst: dst, H: st.o1 - st.o0, W: e.j.ow,
		ScalarOperand: true, Scalar: *r.scalar}
	post(&pt, r.q)
	return e.c.planarTask(fmt.Sprintf("%s %s", blk, r.label), pt)
}
