package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/isa/machine"
	"github.com/hwgen/hwgen/isa/planar"
)

// An eltwise of one operand (a requantization such as BN-ReLU, a unary
// or scalar function) whose result only one conv reads, while its
// operand streams from external memory, runs on the conv's input: one
// planar task in place over each band of rows the conv loads, before the
// NE reads it. DenseNet applies BN-ReLU to each concatenation before the
// layer's 1×1 conv; run on its own, the eltwise would stream the whole
// concatenation in and its result out, and the conv stream that back
// (the NE waiting at every layer for all of it, as the engines run their
// tasks in program order); on the bands, it costs one planar pass over
// what the conv loads anyway. The NE pads the conv's input with zeros,
// as the golden model pads the eltwise's result, so the padding rows
// need no eltwise.

// preFusable reports whether eltwise n runs on its conv's input bands.
func (c *ctx) preFusable(n *node) bool {
	return !c.operand(n.in[0]).resident && c.preCandidate(n)
}

// preCandidate reports whether eltwise n would run on its conv's input
// bands if its operand streamed.
func (c *ctx) preCandidate(n *node) bool {
	v := n.out
	if n.kind != opEltwise || len(n.in) != 1 || c.taps[n.in[0]] != nil ||
		c.isOutput(v) || len(c.views[v]) > 0 || c.stor[v] != nil || c.live[c.key(v)] != 1 ||
		c.checkRequant(n.label, n.q) != nil {
		return false
	}
	rd := consumer(c.g, v)
	return rd != nil && rd.kind == opConv && rd.in[0] == v && (rd.conv.Groups <= 1 || c.lay(v).dense())
}

// preBand runs the layer's pre eltwise (if any) in place over n
// addresses of its input slot from addr: rows of w, all partitions
// (a hole's lane gets some value no weight reads).
func (e *convEmitter) preBand(addr, rows int, what string) error {
	n := e.j.pre
	if n == nil {
		return nil
	}
	fn, err := machine.EltFn(n.elt)
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	pt := planar.Task{Op: planar.OpEltwise, Fn: fn, Mask: laneMask(e.j.in.part), Src: addr, Dst: addr, H: rows, W: e.j.w}
	if n.scalar != nil {
		pt.ScalarOperand, pt.Scalar = true, *n.scalar
	}
	post(&pt, n.q)
	return e.c.planarTask(fmt.Sprintf("%s on %s", n.label, what), pt)
}
