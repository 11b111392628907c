package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// The DMA engines move lines (one element per state-buffer partition,
// package documentation) between external memory and the on-chip
// buffers. A task walks rows k < d1 of lines l < d0: the external side
// is strided (line base + k·d2 + l, wrapping mod 2^ext_addr_width), the
// on-chip side contiguous (address base + k·d0 + l = base + n for the
// n-th line, wrapping mod the buffer depth).
//
// Both engines split a task into a request side and a response side
// joined by a small line FIFO. A request is only issued while the FIFO
// has room for it and for every response already in flight (credits:
// outstanding = issued − drained ≤ depth), because responses cannot be
// refused. Every output but stall is a function of registers (no
// combinational path from a ready or valid input to a valid output), so
// the engines can be joined by combinational arbiters.
//
// Handshakes: a request is held (valid, address, data stable) until it is
// accepted (valid && ready in one cycle). The task port: t_ready is 1
// when the engine is idle (it takes t_valid's task this cycle); busy is 1
// from the cycle after a transfer is accepted until its done; done is a
// registered one-cycle pulse per task. A nop (or an op the engine was
// built without, or a task with d0 = 0 or d1 = 0) moves nothing: its
// done comes in the cycle
// after acceptance and busy stays 0. stall is 1 in a cycle in which the
// engine presents a request (valid) that is refused (ready low).

// dmaInFIFODepth is dma_in's response FIFO depth: a line's credit is held
// from the cycle after its read is accepted until its on-chip write is
// accepted, ext_latency + 1 cycles, so ext_latency + 2 credits keep one
// read in flight per cycle.
func dmaInFIFODepth(c Config) int { return c.ExtLatency + 2 }

// dmaOutFIFODepth is dma_out's FIFO depth: the state buffer answers one
// cycle after acceptance and the line is written out the cycle after, so
// a credit is held 2 cycles; 3 sustain one line per cycle.
const dmaOutFIFODepth = 3

// dmaTask is the task port shared by the DMA engines.
type dmaTask struct {
	valid, op, src, dst, d0, d1, d2 *hdl.Signal
	ready, accept                   *hdl.Expr
	d0r, d1r, d2r                   *hdl.Signal // the dimensions, held for the task
	nonEmpty                        *hdl.Expr   // t_op moves lines (with the ops given) and d0, d1 ≠ 0
	active                          *hdl.Signal // a transfer is running (busy)
	done                            *hdl.Signal
}

// dmaTaskPort declares t_valid, t_op, t_src, t_dst, t_d0..t_d2 and t_ready,
// busy, done; moving lists the op codes that transfer. fin (set by the
// caller) ends the running transfer: done pulses in the next cycle.
func dmaTaskPort(m *hdl.Module, c Config, e isa.Engine, srcW, dstW int, moving ...isa.Op) (*dmaTask, *hdl.Signal) {
	opW := e.OpWidth()
	dim := hdl.UInt(c.TaskMgr().DimBits)
	t := &dmaTask{
		valid: m.Input("t_valid", hdl.Bool),
		op:    m.Input("t_op", hdl.UInt(opW)),
		src:   m.Input("t_src", hdl.UInt(srcW)),
		dst:   m.Input("t_dst", hdl.UInt(dstW)),
		d0:    m.Input("t_d0", dim),
		d1:    m.Input("t_d1", dim),
		d2:    m.Input("t_d2", dim),
	}
	t.active = m.Reg("active", hdl.Bool, 0)
	t.ready = t.active.Not()
	t.accept = t.valid.And(t.ready)
	var moves *hdl.Expr
	for _, op := range moving {
		moves = dmaOr(moves, t.op.Eq(hdl.U(opW, uint64(op))))
	}
	zero := hdl.U(dim.Width, 0)
	t.nonEmpty = moves.And(t.d0.Ne(zero)).And(t.d1.Ne(zero))
	start := t.accept.And(t.nonEmpty)
	for _, r := range []struct {
		reg **hdl.Signal
		in  *hdl.Signal
	}{{&t.d0r, t.d0}, {&t.d1r, t.d1}, {&t.d2r, t.d2}} {
		*r.reg = m.Reg(r.in.Name[2:]+"_r", dim, 0)
		(*r.reg).SetNext(r.in)
		(*r.reg).SetEnable(start)
	}
	fin := m.Wire("fin", hdl.Bool)
	t.active.SetNext(hdl.Mux(start, hdl.U(1, 1), t.active.And(fin.Not())))
	t.done = m.Reg("done_r", hdl.Bool, 0)
	t.done.SetNext(t.accept.And(t.nonEmpty.Not()).Or(fin))
	m.Output("t_ready", hdl.Bool).Set(t.ready)
	m.Output("busy", hdl.Bool).Set(t.active)
	m.Output("done", hdl.Bool).Set(t.done)
	return t, fin
}

