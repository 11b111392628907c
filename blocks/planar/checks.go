package planar

import (
	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The checks run in the CHECK cycle, from the registered task. With
// deep_pipeline the products they need are registered in a PRE cycle
// before it (the task register holds still until the next task is
// accepted).

// product is a·b, registered (as name) with deep_pipeline.
func (cb *ctl) product(name string, a, b *hdl.Signal) *hdl.Expr {
	p := a.Mul(b)
	if cb.c.checkStages() == 0 {
		return p
	}
	r := cb.m.Reg(name, p.Type, 0)
	r.SetNext(p)
	return &r.Expr
}

// counts computes the task's element counts: reads (nIn) and writes
// (nOut).
func (cb *ctl) counts() {
	c, m, q, dw, cw := cb.c, cb.m, cb.q, cb.dw, cb.cw
	H, W := q["h"], q["w"]
	isLP, isPool, isRed, isRow := cb.isLP, cb.isPool, cb.isRed, cb.isRow
	n := m.Wire("n", hdl.UInt(2*dw))
	n.Set(cb.product("n_r", H, W))
	cb.n = n
	cb.nLP = hdl.U(cw, uint64(c.ParamWords()))
	nElt := hdl.Mux(cb.inter, n.ShlConst(1), n.Add(cb.bcast))
	if c.LUT {
		// A table deeper than the state buffer never loads (ErrSrc for
		// any src): one row more than the buffer says as much and fits
		// cw bits.
		cb.nLT = hdl.U(cw, uint64(min(c.TableRows(), c.StateDepth+1)))
		nElt = hdl.Mux(cb.isLT, cb.nLT.Ext(2*dw+1), nElt)
	}
	cb.nIn = hdl.Mux(isLP, cb.nLP.Ext(2*dw+1), nElt)
	cb.nPool = cb.product("n_pool", q["oh"], q["ow"])
	cb.nOut = hdl.Mux(isPool, cb.nPool,
		hdl.Mux(isRed, hdl.Mux(isRow, W.Ext(2*dw), hdl.U(2*dw, 1)), hdl.Mux(cb.isAct.Or(cb.isWB).Or(cb.isElt), n, hdl.U(2*dw, 0))))
}

// taskCheck is one of the task's checks: its error code and when it fails.
type taskCheck struct {
	code isaplanar.ErrCode
	bad  *hdl.Expr
}

// checkList is every check of the task, in error-code priority order.
func (cb *ctl) checkList() []taskCheck {
	c, q := cb.c, cb.q
	E, dw, fnW := cb.E, cb.dw, cb.fnW
	n, nPool := cb.n, cb.nPool
	isElt, isPool, isRed, isRow, isLP, psumOp, two := cb.isElt, cb.isPool, cb.isRed, cb.isRow, cb.isLP, cb.psumOp, cb.two
	H, W, oh, ow := q["h"], q["w"], q["oh"], q["ow"]
	kh, kw, stride, padH, padW := q["kh"], q["kw"], q["stride"], q["pad_h"], q["pad_w"]
	kOK := func(k *hdl.Signal) *hdl.Expr {
		return k.OrR().And(k.Le(hdl.U(c.KWidth(), uint64(c.MaxKernel))))
	}
	paddedH := H.Add(padH.ShlConst(1)) // H + 2·PadH
	paddedW := W.Add(padW.ShlConst(1))
	// outOK: o is the number of windows of k with stride s in the padded
	// length p: o ≥ 1, (o−1)·s + k ≤ p < o·s + k, compared as
	// o·s + k ≤ p + s so one sum serves both sides.
	outOK := func(o *hdl.Signal, k, s *hdl.Signal, p *hdl.Expr) *hdl.Expr {
		os := cb.product(o.Name+"_stride", o, s)
		w := max(os.Width(), p.Width()) + 2
		end := os.Ext(w).Add(k.Ext(w)).Trunc(w) // o·s + k
		return o.OrR().And(end.Le(p.Ext(w).Add(s.Ext(w)).Trunc(w))).And(end.Gt(p.Ext(w)))
	}
	nSrc := &n.Expr
	if c.LUT {
		nSrc = hdl.Mux(cb.isLT, cb.nLT.Ext(2*dw), n)
	}
	srcEnd := q["src"].Add(hdl.Mux(isLP, cb.nLP.Ext(2*dw), nSrc))
	srcLimit := hdl.Mux(psumOp, hdl.U(dw+1, uint64(c.PsumDepth)), hdl.U(dw+1, uint64(c.StateDepth)))
	dst, src, src2 := q["dst"], q["src"], q["src2"]
	dstE := dst.Ext(dw)
	srcS := src.Resize(dw) // the state-buffer view of src, for the overlap checks
	post := cb.isAct.Or(isElt).Or(isPool).Or(isRed)
	signedLoHi := func(v *hdl.Signal) *hdl.Expr {
		if c.ElemSigned {
			return v.AsSInt().Ext(E + 1)
		}
		return v.Ext(E + 1).AsSInt()
	}
	unknownOp, fnBad, maskBad, shapeBad := cb.decodeChecks(post)
	return []taskCheck{
		{isaplanar.ErrOp, unknownOp},
		{isaplanar.ErrFn, fnBad},
		{isaplanar.ErrMask, maskBad},
		{isaplanar.ErrShape, shapeBad},
		{isaplanar.ErrKernel, isPool.And(kOK(kh).And(kOK(kw)).And(kOK(stride)).Not())},
		{isaplanar.ErrPad, isPool.And(padH.Ext(4).Ge(kh).Or(padW.Ext(4).Ge(kw)).
			Or(q["pad_ignore"].And(q["fn"].Eq(hdl.U(fnW, uint64(isaplanar.FnPoolAvg))).Or(q["pad_edge"]))))},
		{isaplanar.ErrWindow, isPool.And(kh.Gt(paddedH).Or(kw.Gt(paddedW)))},
		{isaplanar.ErrOutShape, isPool.And(outOK(oh, kh, stride, paddedH).And(outOK(ow, kw, stride, paddedW)).Not())},
		{isaplanar.ErrLine, isPool.And(ow.Gt(hdl.U(dw, uint64(c.LineDepth)))).Or(isRow.And(W.Gt(hdl.U(dw, uint64(c.LineDepth)))))},
		{isaplanar.ErrSrc, srcEnd.Gt(srcLimit)},
		{isaplanar.ErrSrc2, two.And(src2.Add(n).Gt(hdl.U(dw, uint64(c.StateDepth)))).
			Or(isElt.And(q["broadcast"]).And(q["scalar_operand"]))},
		{isaplanar.ErrDst, cb.nOut.OrR().And(dst.Add(cb.nOut).Gt(hdl.U(dw, uint64(c.StateDepth))))},
		{isaplanar.ErrOverlap, isElt.And(dstE.Gt(srcS).And(dstE.Lt(srcS.Add(n)))).
			Or(two.And(dstE.Gt(src2.Ext(dw)).And(dstE.Lt(src2.Add(n))))).
			Or(isPool.And(dstE.Lt(srcS.Add(n)).And(srcS.Lt(dstE.Add(nPool))))).
			Or(isRow.And(dstE.Add(W).Gt(srcS.Add(n))).And(dstE.Lt(srcS.Add(n))))},
		{isaplanar.ErrShift, post.And(q["shift"].Gt(hdl.U(c.ShiftWidth(), uint64(c.MaxShift()))))},
		{isaplanar.ErrClamp, post.And(q["clamp"]).And(signedLoHi(q["lo"]).Gt(signedLoHi(q["hi"])))},
	}
}

// decodeChecks are the checks of the op, fn (and post stages), mask and
// shape fields; post says the task has a post-processor. Without the
// table, loadtable is an unknown op and the lut flag an unknown post
// stage; with it, a loadtable must read every lane holding entries and
// has no shape.
func (cb *ctl) decodeChecks(post *hdl.Expr) (unknownOp, fnBad, maskBad, shapeBad *hdl.Expr) {
	c, q, L, C := cb.c, cb.q, cb.L, cb.C
	isElt, isPool, isRed, fnW, postW := cb.isElt, cb.isPool, cb.isRed, cb.fnW, cb.postW
	mask := q["mask"]
	psumMaskBad := hdl.U(1, 0)
	if C < L {
		psumMaskBad = mask.Slice(L-1, C).OrR()
	}
	unknownOp = hdl.U(1, 0) // every code of the field is an op
	if k := c.knownOps(); k < 1<<uint(cb.opW) {
		unknownOp = cb.op.Ge(hdl.U(cb.opW, uint64(k)))
	}
	fnBad = isElt.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpEltwise))))).
		Or(isPool.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpPool)))))).Or(isRed.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpReduce)))))).
		Or(q["post"].Ge(hdl.U(postW, uint64(isaplanar.NumPosts)))).Or(q["post"].OrR().And(isRed.Not()))
	maskBad = mask.OrR().Not().Or(cb.psumOp.And(psumMaskBad))
	noShape := cb.isLP.Not() // the shape is not used
	if c.LUT {
		// loadtable reads entry k from lane k mod L: lanes 0..TableLanes−1.
		maskBad = maskBad.Or(cb.isLT.And(mask.Slice(c.TableLanes()-1, 0).AndR().Not()))
		noShape = noShape.And(cb.isLT.Not())
	} else {
		fnBad = fnBad.Or(post.And(q["lut"])) // no table to look up
	}
	if c.anyMissing() {
		fnBad = fnBad.Or(cb.featureBad()) // a feature this engine lacks
	}
	shapeBad = noShape.And(q["h"].OrR().Not().Or(q["w"].OrR().Not()))
	return unknownOp, fnBad, maskBad, shapeBad
}

