package compiler

import (
	"fmt"

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

// postElt is the eltwise a conv runs on its output blocks.
type postElt struct {
	n     *node
	first bool   // the conv's result is the eltwise's first operand
	other *place // the other operand
	out   *place // the eltwise's result
}

// postFusable returns the eltwise that conv n's result feeds and that can
// run on its output blocks, or nil: the result is the eltwise's only use
// (no output, view or storage), the other operand is already placed, and
// both operands and the result are dense feature maps of the act's
// channel tiles.
func (c *ctx) postFusable(n *node) *node {
	v := n.out
	if c.g == nil || v.uses != 1 || v.isInt32 || len(v.outputs) > 0 || hasView(c.g, v) || c.stor[v] != nil || c.taps[v] != nil {
		return nil
	}
	e := consumer(c.g, v)
	if e == nil || e.kind != opEltwise || len(e.in) != 2 || e.scalar != nil || e.channel || e.table != nil || e.in[0] == e.in[1] {
		return nil
	}
	o := e.in[0]
	if o == v {
		o = e.in[1]
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
	return e
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
