package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Name is the engine's module name for cfg: every parameter that changes
// the hardware is in it.
func Name(c Config) string {
	return resetTag(deepTag(hdl.Name("planar", fmt.Sprintf("%dx%d", c.Lanes, c.PsumLanes), c.ElemType(), hdl.SInt(c.AccWidth),
		fmt.Sprintf("sc%d", c.ScaleWidth), fmt.Sprintf("d%d", c.StateDepth), fmt.Sprintf("p%d", c.PsumDepth),
		fmt.Sprintf("k%d", c.MaxKernel), fmt.Sprintf("l%d", c.LineDepth)), c), c.NoDatapathReset)
}

// deepTag marks the module name of a variant with deep_pipeline.
func deepTag(name string, c Config) string {
	if c.DeepPipeline {
		return name + "_dp"
	}
	return name
}

// resetTag marks the module name of a variant without datapath reset.
func resetTag(name string, noReset bool) string {
	if noReset {
		return name + "_nr"
	}
	return name
}

// Build validates cfg and builds the planar engine (ports, timing and
// formulas in the package documentation).
func Build(c Config) (*hdl.Module, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("planar: %w", err)
	}
	return build(c), nil
}

// States of the controller.
const (
	stIdle  = 0
	stCheck = 1
	stRun   = 2
	stPre   = 3 // deep_pipeline: the checks' products, before CHECK
	stJudge = 4 // deep_pipeline: the registered check result, after CHECK
)

