package planar

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The lane's pooling windows (S1 across a row, S2 down the columns over
// the line buffer) and its reduction, which shares the line buffer.

// extreme is the element type's worst value for the pooling, w bits.
func (ln *laneBuilder) extreme(w int) *hdl.Expr {
	if ln.poolMin == nil { // max pooling only
		return hdl.Const(hdl.SInt(w), big.NewInt(minOf(ln.et)))
	}
	return hdl.Mux(ln.poolMin, hdl.Const(hdl.SInt(w), big.NewInt(maxOf(ln.et))), hdl.Const(hdl.SInt(w), big.NewInt(minOf(ln.et))))
}

// horizontal is S1's pooling filter over the last K inputs.
//
// prev[j] is the input j+1 steps back. A virtual column (right
// padding) repeats the last input (edge) or is the padding constant;
// the first column of a row fills the window's padding slots. The
// constant is 0, or with pad_ignore the element type's minimum (max
// pooling) or maximum (min pooling): every window holds an element
// of the plane (padding is below the window size), which is at
// least as good, so the padding never decides the result.
func (ln *laneBuilder) horizontal() {
	c, m, p, K, ew, hw, e := ln.c, ln.m, &ln.p, ln.K, ln.ew, ln.hw, ln.e
	fn, padEdge := p.fn, p.padEdge
	if !c.NoPoolMin {
		ln.poolMin = fn.Eq(hdl.U(fn.Width(), uint64(isaplanar.FnPoolMin)))
	}
	hpadC := m.Wire("hpad_const", hdl.SInt(ew))
	hpadC.Set(hdl.Mux(p.padIgnore, ln.extreme(ew), hdl.S(ew, 0)))
	prev := make([]*hdl.Signal, K-1)
	for j := range prev {
		prev[j] = ln.data(fmt.Sprintf("hwin_%d", j), hdl.SInt(ew))
	}
	v := m.Wire("hin", hdl.SInt(ew))
	v.Set(hdl.Mux(p.hVirt, hdl.Mux(padEdge, prev[0], hpadC), e))
	padv := hdl.Mux(padEdge, v, hpadC)
	slots := []*hdl.Expr{&v.Expr}
	for j := 1; j < K; j++ {
		slots = append(slots, hdl.Mux(p.hFill, padv, prev[j-1]))
	}
	for j := range prev {
		prev[j].SetNext(slots[j])
		prev[j].SetEnable(p.hEn)
	}
	hval := window(c, ln.data, p.adv, "hwin_t", slots, p.kw, &p.avg.Expr, ln.poolMin, hw)
	hreg := ln.data("hreg", hdl.SInt(hw))
	hreg.SetNext(hval)
	hreg.SetEnable(p.adv)
	ln.hreg = hreg
}

// vertical is S2's filter over the line buffer.
//
// The line buffer (lineBuffer) sits beside the lane. Entry ox holds the K-1 previous rows' horizontal results for output
// column ox, newest in the low bits; the read was issued with the
// horizontal result, so its data meets hreg here. lb_fwd replaces a
// read of the word written in the same cycle (it returns the old one).
func (ln *laneBuilder) vertical() {
	c, m, p, K, hw := ln.c, ln.m, &ln.p, ln.K, ln.hw
	padEdge := p.padEdge
	ww := lineWidth(c)
	q := m.Input("lb_q", hdl.UInt(ww))
	last := ln.data("lb_last", hdl.UInt(ww))
	word := hdl.Mux(p.lbFwd, last, q)
	w := func(j int) *hdl.Expr { return word.Slice((j+1)*hw-1, j*hw).AsSInt() }
	// The vertical padding is the horizontal one at the hsum width: a
	// max or min of element values is an element value.
	vpadC := m.Wire("vpad_const", hdl.SInt(hw))
	vpadC.Set(hdl.Mux(p.padIgnore, ln.extreme(hw), hdl.S(hw, 0)))
	hcur := m.Wire("vin", hdl.SInt(hw))
	hcur.Set(hdl.Mux(p.vVirt, hdl.Mux(padEdge, w(0), vpadC), ln.hreg))
	vpad := hdl.Mux(padEdge, hcur, vpadC)
	vs := []*hdl.Expr{&hcur.Expr}
	for j := 0; j < K-1; j++ {
		vs = append(vs, hdl.Mux(p.vFill, vpad, w(j)))
	}
	parts := make([]hdl.Value, 0, K-1)
	for j := K - 2; j >= 0; j-- {
		parts = append(parts, vs[j].AsUInt())
	}
	newWord := m.Output("lb_wdata", hdl.UInt(ww))
	last.SetNext(newWord)
	last.SetEnable(p.lbWe)
	ln.vres = window(c, ln.data, p.adv, "vwin_t", vs, p.kh, &p.avg.Expr, ln.poolMin, ln.pw)
	ln.word, ln.parts, ln.newWord = word, parts, newWord
}

