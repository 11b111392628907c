package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// walker builds S1: the consumer, which pops the input FIFO, and the
// plane walker, which tracks the window position of pooling and of a
// reduction across rows.
func (cb *ctl) walker() {
	c, m, q, one, dw, cw := cb.c, cb.m, cb.q, cb.one, cb.dw, cb.cw
	checking, walkOp, isRow := cb.checking, cb.walkOp, cb.isRow
	H, W, oh, ow := q["h"], q["w"], q["oh"], q["ow"]
	kh, kw, stride, padH, padW := q["kh"], q["kw"], q["stride"], q["pad_h"], q["pad_w"]
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
	fire.Set(cb.adv.And(cb.running).And(consDone.Not()).And(needPop.Not().Or(cb.fcount.OrR())))
	cb.pop.Set(fire.And(needPop))

	ck := m.Reg("ck", hdl.UInt(cw), 0)
	ck.SetNext(hdl.Mux(checking, hdl.U(cw, 0), ck.Add(one).Trunc(cw)))
	ck.SetEnable(checking.Or(cb.pop))
	lastPop := ck.Add(one).Eq(cb.nInR)
	phase := m.Reg("phase", hdl.Bool, 0)
	phase.SetNext(hdl.Mux(checking, hdl.U(1, 0), phase.Not()))
	phase.SetEnable(checking.Or(fire.And(cb.inter)))

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
	consDone.SetNext(hdl.Mux(checking, cb.isNop,
		hdl.Mux(walkOp, poolDone, lastPop)))
	consDone.SetEnable(checking.Or(fire))

	cb.consDone, cb.y, cb.px, cb.ox = consDone, y, px, ox
	cb.fire, cb.ck, cb.phase = fire, ck, phase
	cb.vrow, cb.lastPop, cb.wKW = vrow, lastPop, wKW
	cb.hOut, cb.rowOut, cb.walk = hOut, rowOut, walk
}

// late is v, n adv-enabled registers later (named name_d1, ...).
func (cb *ctl) late(name string, v *hdl.Expr, n int) *hdl.Expr {
	ctlReg := func(name string, t hdl.Type) *hdl.Signal { return cb.m.Reg(name, t, 0) }
	for i := 1; i <= n; i++ {
		v = stage(ctlReg, cb.adv, fmt.Sprintf("%s_d%d", name, i), v)
	}
	return v
}

// s2Align aligns S2 with S1: the vertical filter works one cycle after
// S1 on the horizontal result, with the line-buffer word read in S1.
// With deep_pipeline the horizontal window's result comes hs cycles
// later, and S2 (its read of the line buffer included) with it.
func (cb *ctl) s2Align() {
	m, dw, adv := cb.m, cb.dw, cb.adv
	hs := cb.c.windowStages()
	oxS2 := cb.late("h_ox", &cb.ox.Expr, hs) // the column S2 reads in the next cycle
	s2v := m.Reg("s2_valid", hdl.Bool, 0)
	s2v.SetNext(cb.late("h_valid", cb.walk.And(cb.vrow.Or(cb.hOut)), hs))
	s2v.SetEnable(adv)
	s2ox := m.Reg("s2_ox", hdl.UInt(dw), 0)
	s2ox.SetNext(oxS2)
	s2ox.SetEnable(adv)
	s2fill := m.Reg("s2_fill", hdl.Bool, 0)
	s2fill.SetNext(cb.late("h_fill", cb.y.Eq(hdl.U(dw+1, 0)), hs))
	s2fill.SetEnable(adv)
	s2virt := m.Reg("s2_virt", hdl.Bool, 0)
	s2virt.SetNext(cb.late("h_virt", cb.vrow, hs))
	s2virt.SetEnable(adv)
	s2out := m.Reg("s2_out", hdl.Bool, 0)
	s2out.SetNext(cb.late("h_out", cb.rowOut, hs))
	s2out.SetEnable(adv)
	lbWe := s2v.And(adv)
	fwd := m.Reg("lb_fwd", hdl.Bool, 0)
	fwd.SetNext(lbWe.And(s2ox.Eq(oxS2)))
	fwd.SetEnable(adv)
	cb.oxS2, cb.s2v, cb.s2ox, cb.s2fill, cb.s2virt, cb.s2out = oxS2, s2v, s2ox, s2fill, s2virt, s2out
	cb.lbWe, cb.fwd = lbWe, fwd
}
