package sram

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// PsumBuffer builds the psum (accumulator) buffer for c (see the package
// documentation for its ports, timing and ordering rules). With macros
// each partition's array is an SRAM macro instance.
func PsumBuffer(c PsumConfig, macros bool) (*hdl.Module, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("sram: psum buffer: %w", err)
	}
	C, A := c.Partitions, c.AccWidth
	aw := hdl.ClogWidth(c.Depth)
	at := hdl.UInt(aw)
	name := hdl.Name("psum_buffer", fmt.Sprintf("%dx%d", C, c.Depth), hdl.SInt(A), form(macros))
	if c.WritePriority {
		name += "_wp"
	}
	if c.ReadOutPort {
		name += "_ro"
	}
	m := hdl.NewModule(name)

	up := m.Reg("up", hdl.Bool, 0) // registered "not in reset", as in StateBuffer
	up.SetNext(hdl.U(1, 1))

	wrValid := m.Input("wr_valid", hdl.Bool)
	wrAddr := m.Input("wr_addr", at)
	wrAcc := m.Input("wr_acc", hdl.Bool)
	wrMask := m.Input("wr_mask", hdl.UInt(C))
	wrData := make([]*hdl.Signal, C)
	for k := range C {
		wrData[k] = m.Input(fmt.Sprintf("wr_data_%d", k), hdl.SInt(A))
	}
	rdValid := m.Input("rd_valid", hdl.Bool)
	rdAddr := m.Input("rd_addr", at)
	rdMask := m.Input("rd_mask", hdl.UInt(C))
	clrValid := m.Input("clr_valid", hdl.Bool)
	clrBase := m.Input("clr_base", at)
	clrCount := m.Input("clr_count", hdl.UInt(aw+1))

	// Clear engine: once accepted, one zero write per cycle (all
	// partitions) to base, base+1, ... modulo the depth. While it runs
	// it owns the write pipeline, so PE writes stall.
	left := m.Reg("clr_left", hdl.UInt(aw+1), 0)
	caddr := m.Reg("clr_addr", at, 0)
	running := m.Wire("clr_running", hdl.Bool)
	running.Set(left.OrR())
	clrReady := up.And(running.Not())
	m.Output("clr_ready", hdl.Bool).Set(clrReady)
	clrGo := clrValid.And(clrReady)
	left.SetNext(hdl.Mux(clrGo, clrCount, left.Sub(hdl.U(1, 1)).Trunc(aw+1)))
	left.SetEnable(clrGo.Or(running))
	caddr.SetNext(hdl.Mux(clrGo, clrBase, caddr.Add(hdl.U(1, 1)).Trunc(aw)))
	caddr.SetEnable(clrGo.Or(running))

	// The bank read ports serve two clients: the old value of an
	// accumulating write (client 0) and the read-out port (client 1).
	accWant := wrValid.And(wrAcc).And(running.Not())
	outWant := &rdValid.Expr
	if c.WritePriority && !c.ReadOutPort {
		// A read-out does not even ask for a port an accumulating write
		// wants, so the write is always granted.
		outWant = outWant.And(accWant.And(rdMask.And(wrMask).OrR()).Not())
	}
	var accReady, accGnt, outReady, outGnt *hdl.Expr
	if c.ReadOutPort {
		// Each client has its own port: nothing to arbitrate.
		accReady, outReady = &up.Expr, outWant.And(up)
		accGnt = hdl.Mux(accWant.And(up), wrMask, hdl.U(C, 0))
		outGnt = hdl.Mux(outReady, rdMask, hdl.U(C, 0))
	} else {
		arb := m.Instance("rarb", arbiter(2, C)).Connect("en", up).
			Connect("valid_0", accWant).Connect("mask_0", wrMask).
			Connect("valid_1", outWant).Connect("mask_1", rdMask)
		accReady, outReady = &arb.Out("ready_0").Expr, &arb.Out("ready_1").Expr
		accGnt, outGnt = &arb.Out("gnt_0").Expr, &arb.Out("gnt_1").Expr
	}
	wrReady := up.And(running.Not()).And(hdl.Mux(wrAcc, accReady, hdl.U(1, 1)))
	m.Output("wr_ready", hdl.Bool).Set(wrReady)
	rdReady := m.Output("rd_ready", hdl.Bool)
	rdReady.Set(outReady)
	wrGo := wrValid.And(wrReady)

	// Stage 0 (acceptance): the write is a PE write or a clear's zero write.
	w0Addr := hdl.Mux(running, caddr, wrAddr)
	// Stage 1: the write commits; lw_addr is the address committed in the
	// cycle before, which the lanes forward from.
	s1Addr := m.Reg("s1_addr", at, 0)
	s1Addr.SetNext(w0Addr)
	lwAddr := m.Reg("lw_addr", at, 0)
	lwAddr.SetNext(s1Addr)
	rqAddr := m.Reg("rq_addr", at, 0)
	rqAddr.SetNext(rdAddr)
	rv := m.Reg("rd_rv", hdl.Bool, 0)
	rv.SetNext(rdReady)
	m.Output("rd_rvalid", hdl.Bool).Set(rv)
	fwdW := lwAddr.Eq(s1Addr)
	fwdR := lwAddr.Eq(rqAddr)

	lane := psumLane(c.Depth, A, c.ReadOutPort, macros)
	for k := range C {
		l := m.Instance(fmt.Sprintf("lane_%d", k), lane)
		l.Connect("acc_rd", accGnt.Bit(k)).Connect("out_rd", outGnt.Bit(k))
		l.Connect("waddr0", wrAddr).Connect("oaddr0", rdAddr)
		l.Connect("wen0", running.Or(wrGo.And(wrMask.Bit(k)))).Connect("wclr0", running).
			Connect("wacc0", wrAcc.And(running.Not())).Connect("wdata0", wrData[k])
		l.Connect("waddr1", s1Addr).Connect("fwd_w", fwdW).Connect("fwd_r", fwdR)
		m.Output(fmt.Sprintf("rd_data_%d", k), hdl.SInt(A)).Set(l.Out("rdata"))
	}
	return m, nil
}

