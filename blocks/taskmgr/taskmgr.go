package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu/isa"
	"github.com/hwgen/hwgen/hdl"
)

// Error codes of err_code, in priority order when a descriptor has several
// faults.
const (
	ErrNone      = 0
	ErrID        = 1 // the task ID is not the queue's next ID
	ErrEngine    = 2 // unknown engine code
	ErrOp        = 3 // unknown operation for the engine
	ErrNDeps     = 4 // ndeps above max_deps
	ErrDepWindow = 5 // a dependency is not one of the window-1 tasks before this one
	errBits      = 3
)

// CounterBits is the width of the completed and skipped counters.
const CounterBits = 32

// Build generates the task manager for cfg. See the package documentation
// for its ports and behaviour.
func Build(cfg Config) (*hdl.Module, error) {
	lay, err := NewLayout(cfg)
	if err != nil {
		return nil, err
	}
	b := &builder{cfg: cfg, lay: lay, m: hdl.NewModule(cfg.name())}
	b.build()
	return b.m, nil
}

type builder struct {
	cfg Config
	lay *Layout
	m   *hdl.Module

	n, l, qb int // log2(window), n+1, queue-number width

	// per queue
	seq, base, bits, skip []*hdl.Signal
	// per engine: completions this cycle (the bypass into the dependency
	// check and the scoreboard update)
	comp          []*hdl.Expr
	compQ, compIx []*hdl.Expr
}

// slotRecord is what waits in front of an engine: the engine fields, the
// queue, which dependency fields are used and the low l bits of each
// dependency ID (enough to place it relative to the scoreboard base).
func (b *builder) slotRecord() *record {
	r := newRecord()
	r.add("queue", b.qb)
	for _, f := range b.lay.EngineFields() {
		r.add(f.Name, f.Width)
	}
	r.add("depmask", b.cfg.MaxDeps)
	for i := 0; i < b.cfg.MaxDeps; i++ {
		r.add(fmt.Sprintf("dl%d", i), b.l)
	}
	return r
}

