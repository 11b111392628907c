package planar

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Depth of the lane's output FIFO: it is only full while the write port
// stalls. The input FIFO's is Config.inDepth.
const outDepth = 2

// laneName is the lane module's name: every parameter that shapes it.
func laneName(c Config) string {
	sign := "u"
	if c.ElemSigned {
		sign = "s"
	}
	return resetTag(deepTag(hdl.Name("planar_lane", fmt.Sprintf("%s%d", sign, c.ElemWidth), fmt.Sprintf("a%d", c.AccWidth),
		fmt.Sprintf("sc%d", c.ScaleWidth), fmt.Sprintf("d%d", c.StateDepth), fmt.Sprintf("k%d", c.MaxKernel)), c), c.NoDatapathReset)
}

// lane is one partition's datapath; the controller drives every select
// and enable, so all lanes work in lockstep on the same element index.
//
// Pipeline (each stage a register, all enabled by adv so a full output
// FIFO freezes everything behind it):
//
//	input FIFO → S1 (eltwise, reduce, horizontal pool filter, param shift)
//	           → [Hreg → S2 vertical pool filter over the line buffer]
//	           → X → P = X·scale → V = P + bias → R = floor(V / 2^shift), round up?
//	           → +1, ReLU, clamp, saturate (or wrap) → output FIFO
//
// deep_pipeline adds registers on the way (Config's *Stages methods
// count them): each window's tree one level per cycle, the eltwise
// operands and result, a reduction's sum, the gain's two halves before
// P, the increment and then the saturation before the clamp; the scale,
// bias and rounding masks are registered task constants.
func lane(c Config) *hdl.Module {
	m := hdl.NewModule(laneName(c))
	data := func(name string, t hdl.Type) *hdl.Signal { // a register no valid output reads before writing
		return m.DataReg(name, t, !c.NoDatapathReset)
	}
	E, A, K := c.ElemWidth, c.AccWidth, c.MaxKernel
	ew, iw, hw, pw := c.ExtWidth(), c.InWidth(), c.HsumWidth(), c.PoolWidth()
	xw, vw := c.XWidth(), c.VWidth()
	ext := func(bits *hdl.Expr) *hdl.Expr { // element bits -> SInt(E+1)
		if c.ElemSigned {
			return bits.AsSInt().Ext(ew)
		}
		return bits.Ext(ew).AsSInt()
	}

	rs := m.Input("rs", hdl.UInt(E))
	rp := m.Input("rp", hdl.SInt(A))
	inPsum := m.Input("in_psum", hdl.Bool)
	fWe := m.Input("f_we", hdl.UInt(c.inDepth()))
	fRi := m.Input("f_ri", hdl.UInt(hdl.ClogWidth(c.inDepth())))

	eltHold := m.Input("elt_hold", hdl.Bool)
	fn := m.Input("fn", hdl.UInt(isaplanar.FnWidth()))
	eltScalar := m.Input("elt_scalar", hdl.Bool)
	eltBcast := m.Input("elt_bcast", hdl.Bool)
	scalar := m.Input("scalar", hdl.UInt(E))
	redEn := m.Input("red_en", hdl.Bool)
	redFirst := m.Input("red_first", hdl.Bool)
	redMax := m.Input("red_max", hdl.Bool)
	redRows := m.Input("red_rows", hdl.Bool)
	lpEn := m.Input("lp_en", hdl.Bool)
	hEn := m.Input("h_en", hdl.Bool)
	hFill := m.Input("h_fill", hdl.Bool)
	hVirt := m.Input("h_virt", hdl.Bool)
	padEdge := m.Input("pad_edge", hdl.Bool)
	padIgnore := m.Input("pad_ignore", hdl.Bool)
	avg := m.Input("avg", hdl.Bool)
	kw := m.Input("kw", hdl.UInt(c.KWidth()))
	kh := m.Input("kh", hdl.UInt(c.KWidth()))
	vFill := m.Input("v_fill", hdl.Bool)
	vVirt := m.Input("v_virt", hdl.Bool)
	lbWe := m.Input("lb_we", hdl.Bool)
	lbFwd := m.Input("lb_fwd", hdl.Bool)
	xSel := m.Input("x_sel", hdl.UInt(2))
	adv := m.Input("adv", hdl.Bool)
	perLane := m.Input("per_lane", hdl.Bool)
	scale := m.Input("scale", hdl.SInt(c.ScaleWidth))
	bias := m.Input("bias", hdl.SInt(A))
	shift := m.Input("shift", hdl.UInt(c.ShiftWidth()))
	roundEven := m.Input("round_even", hdl.Bool)
	relu := m.Input("relu", hdl.Bool)
	clamp := m.Input("clamp", hdl.Bool)
	wrap := m.Input("wrap", hdl.Bool)
	lo := m.Input("lo", hdl.UInt(E))
	hi := m.Input("hi", hdl.UInt(E))
	post := postUnitCtl{load: m.Input("post_load", hdl.Bool), step: m.Input("post_step", hdl.Bool),
		first: m.Input("post_first", hdl.Bool), fix: m.Input("post_fix", hdl.Bool), sqrt: m.Input("post_sqrt", hdl.Bool)}
	postOn := m.Input("post_on", hdl.Bool)
	oWe := m.Input("o_we", hdl.UInt(outDepth))
	oRi := m.Input("o_ri", hdl.Bool)

	// ---- input FIFO: responses land here one cycle after the request ----
	in := hdl.Mux(inPsum, rp.Ext(iw), ext(&rs.Expr).Ext(iw))
	fe := make([]hdl.Value, c.inDepth())
	for i := range fe {
		r := data(fmt.Sprintf("fifo_%d", i), hdl.SInt(iw))
		r.SetNext(in)
		r.SetEnable(fWe.Bit(i))
		fe[i] = r
	}
	head := m.Wire("head", hdl.SInt(iw))
	if len(fe) == 2 {
		head.Set(hdl.Mux(fRi, fe[1], fe[0]))
	} else {
		head.Set(hdl.Pick(fRi, fe, fe[0]))
	}
	e := m.Wire("e", hdl.SInt(ew))
	e.Set(head.Trunc(ew))

	// ---- S1: eltwise ----
	hold := data("hold", hdl.SInt(ew))
	hold.SetNext(e)
	hold.SetEnable(eltHold)
	// hold keeps a (two tensors: a is read first) or the broadcast b
	// (read once, before the plane).
	a := hdl.Mux(eltScalar.Or(eltBcast), e, hold)
	b := hdl.Mux(eltScalar, ext(&scalar.Expr), hdl.Mux(eltBcast, hold, e))
	eltW := c.EltWidth()
	// |e| of an extended element fits its E+1 bits: |min| = 2^(E−1).
	absE := hdl.Mux(e.Lt(hdl.S(ew, 0)), e.Neg().Trunc(ew), e)
	if c.eltStages() > 0 {
		// The operands are chosen in S1 and registered; the function of
		// them is computed in the next cycle, and registered again (X).
		a, b, absE = stage(data, adv, "elt_a", a), stage(data, adv, "elt_b", b), stage(data, adv, "elt_abs", absE)
	}
	var elt *hdl.Expr = a.Mul(b) // FnMul; the others are narrower and extended
	for _, f := range []struct {
		fn isaplanar.Fn
		v  *hdl.Expr
	}{{isaplanar.FnAdd, a.Add(b)}, {isaplanar.FnSub, a.Sub(b)}, {isaplanar.FnMax, hdl.Mux(a.Gt(b), a, b)}, {isaplanar.FnMin, hdl.Mux(a.Lt(b), a, b)}, {isaplanar.FnAbs, absE}} {
		elt = hdl.Mux(fn.Eq(hdl.U(fn.Width(), uint64(f.fn))), f.v.Ext(eltW), elt)
	}

	// ---- S1: per-lane parameters, shifted in little-endian ----
	nlp := c.ParamWords()
	pr := m.Reg("params", hdl.UInt(nlp*E), 0)
	pr.SetNext(hdl.Cat(head.Slice(E-1, 0), pr.Slice(nlp*E-1, E)))
	pr.SetEnable(lpEn)
	ns := (c.ScaleWidth + E - 1) / E
	pScale := pr.Slice(c.ScaleWidth-1, 0).AsSInt()
	pBias := pr.Slice(ns*E+A-1, ns*E).AsSInt()

	// ---- S1: horizontal pooling filter over the last K inputs ----
	// prev[j] is the input j+1 steps back. A virtual column (right
	// padding) repeats the last input (edge) or is the padding constant;
	// the first column of a row fills the window's padding slots. The
	// constant is 0, or with pad_ignore the element type's minimum (max
	// pooling) or maximum (min pooling): every window holds an element
	// of the plane (padding is below the window size), which is at
	// least as good, so the padding never decides the result.
	poolMin := fn.Eq(hdl.U(fn.Width(), uint64(isaplanar.FnPoolMin)))
	et := c.ElemType()
	extreme := func(w int) *hdl.Expr { // the element type's worst value for the pooling, w bits
		return hdl.Mux(poolMin, hdl.Const(hdl.SInt(w), big.NewInt(maxOf(et))), hdl.Const(hdl.SInt(w), big.NewInt(minOf(et))))
	}
	hpadC := m.Wire("hpad_const", hdl.SInt(ew))
	hpadC.Set(hdl.Mux(padIgnore, extreme(ew), hdl.S(ew, 0)))
	prev := make([]*hdl.Signal, K-1)
	for j := range prev {
		prev[j] = data(fmt.Sprintf("hwin_%d", j), hdl.SInt(ew))
	}
	v := m.Wire("hin", hdl.SInt(ew))
	v.Set(hdl.Mux(hVirt, hdl.Mux(padEdge, prev[0], hpadC), e))
	padv := hdl.Mux(padEdge, v, hpadC)
	slots := []*hdl.Expr{&v.Expr}
	for j := 1; j < K; j++ {
		slots = append(slots, hdl.Mux(hFill, padv, prev[j-1]))
	}
	for j := range prev {
		prev[j].SetNext(slots[j])
		prev[j].SetEnable(hEn)
	}
	hval := window(c, data, adv, "hwin_t", slots, kw, &avg.Expr, poolMin, hw)
	hreg := data("hreg", hdl.SInt(hw))
	hreg.SetNext(hval)
	hreg.SetEnable(adv)

	// ---- S2: vertical filter over the line buffer ----
	// The line buffer (lineBuffer) sits beside the lane. Entry ox holds the K-1 previous rows' horizontal results for output
	// column ox, newest in the low bits; the read was issued with the
	// horizontal result, so its data meets hreg here. lb_fwd replaces a
	// read of the word written in the same cycle (it returns the old one).
	ww := lineWidth(c)
	q := m.Input("lb_q", hdl.UInt(ww))
	last := data("lb_last", hdl.UInt(ww))
	word := hdl.Mux(lbFwd, last, q)
	w := func(j int) *hdl.Expr { return word.Slice((j+1)*hw-1, j*hw).AsSInt() }
	// The vertical padding is the horizontal one at the hsum width: a
	// max or min of element values is an element value.
	vpadC := m.Wire("vpad_const", hdl.SInt(hw))
	vpadC.Set(hdl.Mux(padIgnore, extreme(hw), hdl.S(hw, 0)))
	hcur := m.Wire("vin", hdl.SInt(hw))
	hcur.Set(hdl.Mux(vVirt, hdl.Mux(padEdge, w(0), vpadC), hreg))
	vpad := hdl.Mux(padEdge, hcur, vpadC)
	vs := []*hdl.Expr{&hcur.Expr}
	for j := 0; j < K-1; j++ {
		vs = append(vs, hdl.Mux(vFill, vpad, w(j)))
	}
	parts := make([]hdl.Value, 0, K-1)
	for j := K - 2; j >= 0; j-- {
		parts = append(parts, vs[j].AsUInt())
	}
	newWord := m.Output("lb_wdata", hdl.UInt(ww))
	last.SetNext(newWord)
	last.SetEnable(lbWe)
	vres := window(c, data, adv, "vwin_t", vs, kh, &avg.Expr, poolMin, pw)

	// ---- reduction: S1 over the plane, or S2 down the columns ----
	// One adder and one comparison serve both: a plane reduction
	// combines each element (S1) with acc; a reduction across rows
	// combines the element (hreg: a 1×1 window) with its column's
	// value from the line buffer (S2) and writes the result back.
	rw := c.RedWidth()
	acc := data("acc", hdl.SInt(rw))
	rin := m.Wire("red_in", hdl.SInt(ew))
	rin.Set(hdl.Mux(redRows, hreg.Trunc(ew), e))
	racc := m.Wire("red_acc", hdl.SInt(rw))
	racc.Set(hdl.Mux(redRows, word.Slice(rw-1, 0).AsSInt(), acc))
	accNext := m.Wire("acc_next", hdl.SInt(rw))
	accNext.Set(hdl.Mux(hdl.Mux(redRows, vFill, redFirst), rin.Ext(rw),
		hdl.Mux(redMax, hdl.Mux(rin.Gt(racc), rin.Ext(rw), racc), racc.Add(rin).Trunc(rw))))
	acc.SetNext(accNext)
	acc.SetEnable(redEn)
	newWord.Set(hdl.Mux(redRows, accNext.AsUInt().Ext(ww), hdl.Cat(parts...).Ext(ww)))

	// ---- X: the exact result of the operation ----
	if c.eltStages() > 0 {
		elt = stage(data, adv, "elt_r", elt) // the function select apart from X's
	}
	redX := &accNext.Expr
	if c.redStages() > 0 {
		redX = stage(data, adv, "red_x", redX) // the accumulate apart from X's select
	}
	x := data("x", hdl.SInt(xw))
	x.SetNext(hdl.Mux(xSel.Bit(1),
		hdl.Mux(xSel.Bit(0), vres.Ext(xw), redX.Ext(xw)),
		hdl.Mux(xSel.Bit(0), elt.Ext(xw), head.Ext(xw))))
	x.SetEnable(adv)

	// ---- V: gain and bias ----
	sc := hdl.Mux(perLane, pScale, scale)
	bi := hdl.Mux(perLane, pBias, bias)
	if c.DeepPipeline {
		// Both only change between tasks (or with a loadparams task), many
		// cycles before an element reaches P: a register takes the choice
		// off the multiplier's and the adder's paths.
		scR, biR := data("scale_r", sc.Type), data("bias_r", bi.Type)
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
		lo := stage(data, adv, "prod_lo", x.Mul(sc.Slice(h-1, 0).Ext(h+1).AsSInt()))
		hi := stage(data, adv, "prod_hi", x.Mul(sc.Slice(sw-1, h).AsSInt()))
		prod = hi.Ext(prod.Type.Width).ShlConst(h).Trunc(prod.Type.Width).AsSInt().
			Add(lo.Ext(prod.Type.Width)).Trunc(prod.Type.Width).AsSInt()
	}
	prodR := data("prod", prod.Type)
	prodR.SetNext(prod)
	prodR.SetEnable(adv)
	vr := data("v", hdl.SInt(vw))
	vr.SetNext(prodR.Add(bi))
	vr.SetEnable(adv)

	// ---- the post function (reductions): u from v, while adv holds V ----
	pu := postUnit(m, c, vr, post, data)
	u := m.Wire("u", hdl.SInt(vw))
	u.Set(hdl.Mux(postOn, pu.AsSInt(), vr))

	// ---- round, ReLU, clamp, saturate (or wrap: floor, then the low bits) ----
	sw := c.ShiftWidth()
	fl := u.Shr(shift) // floor(u / 2^shift)
	ones := hdl.Const(hdl.UInt(vw), hdl.UInt(vw).Mask())
	remMask := ones.ShlWrap(shift).Not()
	half := hdl.U(vw, 1).ShlWrap(shift.Sub(hdl.U(1, 1)).Trunc(sw))
	if c.DeepPipeline {
		// Functions of the task's shift alone: registered, they leave
		// the rounding decision's path.
		mr, hr := data("rem_mask", remMask.Type), data("half", half.Type)
		mr.SetNext(remMask)
		hr.SetNext(half)
		remMask, half = &mr.Expr, &hr.Expr
	}
	rem := u.AsUInt().And(remMask)
	gt, eq := rem.Gt(half), rem.Eq(half)
	up := shift.OrR().And(wrap.Not()).And(hdl.Mux(roundEven, gt.Or(eq.And(fl.Bit(0))), gt.Or(eq)))
	// R: the floor and the rounding decision are registered, so the
	// variable shift and the remainder's compare are one stage and the
	// increment, ReLU, clamp and saturation the next.
	flR := data("fl", fl.Type)
	flR.SetNext(fl)
	flR.SetEnable(adv)
	upR := data("up", hdl.Bool)
	upR.SetNext(up)
	upR.SetEnable(adv)
	r := m.Wire("rounded", hdl.SInt(vw+1))
	if c.outStages() > 0 {
		// The increment in a cycle of its own, apart from ReLU, clamp
		// and saturation.
		r.Set(stage(data, adv, "rounded_r", flR.Add(upR.Ext(2).AsSInt())))
	} else {
		r.Set(flR.Add(upR.Ext(2).AsSInt()))
	}
	zero := hdl.S(vw+1, 0)
	r2 := m.Wire("relued", hdl.SInt(vw+1))
	r2.Set(hdl.Mux(relu.And(r.Bit(vw)), zero, r))
	// Saturate first, by the bits above the element (no wide compare),
	// then clamp at the element's width: lo and hi are element values,
	// so clamp(saturate(r)) = saturate(clamp(r)) = clamp(r), and the
	// wrap mode's low bits are the unsaturated value's.
	sat := m.Wire("saturated", hdl.SInt(ew))
	satV, wrapV := ext(saturate(&r2.Expr, et)), r2.Trunc(E)
	if c.outStages() > 1 {
		// Saturation in a cycle of its own, apart from the clamp.
		satV, wrapV = stage(data, adv, "saturated_r", satV), stage(data, adv, "wrapped_r", wrapV)
	}
	sat.Set(satV)
	loS, hiS := ext(&lo.Expr), ext(&hi.Expr)
	y := m.Wire("y", hdl.UInt(E))
	y.Set(hdl.Mux(clamp, clampTo(&sat.Expr, loS, hiS).Trunc(E), hdl.Mux(wrap, wrapV, sat.Trunc(E))).AsUInt())

	// ---- output FIFO ----
	var oe [outDepth]*hdl.Signal
	for i := range oe {
		oe[i] = data(fmt.Sprintf("out_%d", i), hdl.UInt(E))
		oe[i].SetNext(y)
		oe[i].SetEnable(oWe.Bit(i))
	}
	m.Output("wdata", hdl.UInt(E)).Set(hdl.Mux(oRi, oe[1], oe[0]))
	return m
}