// checks latches the first failing check's code into err_code and loads
// the run's counts.
func (cb *ctl) checks() {
	m, cw, checking := cb.m, cb.cw, cb.checking
	var checks []taskCheck
	if !cb.c.NoChecks {
		checks = cb.checkList()
	}
	// The first failing check's code, picked by a balanced tree (each
	// node: the left half's code if any of its checks fails, else the
	// right half's), so the depth grows with log2 of the checks.
	type verdict struct{ bad, code *hdl.Expr }
	verdicts := make([]verdict, len(checks))
	for i, ck := range checks {
		bad := ck.bad
		if ck.code != isaplanar.ErrOp {
			bad = bad.And(cb.isNop.Not())
		}
		verdicts[i] = verdict{bad, hdl.Mux(bad, hdl.U(isaplanar.ErrCodeWidth, uint64(ck.code)), hdl.U(isaplanar.ErrCodeWidth, 0))}
	}
	var first func(vs []verdict) verdict
	first = func(vs []verdict) verdict {
		if len(vs) == 1 {
			return vs[0]
		}
		a, b := first(vs[:len(vs)/2]), first(vs[len(vs)/2:])
		return verdict{a.bad.Or(b.bad), hdl.Mux(a.bad, a.code, b.code)}
	}
	v := verdict{hdl.U(1, 0), hdl.U(isaplanar.ErrCodeWidth, 0)} // without the checks no task fails
	if len(verdicts) > 0 {
		v = first(verdicts)
	}
	chkCode := m.Wire("check_code", hdl.UInt(isaplanar.ErrCodeWidth))
	chkCode.Set(v.code)
	cb.chkBad = m.Wire("check_bad", hdl.Bool)
	cb.chkBad.Set(v.bad)

	cb.errCode = m.Reg("err_code_r", hdl.UInt(isaplanar.ErrCodeWidth), 0)
	cb.errCode.SetNext(chkCode)
	cb.errCode.SetEnable(checking)
	m.Output("err_code", hdl.UInt(isaplanar.ErrCodeWidth)).Set(cb.errCode)
	m.Output("error", hdl.Bool).Set(cb.errCode.OrR())

	// Counts for the run, loaded in the CHECK cycle (they fit cw bits
	// whenever the checks pass).
	cb.nInR = m.Reg("n_in", hdl.UInt(cw), 0)
	cb.nInR.SetNext(cb.nIn.Resize(cw))
	cb.nInR.SetEnable(checking)
	cb.nOutR = m.Reg("n_out", hdl.UInt(cw), 0)
	cb.nOutR.SetNext(cb.nOut.Resize(cw))
	cb.nOutR.SetEnable(checking)
}
