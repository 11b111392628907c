package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// extArbiter joins dma_in's external reads and dma_out's external writes
// onto the one external request port. Its client ports carry the DMA
// engines' own names, so the top connects dma_in.xr_* and dma_out.xw_* to
// the arbiter's ports of the same name, and the arbiter's x_req_* and
// x_resp_* to the NPU's (and the memory model's) ports of the same name.
//
//	port           dir  width              meaning
//	xr_valid       in   1                  dma_in's read request
//	xr_addr        in   ext_addr_width     its line
//	xr_ready       out  1                  the read is accepted (only with xr_valid)
//	xr_rvalid      out  1                  = x_resp_valid (dma_in is the only reader)
//	xr_rdata       out  rows·elem_width    = x_resp_data
//	xw_valid       in   1                  dma_out's write request
//	xw_addr        in   ext_addr_width     its line
//	xw_data        in   rows·elem_width    the line
//	xw_ready       out  1                  the write is accepted (only with xw_valid)
//	x_req_valid    out  1                  external request
//	x_req_write    out  1                  1 write, 0 read
//	x_req_addr     out  ext_addr_width     line
//	x_req_wdata    out  rows·elem_width    write data (xw_data, also during reads)
//	x_req_ready    in   1                  the request is accepted
//	x_resp_valid   in   1                  read response, in request order
//	x_resp_data    in   rows·elem_width    its line
//
// The arbiter is combinational (no added latency): x_req_valid = xr_valid
// || xw_valid. When both ask, round robin: the client not served by the
// last accepted request wins (the reader first after reset). A request
// that was presented and refused stays selected until it is accepted, so
// x_req_* obey the hold rule too (a client arriving meanwhile waits).
func extArbiter(c Config) *hdl.Module {
	xw, lw := c.ExtAddrWidth, c.LineWidth()
	m := hdl.NewModule(hdl.Name("npu_ext_arb", fmt.Sprintf("x%d", xw), fmt.Sprintf("l%d", lw)))
	xrValid := m.Input("xr_valid", hdl.Bool)
	xrAddr := m.Input("xr_addr", hdl.UInt(xw))
	xwValid := m.Input("xw_valid", hdl.Bool)
	xwAddr := m.Input("xw_addr", hdl.UInt(xw))
	xwData := m.Input("xw_data", hdl.UInt(lw))
	reqReady := m.Input("x_req_ready", hdl.Bool)
	respValid := m.Input("x_resp_valid", hdl.Bool)
	respData := m.Input("x_resp_data", hdl.UInt(lw))

	locked := m.Reg("locked", hdl.Bool, 0)      // last cycle's request was refused
	lockedWr := m.Reg("locked_wr", hdl.Bool, 0) // and it was the write
	prioWr := m.Reg("prio_wr", hdl.Bool, 0)     // the writer wins the next contest
	selWr := hdl.Mux(locked, lockedWr, xwValid.And(xrValid.Not().Or(prioWr)))
	valid := hdl.Mux(selWr, xwValid, xrValid)
	accept := valid.And(reqReady)
	locked.SetNext(valid.And(reqReady.Not()))
	lockedWr.SetNext(selWr)
	prioWr.SetNext(selWr.Not())
	prioWr.SetEnable(accept)

	m.Output("xr_ready", hdl.Bool).Set(accept.And(selWr.Not()))
	m.Output("xr_rvalid", hdl.Bool).Set(respValid)
	m.Output("xr_rdata", hdl.UInt(lw)).Set(respData)
	m.Output("xw_ready", hdl.Bool).Set(accept.And(selWr))
	m.Output("x_req_valid", hdl.Bool).Set(valid)
	m.Output("x_req_write", hdl.Bool).Set(selWr)
	m.Output("x_req_addr", hdl.UInt(xw)).Set(hdl.Mux(selWr, xwAddr, xrAddr))
	m.Output("x_req_wdata", hdl.UInt(lw)).Set(xwData)
	return m
}

// extMem builds the simulation model of external memory: 2^ext_addr_width
// lines of rows·elem_width bits in the memory "lines".
//
//	port           dir  width              meaning
//	x_req_valid    in   1                  request
//	x_req_write    in   1                  1 write, 0 read
//	x_req_addr     in   ext_addr_width     line
//	x_req_wdata    in   rows·elem_width    write data
//	x_req_ready    out  1                  = !h_wr_valid: the request is accepted
//	x_resp_valid   out  1                  the response of the read accepted ext_latency cycles ago
//	x_resp_data    out  rows·elem_width    its line (meaningful only with x_resp_valid)
//	h_wr_valid     in   1                  host write (takes the write port from the NPU)
//	h_wr_addr      in   ext_addr_width     line
//	h_wr_data      in   rows·elem_width    data
//	h_rd_addr      in   ext_addr_width     host read
//	h_rd_data      out  rows·elem_width    lines[h_rd_addr] of the previous cycle
//
// A read accepted in cycle t is answered in cycle t + ext_latency (a
// synchronous read port followed by ext_latency − 1 pipeline registers,
// valid alongside); a write commits at the edge that ends the cycle it is
// accepted in, so a read accepted in the next cycle sees it. The host
// write has priority: in its cycle the NPU's request waits.
func extMem(c Config) *hdl.Module {
	xw, lw, lat := c.ExtAddrWidth, c.LineWidth(), c.ExtLatency
	m := hdl.NewModule(hdl.Name("npu_ext_mem", fmt.Sprintf("x%d", xw), fmt.Sprintf("l%d", lw), fmt.Sprintf("t%d", lat)))
	reqValid := m.Input("x_req_valid", hdl.Bool)
	reqWrite := m.Input("x_req_write", hdl.Bool)
	reqAddr := m.Input("x_req_addr", hdl.UInt(xw))
	reqData := m.Input("x_req_wdata", hdl.UInt(lw))
	hWrValid := m.Input("h_wr_valid", hdl.Bool)
	hWrAddr := m.Input("h_wr_addr", hdl.UInt(xw))
	hWrData := m.Input("h_wr_data", hdl.UInt(lw))
	hRdAddr := m.Input("h_rd_addr", hdl.UInt(xw))

	ready := hWrValid.Not()
	lines := m.Memory("lines", 1<<xw, hdl.UInt(lw))
	lines.Write(hdl.Mux(hWrValid, hWrAddr, reqAddr), hdl.Mux(hWrValid, hWrData, reqData),
		hWrValid.Or(reqValid.And(reqWrite)))
	read := reqValid.And(reqWrite.Not()).And(ready)
	data := &lines.ReadEnabled("resp_q", reqAddr, read).Expr
	valid := m.Reg("resp_v1", hdl.Bool, 0)
	valid.SetNext(read)
	for i := 2; i <= lat; i++ {
		d := m.Reg(fmt.Sprintf("resp_d%d", i), hdl.UInt(lw), 0)
		d.SetNext(data)
		d.SetEnable(valid)
		v := m.Reg(fmt.Sprintf("resp_v%d", i), hdl.Bool, 0)
		v.SetNext(valid)
		data, valid = &d.Expr, v
	}
	m.Output("x_req_ready", hdl.Bool).Set(ready)
	m.Output("x_resp_valid", hdl.Bool).Set(valid)
	m.Output("x_resp_data", hdl.UInt(lw)).Set(data)
	m.Output("h_rd_data", hdl.UInt(lw)).Set(lines.Read("h_rd_q", hRdAddr))
	return m
}