// dmaWalker steps through a task's lines in order: row k < d1, line l < d0.
// addr is base + k·d2 + l mod 2^w when strided, else base + n (the n-th
// line, contiguous); more (counted walkers only) is 1 while lines remain.
// start loads base (and more = nonEmpty); step moves to the next line.
type dmaWalker struct {
	addr, more *hdl.Signal
}

func newDMAWalker(m *hdl.Module, prefix string, t *dmaTask, w int, start, base, nonEmpty, step *hdl.Expr, strided, counted bool) dmaWalker {
	var wk dmaWalker
	dim := t.d0r.Width()
	one, z := hdl.U(1, 1), hdl.U(dim, 0)
	en := start.Or(step)
	var lastLine *hdl.Expr
	if strided || counted {
		l := m.Reg(prefix+"_l", hdl.UInt(dim), 0)
		lastLine = l.Add(one).Eq(t.d0r)
		l.SetNext(hdl.Mux(start.Or(lastLine), z, l.Add(one).Trunc(dim)))
		l.SetEnable(en)
	}
	if counted {
		k := m.Reg(prefix+"_k", hdl.UInt(dim), 0)
		k.SetNext(hdl.Mux(start, z, hdl.Mux(lastLine, k.Add(one).Trunc(dim), k)))
		k.SetEnable(en)
		wk.more = m.Reg(prefix+"_more", hdl.Bool, 0)
		wk.more.SetNext(hdl.Mux(start, nonEmpty, lastLine.And(k.Add(one).Eq(t.d1r)).Not()))
		wk.more.SetEnable(en)
	}
	wk.addr = m.Reg(prefix+"_addr", hdl.UInt(w), 0)
	next := wk.addr.Add(one).Trunc(w)
	if strided {
		row := m.Reg(prefix+"_row", hdl.UInt(w), 0) // base + k·d2
		nextRow := row.Add(t.d2r).Trunc(w)
		row.SetNext(hdl.Mux(start, base, nextRow))
		row.SetEnable(start.Or(step.And(lastLine)))
		next = hdl.Mux(lastLine, nextRow, next)
	}
	wk.addr.SetNext(hdl.Mux(start, base, next))
	wk.addr.SetEnable(en)
	return wk
}

// dmaFIFO is a FIFO of depth registers: push appends data (the caller
// guarantees room, by credits), pop drops the head (the caller pops only
// when nonEmpty). head is the oldest entry.
type dmaFIFO struct {
	head     *hdl.Expr
	nonEmpty *hdl.Expr
}

func newDMAFIFO(m *hdl.Module, prefix string, depth, width int, push, data, pop *hdl.Expr) dmaFIFO {
	pw := hdl.ClogWidth(depth)
	cw := hdl.ClogWidth(depth + 1)
	wrap := func(p *hdl.Signal) *hdl.Expr {
		return hdl.Mux(p.Eq(hdl.U(pw, uint64(depth-1))), hdl.U(pw, 0), p.Add(hdl.U(1, 1)).Trunc(pw))
	}
	tail := m.Reg(prefix+"_tail", hdl.UInt(pw), 0)
	head := m.Reg(prefix+"_head", hdl.UInt(pw), 0)
	count := m.Reg(prefix+"_count", hdl.UInt(cw), 0)
	tail.SetNext(wrap(tail))
	tail.SetEnable(push)
	head.SetNext(wrap(head))
	head.SetEnable(pop)
	count.SetNext(count.Add(push).Sub(pop).Trunc(cw))
	entries := make([]hdl.Value, depth)
	for i := range depth {
		e := m.Reg(fmt.Sprintf("%s_%d", prefix, i), hdl.UInt(width), 0)
		e.SetNext(data)
		e.SetEnable(push.And(tail.Eq(hdl.U(pw, uint64(i)))))
		entries[i] = e
	}
	out := hdl.Pick(head, entries, entries[0])
	return dmaFIFO{head: out, nonEmpty: count.Ne(hdl.U(cw, 0))}
}

