package npu

import (
	"fmt"
	isasparse "github.com/hwgen/hwgen/isa/sparse"

	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// The DMA ops that serve the sparse engine (docs/engines.md, "Sparse
// engine"), present only when the NPU has one (sparse_units > 0): dma_in's
// load_sparse and dma_out's store_sparse. A sparse record or accumulator
// entry wider than an external line spans several consecutive lines, low
// bits first (isasparse.ToLines). Both reuse their engine's task port,
// walkers and FIFOs; the dense side of the engine is built as without the
// sparse engine, and a register (sp_mode) set at the task's start says
// which side the running task belongs to.

// dmaSparseIn is dma_in's load_sparse side.
type dmaSparseIn struct {
	mode   *hdl.Signal // the running task is a load_sparse
	drain  *hdl.Expr   // a line leaves the line FIFO for the sparse side
	valid  *hdl.Expr   // sp_valid
	refuse *hdl.Expr   // a record waits for sp_ready (stall)
}

// dmaInSparse adds load_sparse to dma_in: start is the start of any
// moving task, q the line FIFO.
//
// load_sparse: the read walker reads d0·d1 lines as for load; d2 is the
// number of records. The line stream is cut into groups
// (isasparse.Grouping, fixed per kind: the kind field of dst,
// isasparse.Sizes.LoadAddr, registered at the start): a record no wider
// than a line shares it with the others that fit, written one a cycle
// from bit 0 up; a wider one spans L lines, whose first L−1 wait in line
// registers while the last leaves the line FIFO together with them as
// the record. Records are written at the record addresses dst.addr + r
// for the task's r-th record; what follows the d2-th record (the rest of
// its group, lines beyond) is dropped. A record waits in the FIFO while
// sp_ready is low (entries: the unit's in_wr_ready), which
// back-pressures the reads through the credits as sw_ready does.
//
//	port      dir  width                    meaning
//	sp_valid  out  1                        a record is written
//	sp_kind   out  2                        its memory: 0 entries, 1 weights, 2 table (3: written nowhere)
//	sp_unit   out  clog2(sparse_units)      entries: the unit
//	sp_set    out  1                        entries: the buffer set
//	sp_addr   out  LoadAddr addr width      the record address in that memory
//	sp_data   out  widest record            the record, zero-extended
//	sp_ready  in   1                        the record is taken
func dmaInSparse(m *hdl.Module, c Config, t *dmaTask, start *hdl.Expr, q dmaFIFO) *dmaSparseIn {
	s, lw := c.Sparse(), c.LineWidth()
	la := s.LoadAddr()
	dst := &t.dst.Expr
	reg := func(name, field string) *hdl.Signal {
		f := la.Field(field)
		r := m.Reg(name, hdl.UInt(f.Width), 0)
		r.SetNext(sparse.Get(la, dst, field))
		r.SetEnable(start)
		return r
	}
	sp := &dmaSparseIn{mode: m.Reg("sp_mode", hdl.Bool, 0)}
	sp.mode.SetNext(t.op.Eq(hdl.U(isa.DMAIn.OpWidth(), uint64(isa.DMAInLoadSparse))))
	sp.mode.SetEnable(start)
	kind, unit, set := reg("sp_kind_r", "kind"), reg("sp_unit_r", "unit"), reg("sp_set_r", "set")
	isKind := func(k isasparse.Kind) *hdl.Expr { return kind.Eq(hdl.U(kind.Width(), uint64(k))) }
	// byKind is v(kind), kind 3 (never encoded) as entries.
	byKind := func(v func(k isasparse.Kind) *hdl.Expr) *hdl.Expr {
		return hdl.Mux(isKind(isasparse.KindWeights), v(isasparse.KindWeights), hdl.Mux(isKind(isasparse.KindTable), v(isasparse.KindTable), v(isasparse.KindEntries)))
	}

	// Records per group and lines per group, per kind.
	per, lines := make([]int, isasparse.NumKinds), make([]int, isasparse.NumKinds)
	lmax, pmax, wmax := 1, 1, 1
	for k := range isasparse.NumKinds {
		per[k], lines[k] = isasparse.Grouping(s.Record(k).Width, lw)
		lmax, pmax, wmax = max(lmax, lines[k]), max(pmax, per[k]), max(wmax, s.Record(k).Width)
	}
	jw, rw := hdl.ClogWidth(lmax), hdl.ClogWidth(pmax)
	j := m.Reg("sp_line", hdl.UInt(jw), 0) // the line of the group
	r := m.Reg("sp_rec", hdl.UInt(rw), 0)  // the record of the line
	dim := t.d2.Width()
	left := m.Reg("sp_left", hdl.UInt(dim), 0) // records still to write
	lastLine := byKind(func(k isasparse.Kind) *hdl.Expr { return j.Eq(hdl.U(jw, uint64(lines[k]-1))) })
	lastOfLine := byKind(func(k isasparse.Kind) *hdl.Expr { return r.Eq(hdl.U(rw, uint64(per[k]-1))) }).
		Or(left.Eq(hdl.U(dim, 1)))
	ready := m.Input("sp_ready", hdl.Bool)
	line := sp.mode.And(q.nonEmpty)
	none := left.Eq(hdl.U(dim, 0))
	sp.valid = line.And(lastLine).And(none.Not())
	written := sp.valid.And(ready)
	sp.refuse = sp.valid.And(ready.Not())
	sp.drain = line.And(lastLine.Not().Or(none).Or(written.And(lastOfLine)))
	j.SetNext(hdl.Mux(start.Or(lastLine), hdl.U(jw, 0), j.Add(hdl.U(1, 1)).Trunc(jw)))
	j.SetEnable(start.Or(sp.drain))
	r.SetNext(hdl.Mux(start.Or(lastOfLine), hdl.U(rw, 0), r.Add(hdl.U(1, 1)).Trunc(rw)))
	r.SetEnable(start.Or(written))
	left.SetNext(hdl.Mux(start, &t.d2.Expr, left.Sub(hdl.U(1, 1)).Trunc(dim)))
	left.SetEnable(start.Or(written))

	// A record's lines before its last wait in held[0..lmax-2].
	held := make([]*hdl.Signal, lmax-1)
	for i := range held {
		held[i] = m.Reg(fmt.Sprintf("sp_held_%d", i), hdl.UInt(lw), 0)
		held[i].SetNext(q.head)
		held[i].SetEnable(sp.drain.And(j.Eq(hdl.U(jw, uint64(i)))))
	}
	record := func(k isasparse.Kind) *hdl.Expr {
		w := s.Record(k).Width
		if per[k] > 1 { // record r of the line
			recs := make([]hdl.Value, per[k])
			for i := range recs {
				recs[i] = q.head.Slice(i*w+w-1, i*w)
			}
			return hdl.Pick(r, recs, recs[0]).Resize(wmax)
		}
		parts := []hdl.Value{q.head} // Cat wants the top first
		for i := lines[k] - 2; i >= 0; i-- {
			parts = append(parts, held[i])
		}
		return hdl.Cat(parts...).Slice(w-1, 0).Resize(wmax)
	}
	data := byKind(record)

	af := la.Field("addr")
	addr := m.Reg("sp_addr_r", hdl.UInt(af.Width), 0)
	addr.SetNext(hdl.Mux(start, sparse.Get(la, dst, "addr"), addr.Add(hdl.U(1, 1)).Trunc(af.Width)))
	addr.SetEnable(start.Or(written))

	m.Output("sp_valid", hdl.Bool).Set(sp.valid)
	m.Output("sp_kind", hdl.UInt(kind.Width())).Set(kind)
	m.Output("sp_unit", hdl.UInt(unit.Width())).Set(unit)
	m.Output("sp_set", hdl.UInt(set.Width())).Set(set)
	m.Output("sp_addr", hdl.UInt(af.Width)).Set(addr)
	m.Output("sp_data", hdl.UInt(wmax)).Set(data)
	return sp
}

// dmaSparseOut is dma_out's store_sparse side.
type dmaSparseOut struct {
	mode        *hdl.Signal // the running task is a store_sparse
	valid       *hdl.Expr   // a line is offered to external memory
	addr, data  *hdl.Expr   // its line address and data
	more, idle  *hdl.Expr   // entries left to read; nothing in flight
	isOp        *hdl.Expr   // the offered task is a store_sparse
	lineDrained *hdl.Signal // a line is accepted
}

// dmaOutSparse adds store_sparse to dma_out: start is the start of any
// moving task, xwReady the external write port's ready.
//
// store_sparse reads d0·d1 accumulator entries of unit src.unit's bank
// src.bank from entry src.addr up (isasparse.Sizes.ReadAddr), one read per entry and
// cycle (sp_rd_en; always accepted, data on sp_rd_data the next cycle;
// the top clears each entry as it is read), into an entry FIFO of
// dmaOutFIFODepth entries; entry n leaves as L_acc = LinesPer(lanes ·
// acc_width, line width) lines written to external lines dst + n·L_acc + j
// (line j: bits j·line width and up). A read is issued while the FIFO has
// room for it and every read in flight (credits, as the dense side), so
// with xw_ready high the next entry is read while the previous one's last
// line goes out: one line per cycle.
//
//	port        dir  width                    meaning
//	sp_rd_en    out  1                        read (and clear) an accumulator entry
//	sp_rd_unit  out  clog2(sparse_units)      of this unit (held for the task)
//	sp_rd_bank  out  1                        and this accumulator bank (held for the task)
//	sp_rd_addr  out  clog2(sparse_acc_depth)  this entry
//	sp_rd_data  in   sparse_lanes·acc_width   the entry read in the previous cycle
//
// Timing: with xw_ready high, busy lasts d0·d1·L_acc + 3 cycles (the
// test measures it).
func dmaOutSparse(m *hdl.Module, c Config, t *dmaTask, start *hdl.Expr, xwReady *hdl.Signal) *dmaSparseOut {
	s, lw, xw := c.Sparse(), c.LineWidth(), c.ExtAddrWidth
	ra := s.ReadAddr()
	src := &t.src.Expr
	sp := &dmaSparseOut{mode: m.Reg("sp_mode", hdl.Bool, 0)}
	sp.isOp = t.op.Eq(hdl.U(isa.DMAOut.OpWidth(), uint64(isa.DMAOutStoreSparse)))
	sp.mode.SetNext(sp.isOp)
	sp.mode.SetEnable(start)
	spStart := start.And(sp.isOp)
	uf, af := ra.Field("unit"), ra.Field("addr")
	unit := m.Reg("sp_unit_r", hdl.UInt(uf.Width), 0)
	unit.SetNext(sparse.Get(ra, src, "unit"))
	unit.SetEnable(spStart)
	bank := m.Reg("sp_bank_r", hdl.UInt(1), 0)
	bank.SetNext(sparse.Get(ra, src, "bank"))
	bank.SetEnable(spStart)

	issue := m.Wire("sp_issue", hdl.Bool)
	pop := m.Wire("sp_pop", hdl.Bool)
	room, idle := dmaCredits(m, "sp_credits_used", dmaOutFIFODepth, issue, pop)
	rd := newDMAWalker(m, "sp_acc", t, af.Width, spStart, sparse.Get(ra, src, "addr"), t.nonEmpty, &issue.Expr, false, true)
	issue.Set(rd.more.And(room))
	rvalid := m.Reg("sp_rvalid", hdl.Bool, 0)
	rvalid.SetNext(issue)
	m.Output("sp_rd_en", hdl.Bool).Set(issue)
	m.Output("sp_rd_unit", hdl.UInt(uf.Width)).Set(unit)
	m.Output("sp_rd_bank", hdl.UInt(1)).Set(bank)
	m.Output("sp_rd_addr", hdl.UInt(af.Width)).Set(rd.addr)
	rdData := m.Input("sp_rd_data", hdl.UInt(s.AccWordWidth()))

	n := isasparse.LinesPer(s.AccWordWidth(), lw)
	q := newDMAFIFO(m, "sp_entry", dmaOutFIFODepth, n*lw, &rvalid.Expr, rdData.Resize(n*lw), &pop.Expr)
	jw := hdl.ClogWidth(n)
	j := m.Reg("sp_out_line", hdl.UInt(jw), 0)
	last := j.Eq(hdl.U(jw, uint64(n-1)))
	sp.lineDrained = m.Wire("sp_line_drained", hdl.Bool)
	sp.lineDrained.Set(q.nonEmpty.And(xwReady))
	pop.Set(sp.lineDrained.And(last))
	j.SetNext(hdl.Mux(last, hdl.U(jw, 0), j.Add(hdl.U(1, 1)).Trunc(jw)))
	j.SetEnable(sp.lineDrained)
	parts := make([]hdl.Value, n)
	for i := range n {
		parts[i] = q.head.Slice(i*lw+lw-1, i*lw)
	}
	wr := newDMAWalker(m, "sp_wr", t, xw, spStart, &t.dst.Expr, t.nonEmpty, &sp.lineDrained.Expr, false, false)
	sp.valid, sp.addr, sp.data = q.nonEmpty, &wr.addr.Expr, hdl.Pick(j, parts, parts[0])
	sp.more, sp.idle = &rd.more.Expr, idle
	return sp
}
