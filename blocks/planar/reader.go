package planar

import (
	"github.com/hwgen/hwgen/hdl"
)

// reader issues the vector reads base+0, base+1, ... (eltwise: a and b
// interleaved) to the state buffer, or to the psum buffer for act and
// writeback.
func (cb *ctl) reader() {
	c, m, q, one := cb.c, cb.m, cb.q, cb.one
	L, C, aw, pwid, cw := cb.L, cb.C, cb.aw, cb.pwid, cb.cw
	checking, psumOp, inter, bcast := cb.checking, cb.psumOp, cb.inter, cb.bcast
	mask, src, src2 := q["mask"], q["src"], q["src2"]
	rk := m.Reg("rk", hdl.UInt(cw), 0)
	pend := m.Reg("pend", hdl.Bool, 0)
	held := m.Reg("held", hdl.Bool, 0)
	fcount := m.Reg("fcount", hdl.UInt(2), 0)
	pop := m.Wire("pop", hdl.Bool)
	cb.fcount, cb.pop = fcount, pop
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
	reqValid.Set(held.Or(cb.running.And(rk.Lt(cb.nInR)).And(credit)))
	plrReady := m.Input("plr_ready", hdl.Bool)
	cb.plrRvalid = m.Input("plr_rvalid", hdl.Bool)
	rdReady := m.Input("rd_ready", hdl.Bool)
	cb.rdRvalid = m.Input("rd_rvalid", hdl.Bool)
	memReady := hdl.Mux(psumOp, rdReady, plrReady)
	rdAcc := reqValid.And(memReady)
	rk.SetNext(hdl.Mux(checking, hdl.U(cw, 0), rk.Add(one).Trunc(cw)))
	rk.SetEnable(checking.Or(rdAcc))
	pend.SetNext(rdAcc)
	held.SetNext(reqValid.And(memReady.Not()))
	// Two tensors: a at src+k/2 for even k, b at src2+k/2 for odd k
	// (with Src2Port: a at src+k here, b beside it on plr2).
	// Broadcast: b at src2 first, then a at src+k-1.
	sel := inter.And(rk.Bit(0)).Or(bcast.And(rk.OrR().Not()))
	idx := hdl.Mux(inter, rk.ShrConst(1).Ext(cw), hdl.Mux(bcast.And(rk.OrR()), rk.Sub(one).Trunc(cw), rk))
	base := hdl.Mux(sel, src2.Resize(c.SrcWidth()), src)
	raddr := base.Add(idx)
	m.Output("plr_valid", hdl.Bool).Set(reqValid.And(psumOp.Not()))
	m.Output("plr_addr", hdl.UInt(aw)).Set(raddr.Trunc(aw))
	pm, rm := &mask.Expr, mask.Slice(C-1, 0)
	if cb.G > 1 {
		pm, rm = cb.gmask, cb.gmask.Slice(C-1, 0) // the pass's partitions
	}
	m.Output("plr_mask", hdl.UInt(L)).Set(pm)
	if c.Src2Port {
		// b's vector at src2+k on the engine's own port, asked for with
		// a's and held with it: nobody else uses the port, so it is taken
		// every cycle, and in the cycle a's is accepted b's read is of the
		// same k, its response coming with a's. Not gated by plr_ready:
		// that would chain the buffer's arbiter, the engine and the bank
		// in one cycle (a read of b repeated while a waits is harmless).
		m.Output("plr2_valid", hdl.Bool).Set(reqValid.And(psumOp.Not()).And(cb.two))
		m.Output("plr2_addr", hdl.UInt(aw)).Set(src2.Resize(c.SrcWidth()).Add(rk).Trunc(aw))
		m.Output("plr2_mask", hdl.UInt(L)).Set(pm)
	}
	m.Output("rd_valid", hdl.Bool).Set(reqValid.And(psumOp))
	m.Output("rd_addr", hdl.UInt(pwid)).Set(raddr.Trunc(pwid))
	m.Output("rd_mask", hdl.UInt(C)).Set(rm)
}

// inputFIFO keeps the input FIFO's pointers and write enables; the data
// is in the lanes.
func (cb *ctl) inputFIFO() {
	c, m, one := cb.c, cb.m, cb.one
	pop, fcount := cb.pop, cb.fcount
	push := hdl.Mux(cb.psumOp, cb.rdRvalid, cb.plrRvalid)
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
	cb.fWe, cb.fri = fWe, fri
}