// dmaCredits counts lines issued and not yet drained; room is 1 while
// another request may be issued. The transfer is finished (fin) when the
// walker has issued everything and the last line drains (or nothing is
// outstanding).
func dmaCredits(m *hdl.Module, name string, depth int, issue, drain hdl.Value) (room, idle *hdl.Expr) {
	cw := hdl.ClogWidth(depth + 1)
	n := m.Reg(name, hdl.UInt(cw), 0)
	n.SetNext(n.Add(issue).Sub(drain).Trunc(cw))
	room = n.Ne(hdl.U(cw, uint64(depth)))
	idle = n.Eq(hdl.U(cw, 0)).Or(n.Eq(hdl.U(cw, 1)).And(drain))
	return room, idle
}

func dmaOr(acc, x *hdl.Expr) *hdl.Expr {
	if acc == nil {
		return x
	}
	return acc.Or(x)
}

// dmaIn builds the input DMA engine for c (the dma_in ops of package isa:
// nop, load into the state buffer, load_weights into the weight buffer,
// and with the sparse engine load_sparse (dma_sparse.go: its ports, and
// t_dst as wide as the LoadAddr layout); the task manager never passes it
// another code).
//
//	port           dir  width              meaning
//	t_valid        in   1                  a task is offered
//	t_op           in   op width (isa)     nop, load, load_weights
//	t_src          in   ext_addr_width     first external line
//	t_dst          in   max(aw, ww)        first state address (load) or weight row (load_weights)
//	t_d0, t_d1     in   16                 lines per row, rows
//	t_d2           in   16                 external row stride (lines)
//	t_ready        out  1                  idle: the task is taken this cycle
//	busy           out  1                  a transfer is running
//	done           out  1                  one-cycle pulse: the task is complete
//	stall          out  1                  a request is refused this cycle (xr or sw)
//	xr_valid       out  1                  external read request
//	xr_addr        out  ext_addr_width     its line
//	xr_ready       in   1                  the read is accepted
//	xr_rvalid      in   1                  a read response (in order, never refused)
//	xr_rdata       in   rows·elem_width    its line
//	sw_valid       out  1                  state-buffer write (the sram "dmaw" client)
//	sw_addr        out  aw                 address
//	sw_mask        out  rows               all ones
//	sw_wdata_<p>   out  elem_width         element of partition p
//	sw_ready       in   1                  the write is accepted
//	ww_valid       out  1                  weight-buffer write (always accepted)
//	ww_addr        out  ww                 weight row
//	ww_data        out  cols·elem_width    the row: elements 0..cols−1 of the line
//
// aw = log2(state_depth), ww = log2(weight_depth). Timing: the first read
// is presented the cycle after the task is accepted; with ready high and
// responses ext_latency cycles after acceptance, a line is read every
// cycle and written ext_latency + 1 cycles after its read, and done pulses
// the cycle after the last write is accepted: d0·d1 + ext_latency + 2
// cycles from acceptance to done.
func dmaIn(c Config) *hdl.Module {
	E, R, C := c.ElemWidth, c.Rows, c.Cols
	aw, ww, xw := log2(c.StateDepth), log2(c.WeightDepth), c.ExtAddrWidth
	dw, lw := max(aw, ww), c.LineWidth()
	depth := dmaInFIFODepth(c)
	name := hdl.Name("npu_dma_in", fmt.Sprintf("%dx%d", R, C), fmt.Sprintf("e%d", E),
		fmt.Sprintf("s%dw%dx%d", c.StateDepth, c.WeightDepth, xw), fmt.Sprintf("q%d", depth))
	moving := []isa.Op{isa.DMAInLoad, isa.DMAInLoadWeights}
	hasSparse := c.SparseUnits > 0
	if hasSparse {
		s := c.Sparse()
		dw = max(dw, s.LoadAddr().Width)
		name = hdl.Name(name, fmt.Sprintf("sp%de%dw%dt%d", s.Units, s.Entry().Width, s.Weight().Width, s.Table().Width))
		moving = append(moving, isa.DMAInLoadSparse)
	}
	m := hdl.NewModule(name)
	t, fin := dmaTaskPort(m, c, isa.DMAIn, xw, dw, moving...)
	m.Output("stall", hdl.Bool)
	xrReady := m.Input("xr_ready", hdl.Bool)
	xrRValid := m.Input("xr_rvalid", hdl.Bool)
	xrRData := m.Input("xr_rdata", hdl.UInt(lw))
	swReady := m.Input("sw_ready", hdl.Bool)
	start := t.accept.And(t.nonEmpty)

	weights := m.Reg("weights", hdl.Bool, 0)
	weights.SetNext(t.op.Eq(hdl.U(isa.DMAIn.OpWidth(), uint64(isa.DMAInLoadWeights))))
	weights.SetEnable(start)

	issue := m.Wire("issue", hdl.Bool)
	drain := m.Wire("drain", hdl.Bool)
	room, idle := dmaCredits(m, "credits_used", depth, issue, drain)
	rd := newDMAWalker(m, "rd", t, xw, start, &t.src.Expr, t.nonEmpty, &issue.Expr, true, true)
	xrValid := rd.more.And(room)
	issue.Set(xrValid.And(xrReady))
	m.Output("xr_valid", hdl.Bool).Set(xrValid)
	m.Output("xr_addr", hdl.UInt(xw)).Set(rd.addr)

	q := newDMAFIFO(m, "line", depth, lw, &xrRValid.Expr, &xrRData.Expr, &drain.Expr)
	dense := q.nonEmpty // a line for the state or weight buffer
	var sp *dmaSparseIn
	if hasSparse {
		sp = dmaInSparse(m, c, t, start, q)
		dense = dense.And(sp.mode.Not())
	}
	swValid := dense.And(weights.Not())
	wwValid := dense.And(weights)
	drained := swValid.And(swReady).Or(wwValid)
	if sp != nil {
		drained = drained.Or(sp.drain)
	}
	drain.Set(drained)
	wa := m.Reg("wr_addr", hdl.UInt(dw), 0)
	wa.SetNext(hdl.Mux(start, t.dst, wa.Add(hdl.U(1, 1)).Trunc(dw)))
	wa.SetEnable(start.Or(drain))

	m.Output("sw_valid", hdl.Bool).Set(swValid)
	m.Output("sw_addr", hdl.UInt(aw)).Set(wa.Trunc(aw))
	m.Output("sw_mask", hdl.UInt(R)).Set(hdl.Const(hdl.UInt(R), hdl.UInt(R).Mask()))
	for p := range R {
		m.Output(fmt.Sprintf("sw_wdata_%d", p), hdl.UInt(E)).Set(q.head.Slice(p*E+E-1, p*E))
	}
	m.Output("ww_valid", hdl.Bool).Set(wwValid)
	m.Output("ww_addr", hdl.UInt(ww)).Set(wa.Trunc(ww))
	m.Output("ww_data", hdl.UInt(C*E)).Set(q.head.Slice(C*E-1, 0))

	fin.Set(t.active.And(rd.more.Not()).And(idle))
	stall := xrValid.And(xrReady.Not()).Or(swValid.And(swReady.Not()))
	if sp != nil {
		stall = stall.Or(sp.refuse)
	}
	m.Port("stall").Set(stall)
	return m
}

