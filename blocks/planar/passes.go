package planar

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// Passes: with U = post_lanes post units for L partitions (U < L, a
// divisor), a task runs in up to G = L/U passes, one for each group of
// U partitions its mask names, in increasing order. Pass g reads every vector of
// the task as a single pass would, and lane u works on partition
// g·U + u: its input is that partition's element (state or psum), its
// result that partition's element of the write, whose mask is the
// task's restricted to the pass's partitions. Between passes the
// controller goes back to its checks (which clear every counter, as for
// a new task) with the same task register, so the walker, the
// reductions and the line buffers start afresh for the next group of
// partitions; done comes at the end of the last pass. What is kept per
// partition across passes is kept by the controller: the loadparams
// parameters (a register per partition, written in the partition's
// pass) and the lookup table (one array, each pass writing its U
// entries of every row).
//
// Passes, not a vector spread over G cycles, because every piece of a
// lane's state (the windows, the line buffer, the accumulator, the
// held eltwise operand, the post function) then stays one copy per
// post unit: the area the post units save is not spent again on state
// per partition. The cost is the reads: each vector is read once per
// pass (G·Reads per task).

// passInit declares the pass counter and the pass's write and read mask
// (the task's with one pass).
func (cb *ctl) passInit() {
	cb.G, cb.U = cb.c.Passes(), cb.c.Units()
	mask := cb.q["mask"]
	if cb.G == 1 {
		cb.gmask = &mask.Expr
		return
	}
	pw := hdl.ClogWidth(cb.G)
	cb.pass = cb.m.Reg("pass", hdl.UInt(pw), 0)
	groups := make([]hdl.Value, cb.G)
	for g := range cb.G {
		bits := new(big.Int).Lsh(big.NewInt(1), uint(cb.U))
		bits.Sub(bits, big.NewInt(1))
		groups[g] = hdl.Const(hdl.UInt(cb.L), bits.Lsh(bits, uint(g*cb.U)))
	}
	gm := cb.m.Wire("pass_mask", hdl.UInt(cb.L))
	gm.Set(mask.And(hdl.Pick(cb.pass, groups, groups[0])))
	cb.gmask = &gm.Expr
	// Only the groups the mask names get a pass: the first from the
	// mask being accepted, the next from the task register's.
	cb.firstPass = lowestGroup(cb.groupsNamed(cb.tMask), pw)
	later := cb.groupsNamed(mask)
	for g := range later {
		later[g] = later[g].And(cb.pass.Lt(hdl.U(pw, uint64(g))))
	}
	cb.nextPass = lowestGroup(later, pw)
	more := later[0]
	for _, l := range later[1:] {
		more = more.Or(l)
	}
	cb.lastPass = more.Not().Or(cb.isNop)
}

// groupsNamed is, for each pass g, whether mask names one of its
// partitions g·U … g·U+U−1.
func (cb *ctl) groupsNamed(mask *hdl.Signal) []*hdl.Expr {
	named := make([]*hdl.Expr, cb.G)
	for g := range cb.G {
		named[g] = mask.Slice(g*cb.U+cb.U-1, g*cb.U).OrR()
	}
	return named
}

// lowestGroup is the lowest g with named[g] (0 when none), pw bits.
func lowestGroup(named []*hdl.Expr, pw int) *hdl.Expr {
	r := hdl.U(pw, 0)
	for g := len(named) - 1; g >= 0; g-- {
		r = hdl.Mux(named[g], hdl.U(pw, uint64(g)), r)
	}
	return r
}

// passIs says the pass is g.
func (cb *ctl) passIs(g int) *hdl.Expr { return cb.pass.Eq(hdl.U(cb.pass.Width(), uint64(g))) }

// byPass is lane u's choice among per-partition values: vals[g·U+u] in
// pass g.
func (cb *ctl) byPass(u int, vals []hdl.Value) hdl.Value {
	if cb.G == 1 {
		return vals[u]
	}
	sel := make([]hdl.Value, cb.G)
	for g := range cb.G {
		sel[g] = vals[g*cb.U+u]
	}
	return hdl.Pick(cb.pass, sel, sel[0])
}

// paramRegs keeps every partition's loadparams parameters (with
// passes): partition p's register shifts in its lane's head element in
// pass p/U of a loadparams task, little-endian like the lane's own.
func (cb *ctl) paramRegs(lanes []*hdl.Instance) {
	c, m, E := cb.c, cb.m, cb.E
	A := c.AccWidth
	nlp := c.ParamWords()
	ns := (c.ScaleWidth + E - 1) / E
	scales, biases := make([]hdl.Value, cb.L), make([]hdl.Value, cb.L)
	for p := range cb.L {
		pr := m.Reg(fmt.Sprintf("params_%d", p), hdl.UInt(nlp*E), 0)
		pr.SetNext(hdl.Cat(lanes[p%cb.U].Out("head_e"), pr.Slice(nlp*E-1, E)))
		pr.SetEnable(cb.fire.And(cb.isLP).And(cb.q["mask"].Bit(p)).And(cb.passIs(p / cb.U)))
		scales[p] = pr.Slice(c.ScaleWidth-1, 0).AsSInt()
		biases[p] = pr.Slice(ns*E+A-1, ns*E).AsSInt()
	}
	for u, ln := range lanes {
		ln.Connect("lp_scale", cb.byPass(u, scales)).Connect("lp_bias", cb.byPass(u, biases))
	}
}

// unitsTag marks the module names of a variant with passes.
func unitsTag(name string, c Config) string {
	if c.Passes() > 1 {
		return fmt.Sprintf("%s_u%d", name, c.Units())
	}
	return name
}