// lineWidth is a line-buffer word: MaxKernel-1 horizontal results, or
// a column's running sum for a reduction across rows (wider only for
// deep state buffers and small windows).
func lineWidth(c Config) int { return max((c.MaxKernel-1)*c.HsumWidth(), c.RedWidth()) }

// lineBuffer is one lane's line buffer: LineDepth words, one write and
// one read port, the read held while en is 0 (a stalled pipeline keeps
// its word). It is a module of its own, beside the lane, so it can be
// replaced by an SRAM macro and stays a small leaf for the tools.
func lineBuffer(c Config) *hdl.Module {
	ww, aw := lineWidth(c), hdl.ClogWidth(c.LineDepth)
	m := hdl.NewModule(hdl.Name("planar_linebuf", fmt.Sprintf("%dx%d", c.LineDepth, ww)))
	raddr := m.Input("raddr", hdl.UInt(aw))
	ren := m.Input("ren", hdl.Bool)
	waddr := m.Input("waddr", hdl.UInt(aw))
	wdata := m.Input("wdata", hdl.UInt(ww))
	we := m.Input("we", hdl.Bool)
	lb := m.Memory("ram", c.LineDepth, hdl.UInt(ww))
	lb.Write(waddr, wdata, we)
	m.Output("q", hdl.UInt(ww)).Set(lb.ReadEnabled("q_r", raddr, ren))
	return m
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

// stage is v registered, enabled by adv.
func stage(reg func(string, hdl.Type) *hdl.Signal, adv *hdl.Signal, name string, v *hdl.Expr) *hdl.Expr {
	r := reg(name, v.Type)
	r.SetNext(v)
	r.SetEnable(adv)
	return &r.Expr
}

// window is the pooling window's value over slots with k of them in use:
// their sum (avg 1, w bits) or their maximum (minimum when least is 1).
// With deep_pipeline the tree takes one level per cycle: the masked slots
// are registered, then every level's results but the last, which the
// caller registers (hreg or X), each register enabled by adv; the value
// comes windowStages cycles later than without.
func window(c Config, reg func(string, hdl.Type) *hdl.Signal, adv *hdl.Signal, name string, slots []*hdl.Expr,
	k *hdl.Signal, avg, least *hdl.Expr, w int) *hdl.Expr {
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
		return hdl.Mux(avg, a.Add(b).Trunc(w), hdl.Mux(hdl.Mux(least, b.Lt(a), b.Gt(a)), b, a))
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
	return balanced(cands, func(a, b *hdl.Expr) *hdl.Expr {
		return hdl.Mux(hdl.Mux(least, b.Lt(a), b.Gt(a)), b, a)
	})
}

// balanced combines xs pairwise, halves first: a tree ceil(log2 n) deep.
func balanced(xs []*hdl.Expr, f func(a, b *hdl.Expr) *hdl.Expr) *hdl.Expr {
	if len(xs) == 1 {
		return xs[0]
	}
	h := (len(xs) + 1) / 2
	return f(balanced(xs[:h], f), balanced(xs[h:], f))
}

func minOf(t hdl.Type) int64 {
	if t.Signed {
		return -(1 << uint(t.Width-1))
	}
	return 0
}

func maxOf(t hdl.Type) int64 {
	if t.Signed {
		return 1<<uint(t.Width-1) - 1
	}
	return 1<<uint(t.Width) - 1
}