// The controller: task register, checks, the read address generator,
// the plane walker (the rasterizer) and the writer. Everything is shared
// by the lanes, which work in lockstep on one element index.
func build(c Config) *hdl.Module {
	m := hdl.NewModule(Name(c))
	L, C, E := c.Lanes, c.PsumLanes, c.ElemWidth
	aw, pwid, dw := c.AddrWidth(), c.PsumAddrWidth(), c.DimWidth()
	cw := c.SrcWidth() + 2 // counts: at most 2·depth reads
	lbw := hdl.ClogWidth(c.LineDepth)
	one := hdl.U(1, 1)

	// ---- task port ----
	tValid := m.Input("t_valid", hdl.Bool)
	q := map[string]*hdl.Signal{}
	stw := 2
	if c.checkStages() > 0 {
		stw = 3
	}
	st := m.Reg("state", hdl.UInt(stw), stIdle)
	stIs := func(s uint64) *hdl.Expr { return st.Eq(hdl.U(stw, s)) }
	idle, checking, running := stIs(stIdle), stIs(stCheck), stIs(stRun)
	accept := tValid.And(idle)
	for _, f := range c.Fields() {
		ft := fieldType(f)
		in := m.Input("t_"+f.Name, ft)
		r := m.Reg("q_"+f.Name, ft, 0)
		r.SetNext(in)
		r.SetEnable(accept)
		q[f.Name] = r
	}
	m.Output("t_ready", hdl.Bool).Set(idle)
	m.Output("busy", hdl.Bool).Set(idle.Not())

	op := q["op"]
	opW, fnW, postW := isaplanar.OpWidth(), isaplanar.FnWidth(), isaplanar.PostWidth()
	is := func(o isaplanar.Op) *hdl.Expr { return op.Eq(hdl.U(opW, uint64(o))) }
	isNop, isAct, isWB, isElt, isPool, isRed, isLP := is(isaplanar.OpNop), is(isaplanar.OpAct), is(isaplanar.OpWriteBack), is(isaplanar.OpEltwise), is(isaplanar.OpPool), is(isaplanar.OpReduce), is(isaplanar.OpLoadParams)
	psumOp := isAct.Or(isWB)
	binary := isElt.And(q["scalar_operand"].Not()).And(fnIn(q["fn"], isaplanar.UnaryFns()).Not())
	two := binary.And(q["broadcast"].Not()) // Task.twoTensors
	bcast := binary.And(q["broadcast"])     // Task.broadcasts: src2 read once, first
	H, W := q["h"], q["w"]
	// A reduction across rows walks the plane like a 1×1 pooling with
	// one output row at the last input row, each column's running sum
	// (or max) in the line buffer.
	isRow := isRed.And(q["fn"].Bit(1))
	walkOp := isPool.Or(isRow)

	// ---- checks (in the CHECK cycle, from the registered task) ----
	// With deep_pipeline the products they need are registered in a
	// PRE cycle before it (the task register holds still until the
	// next task is accepted).
	product := func(name string, a, b *hdl.Signal) *hdl.Expr {
		p := a.Mul(b)
		if c.checkStages() == 0 {
			return p
		}
		r := m.Reg(name, p.Type, 0)
		r.SetNext(p)
		return &r.Expr
	}
	n := m.Wire("n", hdl.UInt(2*dw))
	n.Set(product("n_r", H, W))
	nLP := hdl.U(cw, uint64(c.ParamWords()))
	nIn := hdl.Mux(isLP, nLP.Ext(2*dw+1), hdl.Mux(two, n.ShlConst(1), n.Add(bcast)))
	oh, ow := q["oh"], q["ow"]
	nPool := product("n_pool", oh, ow)
	nOut := hdl.Mux(isPool, nPool,
		hdl.Mux(isRed, hdl.Mux(isRow, W.Ext(2*dw), hdl.U(2*dw, 1)), hdl.Mux(isAct.Or(isWB).Or(isElt), n, hdl.U(2*dw, 0))))
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
		os := product(o.Name+"_stride", o, s)
		w := max(os.Width(), p.Width()) + 2
		end := os.Ext(w).Add(k.Ext(w)).Trunc(w) // o·s + k
		return o.OrR().And(end.Le(p.Ext(w).Add(s.Ext(w)).Trunc(w))).And(end.Gt(p.Ext(w)))
	}
	mask := q["mask"]
	psumMaskBad := hdl.U(1, 0)
	if C < L {
		psumMaskBad = mask.Slice(L-1, C).OrR()
	}
	srcEnd := q["src"].Add(hdl.Mux(isLP, nLP.Ext(2*dw), n))
	srcLimit := hdl.Mux(psumOp, hdl.U(dw+1, uint64(c.PsumDepth)), hdl.U(dw+1, uint64(c.StateDepth)))
	dst, src, src2 := q["dst"], q["src"], q["src2"]
	dstE := dst.Ext(dw)
	srcS := src.Resize(dw) // the state-buffer view of src, for the overlap checks
	post := isAct.Or(isElt).Or(isPool).Or(isRed)
	signedLoHi := func(v *hdl.Signal) *hdl.Expr {
		if c.ElemSigned {
			return v.AsSInt().Ext(E + 1)
		}
		return v.Ext(E + 1).AsSInt()
	}
	checks := []struct {
		code isaplanar.ErrCode
		bad  *hdl.Expr
	}{
		{isaplanar.ErrOp, op.Ge(hdl.U(opW, uint64(isaplanar.NumOps)))},
		{isaplanar.ErrFn, isElt.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpEltwise))))).
			Or(isPool.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpPool)))))).Or(isRed.And(q["fn"].Ge(hdl.U(fnW, uint64(isaplanar.NumFns(isaplanar.OpReduce)))))).
			Or(q["post"].Ge(hdl.U(postW, uint64(isaplanar.NumPosts)))).Or(q["post"].OrR().And(isRed.Not()))},
		{isaplanar.ErrMask, mask.OrR().Not().Or(psumOp.And(psumMaskBad))},
		{isaplanar.ErrShape, isLP.Not().And(H.OrR().Not().Or(W.OrR().Not()))},
		{isaplanar.ErrKernel, isPool.And(kOK(kh).And(kOK(kw)).And(kOK(stride)).Not())},
		{isaplanar.ErrPad, isPool.And(padH.Ext(4).Ge(kh).Or(padW.Ext(4).Ge(kw)).
			Or(q["pad_ignore"].And(q["fn"].Eq(hdl.U(fnW, uint64(isaplanar.FnPoolAvg))).Or(q["pad_edge"]))))},
		{isaplanar.ErrWindow, isPool.And(kh.Gt(paddedH).Or(kw.Gt(paddedW)))},
		{isaplanar.ErrOutShape, isPool.And(outOK(oh, kh, stride, paddedH).And(outOK(ow, kw, stride, paddedW)).Not())},
		{isaplanar.ErrLine, isPool.And(ow.Gt(hdl.U(dw, uint64(c.LineDepth)))).Or(isRow.And(W.Gt(hdl.U(dw, uint64(c.LineDepth)))))},
		{isaplanar.ErrSrc, srcEnd.Gt(srcLimit)},
		{isaplanar.ErrSrc2, two.And(src2.Add(n).Gt(hdl.U(dw, uint64(c.StateDepth)))).
			Or(isElt.And(q["broadcast"]).And(q["scalar_operand"]))},
		{isaplanar.ErrDst, nOut.OrR().And(dst.Add(nOut).Gt(hdl.U(dw, uint64(c.StateDepth))))},
		{isaplanar.ErrOverlap, isElt.And(dstE.Gt(srcS).And(dstE.Lt(srcS.Add(n)))).
			Or(two.And(dstE.Gt(src2.Ext(dw)).And(dstE.Lt(src2.Add(n))))).
			Or(isPool.And(dstE.Lt(srcS.Add(n)).And(srcS.Lt(dstE.Add(nPool))))).
			Or(isRow.And(dstE.Add(W).Gt(srcS.Add(n))).And(dstE.Lt(srcS.Add(n))))},
		{isaplanar.ErrShift, post.And(q["shift"].Gt(hdl.U(c.ShiftWidth(), uint64(c.MaxShift()))))},
		{isaplanar.ErrClamp, post.And(q["clamp"]).And(signedLoHi(q["lo"]).Gt(signedLoHi(q["hi"])))},
	}
	// The first failing check's code, picked by a balanced tree (each
	// node: the left half's code if any of its checks fails, else the
	// right half's), so the depth grows with log2 of the checks.
	type verdict struct{ bad, code *hdl.Expr }
	verdicts := make([]verdict, len(checks))
	for i, ck := range checks {
		bad := ck.bad
		if ck.code != isaplanar.ErrOp {
			bad = bad.And(isNop.Not())
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
	v := first(verdicts)
	chkCode := m.Wire("check_code", hdl.UInt(isaplanar.ErrCodeWidth))
	chkCode.Set(v.code)
	chkBad := m.Wire("check_bad", hdl.Bool)
	chkBad.Set(v.bad)

	errCode := m.Reg("err_code_r", hdl.UInt(isaplanar.ErrCodeWidth), 0)
	errCode.SetNext(chkCode)
	errCode.SetEnable(checking)
	m.Output("err_code", hdl.UInt(isaplanar.ErrCodeWidth)).Set(errCode)
	m.Output("error", hdl.Bool).Set(errCode.OrR())

	// Counts for the run, loaded in the CHECK cycle (they fit cw bits
	// whenever the checks pass).
	nInR := m.Reg("n_in", hdl.UInt(cw), 0)
	nInR.SetNext(nIn.Resize(cw))
	nInR.SetEnable(checking)
	nOutR := m.Reg("n_out", hdl.UInt(cw), 0)
	nOutR.SetNext(nOut.Resize(cw))
	nOutR.SetEnable(checking)

	// ---- output side (declared first: adv gates every stage) ----
	ocount := m.Reg("ocount", hdl.UInt(2), 0)
	adv := m.Wire("adv", hdl.Bool) // set with the post function's hold, below

	// ---- reader: vector reads base+0, base+1, ... (eltwise: a and b interleaved) ----
	rk := m.Reg("rk", hdl.UInt(cw), 0)
	pend := m.Reg("pend", hdl.Bool, 0)
	held := m.Reg("held", hdl.Bool, 0)
	fcount := m.Reg("fcount", hdl.UInt(2), 0)
	pop := m.Wire("pop", hdl.Bool)
	// Credit: the FIFO entries plus the response in flight, less this
	// cycle's pop, must leave room (with deep_pipeline's third entry the
	// pop is left out, and with it the stall signal's path). A request
	// once raised is held until accepted (the buffers' rule), which stays
	// safe: without an accept nothing new arrives.
	credit := fcount.Add(pend).Lt(hdl.U(2, uint64(c.inDepth())).Add(pop))
	if c.inDepth() > 2 {
		credit = fcount.Add(pend).Lt(hdl.U(2, uint64(c.inDepth())))
	}
	reqValid := m.Wire("req_valid", hdl.Bool)
	reqValid.Set(held.Or(running.And(rk.Lt(nInR)).And(credit)))
	plrReady := m.Input("plr_ready", hdl.Bool)
	plrRvalid := m.Input("plr_rvalid", hdl.Bool)
	rdReady := m.Input("rd_ready", hdl.Bool)
	rdRvalid := m.Input("rd_rvalid", hdl.Bool)
	memReady := hdl.Mux(psumOp, rdReady, plrReady)
	rdAcc := reqValid.And(memReady)
	rk.SetNext(hdl.Mux(checking, hdl.U(cw, 0), rk.Add(one).Trunc(cw)))
	rk.SetEnable(checking.Or(rdAcc))
	pend.SetNext(rdAcc)
	held.SetNext(reqValid.And(memReady.Not()))
	// Two tensors: a at src+k/2 for even k, b at src2+k/2 for odd k.
	// Broadcast: b at src2 first, then a at src+k-1.
	sel := two.And(rk.Bit(0)).Or(bcast.And(rk.OrR().Not()))
	idx := hdl.Mux(two, rk.ShrConst(1).Ext(cw), hdl.Mux(bcast.And(rk.OrR()), rk.Sub(one).Trunc(cw), rk))
	base := hdl.Mux(sel, src2.Resize(c.SrcWidth()), src)
	raddr := base.Add(idx)
	m.Output("plr_valid", hdl.Bool).Set(reqValid.And(psumOp.Not()))
	m.Output("plr_addr", hdl.UInt(aw)).Set(raddr.Trunc(aw))
	m.Output("plr_mask", hdl.UInt(L)).Set(mask)
	m.Output("rd_valid", hdl.Bool).Set(reqValid.And(psumOp))
	m.Output("rd_addr", hdl.UInt(pwid)).Set(raddr.Trunc(pwid))
	m.Output("rd_mask", hdl.UInt(C)).Set(mask.Slice(C-1, 0))

	// ---- input FIFO pointers (the data is in the lanes) ----
	push := hdl.Mux(psumOp, rdRvalid, plrRvalid)
	fd := c.inDepth()
	pw := hdl.ClogWidth(fd)
	fwi := m.Reg("fwi", hdl.UInt(pw), 0)
	fri := m.Reg("fri", hdl.UInt(pw), 0)
	fcount.SetNext(fcount.Add(push).Sub(pop.Ext(3)).Trunc(2))
	var fWe *hdl.Expr
	if fd == 2 {
		fwi.SetNext(fwi.Not())
		fri.SetNext(fri.Not())
		fWe = hdl.Mux(push, hdl.Mux(fwi, hdl.U(2, 2), hdl.U(2, 1)), hdl.U(2, 0))
	} else {
		wrapInc := func(p *hdl.Signal) *hdl.Expr {
			return hdl.Mux(p.Eq(hdl.U(pw, uint64(fd-1))), hdl.U(pw, 0), p.Add(one).Trunc(pw))
		}
		fwi.SetNext(wrapInc(fwi))
		fri.SetNext(wrapInc(fri))
		bits := make([]hdl.Value, fd)
		for i := range fd { // Cat takes the most significant first
			bits[fd-1-i] = push.And(fwi.Eq(hdl.U(pw, uint64(i))))
		}
		fWe = hdl.Cat(bits...)
	}
	fwi.SetEnable(push)
	fri.SetEnable(pop)

	// ---- S1: the consumer and the plane walker ----
	consDone := m.Reg("cons_done", hdl.Bool, 0)
	y := m.Reg("y", hdl.UInt(dw+1), 0)   // row, counting virtual (bottom padding) rows after H-1
	px := m.Reg("px", hdl.UInt(dw+1), 0) // column, counting virtual (right padding) columns after W-1
	ox := m.Reg("ox", hdl.UInt(dw), 0)   // horizontal results so far in this row
	oy := m.Reg("oy", hdl.UInt(dw), 0)   // output rows so far
	hcnt := m.Reg("hcnt", hdl.UInt(4), 0)
	vcnt := m.Reg("vcnt", hdl.UInt(4), 0)
	vrow := y.Ge(H)
	needPop := walkOp.Not().Or(vrow.Not().And(px.Lt(W)))
	fire := m.Wire("fire", hdl.Bool)
	fire.Set(adv.And(running).And(consDone.Not()).And(needPop.Not().Or(fcount.OrR())))
	pop.Set(fire.And(needPop))

	ck := m.Reg("ck", hdl.UInt(cw), 0)
	ck.SetNext(hdl.Mux(checking, hdl.U(cw, 0), ck.Add(one).Trunc(cw)))
	ck.SetEnable(checking.Or(pop))
	lastPop := ck.Add(one).Eq(nInR)
	phase := m.Reg("phase", hdl.Bool, 0)
	phase.SetNext(hdl.Mux(checking, hdl.U(1, 0), phase.Not()))
	phase.SetEnable(checking.Or(fire.And(two)))

	// The walker's view of the window: a reduction across rows is 1×1,
	// stride 1, no padding, W wide and one output row (its last row).
	wOW := hdl.Mux(isRow, W, ow)
	wOH := hdl.Mux(isRow, hdl.U(dw, 1), oh)
	wKW := hdl.Mux(isRow, hdl.U(c.KWidth(), 1), kw)
	wPadW := hdl.Mux(isRow, hdl.U(c.PadWidth(), 0), padW)
	wStride := hdl.Mux(isRow, hdl.U(c.KWidth(), 1), stride)
	hOut := vrow.Not().And(hcnt.Eq(hdl.U(4, 0))).And(ox.Lt(wOW))
	rowOut := hdl.Mux(isRow, y.Add(one).Eq(H), vcnt.Eq(hdl.U(4, 0)).And(oy.Lt(oh)))
	oxNext := ox.Add(hdl.Mux(vrow, one, hOut)).Trunc(dw)
	rowEnd := hdl.Mux(vrow, oxNext.Eq(wOW), px.Add(one).Ge(W).And(oxNext.Eq(wOW)))
	oyNext := oy.Add(rowOut).Trunc(dw)
	hcnt0 := wKW.Sub(one).Sub(wPadW).Trunc(4) // first output column: kw-1-pad_w
	vcnt0 := kh.Sub(one).Sub(padH).Trunc(4)
	sm1 := wStride.Sub(one).Trunc(4)
	dec := func(r *hdl.Signal) *hdl.Expr {
		return hdl.Mux(r.OrR(), r.Sub(one).Trunc(4), hdl.U(4, 0))
	}
	walk := fire.And(walkOp)
	y.SetNext(hdl.Mux(checking, hdl.U(dw+1, 0), y.Add(one).Trunc(dw+1)))
	y.SetEnable(checking.Or(walk.And(rowEnd)))
	px.SetNext(hdl.Mux(checking.Or(rowEnd), hdl.U(dw+1, 0), px.Add(one).Trunc(dw+1)))
	px.SetEnable(checking.Or(walk))
	ox.SetNext(hdl.Mux(checking.Or(rowEnd), hdl.U(dw, 0), oxNext))
	ox.SetEnable(checking.Or(walk))
	oy.SetNext(hdl.Mux(checking, hdl.U(dw, 0), oyNext))
	oy.SetEnable(checking.Or(walk.And(rowEnd)))
	hcnt.SetNext(hdl.Mux(checking.Or(rowEnd), hcnt0, hdl.Mux(hOut, sm1, dec(hcnt))))
	hcnt.SetEnable(checking.Or(walk))
	vcnt.SetNext(hdl.Mux(checking, vcnt0, hdl.Mux(rowOut, sm1, dec(vcnt))))
	vcnt.SetEnable(checking.Or(walk.And(rowEnd)))

	poolDone := rowEnd.And(y.Add(one).Ge(H)).And(oyNext.Eq(wOH))
	consDone.SetNext(hdl.Mux(checking, isNop,
		hdl.Mux(walkOp, poolDone, lastPop)))
	consDone.SetEnable(checking.Or(fire))

	// S2 alignment: the vertical filter works one cycle after S1 on the
	// horizontal result, with the line-buffer word read in S1.
	// With deep_pipeline the horizontal window's result comes hs cycles
	// later, and S2 (its read of the line buffer included) with it.
	hs := c.windowStages()
	ctlReg := func(name string, t hdl.Type) *hdl.Signal { return m.Reg(name, t, 0) }
	late := func(name string, v *hdl.Expr, n int) *hdl.Expr { // v, n adv-enabled registers later
		for i := 1; i <= n; i++ {
			v = stage(ctlReg, adv, fmt.Sprintf("%s_d%d", name, i), v)
		}
		return v
	}
	oxS2 := late("h_ox", &ox.Expr, hs) // the column S2 reads in the next cycle
	s2v := m.Reg("s2_valid", hdl.Bool, 0)
	s2v.SetNext(late("h_valid", walk.And(vrow.Or(hOut)), hs))
	s2v.SetEnable(adv)
	s2ox := m.Reg("s2_ox", hdl.UInt(dw), 0)
	s2ox.SetNext(oxS2)
	s2ox.SetEnable(adv)
	s2fill := m.Reg("s2_fill", hdl.Bool, 0)
	s2fill.SetNext(late("h_fill", y.Eq(hdl.U(dw+1, 0)), hs))
	s2fill.SetEnable(adv)
	s2virt := m.Reg("s2_virt", hdl.Bool, 0)
	s2virt.SetNext(late("h_virt", vrow, hs))
	s2virt.SetEnable(adv)
	s2out := m.Reg("s2_out", hdl.Bool, 0)
	s2out.SetNext(late("h_out", rowOut, hs))
	s2out.SetEnable(adv)
	lbWe := s2v.And(adv)
	fwd := m.Reg("lb_fwd", hdl.Bool, 0)
	fwd.SetNext(lbWe.And(s2ox.Eq(oxS2)))
	fwd.SetEnable(adv)

	// ---- X, P, V, R valid bits and the output FIFO ----
	walkEmit, eltNext := s2v.And(s2out), hdl.Mux(bcast, ck.OrR(), two.Not().Or(phase))
	var emit *hdl.Expr
	if !c.DeepPipeline {
		emit = hdl.Mux(walkOp, walkEmit, fire.And(hdl.Mux(isElt, eltNext, hdl.Mux(isRed, lastPop, isAct.Or(isWB)))))
	} else {
		// A pooling result leaves the vertical window's tree hs cycles
		// after S2, a reduction's sum (across rows: from S2) redStages
		// registers after its last step, an eltwise result eltStages
		// registers after S1.
		emit = hdl.Mux(walkOp, hdl.Mux(isRow, late("rr_valid", walkEmit, c.redStages()), late("v_valid", walkEmit, hs)),
			hdl.Mux(isElt, late("e_valid", fire.And(eltNext), c.eltStages()),
				hdl.Mux(isRed, late("red_valid", fire.And(lastPop), c.redStages()), fire.And(isAct.Or(isWB)))))
	}
	xv := m.Reg("xv", hdl.Bool, 0)
	xv.SetNext(emit)
	xv.SetEnable(adv)
	pv := m.Reg("pv", hdl.Bool, 0)
	pv.SetNext(late("m_valid", &xv.Expr, c.mulStages()))
	pv.SetEnable(adv)
	vv := m.Reg("vv", hdl.Bool, 0)
	vv.SetNext(pv)
	vv.SetEnable(adv)
	// The post function holds the value in V (and everything behind it)
	// for postCycles: load, steps, sign; adv is low meanwhile.
	postSqrt := isRed.And(q["post"].Eq(hdl.U(postW, uint64(isaplanar.PostSqrt))))
	postOn := postSqrt.Or(isRed.And(q["post"].Eq(hdl.U(postW, uint64(isaplanar.PostRecip)))))
	if c.DeepPipeline {
		// Decoded a cycle after the task register, long before a value
		// reaches V: the decode leaves the stall signal's path.
		sq, on := m.Reg("post_sqrt_r", hdl.Bool, 0), m.Reg("post_on_r", hdl.Bool, 0)
		sq.SetNext(postSqrt)
		on.SetNext(postOn)
		postSqrt, postOn = &sq.Expr, &on.Expr
	}
	pcw := hdl.ClogWidth(c.postCycles(isaplanar.PostRecip) + 1)
	pconst := func(delta int) *hdl.Expr { // postCycles + delta of the task's post function
		return hdl.Mux(postSqrt, hdl.U(pcw, uint64(c.postCycles(isaplanar.PostSqrt)+delta)), hdl.U(pcw, uint64(c.postCycles(isaplanar.PostRecip)+delta)))
	}
	pcnt := m.Reg("post_cnt", hdl.UInt(pcw), 0)
	pbusy := m.Wire("post_busy", hdl.Bool)
	pbusy.Set(vv.And(postOn).And(pcnt.Ne(pconst(0))))
	adv.Set(ocount.Ne(hdl.U(2, outDepth)).And(pbusy.Not()))
	pcnt.SetNext(hdl.Mux(pbusy, pcnt.Add(one).Trunc(pcw), hdl.Mux(adv, hdl.U(pcw, 0), pcnt)))
	postCtl := []struct {
		port string
		v    *hdl.Expr
	}{
		{"post_load", pbusy.And(pcnt.Eq(hdl.U(pcw, 0)))},
		{"post_step", pbusy.And(pcnt.OrR()).And(pcnt.Le(pconst(-2)))},
		{"post_first", pcnt.Eq(hdl.U(pcw, 1))},
		{"post_fix", pbusy.And(pcnt.Eq(pconst(-1)))},
		{"post_sqrt", postSqrt},
		{"post_on", postOn},
	}
	rv := m.Reg("rv", hdl.Bool, 0)
	rv.SetNext(vv)
	rv.SetEnable(adv)
	opush := late("r_valid", &rv.Expr, c.outStages()).And(adv)
	plwValid := ocount.OrR()
	plwReady := m.Input("plw_ready", hdl.Bool)
	opop := plwValid.And(plwReady)
	ocount.SetNext(ocount.Add(opush).Sub(opop.Ext(3)).Trunc(2))
	owi := m.Reg("owi", hdl.Bool, 0)
	owi.SetNext(owi.Not())
	owi.SetEnable(opush)
	ori := m.Reg("ori", hdl.Bool, 0)
	ori.SetNext(ori.Not())
	ori.SetEnable(opop)
	oWe := hdl.Mux(opush, hdl.Mux(owi, hdl.U(2, 2), hdl.U(2, 1)), hdl.U(2, 0))

	wk := m.Reg("wk", hdl.UInt(cw), 0)
	wk.SetNext(hdl.Mux(checking, hdl.U(cw, 0), wk.Add(one).Trunc(cw)))
	wk.SetEnable(checking.Or(opop))
	m.Output("plw_valid", hdl.Bool).Set(plwValid)
	m.Output("plw_addr", hdl.UInt(aw)).Set(dst.Add(wk).Trunc(aw))
	m.Output("plw_mask", hdl.UInt(L)).Set(mask)

	// ---- completion ----
	finish := running.And(consDone).And(wk.Eq(nOutR))
	done := m.Reg("done_r", hdl.Bool, 0)
	if c.checkStages() == 0 {
		st.SetNext(hdl.Mux(idle, hdl.U(2, stCheck), hdl.Mux(checking.And(chkBad.Not()), hdl.U(2, stRun), hdl.U(2, stIdle))))
		st.SetEnable(accept.Or(checking).Or(finish))
		done.SetNext(checking.And(chkBad).Or(finish))
	} else {
		// PRE, CHECK (into err_code_r), then JUDGE on the registered code.
		pre, judge, errBad := stIs(stPre), stIs(stJudge), errCode.OrR()
		st.SetNext(hdl.Mux(idle, hdl.U(stw, stPre), hdl.Mux(pre, hdl.U(stw, stCheck), hdl.Mux(checking, hdl.U(stw, stJudge),
			hdl.Mux(judge.And(errBad.Not()), hdl.U(stw, stRun), hdl.U(stw, stIdle))))))
		st.SetEnable(accept.Or(pre).Or(checking).Or(judge).Or(finish))
		done.SetNext(judge.And(errBad).Or(finish))
	}
	m.Output("done", hdl.Bool).Set(done)

	// ---- lanes ----
	isWBn := isWB.Not()
	xSel := hdl.Mux(isPool, hdl.U(2, 3), hdl.Mux(isRed, hdl.U(2, 2), hdl.Mux(isElt, hdl.U(2, 1), hdl.U(2, 0))))
	lm, lbm := lane(c), lineBuffer(c)
	for p := range L {
		ln := m.Instance(fmt.Sprintf("lane_%d", p), lm)
		rs := m.Input(fmt.Sprintf("plr_rdata_%d", p), hdl.UInt(E))
		ln.Connect("rs", rs)
		if p < C {
			ln.Connect("rp", m.Input(fmt.Sprintf("rd_data_%d", p), hdl.SInt(c.AccWidth)))
		} else {
			ln.Connect("rp", hdl.S(c.AccWidth, 0))
		}
		ln.Connect("in_psum", psumOp).Connect("f_we", fWe).Connect("f_ri", fri)
		ln.Connect("elt_hold", fire.And(two.And(phase.Not()).Or(bcast.And(ck.OrR().Not())))).Connect("fn", q["fn"]).
			Connect("elt_scalar", q["scalar_operand"]).Connect("elt_bcast", bcast).Connect("scalar", q["scalar"])
		ln.Connect("red_en", fire.And(isRed).And(isRow.Not())).Connect("red_first", ck.Eq(hdl.U(cw, 0))).Connect("red_max", q["fn"].Bit(0)).
			Connect("red_rows", isRow)
		ln.Connect("lp_en", fire.And(isLP).And(mask.Bit(p)))
		ln.Connect("h_en", walk.And(vrow.Not())).Connect("h_fill", px.Eq(hdl.U(dw+1, 0))).Connect("h_virt", px.Ge(W)).
			Connect("pad_edge", q["pad_edge"]).Connect("pad_ignore", q["pad_ignore"]).Connect("avg", q["fn"].Bit(0)).Connect("kw", wKW).Connect("kh", kh)
		lb := m.Instance(fmt.Sprintf("lb_%d", p), lbm).Connect("raddr", oxS2.Resize(lbw)).Connect("ren", adv).
			Connect("waddr", s2ox.Resize(lbw)).Connect("we", lbWe).Connect("wdata", ln.Out("lb_wdata"))
		ln.Connect("v_fill", s2fill).Connect("v_virt", s2virt).Connect("lb_q", lb.Out("q")).
			Connect("lb_we", lbWe).Connect("lb_fwd", fwd)
		ln.Connect("x_sel", xSel).Connect("adv", adv)
		ln.Connect("per_lane", isAct.And(q["per_lane"])).
			Connect("scale", hdl.Mux(isWB, hdl.S(c.ScaleWidth, 1), q["scale"])).
			Connect("bias", hdl.Mux(isWB, hdl.S(c.AccWidth, 0), q["bias"])).
			Connect("shift", hdl.Mux(isWB, hdl.U(c.ShiftWidth(), 0), q["shift"])).
			Connect("round_even", q["round_even"]).Connect("relu", q["relu"].And(isWBn)).Connect("clamp", q["clamp"].And(isWBn)).
			Connect("wrap", q["wrap"].And(isWBn)).Connect("lo", q["lo"]).Connect("hi", q["hi"])
		for _, pc := range postCtl {
			ln.Connect(pc.port, pc.v)
		}
		ln.Connect("o_we", oWe).Connect("o_ri", ori)
		m.Output(fmt.Sprintf("plw_wdata_%d", p), hdl.UInt(E)).Set(ln.Out("wdata"))
	}
	return m
}

// fnIn is fn ∈ codes: the decode of a function attribute (such as
// unary) from the function table.
func fnIn(fn *hdl.Signal, codes []isaplanar.Fn) *hdl.Expr {
	in := hdl.U(1, 0)
	for i, c := range codes {
		eq := fn.Eq(hdl.U(fn.Width(), uint64(c)))
		if i == 0 {
			in = eq
			continue
		}
		in = in.Or(eq)
	}
	return in
}

// fieldType is the type of a descriptor field's port.
func fieldType(f isaplanar.FieldDef) hdl.Type { return hdl.Type{Width: f.Width, Signed: f.Signed} }
