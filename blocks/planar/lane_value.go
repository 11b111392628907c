package planar

import (
	"math/big"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The lane's value path: the eltwise function and the per-lane
// parameters in S1, then X, the gain and bias (P, V), the post function,
// and the rounding, ReLU, clamp and saturation into the output FIFO.

// eltwise is S1's elementwise function of a and b.
func (ln *laneBuilder) eltwise() {
	c, p, e, ew := ln.c, &ln.p, ln.e, ln.ew
	if c.NoEltwise { // eltwise tasks are refused: no operands, no ALU
		return
	}
	fn, eltScalar, eltBcast := p.fn, p.eltScalar, p.eltBcast
	hold := ln.data("hold", hdl.SInt(ew))
	hold.SetNext(e)
	hold.SetEnable(p.eltHold)
	// hold keeps a (two tensors: a is read first) or the broadcast b
	// (read once, before the plane). With the second port a two-tensor
	// b comes beside a in the entry: a is always the head, nothing held.
	a := hdl.Mux(eltScalar.Or(eltBcast), e, hold)
	b := hdl.Mux(eltScalar, ln.ext(&p.scalar.Expr), hdl.Mux(eltBcast, hold, e))
	if c.Src2Port {
		a = &e.Expr
		b = hdl.Mux(eltScalar, ln.ext(&p.scalar.Expr), hdl.Mux(eltBcast, hold, ln.e2))
	}
	eltW := c.EltWidth()
	// |e| of an extended element fits its E+1 bits: |min| = 2^(E−1).
	absE := hdl.Mux(e.Lt(hdl.S(ew, 0)), e.Neg().Trunc(ew), e)
	negE := e.Neg().Trunc(ew) // −min = 2^(E−1) fits too
	if c.eltStages() > 0 {
		// The operands are chosen in S1 and registered; the function of
		// them is computed in the next cycle, and registered again (X).
		a, b, absE = stage(ln.data, p.adv, "elt_a", a), stage(ln.data, p.adv, "elt_b", b), stage(ln.data, p.adv, "elt_abs", absE)
		negE = stage(ln.data, p.adv, "elt_neg", negE)
	}
	elt := hdl.S(eltW, 0) // without eltwise_mul: a mul is refused
	if !c.NoEltwiseMul {
		elt = a.Mul(b) // FnMul; the others are narrower and extended
	}
	for _, f := range []struct {
		fn isaplanar.Fn
		v  *hdl.Expr
	}{{isaplanar.FnAdd, a.Add(b)}, {isaplanar.FnSub, a.Sub(b)}, {isaplanar.FnMax, hdl.Mux(a.Gt(b), a, b)}, {isaplanar.FnMin, hdl.Mux(a.Lt(b), a, b)}, {isaplanar.FnAbs, absE}, {isaplanar.FnNeg, negE}} {
		elt = hdl.Mux(fn.Eq(hdl.U(fn.Width(), uint64(f.fn))), f.v.Ext(eltW), elt)
	}
	ln.elt = elt
}

// params shifts the per-lane parameters in (S1), little-endian.
//
// With passes (fewer post units than partitions) the parameters are
// the partition's, kept by the controller (paramRegs): the lane hands
// it the element at its FIFO's head and takes the pass's pair.
func (ln *laneBuilder) params() {
	c, m, E, A, head := ln.c, ln.m, ln.E, ln.A, ln.head
	if c.Passes() > 1 {
		m.Output("head_e", hdl.UInt(E)).Set(head.Slice(E-1, 0))
		ln.pScale, ln.pBias = &ln.p.lpScale.Expr, &ln.p.lpBias.Expr
		return
	}
	nlp := c.ParamWords()
	pr := m.Reg("params", hdl.UInt(nlp*E), 0)
	pr.SetNext(hdl.Cat(head.Slice(E-1, 0), pr.Slice(nlp*E-1, E)))
	pr.SetEnable(ln.p.lpEn)
	ns := (c.ScaleWidth + E - 1) / E
	ln.pScale = pr.Slice(c.ScaleWidth-1, 0).AsSInt()
	ln.pBias = pr.Slice(ns*E+A-1, ns*E).AsSInt()
}

// exact is X: the exact result of the operation.
func (ln *laneBuilder) exact() {
	c, p, xw := ln.c, &ln.p, ln.xw
	var elt, redX *hdl.Expr // nil: the feature is left out, its x_sel never comes
	if ln.elt != nil {
		elt = ln.elt
		if c.eltStages() > 0 {
			elt = stage(ln.data, p.adv, "elt_r", elt) // the function select apart from X's
		}
		elt = elt.Ext(xw)
	}
	if ln.accNext != nil {
		redX = &ln.accNext.Expr
		if c.redStages() > 0 {
			redX = stage(ln.data, p.adv, "red_x", redX) // the accumulate apart from X's select
		}
		redX = redX.Ext(xw)
	}
	x := ln.data("x", hdl.SInt(xw))
	x.SetNext(muxOpt(p.xSel.Bit(1),
		muxOpt(p.xSel.Bit(0), ln.vres.Ext(xw), redX),
		muxOpt(p.xSel.Bit(0), elt, ln.head.Ext(xw))))
	x.SetEnable(p.adv)
	ln.x = x
}

// muxOpt is Mux(sel, a, b) where a missing operand (nil: a feature left
// out, whose select never comes) leaves the other.
func muxOpt(sel, a, b *hdl.Expr) *hdl.Expr {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return hdl.Mux(sel, a, b)
}

// gain is P and V: the gain (the task's scale, or the lane's own) and
// the bias.
func (ln *laneBuilder) gain() {
	c, p, x, vw := ln.c, &ln.p, ln.x, ln.vw
	sc := hdl.Mux(p.perLane, ln.pScale, p.scale)
	bi := hdl.Mux(p.perLane, ln.pBias, p.bias)
	if c.DeepPipeline {
		// Both only change between tasks (or with a loadparams task), many
		// cycles before an element reaches P: a register takes the choice
		// off the multiplier's and the adder's paths.
		scR, biR := ln.data("scale_r", sc.Type), ln.data("bias_r", bi.Type)
		scR.SetNext(sc)
		biR.SetNext(bi)
		sc, bi = &scR.Expr, &biR.Expr
	}
	// The product is registered before the bias is added: multiplier
	// and adder in one cycle would be the lane's longest path.
	prod := x.Mul(sc)
	if c.mulStages() > 0 {
		// The gain in two halves of the scale, each product registered
		// and their sum formed in P's cycle: scale = hi·2^h + lo, lo
		// unsigned, so x·scale = (x·hi)·2^h + x·lo exactly.
		sw, h := c.ScaleWidth, c.ScaleWidth/2
		lo := stage(ln.data, p.adv, "prod_lo", x.Mul(sc.Slice(h-1, 0).Ext(h+1).AsSInt()))
		hi := stage(ln.data, p.adv, "prod_hi", x.Mul(sc.Slice(sw-1, h).AsSInt()))
		prod = hi.Ext(prod.Type.Width).ShlConst(h).Trunc(prod.Type.Width).AsSInt().
			Add(lo.Ext(prod.Type.Width)).Trunc(prod.Type.Width).AsSInt()
	}
	prodR := ln.data("prod", prod.Type)
	prodR.SetNext(prod)
	prodR.SetEnable(p.adv)
	vr := ln.data("v", hdl.SInt(vw))
	vr.SetNext(prodR.Add(bi))
	vr.SetEnable(p.adv)
	ln.vr = vr
}

// postFunction is the post function of reductions: u from v, while adv
// holds V.
func (ln *laneBuilder) postFunction() {
	if !ln.c.hasPostUnit() { // sqrt and recip are refused: v passes
		ln.u = ln.vr
		return
	}
	pu := postUnit(ln.m, ln.c, ln.vr, ln.p.post, ln.data)
	u := ln.m.Wire("u", hdl.SInt(ln.vw))
	u.Set(hdl.Mux(ln.p.postOn, pu.AsSInt(), ln.vr))
	ln.u = u
}

// round rounds, applies ReLU, clamps and saturates (or wraps: floor,
// then the low bits).
func (ln *laneBuilder) round() {
	c, m, p, E, vw, u := ln.c, ln.m, &ln.p, ln.E, ln.vw, ln.u
	shift, wrap, adv := p.shift, p.wrap, p.adv
	sw := c.ShiftWidth()
	fl := u.Shr(shift) // floor(u / 2^shift)
	ones := hdl.Const(hdl.UInt(vw), hdl.UInt(vw).Mask())
	remMask := ones.ShlWrap(shift).Not()
	half := hdl.U(vw, 1).ShlWrap(shift.Sub(hdl.U(1, 1)).Trunc(sw))
	if c.DeepPipeline {
		// Functions of the task's shift alone: registered, they leave
		// the rounding decision's path.
		mr, hr := ln.data("rem_mask", remMask.Type), ln.data("half", half.Type)
		mr.SetNext(remMask)
		hr.SetNext(half)
		remMask, half = &mr.Expr, &hr.Expr
	}
	rem := u.AsUInt().And(remMask)
	gt, eq := rem.Gt(half), rem.Eq(half)
	up := shift.OrR().And(wrap.Not()).And(hdl.Mux(p.roundEven, gt.Or(eq.And(fl.Bit(0))), gt.Or(eq)))
	// R: the floor and the rounding decision are registered, so the
	// variable shift and the remainder's compare are one stage and the
	// increment, ReLU, clamp and saturation the next.
	flR := ln.data("fl", fl.Type)
	flR.SetNext(fl)
	flR.SetEnable(adv)
	upR := ln.data("up", hdl.Bool)
	upR.SetNext(up)
	upR.SetEnable(adv)
	r := m.Wire("rounded", hdl.SInt(vw+1))
	if c.outStages() > 0 {
		// The increment in a cycle of its own, apart from ReLU, clamp
		// and saturation.
		r.Set(stage(ln.data, adv, "rounded_r", flR.Add(upR.Ext(2).AsSInt())))
	} else {
		r.Set(flR.Add(upR.Ext(2).AsSInt()))
	}
	zero := hdl.S(vw+1, 0)
	r2 := m.Wire("relued", hdl.SInt(vw+1))
	r2.Set(hdl.Mux(p.relu.And(r.Bit(vw)), zero, r))
	// Saturate first, by the bits above the element (no wide compare),
	// then clamp at the element's width: lo and hi are element values,
	// so clamp(saturate(r)) = saturate(clamp(r)) = clamp(r), and the
	// wrap mode's low bits are the unsaturated value's.
	sat := m.Wire("saturated", hdl.SInt(ln.ew))
	satV, wrapV := ln.ext(saturate(&r2.Expr, ln.et)), r2.Trunc(E)
	if c.outStages() > 1 {
		// Saturation in a cycle of its own, apart from the clamp.
		satV, wrapV = stage(ln.data, adv, "saturated_r", satV), stage(ln.data, adv, "wrapped_r", wrapV)
	}
	sat.Set(satV)
	loS, hiS := ln.ext(&p.lo.Expr), ln.ext(&p.hi.Expr)
	y := m.Wire("y", hdl.UInt(E))
	y.Set(hdl.Mux(p.clamp, clampTo(&sat.Expr, loS, hiS).Trunc(E), hdl.Mux(wrap, wrapV, sat.Trunc(E))).AsUInt())
	ln.y = y
}

// saturate is v (signed, wider than t) limited to t's range, as t.Width
// element bits: v is in range when the bits above t's (its sign bit included
// for a signed t) all equal v's sign.
func saturate(v *hdl.Expr, t hdl.Type) *hdl.Expr {
	w, E := v.Type.Width, t.Width
	low := E
	if t.Signed {
		low = E - 1
	}
	top := v.Slice(w-1, low)
	inRange := top.OrR().Not()
	if t.Signed {
		inRange = inRange.Or(top.AndR())
	}
	lo := hdl.Const(hdl.SInt(E+1), big.NewInt(minOf(t))).Trunc(E)
	hi := hdl.Const(hdl.SInt(E+1), big.NewInt(maxOf(t))).Trunc(E)
	return hdl.Mux(inRange, v.Trunc(E), hdl.Mux(v.Bit(w-1), lo, hi)).AsUInt()
}

// clampTo is min(max(v, lo), hi).
func clampTo(v, lo, hi *hdl.Expr) *hdl.Expr {
	a := hdl.Mux(v.Lt(lo), lo, v)
	return hdl.Mux(a.Gt(hi), hi, a)
}
