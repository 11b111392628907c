package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// extReadMux joins two external readers, dma_in (ar_*) and the
// descriptor fetch (dr_*), onto the arbiter's one read client (xr_*).
// Responses come back in request order, so a FIFO of one tag bit per
// read in flight says whose each response is.
//
//	port        dir  width           meaning
//	ar_valid    in   1               dma_in's read request
//	ar_addr     in   ext_addr_width  its line
//	ar_ready    out  1               accepted
//	ar_rvalid   out  1               a response for dma_in
//	ar_rdata    out  line            its line
//	dr_*        (same for the descriptor fetch)
//	xr_valid    out  1               the request passed on
//	xr_addr     out  ext_addr_width
//	xr_ready    in   1               accepted by the arbiter
//	xr_rvalid   in   1               a response (in request order)
//	xr_rdata    in   line
//
// The descriptor fetch wins a contest (a descriptor is a few lines; the
// engines wait for it). A request presented and refused keeps the mux
// until accepted, so both clients' hold rule carries through. With
// inflight reads in flight no new read is passed on: the tag FIFO never
// overflows, whatever the memory's latency (inflight is ext_latency + 2,
// rounded up to a power of two, so the simulation model never waits).
func extReadMux(c Config) *hdl.Module {
	xw, lw := c.ExtAddrWidth, c.LineWidth()
	depth := 1 << log2(c.ExtLatency+2)
	pw := log2(depth)
	m := hdl.NewModule(hdl.Name("npu_ext_rmux", fmt.Sprintf("x%d", xw), fmt.Sprintf("l%d", lw), fmt.Sprintf("t%d", depth)))
	arValid := m.Input("ar_valid", hdl.Bool)
	arAddr := m.Input("ar_addr", hdl.UInt(xw))
	drValid := m.Input("dr_valid", hdl.Bool)
	drAddr := m.Input("dr_addr", hdl.UInt(xw))
	xrReady := m.Input("xr_ready", hdl.Bool)
	xrRvalid := m.Input("xr_rvalid", hdl.Bool)
	xrRdata := m.Input("xr_rdata", hdl.UInt(lw))

	locked := m.Reg("locked", hdl.Bool, 0)    // last cycle's request was refused
	lockedD := m.Reg("locked_d", hdl.Bool, 0) // and it was the descriptor fetch's
	tags := m.Reg("tags", hdl.UInt(depth), 0) // bit i: FIFO entry i is the descriptor fetch's read
	wr := m.Reg("tag_wr", hdl.UInt(pw), 0)
	rd := m.Reg("tag_rd", hdl.UInt(pw), 0)
	n := m.Reg("inflight", hdl.UInt(pw+1), 0)

	room := n.Ne(hdl.U(pw+1, uint64(depth)))
	selD := hdl.Mux(locked, lockedD, drValid)
	valid := hdl.Mux(selD, drValid, arValid).And(room)
	accept := valid.And(xrReady)
	locked.SetNext(valid.And(xrReady.Not()))
	lockedD.SetNext(selD)

	one := hdl.U(depth, 1)
	slot := one.Shl(wr).Trunc(depth)
	tags.SetNext(hdl.Mux(selD, tags.Or(slot), tags.And(slot.Not())))
	tags.SetEnable(accept)
	wr.SetNext(wr.Add(hdl.U(1, 1)).Trunc(pw))
	wr.SetEnable(accept)
	rd.SetNext(rd.Add(hdl.U(1, 1)).Trunc(pw))
	rd.SetEnable(xrRvalid)
	n.SetNext(n.Add(accept).Sub(xrRvalid).Trunc(pw + 1))
	headD := tags.Shr(rd).Bit(0)

	m.Output("xr_valid", hdl.Bool).Set(valid)
	m.Output("xr_addr", hdl.UInt(xw)).Set(hdl.Mux(selD, drAddr, arAddr))
	m.Output("ar_ready", hdl.Bool).Set(accept.And(selD.Not()))
	m.Output("dr_ready", hdl.Bool).Set(accept.And(selD))
	m.Output("ar_rvalid", hdl.Bool).Set(xrRvalid.And(headD.Not()))
	m.Output("dr_rvalid", hdl.Bool).Set(xrRvalid.And(headD))
	m.Output("ar_rdata", hdl.UInt(lw)).Set(xrRdata)
	m.Output("dr_rdata", hdl.UInt(lw)).Set(xrRdata)
	return m
}
