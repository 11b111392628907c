package npu

import (
	"fmt"
	isasparse "github.com/hwgen/hwgen/isa/sparse"
	"math/big"

	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// The sparse engine inside the NPU (sparse_units > 0; doc.go, "Sparse
// engine"): instance sp of blocks/sparse, the task manager's fifth engine
// "sparse". A dispatcher (dispatch, as for several NEs) stands for its
// units: a task goes to the unit its dst operand names, its low
// clog2(sparse_units) bits (the compiler never names a unit past the
// last; when sparse_units is not a power of two such a value goes to the
// first idle unit, as an NE task naming no engine does), and the units'
// done pulses reach the task manager in dispatch order. dma_in writes the
// units' memories (load_sparse), dma_out reads their accumulators out
// (store_sparse, dma_sparse.go).

// EngineNames are the task manager's engines of c, in engine-code order:
// the prefixes of the per-engine ports of the NPU (EngineNames, and
// "sparse" with the sparse engine).
func (c Config) EngineNames() []string {
	n := append([]string(nil), EngineNames...)
	if c.SparseUnits > 0 {
		n = append(n, isa.Engines[isa.Sparse].Name)
	}
	return n
}

// sparseEngine is what the NPU's per-engine ports need of the sparse
// engine.
type sparseEngine struct {
	start, done, stall *hdl.Expr
}

// buildSparse instantiates the sparse engine and joins it to the task
// manager, dma_in (di) and dma_out (do); field and param read the task
// manager's sparse outputs. It adds the ports sparse_mults and
// sparse<i>_mults, sparse<i>_busy_cycles, sparse<i>_stall_cycles.
func (b *top) buildSparse(di, do *hdl.Instance, field func(e, f string, w int) *hdl.Expr, param func(string) *hdl.Expr) (*sparseEngine, error) {
	c, m, tm := b.c, b.m, b.tm
	s := c.Sparse()
	spMod, err := sparse.Build(s)
	if err != nil {
		return nil, fmt.Errorf("sparse engine: %w", err)
	}
	sp := m.Instance("sp", spMod)
	U := s.Units
	port := func(i int, name string) *hdl.Signal { return sp.Out(sparse.UnitPort(i, name)) }
	width := func(name string) int { return spMod.Port(sparse.UnitPort(0, name)).Type.Width }

	// Dispatch: the unit is dst; the record is packed from the operands.
	targets := make([]dispatchTarget, U)
	for i := range U {
		targets[i] = dispatchTarget{ready: &port(i, "ready").Expr, done: &port(i, "done").Expr}
	}
	valid := &tm.Out("sparse_valid").Expr
	ready, done, valids := b.dispatchTagged(valid, field("sparse", "dst", hdl.ClogWidth(U)), targets)
	tm.Connect("sparse_ready", ready)
	tm.Connect("sparse_done", done)
	sparams := sliceParams(c.Codec().Sparse, param("sparse"))
	tk := s.Task()
	parts := make([]hdl.Value, len(tk.Fields)) // Cat wants the top field first
	for i, f := range tk.Fields {
		var v *hdl.Expr
		switch operand := isa.SparseFieldOperand(f.Name); operand {
		case "op":
			v = tm.Out("sparse_op").Resize(f.Width) // the ISA's op code, as the unit decodes it
		case "param":
			v = sparams[f.Name].Resize(f.Width)
		default:
			v = field("sparse", operand, f.Width)
		}
		parts[len(parts)-1-i] = v
	}
	record := hdl.Cat(parts...)
	for i := range U {
		sp.Connect(sparse.UnitPort(i, "go"), valids[i].And(port(i, "ready")))
		sp.Connect(sparse.UnitPort(i, "task_in"), record)
	}

	b.connectSparseLoad(sp, di, width)
	b.connectSparseStore(sp, do)

	// Counters: the units' own, and their sum.
	cw := c.CounterWidth
	var mults *hdl.Expr
	for i := range U {
		for _, name := range []string{"mults", "busy_cycles", "stall_cycles"} {
			m.Output(fmt.Sprintf("sparse%d_%s", i, name), hdl.UInt(cw)).Set(port(i, name))
		}
		if mults == nil {
			mults = &port(i, "mults").Expr
		} else {
			mults = mults.Add(port(i, "mults")).Trunc(cw)
		}
	}
	m.Output("sparse_mults", hdl.UInt(cw)).Set(mults)
	// The engine's stall: a task is offered and its unit is busy.
	return &sparseEngine{start: valid.And(ready), done: done, stall: valid.And(ready.Not())}, nil
}

// connectSparseLoad joins dma_in's record port to the units' memories:
// entries to the named unit's buffer set (waiting for its in_wr_ready),
// weights and table records to the shared ports (always taken). Each
// memory takes the low bits of the address and of the record.
func (b *top) connectSparseLoad(sp, di *hdl.Instance, width func(string) int) {
	U := b.c.SparseUnits
	kind, unit := di.Out("sp_kind"), di.Out("sp_unit")
	is := func(k isasparse.Kind) *hdl.Expr { return kind.Eq(hdl.U(kind.Width(), uint64(k))) }
	valid, addr, data := di.Out("sp_valid"), di.Out("sp_addr"), di.Out("sp_data")
	entries := valid.And(is(isasparse.KindEntries))
	readies := make([]hdl.Value, U)
	for i := range U {
		p := func(name string) string { return sparse.UnitPort(i, name) }
		sp.Connect(p("in_wr_en"), entries.And(unit.Eq(hdl.U(unit.Width(), uint64(i)))))
		sp.Connect(p("in_wr_set"), di.Out("sp_set"))
		sp.Connect(p("in_wr_addr"), addr.Resize(width("in_wr_addr")))
		sp.Connect(p("in_wr_data"), data.Resize(width("in_wr_data")))
		readies[i] = sp.Out(p("in_wr_ready"))
	}
	// A unit number past the last (never encoded): taken and dropped.
	unitReady := hdl.Pick(unit, readies, hdl.U(1, 1))
	di.Connect("sp_ready", hdl.Mux(is(isasparse.KindEntries), unitReady, hdl.U(1, 1)))
	for _, mem := range []struct {
		prefix string
		kind   isasparse.Kind
	}{{"w_wr", isasparse.KindWeights}, {"t_wr", isasparse.KindTable}} {
		sp.Connect(mem.prefix+"_en", valid.And(is(mem.kind)))
		sp.Connect(mem.prefix+"_addr", addr.Resize(sp.Module.Port(mem.prefix+"_addr").Type.Width))
		sp.Connect(mem.prefix+"_data", data.Resize(sp.Module.Port(mem.prefix+"_data").Type.Width))
	}
}

// connectSparseStore joins dma_out's accumulator reads to the named
// unit's read port; every read clears the entry it reads.
func (b *top) connectSparseStore(sp, do *hdl.Instance) {
	U := b.c.SparseUnits
	unit := do.Out("sp_rd_unit")
	data := make([]hdl.Value, U)
	for i := range U {
		p := func(name string) string { return sparse.UnitPort(i, name) }
		sp.Connect(p("rd_en"), do.Out("sp_rd_en").And(unit.Eq(hdl.U(unit.Width(), uint64(i)))))
		sp.Connect(p("rd_bank"), do.Out("sp_rd_bank"))
		sp.Connect(p("rd_addr"), do.Out("sp_rd_addr"))
		sp.Connect(p("rd_clear"), hdl.U(1, 1))
		data[i] = sp.Out(p("rd_data"))
	}
	w := sp.Module.Port(sparse.UnitPort(0, "rd_data")).Type
	do.Connect("sp_rd_data", hdl.Pick(unit, data, hdl.Const(w, new(big.Int))))
}

// dispatchTagged stands for the sparse units as the task manager's
// "sparse" engine, which takes completions in any order: each unit keeps
// the queue and ID of the task it runs, and a finished task's done pulse
// goes to the task manager with them (sparse_done_queue, sparse_done_id),
// at most one a cycle, the lowest-numbered unit first. A unit whose done
// has not been passed on yet takes no new task. The done, queue and ID
// are functions of registers only (the task manager's bypass needs
// that). It returns the ready and done for the task manager and, per
// unit, whether it takes the task this cycle; the NPU's ports sparse_done_queue and sparse_done_id
// show the task completed.
func (b *top) dispatchTagged(valid, sel *hdl.Expr, units []dispatchTarget) (*hdl.Expr, *hdl.Expr, []*hdl.Expr) {
	m, tm, U := b.m, b.tm, len(units)
	qw, iw := tm.Out("sparse_queue").Type.Width, tm.Out("sparse_id").Type.Width
	// A finished task is passed on in the cycle of its done pulse or,
	// when a lower unit's goes first, later (pending).
	cand := make([]*hdl.Expr, U)
	passed := make([]*hdl.Expr, U)
	var anyCand *hdl.Expr = hdl.U(1, 0)
	for i, u := range units {
		pending := m.Reg(fmt.Sprintf("sparse%d_done_pending", i), hdl.Bool, 0)
		cand[i] = pending.Or(u.done)
		passed[i] = cand[i].And(anyCand.Not())
		anyCand = anyCand.Or(cand[i])
		pending.SetNext(cand[i].And(passed[i].Not()))
	}
	sw := hdl.ClogWidth(U)
	var pick *hdl.Expr = hdl.U(sw, 0)
	for i := U - 1; i >= 0; i-- {
		pick = hdl.Mux(passed[i], hdl.U(sw, uint64(i)), pick)
	}
	// A unit takes a task only when its last one has been passed on (by
	// the end of this cycle): the task's queue and ID replace it.
	free := make([]dispatchTarget, U)
	for i, u := range units {
		free[i] = dispatchTarget{ready: u.ready.And(cand[i].Not().Or(passed[i])), done: u.done}
	}
	o := b.offer("sparse", valid, sel, free)
	queues, ids := make([]hdl.Value, U), make([]hdl.Value, U)
	takes := make([]*hdl.Expr, U) // unit i takes the task this cycle
	for i := range units {
		took := o.valids[i].And(free[i].ready)
		takes[i] = took
		q := m.Reg(fmt.Sprintf("sparse%d_task_queue", i), hdl.UInt(qw), 0)
		q.SetNext(tm.Out("sparse_queue"))
		q.SetEnable(took)
		id := m.Reg(fmt.Sprintf("sparse%d_task_id", i), hdl.UInt(iw), 0)
		id.SetNext(tm.Out("sparse_id"))
		id.SetEnable(took)
		queues[i], ids[i] = q, id
	}
	done := m.Wire("sparse_done_tagged", hdl.Bool)
	done.Set(anyCand)
	doneQ := hdl.Pick(pick, queues, hdl.U(qw, 0))
	doneID := hdl.Pick(pick, ids, hdl.U(iw, 0))
	tm.Connect("sparse_done_queue", doneQ)
	tm.Connect("sparse_done_id", doneID)
	m.Output("sparse_done_queue", hdl.UInt(qw)).Set(doneQ)
	m.Output("sparse_done_id", hdl.UInt(iw)).Set(doneID)
	return o.ready, &done.Expr, takes
}
