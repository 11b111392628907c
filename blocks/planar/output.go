package planar

import (
	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// validBits carries a result's valid bit through X, P and V, beside the
// lanes' values.
func (cb *ctl) validBits() {
	c, m, adv := cb.c, cb.m, cb.adv
	walkOp, isRow, isElt, isRed, fire, lastPop := cb.walkOp, cb.isRow, cb.isElt, cb.isRed, cb.fire, cb.lastPop
	hs := c.windowStages()
	walkEmit, eltNext := cb.s2v.And(cb.s2out), hdl.Mux(cb.bcast, cb.ck.OrR(), cb.inter.Not().Or(cb.phase))
	var emit *hdl.Expr
	if !c.DeepPipeline {
		emit = hdl.Mux(walkOp, walkEmit, fire.And(hdl.Mux(isElt, eltNext, hdl.Mux(isRed, lastPop, cb.isAct.Or(cb.isWB)))))
	} else {
		// A pooling result leaves the vertical window's tree hs cycles
		// after S2, a reduction's sum (across rows: from S2) redStages
		// registers after its last step, an eltwise result eltStages
		// registers after S1.
		emit = hdl.Mux(walkOp, hdl.Mux(isRow, cb.late("rr_valid", walkEmit, c.redStages()), cb.late("v_valid", walkEmit, hs)),
			hdl.Mux(isElt, cb.late("e_valid", fire.And(eltNext), c.eltStages()),
				hdl.Mux(isRed, cb.late("red_valid", fire.And(lastPop), c.redStages()), fire.And(cb.isAct.Or(cb.isWB)))))
	}
	xv := m.Reg("xv", hdl.Bool, 0)
	xv.SetNext(emit)
	xv.SetEnable(adv)
	pv := m.Reg("pv", hdl.Bool, 0)
	pv.SetNext(cb.late("m_valid", &xv.Expr, c.mulStages()))
	pv.SetEnable(adv)
	vv := m.Reg("vv", hdl.Bool, 0)
	vv.SetNext(pv)
	vv.SetEnable(adv)
	cb.vv = vv
}

// postControl sequences the post function, which holds the value in V
// (and everything behind it) for postCycles: load, steps, sign; adv is
// low meanwhile. Without the post unit adv only waits for the output
// FIFO.
func (cb *ctl) postControl() {
	c, m, q, one, postW := cb.c, cb.m, cb.q, cb.one, cb.postW
	isRed, vv, adv := cb.isRed, cb.vv, cb.adv
	if !c.hasPostUnit() { // no post function ever holds V
		adv.Set(cb.ocount.Ne(hdl.U(2, outDepth)))
		return
	}
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
	adv.Set(cb.ocount.Ne(hdl.U(2, outDepth)).And(pbusy.Not()))
	pcnt.SetNext(hdl.Mux(pbusy, pcnt.Add(one).Trunc(pcw), hdl.Mux(adv, hdl.U(pcw, 0), pcnt)))
	cb.postCtl = []postCtlPort{
		{"post_load", pbusy.And(pcnt.Eq(hdl.U(pcw, 0)))},
		{"post_step", pbusy.And(pcnt.OrR()).And(pcnt.Le(pconst(-2)))},
		{"post_first", pcnt.Eq(hdl.U(pcw, 1))},
		{"post_fix", pbusy.And(pcnt.Eq(pconst(-1)))},
		{"post_sqrt", postSqrt},
		{"post_on", postOn},
	}
}

// outputFIFO carries the valid bit through R into the output FIFO and
// drives the write port.
func (cb *ctl) outputFIFO() {
	c, m, q, one, cw := cb.c, cb.m, cb.q, cb.one, cb.cw
	adv, ocount, checking := cb.adv, cb.ocount, cb.checking
	rv := m.Reg("rv", hdl.Bool, 0)
	rv.SetNext(cb.vv)
	rv.SetEnable(adv)
	res := cb.late("r_valid", &rv.Expr, c.outStages()) // y is valid
	if c.LUT {
		// L: a lut task's result is its entry, read a cycle after y.
		lv := m.Reg("l_valid", hdl.Bool, 0)
		lv.SetNext(res)
		lv.SetEnable(adv)
		res = hdl.Mux(cb.lutOn, lv, res)
	}
	opush := res.And(adv)
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
	cb.oWe = hdl.Mux(opush, hdl.Mux(owi, hdl.U(2, 2), hdl.U(2, 1)), hdl.U(2, 0))
	cb.ori = ori

	wk := m.Reg("wk", hdl.UInt(cw), 0)
	wk.SetNext(hdl.Mux(checking, hdl.U(cw, 0), wk.Add(one).Trunc(cw)))
	wk.SetEnable(checking.Or(opop))
	cb.wk = wk
	m.Output("plw_valid", hdl.Bool).Set(plwValid)
	m.Output("plw_addr", hdl.UInt(cb.aw)).Set(q["dst"].Add(wk).Trunc(cb.aw))
	m.Output("plw_mask", hdl.UInt(cb.L)).Set(cb.gmask)
}