// dmaOut builds the output DMA engine for c (the dma_out ops of package
// isa: nop and store, and with the sparse engine store_sparse
// (dma_sparse.go: its ports, and t_src as wide as the ReadAddr layout)).
//
//	port           dir  width              meaning
//	t_valid        in   1                  a task is offered
//	t_op           in   op width (isa)     nop, store
//	t_src          in   aw                 first state address
//	t_dst          in   ext_addr_width     first external line
//	t_d0, t_d1     in   16                 lines per row, rows
//	t_d2           in   16                 external row stride (lines)
//	t_ready        out  1                  idle: the task is taken this cycle
//	busy           out  1                  a transfer is running
//	done           out  1                  one-cycle pulse: the task is complete
//	stall          out  1                  a request is refused this cycle (sr or xw)
//	sr_valid       out  1                  state-buffer read (the sram "dmar" client)
//	sr_addr        out  aw                 address
//	sr_mask        out  rows               all ones
//	sr_ready       in   1                  the read is accepted
//	sr_rvalid      in   1                  its data, exactly one cycle after acceptance
//	sr_rdata_<p>   in   elem_width         element of partition p
//	xw_valid       out  1                  external write request
//	xw_addr        out  ext_addr_width     its line
//	xw_data        out  rows·elem_width    the line
//	xw_ready       in   1                  the write is accepted
//
// Timing: the first state read is presented the cycle after the task is
// accepted, its line is offered to external memory two cycles later; with
// every ready high a line moves per cycle and done pulses the cycle after
// the last write is accepted: d0·d1 + 3 cycles from acceptance to done.
func dmaOut(c Config) *hdl.Module {
	E, R := c.ElemWidth, c.Rows
	aw, xw, lw := log2(c.StateDepth), c.ExtAddrWidth, c.LineWidth()
	name := hdl.Name("npu_dma_out", R, fmt.Sprintf("e%d", E), fmt.Sprintf("s%dx%d", c.StateDepth, xw))
	moving, srcW := []isa.Op{isa.DMAOutStore}, aw
	hasSparse := c.SparseUnits > 0
	if hasSparse {
		s := c.Sparse()
		srcW = max(aw, s.ReadAddr().Width)
		name = hdl.Name(name, fmt.Sprintf("sp%da%dx%d", s.Units, s.AccWordWidth(), s.ReadAddr().Width))
		moving = append(moving, isa.DMAOutStoreSparse)
	}
	m := hdl.NewModule(name)
	t, fin := dmaTaskPort(m, c, isa.DMAOut, srcW, xw, moving...)
	m.Output("stall", hdl.Bool)
	srReady := m.Input("sr_ready", hdl.Bool)
	srRValid := m.Input("sr_rvalid", hdl.Bool)
	parts := make([]hdl.Value, R)
	for p := range R {
		parts[R-1-p] = m.Input(fmt.Sprintf("sr_rdata_%d", p), hdl.UInt(E))
	}
	xwReady := m.Input("xw_ready", hdl.Bool)
	start := t.accept.And(t.nonEmpty)
	// The dense side starts on a store only; the sparse side on a
	// store_sparse.
	denseStart, denseNonEmpty, base := start, t.nonEmpty, &t.src.Expr
	var sp *dmaSparseOut
	if hasSparse {
		sp = dmaOutSparse(m, c, t, start, xwReady)
		denseStart, denseNonEmpty, base = start.And(sp.isOp.Not()), t.nonEmpty.And(sp.isOp.Not()), t.src.Trunc(aw)
	}

	issue := m.Wire("issue", hdl.Bool)
	drain := m.Wire("drain", hdl.Bool)
	room, idle := dmaCredits(m, "credits_used", dmaOutFIFODepth, issue, drain)
	rd := newDMAWalker(m, "rd", t, aw, denseStart, base, denseNonEmpty, &issue.Expr, false, true)
	srValid := rd.more.And(room)
	issue.Set(srValid.And(srReady))
	m.Output("sr_valid", hdl.Bool).Set(srValid)
	m.Output("sr_addr", hdl.UInt(aw)).Set(rd.addr)
	m.Output("sr_mask", hdl.UInt(R)).Set(hdl.Const(hdl.UInt(R), hdl.UInt(R).Mask()))

	q := newDMAFIFO(m, "line", dmaOutFIFODepth, lw, &srRValid.Expr, hdl.Cat(parts...), &drain.Expr)
	drain.Set(q.nonEmpty.And(xwReady))
	wr := newDMAWalker(m, "wr", t, xw, start, &t.dst.Expr, t.nonEmpty, &drain.Expr, true, false)
	xwValid, xwAddr, xwData := q.nonEmpty, &wr.addr.Expr, q.head
	finished := t.active.And(rd.more.Not()).And(idle)
	if sp != nil {
		// One side is idle while the other runs: its FIFO is empty.
		xwValid = xwValid.Or(sp.valid)
		xwAddr, xwData = hdl.Mux(sp.mode, sp.addr, xwAddr), hdl.Mux(sp.mode, sp.data, xwData)
		finished = finished.And(sp.more.Not()).And(sp.idle)
	}
	m.Output("xw_valid", hdl.Bool).Set(xwValid)
	m.Output("xw_addr", hdl.UInt(xw)).Set(xwAddr)
	m.Output("xw_data", hdl.UInt(lw)).Set(xwData)

	fin.Set(finished)
	m.Port("stall").Set(srValid.And(srReady.Not()).Or(xwValid.And(xwReady.Not())))
	return m
}