// reduction runs S1 over the plane, or S2 down the columns.
//
// One adder and one comparison serve both: a plane reduction
// combines each element (S1) with acc; a reduction across rows
// combines the element (hreg: a 1×1 window) with its column's
// value from the line buffer (S2) and writes the result back.
func (ln *laneBuilder) reduction() {
	c, m, p, ew := ln.c, ln.m, &ln.p, ln.ew
	ww := lineWidth(c)
	if c.NoReduce { // reductions are refused: the line buffer keeps windows only
		ln.newWord.Set(hdl.Cat(ln.parts...).Ext(ww))
		return
	}
	redRows := p.redRows
	rw := c.RedWidth()
	acc := ln.data("acc", hdl.SInt(rw))
	rin := m.Wire("red_in", hdl.SInt(ew))
	rin.Set(hdl.Mux(redRows, ln.hreg.Trunc(ew), ln.e))
	racc := m.Wire("red_acc", hdl.SInt(rw))
	racc.Set(hdl.Mux(redRows, ln.word.Slice(rw-1, 0).AsSInt(), acc))
	accNext := m.Wire("acc_next", hdl.SInt(rw))
	accNext.Set(hdl.Mux(hdl.Mux(redRows, p.vFill, p.redFirst), rin.Ext(rw),
		hdl.Mux(p.redMax, hdl.Mux(rin.Gt(racc), rin.Ext(rw), racc), racc.Add(rin).Trunc(rw))))
	acc.SetNext(accNext)
	acc.SetEnable(p.redEn)
	ln.newWord.Set(hdl.Mux(redRows, accNext.AsUInt().Ext(ww), hdl.Cat(ln.parts...).Ext(ww)))
	ln.accNext = accNext
}

// window is the pooling window's value over slots with k of them in use:
// their sum (avg 1, w bits) or their maximum (minimum when least is 1).
// With deep_pipeline the tree takes one level per cycle: the masked slots
// are registered, then every level's results but the last, which the
// caller registers (hreg or X), each register enabled by adv; the value
// comes windowStages cycles later than without.
func window(c Config, reg func(string, hdl.Type) *hdl.Signal, adv *hdl.Signal, name string, slots []*hdl.Expr,
	k *hdl.Signal, avg, least *hdl.Expr, w int) *hdl.Expr {
	if c.NoPoolAvg { // an average is refused: no sums
		avg = hdl.U(1, 0)
		if c.windowStages() == 0 {
			return windowPick(slots, k, least).Ext(w)
		}
	}
	if c.windowStages() == 0 {
		return hdl.Mux(avg, windowSum(slots, k, w), windowPick(slots, k, least).Ext(w))
	}
	level := make([]*hdl.Expr, len(slots))
	for i, v := range slots {
		level[i] = v.Ext(w)
		if i > 0 { // past k: 0 in a sum; slot 0, in every window, in a pick
			level[i] = hdl.Mux(k.Gt(hdl.U(k.Width(), uint64(i))), level[i], hdl.Mux(avg, hdl.S(w, 0), slots[0].Ext(w)))
		}
	}
	combine := func(a, b *hdl.Expr) *hdl.Expr {
		return hdl.Mux(avg, a.Add(b).Trunc(w), pick(least, a, b))
	}
	for depth := 0; ; depth++ {
		for i, v := range level {
			level[i] = stage(reg, adv, fmt.Sprintf("%s%d_%d", name, depth, i), v)
		}
		var next []*hdl.Expr
		for i := 0; i+1 < len(level); i += 2 {
			next = append(next, combine(level[i], level[i+1]))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		if level = next; len(level) == 1 {
			return level[0]
		}
	}
}

// windowSum is the sum of the first k slots (k ≥ 1 at run time), w bits.
// The slots past k count as 0; the sum is a balanced tree of adders, so
// the window's depth grows with log2 of its size, not with its size
// (sums modulo 2^w do not depend on the order).
func windowSum(slots []*hdl.Expr, k *hdl.Signal, w int) *hdl.Expr {
	terms := make([]*hdl.Expr, len(slots))
	for i, v := range slots {
		terms[i] = v.Ext(w)
		if i > 0 {
			terms[i] = hdl.Mux(k.Gt(hdl.U(k.Width(), uint64(i))), terms[i], hdl.S(w, 0))
		}
	}
	return balanced(terms, func(a, b *hdl.Expr) *hdl.Expr { return a.Add(b).Trunc(w) })
}

// windowPick is the maximum of the first k slots (k ≥ 1 at run time), or
// their minimum when least is 1. A slot past k stands in as slot 0, which
// is in every window, so it never changes the result; the comparisons
// form a balanced tree (log2 of the window deep, not the window).
func windowPick(slots []*hdl.Expr, k *hdl.Signal, least *hdl.Expr) *hdl.Expr {
	cands := make([]*hdl.Expr, len(slots))
	for i, v := range slots {
		cands[i] = v
		if i > 0 {
			cands[i] = hdl.Mux(k.Gt(hdl.U(k.Width(), uint64(i))), v, slots[0])
		}
	}
	return balanced(cands, func(a, b *hdl.Expr) *hdl.Expr { return pick(least, a, b) })
}

// pick is the greater of a and b, or the lesser when least is 1; a nil
// least (no min pooling) builds the greater-than comparator alone.
func pick(least, a, b *hdl.Expr) *hdl.Expr {
	if least == nil {
		return hdl.Mux(b.Gt(a), b, a)
	}
	return hdl.Mux(hdl.Mux(least, b.Lt(a), b.Gt(a)), b, a)
}

// balanced combines xs pairwise, halves first: a tree ceil(log2 n) deep.
func balanced(xs []*hdl.Expr, f func(a, b *hdl.Expr) *hdl.Expr) *hdl.Expr {
	if len(xs) == 1 {
		return xs[0]
	}
	h := (len(xs) + 1) / 2
	return f(balanced(xs[:h], f), balanced(xs[h:], f))
}