// psumLane is one partition of the psum buffer: the array and the
// accumulate path. A write accepted in cycle t (wen0) reads the old word
// in t (acc_rd) and writes old+data (or data) at the end of t+1. The word
// written at the end of t-1 is not yet in the array when t reads it, so it
// is kept in lw_data and forwarded when the top reports the same address
// (fwd_w for the accumulation, fwd_r for the read-out): back-to-back
// accumulations to one entry see each other's sums. With outPort the
// read-out reads through a second read port of its own.
func psumLane(depth, width int, outPort, macros bool) *hdl.Module {
	name := hdl.Name("psum_lane", depth, hdl.SInt(width), form(macros))
	if outPort {
		name += "_ro"
	}
	m := hdl.NewModule(name)
	at, st := hdl.UInt(hdl.ClogWidth(depth)), hdl.SInt(width)
	accRd := m.Input("acc_rd", hdl.Bool)
	outRd := m.Input("out_rd", hdl.Bool)
	waddr0 := m.Input("waddr0", at)
	oaddr0 := m.Input("oaddr0", at)
	wen0 := m.Input("wen0", hdl.Bool)
	wclr0 := m.Input("wclr0", hdl.Bool)
	wacc0 := m.Input("wacc0", hdl.Bool)
	wdata0 := m.Input("wdata0", st)
	waddr1 := m.Input("waddr1", at)
	fwdW := m.Input("fwd_w", hdl.Bool)
	fwdR := m.Input("fwd_r", hdl.Bool)

	mem := m.Memory("ram", depth, hdl.UInt(width))
	if macros {
		mem.AsMacro()
	}
	var q, qOut *hdl.Expr
	if outPort {
		q = mem.ReadEnabled("q", waddr0, accRd).AsSInt()
		qOut = mem.ReadEnabled("q_out", oaddr0, outRd).AsSInt()
	} else {
		q = mem.ReadEnabled("q", hdl.Mux(accRd, waddr0, oaddr0), accRd.Or(outRd)).AsSInt()
		qOut = q
	}

	s1En := m.Reg("s1_en", hdl.Bool, 0)
	s1En.SetNext(wen0)
	s1Acc := m.Reg("s1_acc", hdl.Bool, 0)
	s1Acc.SetNext(wacc0)
	s1Data := m.Reg("s1_data", st, 0)
	s1Data.SetNext(hdl.Mux(wclr0, hdl.S(width, 0), wdata0))
	s1Data.SetEnable(wen0)

	lwV := m.Reg("lw_v", hdl.Bool, 0)
	lwV.SetNext(s1En)
	lwData := m.Reg("lw_data", st, 0)

	old := hdl.Mux(lwV.And(fwdW), lwData, q)
	sum := m.Wire("sum", st)
	sum.Set(hdl.Mux(s1Acc, old.Add(s1Data).Trunc(width), s1Data))
	mem.Write(waddr1, sum.AsUInt(), s1En)
	lwData.SetNext(sum)
	lwData.SetEnable(s1En)

	got := m.Reg("got", hdl.Bool, 0)
	got.SetNext(outRd)
	m.Output("rdata", st).Set(hdl.Mux(got, hdl.Mux(lwV.And(fwdR), lwData, qOut), hdl.S(width, 0)))
	return m
}
