package compiler

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa/planar"
)

// A lookup runs an element-wise function given as a table on the planar
// engine's lookup table (npu planar_lut): a loadtable fills the table,
// and every eltwise task of the lookup (an add of the scalar 0 through
// the post-processor) sets the lut flag, so its result r = q(x) is
// replaced by table[r − elem min] on its way out. golden.TableOf makes
// a table of a float function (sigmoid, tanh, exp) between two
// quantization scales.
//
// The table is an input binding of its own, <label>.t (lookup0.t), of
// shape [2^elem_width], placed in external memory as loadtable reads
// it: line i holds entries i·rows .. i·rows+rows−1, entry k in element
// k mod rows. Each lookup loads it into a state region of its own for
// the span of the op and runs its loadtable before its first task; the
// table register then belongs to the lookup's tasks by program order
// (the one planar engine runs its tasks one at a time, in order), as
// the lane registers of loadparams do.

// Lookup is table[q(x) − min] element by element, min the element
// type's smallest value: x is requantized by q (the zero value is the
// identity), saturated to an element, and that element looked up. The
// table has an entry per element value, ascending (256 for int8: entry
// 0 for −128, entry 255 for 127); the compiler checks it against the
// NPU's element type.
func (g *Graph) Lookup(x *Value, table []int64, q golden.Requant) *Value {
	op := fmt.Sprintf("lookup%d", g.counts[opLookup])
	if !g.check(op, x) {
		return g.bad()
	}
	if n := len(table); n < 2 || n&(n-1) != 0 {
		return g.fail(op, "table has %d entries: want one per element value, 2^elem_width (256 for int8)", n)
	}
	if x.producer == nil {
		x.setPlain()
	}
	out := g.newValue(x.shape)
	out.formSet, out.cols, out.trans, out.p, out.f, out.h, out.w = true, x.cols, x.trans, x.p, x.f, x.h, x.w
	n := g.add(opLookup, []*Value{x}, out)
	zero := int64(0)
	n.elt, n.scalar, n.q, n.table = golden.EltAdd, &zero, identity(q), slices.Clone(table)
	return out
}

// loadTable places lookup n's table in external memory and the image,
// loads it into a state region taken from sc and emits the loadtable.
func (c *ctx) loadTable(n *node, sc *scratch) error {
	if !c.pcfg.LUT {
		return fmt.Errorf("%s: the planar engine has no lookup table (npu planar_lut = false)", n.label)
	}
	elem := golden.S(c.cfg.ElemWidth)
	if err := golden.CheckTable(n.table, elem); err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	rows := c.pcfg.TableRows()
	b := &Binding{Name: n.label + ".t", Shape: []int{len(n.table)}, Lines: rows, Rows: c.R}
	b.Index = make([]int32, rows*c.R)
	for i := range b.Index {
		b.Index[i] = -1
		if i < len(n.table) {
			b.Index[i] = int32(i) // line i·R + p: entry i·R + p, in lane p
		}
	}
	b.Base = c.extAlloc(b.Lines)
	c.prog.Inputs = append(c.prog.Inputs, b)
	lines, err := b.ToLines(&golden.Tensor{Shape: b.Shape, Data: n.table})
	if err != nil {
		return fmt.Errorf("%s: %w", n.label, err)
	}
	copy(c.prog.Image[b.Base:], lines)
	base, err := sc.take(rows)
	if err != nil {
		return fmt.Errorf("%s: its table (%d rows) needs %d state addresses: %w", n.label, rows, rows, err)
	}
	c.load(n.label+" load table", b.Base, base, rows, 1, rows)
	lt := planar.Task{Op: planar.OpLoadTable, Mask: laneMask(c.pcfg.TableLanes()), Src: base}
	return c.planarTask(n.label+" loadtable", lt)
}