func (b *builder) build() {
	c, m := b.cfg, b.m
	b.n = log2(c.Window)
	b.l = b.n + 1
	b.qb = hdl.ClogWidth(c.Queues)

	cmdValid := m.Input("cmd_valid", hdl.Bool)
	cmdQueue := m.Input("cmd_queue", hdl.UInt(b.qb))
	cmdDesc := m.Input("cmd_desc", hdl.UInt(b.lay.Width))
	errClear := m.Input("err_clear", hdl.Bool)
	ready := make([]*hdl.Signal, isa.NumEngines)
	done := make([]*hdl.Signal, isa.NumEngines)
	for e, def := range isa.Engines {
		ready[e] = m.Input(def.Name+"_ready", hdl.Bool)
		done[e] = m.Input(def.Name+"_done", hdl.Bool)
	}

	// ---- queues ----
	// A queue number beyond the last queue goes to the last (lowest
	// priority) queue, so no push is ever refused for its number.
	var qsel hdl.Value = cmdQueue
	if 1<<b.qb > c.Queues {
		qsel = hdl.Mux(cmdQueue.Ge(hdl.U(b.qb, uint64(c.Queues))), hdl.U(b.qb, uint64(c.Queues-1)), cmdQueue)
	}
	qmod := queueModule(c.QueueDepth, b.lay.Width)
	queues := make([]*hdl.Instance, c.Queues)
	var cmdReady *hdl.Expr = hdl.U(1, 0)
	pops := make([]*hdl.Signal, c.Queues)
	for q := range queues {
		is := exprOf(qsel).Eq(hdl.U(b.qb, uint64(q)))
		u := m.Instance(fmt.Sprintf("queue%d", q), qmod)
		pops[q] = m.Wire(fmt.Sprintf("pop%d", q), hdl.Bool)
		notFull := u.Out("full").Not()
		u.Connect("push", cmdValid.And(is).And(notFull)).Connect("data", cmdDesc).Connect("pop", pops[q])
		cmdReady = cmdReady.Or(is.And(notFull))
		queues[q] = u
	}
	m.Output("cmd_ready", hdl.Bool).Set(cmdReady)

	// ---- per-queue scoreboard state ----
	for q := 0; q < c.Queues; q++ {
		b.seq = append(b.seq, m.Reg(fmt.Sprintf("seq%d", q), hdl.UInt(c.IDBits), 0))
		b.base = append(b.base, m.Reg(fmt.Sprintf("base%d", q), hdl.UInt(b.l), 0))
		b.bits = append(b.bits, m.Reg(fmt.Sprintf("done%d", q), hdl.UInt(c.Window), 0))
		b.skip = append(b.skip, m.Reg(fmt.Sprintf("skip%d", q), hdl.Bool, 0))
	}

	// ---- arbiter: the highest-priority non-empty queue ----
	sel := make([]*hdl.Expr, c.Queues)
	var anyValid *hdl.Expr = hdl.U(1, 0)
	for q := range queues {
		v := &queues[q].Out("valid").Expr
		sel[q] = v.And(anyValid.Not())
		anyValid = anyValid.Or(v)
	}
	pick := func(xs []hdl.Value) *hdl.Expr { // the selected queue's x (one-hot select)
		r := exprOf(xs[len(xs)-1])
		for q := len(xs) - 2; q >= 0; q-- {
			r = hdl.Mux(sel[q], xs[q], r)
		}
		return r
	}
	vals := func(n int, f func(q int) hdl.Value) []hdl.Value {
		out := make([]hdl.Value, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	selIdx := pick(vals(c.Queues, func(q int) hdl.Value { return hdl.U(b.qb, uint64(q)) }))
	head := m.Wire("issue_desc", hdl.UInt(b.lay.Width))
	head.Set(pick(vals(c.Queues, func(q int) hdl.Value { return queues[q].Out("head") })))
	seqSel := pick(vals(c.Queues, func(q int) hdl.Value { return b.seq[q] }))
	baseSel := pick(vals(c.Queues, func(q int) hdl.Value { return b.base[q] }))
	skipSel := pick(vals(c.Queues, func(q int) hdl.Value { return b.skip[q] }))

	// ---- decode and check the selected head ----
	f := b.lay.Slice(head)
	engine, op, ndeps := f["engine"], f["op"], f["ndeps"]
	badID := f["id"].Ne(seqSel)
	badEngine := engine.Ge(hdl.U(isa.EngineBits, isa.NumEngines))
	var opMask *hdl.Expr = hdl.U(1<<isa.OpBits, 0)
	for e := isa.NumEngines - 1; e >= 0; e-- {
		opMask = hdl.Mux(engine.Eq(hdl.U(isa.EngineBits, uint64(e))), hdl.U(1<<isa.OpBits, isa.Engine(e).OpMask()), opMask)
	}
	badOp := opMask.Shr(op).Bit(0).Not()
	var badNDeps *hdl.Expr = hdl.U(1, 0)
	if c.MaxDeps < 1<<ndepsBits(c)-1 { // else every count fits (and Verilator rejects a constant compare)
		badNDeps = ndeps.Gt(hdl.U(ndepsBits(c), uint64(c.MaxDeps)))
	}
	var badDep *hdl.Expr = hdl.U(1, 0)
	used := make([]hdl.Value, c.MaxDeps)
	for i := 0; i < c.MaxDeps; i++ {
		used[i] = ndeps.Gt(hdl.U(ndepsBits(c), uint64(i)))
		// The distance back from this task, modulo 2^id_bits: 1..window-1
		// is inside the window; 0 (itself) and anything else (too old,
		// or a forward reference) is not.
		dist := seqSel.Sub(f[fmt.Sprintf("dep%d", i)]).Trunc(c.IDBits)
		outside := dist.Eq(hdl.U(c.IDBits, 0)).Or(dist.Ge(hdl.U(c.IDBits, uint64(c.Window))))
		badDep = badDep.Or(exprOf(used[i]).And(outside))
	}
	code := hdl.Mux(badID, hdl.U(errBits, ErrID),
		hdl.Mux(badEngine, hdl.U(errBits, ErrEngine),
			hdl.Mux(badOp, hdl.U(errBits, ErrOp),
				hdl.Mux(badNDeps, hdl.U(errBits, ErrNDeps),
					hdl.Mux(badDep, hdl.U(errBits, ErrDepWindow), hdl.U(errBits, ErrNone))))))
	malformed := m.Wire("malformed", hdl.Bool)
	malformed.Set(code.Ne(hdl.U(errBits, ErrNone)))

	// The selected queue has window tasks issued and not all completed:
	// the scoreboard slot of its next ID is still taken.
	windowFull := seqSel.Trunc(b.l).Sub(baseSel).Trunc(b.l).Eq(hdl.U(b.l, uint64(c.Window)))

	// ---- engine slots: issued tasks waiting for their dependencies ----
	rec := b.slotRecord()
	slotMod := shiftFIFO("taskmgr_slots", c.EngineSlots, rec.width)
	slots := make([]*hdl.Instance, isa.NumEngines)
	var targetFull *hdl.Expr = hdl.U(1, 0)
	isEngine := make([]*hdl.Expr, isa.NumEngines)
	for e, def := range isa.Engines {
		slots[e] = m.Instance("slots_"+def.Name, slotMod)
		isEngine[e] = engine.Eq(hdl.U(isa.EngineBits, uint64(e)))
		targetFull = targetFull.Or(isEngine[e].And(slots[e].Out("full")))
	}
	retireMode := malformed.Or(skipSel)
	issue := m.Wire("issue", hdl.Bool)
	issue.Set(anyValid.And(windowFull.Not()).And(retireMode.Or(targetFull.Not())))
	for q := range queues {
		pops[q].Set(issue.And(sel[q]))
	}
	retire := m.Wire("retire", hdl.Bool)
	retire.Set(issue.And(retireMode))

	entry := map[string]hdl.Value{"queue": selIdx}
	for _, fl := range b.lay.EngineFields() {
		entry[fl.Name] = f[fl.Name]
	}
	mask := make([]hdl.Value, c.MaxDeps) // Cat wants the top bit first
	for i := range mask {
		mask[c.MaxDeps-1-i] = used[i]
		entry[fmt.Sprintf("dl%d", i)] = f[fmt.Sprintf("dep%d", i)].Trunc(b.l)
	}
	entry["depmask"] = hdl.Cat(mask...)
	slotData := rec.pack(entry)

	// ---- per-queue bookkeeping of issue ----
	for q := 0; q < c.Queues; q++ {
		b.seq[q].SetNext(b.seq[q].Add(hdl.U(1, 1)).Trunc(c.IDBits))
		b.seq[q].SetEnable(pops[q])
		erred := pops[q].And(malformed)
		b.skip[q].SetNext(erred)
		b.skip[q].SetEnable(erred.Or(errClear))
	}

	// ---- error status: the first malformed descriptor ----
	errCode := m.Reg("err_code_r", hdl.UInt(errBits), 0)
	errID := m.Reg("err_id_r", hdl.UInt(c.IDBits), 0)
	errQueue := m.Reg("err_queue_r", hdl.UInt(b.qb), 0)
	latch := issue.And(malformed).And(skipSel.Not()).And(errCode.Eq(hdl.U(errBits, 0)).Or(errClear))
	errCode.SetNext(hdl.Mux(latch, code, hdl.U(errBits, 0)))
	errCode.SetEnable(latch.Or(errClear))
	errID.SetNext(hdl.Mux(latch, f["id"], hdl.U(c.IDBits, 0)))
	errID.SetEnable(latch.Or(errClear))
	errQueue.SetNext(hdl.Mux(latch, selIdx, hdl.U(b.qb, 0)))
	errQueue.SetEnable(latch.Or(errClear))

	// ---- dispatch ----
	outMod := shiftFIFO("taskmgr_outstanding", c.Outstanding, b.qb+b.n)
	outs := make([]*hdl.Instance, isa.NumEngines)
	for e, def := range isa.Engines {
		outs[e] = m.Instance("outstanding_"+def.Name, outMod)
		ov := &outs[e].Out("valid").Expr
		oh := &outs[e].Out("head").Expr
		b.comp = append(b.comp, done[e].And(ov))
		b.compQ = append(b.compQ, oh.Slice(b.qb+b.n-1, b.n))
		b.compIx = append(b.compIx, oh.Slice(b.n-1, 0))
	}
	var idle *hdl.Expr = anyValid.Not()
	for e, def := range isa.Engines {
		p := def.Name + "_"
		s, o := slots[e], outs[e]
		h := rec.slice(s.Out("head"))
		depsOK := b.depsDone(h)
		valid := m.Wire(p+"dispatch", hdl.Bool)
		valid.Set(s.Out("valid").And(depsOK).And(o.Out("full").Not()))
		fire := valid.And(ready[e])
		s.Connect("push", issue.And(retireMode.Not()).And(isEngine[e])).Connect("data", slotData).Connect("pop", fire)
		o.Connect("push", fire).Connect("data", hdl.Cat(h["queue"], h["id"].Trunc(b.n))).Connect("pop", b.comp[e])

		m.Output(p+"valid", hdl.Bool).Set(valid)
		m.Output(p+"queue", hdl.UInt(b.qb)).Set(h["queue"])
		for _, fl := range b.lay.EngineFields() {
			m.Output(p+fl.Name, hdl.UInt(fl.Width)).Set(h[fl.Name])
		}
		m.Output(p+"busy", hdl.Bool).Set(o.Out("valid"))
		completed := m.Reg(p+"completed_r", hdl.UInt(CounterBits), 0)
		completed.SetNext(completed.Add(hdl.U(1, 1)).Trunc(CounterBits))
		completed.SetEnable(b.comp[e])
		m.Output(p+"completed", hdl.UInt(CounterBits)).Set(completed)
		idle = idle.And(s.Out("valid").Not()).And(o.Out("valid").Not())
	}

	// ---- scoreboard update ----
	onehot := func(ix hdl.Value) *hdl.Expr { return hdl.U(c.Window, 1).ShlWrap(ix) }
	zero := hdl.U(c.Window, 0)
	for q := 0; q < c.Queues; q++ {
		qc := hdl.U(b.qb, uint64(q))
		set := hdl.Mux(retire.And(sel[q]), onehot(seqSel.Trunc(b.n)), zero)
		for e := 0; e < isa.NumEngines; e++ {
			set = set.Or(hdl.Mux(b.comp[e].And(b.compQ[e].Eq(qc)), onehot(b.compIx[e]), zero))
		}
		// The base (oldest incomplete task) moves over completed tasks one
		// per cycle, freeing their slots; issue is at most one per cycle,
		// so the base keeps up.
		baseIx := b.base[q].Trunc(b.n)
		adv := b.bits[q].Shr(baseIx).Bit(0)
		clr := hdl.Mux(adv, onehot(baseIx), zero)
		b.bits[q].SetNext(b.bits[q].And(clr.Not()).Or(set))
		b.base[q].SetNext(b.base[q].Add(adv).Trunc(b.l))
	}

	skipped := m.Reg("skipped_r", hdl.UInt(CounterBits), 0)
	skipped.SetNext(skipped.Add(hdl.U(1, 1)).Trunc(CounterBits))
	skipped.SetEnable(retire)

	m.Output("err_code", hdl.UInt(errBits)).Set(errCode)
	m.Output("err_id", hdl.UInt(c.IDBits)).Set(errID)
	m.Output("err_queue", hdl.UInt(b.qb)).Set(errQueue)
	m.Output("skipped", hdl.UInt(CounterBits)).Set(skipped)
	m.Output("idle", hdl.Bool).Set(idle)
}

// depsDone is 1 when every used dependency of the slot head h has
// completed: it is older than its queue's scoreboard base, or its done bit
// is set, or an engine reports it done in this very cycle (the bypass that
// makes dispatch overhead zero cycles).
func (b *builder) depsDone(h map[string]*hdl.Expr) *hdl.Expr {
	c := b.cfg
	hq := h["queue"]
	pickQ := func(xs []*hdl.Signal) *hdl.Expr {
		vs := make([]hdl.Value, len(xs))
		for q, x := range xs {
			vs[q] = x
		}
		return hdl.Pick(hq, vs, xs[len(xs)-1])
	}
	base, bits := pickQ(b.base), pickQ(b.bits)
	var ok *hdl.Expr = hdl.U(1, 1)
	for i := 0; i < c.MaxDeps; i++ {
		dl := h[fmt.Sprintf("dl%d", i)]
		ix := dl.Trunc(b.n)
		// dl - base lies in -(window-1)..window-2, so its sign in l bits
		// tells whether the dependency is older than the base.
		older := dl.Sub(base).Trunc(b.l).Bit(b.l - 1)
		d := older.Or(bits.Shr(ix).Bit(0))
		for e := 0; e < isa.NumEngines; e++ {
			d = d.Or(b.comp[e].And(b.compQ[e].Eq(hq)).And(b.compIx[e].Eq(ix)))
		}
		ok = ok.And(h["depmask"].Bit(i).Not().Or(d))
	}
	return ok
}
