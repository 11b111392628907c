package taskmgr

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
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
	// per queue, with Config.Partial: the window's dispatched bits, and
	// this cycle's dispatches (engine, queue, window index) that set them
	started []*hdl.Signal
	fires   []dispatchEvent
	// per engine: completions this cycle (the bypass into the dependency
	// check and the scoreboard update)
	comp          []*hdl.Expr
	compQ, compIx []*hdl.Expr
	// the engine being built: its offers not yet taken (keepPromises)
	promises []promise
}

// slotRecord is what waits in front of an engine: the engine fields,
// which dependency fields are used and the low l bits of each dependency
// ID (enough to place it relative to the scoreboard base). The queue is
// the slot FIFO's own.
func (b *builder) slotRecord() *record {
	r := newRecord()
	for _, f := range b.lay.EngineFields() {
		r.add(f.Name, f.Width)
	}
	if b.cfg.Queues > 1 {
		r.add("run", 1) // issued in a hold run: dispatched before other queues' tasks
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
	engines := c.Engines()
	ready := make([]*hdl.Signal, len(engines))
	done := make([]*hdl.Signal, len(engines))
	for e, def := range engines {
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
	room := make([]hdl.Value, c.Queues)
	pops := make([]*hdl.Signal, c.Queues)
	for q := range queues {
		is := exprOf(qsel).Eq(hdl.U(b.qb, uint64(q)))
		u := m.Instance(fmt.Sprintf("queue%d", q), qmod)
		pops[q] = m.Wire(fmt.Sprintf("pop%d", q), hdl.Bool)
		notFull := u.Out("full").Not()
		u.Connect("push", cmdValid.And(is).And(notFull)).Connect("data", cmdDesc).Connect("pop", pops[q])
		cmdReady = cmdReady.Or(is.And(notFull))
		room[c.Queues-1-q] = notFull
		queues[q] = u
	}
	m.Output("cmd_ready", hdl.Bool).Set(cmdReady)
	if c.RoomPort {
		m.Output("cmd_room", hdl.UInt(c.Queues)).Set(hdl.Cat(room...))
	}

	// ---- per-queue scoreboard state ----
	for q := 0; q < c.Queues; q++ {
		b.seq = append(b.seq, m.Reg(fmt.Sprintf("seq%d", q), hdl.UInt(c.IDBits), 0))
		b.base = append(b.base, m.Reg(fmt.Sprintf("base%d", q), hdl.UInt(b.l), 0))
		b.bits = append(b.bits, m.Reg(fmt.Sprintf("done%d", q), hdl.UInt(c.Window), 0))
		b.skip = append(b.skip, m.Reg(fmt.Sprintf("skip%d", q), hdl.Bool, 0))
		if c.Partial {
			b.started = append(b.started, m.Reg(fmt.Sprintf("started%d", q), hdl.UInt(c.Window), 0))
		}
	}

	// ---- engine slots: issued tasks waiting for their dependencies ----
	// One FIFO per engine and queue, so a queue's task waiting for its
	// dependencies never holds back another queue's task.
	rec := b.slotRecord()
	slotMod := shiftFIFO("taskmgr_slots", c.EngineSlots, rec.width)
	slots := make([][]*hdl.Instance, len(engines))
	for e, def := range engines {
		for q := range queues {
			slots[e] = append(slots[e], m.Instance(fmt.Sprintf("slots_%s_%d", def.Name, q), slotMod))
		}
	}

	// ---- arbiter: the highest-priority queue whose head can issue ----
	// A head can issue unless its queue's window is full or the slot FIFO
	// of its engine is (a queue that skips retires without a slot). A
	// head naming no engine is malformed and retires.
	cans := make([]*hdl.Expr, c.Queues)
	var anyValid *hdl.Expr = hdl.U(1, 0)
	for q := range queues {
		hf := b.lay.Slice(queues[q].Out("head"))
		var slotFull *hdl.Expr = hdl.U(1, 0)
		for e := range engines {
			slotFull = slotFull.Or(hf["engine"].Eq(hdl.U(isa.EngineBits, uint64(e))).And(slots[e][q].Out("full")))
		}
		windowFull := b.seq[q].Trunc(b.l).Sub(b.base[q]).Trunc(b.l).Eq(hdl.U(b.l, uint64(c.Window)))
		can := m.Wire(fmt.Sprintf("can_issue%d", q), hdl.Bool)
		can.Set(queues[q].Out("valid").And(windowFull.Not()).And(b.skip[q].Or(slotFull.Not())))
		cans[q] = &can.Expr
	}
	// A task issued with the hold flag keeps the issue on its queue: only
	// that queue may issue next, while it has a task waiting (a queue run
	// empty lets the others go, so a program ending on hold cannot lock
	// them out).
	// A run starts only while every other queue is idle (nothing left to
	// issue, nothing issued and waiting in a slot), so a run never passes
	// another queue's waiting task, not even one of lower priority.
	var held, heldQ *hdl.Signal
	if c.Queues > 1 {
		held, heldQ = m.Reg("held", hdl.Bool, 0), m.Reg("held_q", hdl.UInt(b.qb), 0)
		var heldWaits *hdl.Expr = hdl.U(1, 0)
		pending := make([]*hdl.Expr, c.Queues)
		for q := range queues {
			heldWaits = heldWaits.Or(heldQ.Eq(hdl.U(b.qb, uint64(q))).And(queues[q].Out("valid")))
			pending[q] = &queues[q].Out("valid").Expr
			for e := range engines {
				pending[q] = pending[q].Or(slots[e][q].Out("valid"))
			}
		}
		holding := m.Wire("holding", hdl.Bool)
		holding.Set(held.And(heldWaits))
		for q := range cans {
			isHeld := held.And(heldQ.Eq(hdl.U(b.qb, uint64(q))))
			var othersBusy *hdl.Expr = hdl.U(1, 0)
			for o := range pending {
				if o != q {
					othersBusy = othersBusy.Or(pending[o])
				}
			}
			startsRun := b.lay.Slice(queues[q].Out("head"))["hold"].And(isHeld.Not())
			cans[q] = cans[q].And(holding.Not().Or(isHeld)).And(startsRun.And(othersBusy).Not())
		}
	}
	for _, can := range cans {
		anyValid = anyValid.Or(can)
	}
	sel, lastIssued := b.choose("issue", cans)
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
	skipSel := pick(vals(c.Queues, func(q int) hdl.Value { return b.skip[q] }))

	// ---- decode and check the selected head ----
	f := b.lay.Slice(head)
	engine, op, ndeps := f["engine"], f["op"], f["ndeps"]
	badID := f["id"].Ne(seqSel)
	badEngine := engine.Ge(hdl.U(isa.EngineBits, uint64(len(engines))))
	var opMask *hdl.Expr = hdl.U(1<<isa.OpBits, 0)
	for e := len(engines) - 1; e >= 0; e-- {
		opMask = hdl.Mux(engine.Eq(hdl.U(isa.EngineBits, uint64(e))), hdl.U(1<<isa.OpBits, isa.Engine(e).OpMaskOf(c.Sparse)), opMask)
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

	isEngine := make([]*hdl.Expr, len(engines))
	for e := range engines {
		isEngine[e] = engine.Eq(hdl.U(isa.EngineBits, uint64(e)))
	}
	retireMode := malformed.Or(skipSel)
	issue := m.Wire("issue", hdl.Bool)
	issue.Set(anyValid)
	for q := range queues {
		pops[q].Set(issue.And(sel[q]))
	}
	if lastIssued != nil {
		lastIssued.SetNext(selIdx)
		lastIssued.SetEnable(issue)
	}
	if held != nil {
		held.SetNext(f["hold"])
		held.SetEnable(issue)
		heldQ.SetNext(selIdx)
		heldQ.SetEnable(issue)
	}
	retire := m.Wire("retire", hdl.Bool)
	retire.Set(issue.And(retireMode))

	entry := map[string]hdl.Value{}
	for _, fl := range b.lay.EngineFields() {
		entry[fl.Name] = f[fl.Name]
	}
	mask := make([]hdl.Value, c.MaxDeps) // Cat wants the top bit first
	for i := range mask {
		mask[c.MaxDeps-1-i] = used[i]
		entry[fmt.Sprintf("dl%d", i)] = f[fmt.Sprintf("dep%d", i)].Trunc(b.l)
	}
	entry["depmask"] = hdl.Cat(mask...)
	if held != nil {
		// Part of a hold run: it starts one, or issues while one is held
		// (the run's closing task too).
		entry["run"] = held.Or(f["hold"])
	}
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
	outs := make([]*outstanding, len(engines))
	for e, def := range engines {
		if tagged(def.Engine) {
			outs[e] = b.taggedOutstanding(def.Name, done[e])
		} else {
			outs[e] = b.fifoOutstanding(def.Name, done[e])
		}
		b.comp = append(b.comp, outs[e].comp)
		b.compQ = append(b.compQ, outs[e].compQ)
		b.compIx = append(b.compIx, outs[e].compIx)
	}
	var idle *hdl.Expr = hdl.U(1, 1)
	for q := range queues {
		idle = idle.And(queues[q].Out("valid").Not())
	}
	for e, def := range engines {
		p := def.Name + "_"
		o := outs[e]
		// Each queue's oldest slot of this engine is a candidate once its
		// dependencies have completed; the highest-priority candidate is
		// offered (with several NE targets: the highest whose target can
		// take it, if any can).
		hs := make([]map[string]*hdl.Expr, c.Queues)
		cand := make([]*hdl.Expr, c.Queues)
		for q, s := range slots[e] {
			hs[q] = rec.slice(s.Out("head"))
			ok := m.Wire(fmt.Sprintf("%sready%d", p, q), hdl.Bool)
			ok.Set(s.Out("valid").And(b.depsDone(hs[q], q)))
			cand[q] = &ok.Expr
			idle = idle.And(s.Out("valid").Not())
		}
		multi := isa.Engine(e) == isa.NE && c.NETargets > 1
		tg := b.targets(hs, multi)
		nt := 1
		if multi {
			nt = c.NETargets
		}
		cand = b.keepPromises(p, nt, tg, cand)
		if multi {
			cand = b.preferFree(m.Input("ne_free", hdl.UInt(c.NETargets)), tg, cand)
		}
		if c.Queues > 1 { // after the promises: an offer still stands until taken
			waiting := make([]*hdl.Expr, c.Queues)
			for q, sl := range slots[e] {
				waiting[q] = sl.Out("valid").And(hs[q]["run"])
			}
			cand = preferRun(waiting, cand)
		}
		dsel, lastServed := b.choose(p+"served", cand)
		var any *hdl.Expr = hdl.U(1, 0)
		for _, x := range cand {
			any = any.Or(x)
		}
		dpick := func(f func(q int) hdl.Value) *hdl.Expr {
			r := exprOf(f(c.Queues - 1))
			for q := c.Queues - 2; q >= 0; q-- {
				r = hdl.Mux(dsel[q], f(q), r)
			}
			return r
		}
		h := map[string]*hdl.Expr{}
		for _, fl := range b.lay.EngineFields() {
			name := fl.Name
			h[name] = dpick(func(q int) hdl.Value { return hs[q][name] })
		}
		dq := dpick(func(q int) hdl.Value { return hdl.U(b.qb, uint64(q)) })
		valid := m.Wire(p+"dispatch", hdl.Bool)
		valid.Set(any.And(o.full.Not()))
		fire := valid.And(ready[e])
		if c.Partial {
			b.fires = append(b.fires, dispatchEvent{fire, dq, h["id"].Trunc(b.n)})
			m.Output(p+"pdep", hdl.UInt(b.l)).Set(dpick(func(q int) hdl.Value { return hs[q]["dl0"] }))
		}
		b.updatePromises(tg, dpick, &valid.Expr, fire, dq)
		if lastServed != nil {
			lastServed.SetNext(dq)
			lastServed.SetEnable(fire)
		}
		for q, s := range slots[e] {
			s.Connect("push", issue.And(retireMode.Not()).And(isEngine[e]).And(sel[q])).Connect("data", slotData).
				Connect("pop", fire.And(dsel[q]))
		}
		o.push(fire, hdl.Cat(dq, h["id"].Trunc(b.n)))

		m.Output(p+"valid", hdl.Bool).Set(valid)
		m.Output(p+"queue", hdl.UInt(b.qb)).Set(dq)
		for _, fl := range b.lay.EngineFields() {
			m.Output(p+fl.Name, hdl.UInt(fl.Width)).Set(h[fl.Name])
		}
		m.Output(p+"busy", hdl.Bool).Set(o.valid)
		completed := m.Reg(p+"completed_r", hdl.UInt(CounterBits), 0)
		completed.SetNext(completed.Add(hdl.U(1, 1)).Trunc(CounterBits))
		completed.SetEnable(b.comp[e])
		m.Output(p+"completed", hdl.UInt(CounterBits)).Set(completed)
		idle = idle.And(o.valid.Not())
	}

	// ---- scoreboard update ----
	onehot := func(ix hdl.Value) *hdl.Expr { return hdl.U(c.Window, 1).ShlWrap(ix) }
	zero := hdl.U(c.Window, 0)
	for q := 0; q < c.Queues; q++ {
		qc := hdl.U(b.qb, uint64(q))
		set := hdl.Mux(retire.And(sel[q]), onehot(seqSel.Trunc(b.n)), zero)
		for e := range engines {
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
		if c.Partial {
			// A task's started bit is cleared with its done bit, when the
			// base passes it.
			st := zero
			for _, f := range b.fires {
				st = st.Or(hdl.Mux(f.fire.And(f.queue.Eq(qc)), onehot(f.index), zero))
			}
			b.started[q].SetNext(b.started[q].And(clr.Not()).Or(st))
		}
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

// depsDone is 1 when every used dependency of h, a slot head of queue q,
// has completed: it is older than the queue's scoreboard base, or its done
// bit is set, or an engine reports it done in this very cycle (the bypass
// that makes dispatch overhead zero cycles).
func (b *builder) depsDone(h map[string]*hdl.Expr, q int) *hdl.Expr {
	c := b.cfg
	qc := hdl.U(b.qb, uint64(q))
	base, bits := b.base[q], b.bits[q]
	var ok *hdl.Expr = hdl.U(1, 1)
	for i := 0; i < c.MaxDeps; i++ {
		dl := h[fmt.Sprintf("dl%d", i)]
		ix := dl.Trunc(b.n)
		// dl - base lies in -(window-1)..window-2, so its sign in l bits
		// tells whether the dependency is older than the base.
		older := dl.Sub(base).Trunc(b.l).Bit(b.l - 1)
		d := older.Or(bits.Shr(ix).Bit(0))
		if i == 0 && c.Partial {
			// A partial dependency only has to have started.
			d = d.Or(h["partial"].And(b.started[q].Shr(ix).Bit(0)))
		}
		for e := range b.comp {
			d = d.Or(b.comp[e].And(b.compQ[e].Eq(qc)).And(b.compIx[e].Eq(ix)))
		}
		ok = ok.And(h["depmask"].Bit(i).Not().Or(d))
	}
	return ok
}

// dispatchEvent is one engine's dispatch this cycle: whether it fires,
// the queue and the task's window index.
type dispatchEvent struct{ fire, queue, index *hdl.Expr }

// target is where a slot head goes: for the NE with several arrays the
// array its param names (named false: any array), else the one engine
// (index 0).
type target struct {
	named *hdl.Expr
	index *hdl.Expr
}

// promise is an offer an engine (or one NE array) has seen and not yet
// taken. The offer must not change until it is taken: the NE prefetches
// the offered task's first weights while it finishes the one before, so
// it must get exactly that task next.
type promise struct {
	held  *hdl.Signal // an offer is pending
	queue *hdl.Signal // whose
}

// targets gives each queue's slot head its target.
func (b *builder) targets(hs []map[string]*hdl.Expr, multi bool) []target {
	c := b.cfg
	out := make([]target, len(hs))
	for q, h := range hs {
		if !multi {
			out[q] = target{hdl.U(1, 1), hdl.U(1, 0)}
			continue
		}
		tw := c.targetBits()
		var words []hdl.Value // the param words, the first at the bottom
		for _, fl := range b.lay.EngineFields() {
			if strings.HasPrefix(fl.Name, "param") {
				words = append([]hdl.Value{h[fl.Name]}, words...)
			}
		}
		t := hdl.Cat(words...).Slice(c.NETargetOffset+tw-1, c.NETargetOffset)
		out[q] = target{t.Lt(hdl.U(tw, uint64(c.NETargets))), t.Resize(hdl.ClogWidth(c.NETargets))}
	}
	return out
}

// keepPromises drops the candidates that name a target promised to
// another queue; it creates the promise registers (one per target) and
// keeps them on the builder for updatePromises.
func (b *builder) keepPromises(prefix string, n int, tg []target, cand []*hdl.Expr) []*hdl.Expr {
	b.promises = make([]promise, n)
	for t := range b.promises {
		b.promises[t] = promise{
			held:  b.m.Reg(fmt.Sprintf("%soffer%d", prefix, t), hdl.Bool, 0),
			queue: b.m.Reg(fmt.Sprintf("%soffer%d_queue", prefix, t), hdl.UInt(b.qb), 0),
		}
	}
	out := make([]*hdl.Expr, len(cand))
	for q := range cand {
		var blocked *hdl.Expr = hdl.U(1, 0)
		for t, pr := range b.promises {
			other := pr.held.And(pr.queue.Ne(hdl.U(b.qb, uint64(q))))
			blocked = blocked.Or(tg[q].named.And(b.isTarget(tg[q].index, t)).And(other))
		}
		out[q] = cand[q].And(blocked.Not())
	}
	return out
}

func (b *builder) isTarget(index *hdl.Expr, t int) *hdl.Expr {
	if len(b.promises) == 1 {
		return hdl.U(1, 1)
	}
	return index.Eq(hdl.U(index.Width(), uint64(t)))
}

// updatePromises: an offer to a named target that is not taken becomes
// that target's promise; taking the promised queue's task ends it.
func (b *builder) updatePromises(tg []target, dpick func(func(int) hdl.Value) *hdl.Expr, valid, fire *hdl.Expr, dq *hdl.Expr) {
	named := dpick(func(q int) hdl.Value { return tg[q].named })
	index := dpick(func(q int) hdl.Value { return tg[q].index })
	for t, pr := range b.promises {
		offered := valid.And(named).And(b.isTarget(index, t))
		taken := fire.And(dq.Eq(pr.queue))
		pr.held.SetNext(hdl.Mux(pr.held, taken.Not(), offered.And(fire.Not())))
		pr.queue.SetNext(dq)
		pr.queue.SetEnable(pr.held.Not().And(offered))
	}
}

// preferFree narrows the NE candidates to those whose target array can
// take a task now (free, or any array for a target of NETargets or more),
// unless none can: then every candidate stays, and the highest-priority
// one waits for its array.
func (b *builder) preferFree(free *hdl.Signal, tg []target, cand []*hdl.Expr) []*hdl.Expr {
	anyFree := free.OrR()
	takes := make([]*hdl.Expr, len(cand))
	var someTakes *hdl.Expr = hdl.U(1, 0)
	for q := range cand {
		named := hdl.Mux(tg[q].named, free.Shr(tg[q].index).Bit(0), anyFree)
		takes[q] = cand[q].And(named)
		someTakes = someTakes.Or(takes[q])
	}
	out := make([]*hdl.Expr, len(cand))
	for q := range cand {
		out[q] = hdl.Mux(someTakes, takes[q], cand[q])
	}
	return out
}

// preferRun keeps a hold run's place on the engines, not only at issue:
// while a run's task waits in this engine's slots (run[q], ready or not),
// only its queue may dispatch here, so another queue's task starts on
// this engine only after the run's tasks for it have. A run's tasks
// depend only on earlier tasks of their own queue, which are all issued,
// so the wait ends.
func preferRun(run, cand []*hdl.Expr) []*hdl.Expr {
	var some *hdl.Expr = hdl.U(1, 0)
	for _, r := range run {
		some = some.Or(r)
	}
	out := make([]*hdl.Expr, len(cand))
	for q := range cand {
		out[q] = cand[q].And(some.Not().Or(run[q]))
	}
	return out
}

// choose is an arbiter's one-hot pick among the candidates: the lowest
// queue (fixed priority), or with RoundRobin the first after the queue
// it served last (the returned register, which the caller updates).
func (b *builder) choose(name string, cand []*hdl.Expr) ([]*hdl.Expr, *hdl.Signal) {
	if !b.cfg.RoundRobin || len(cand) == 1 {
		return firstOf(cand), nil
	}
	last := b.m.Reg(name+"_last", hdl.UInt(b.qb), 0)
	after := make([]*hdl.Expr, len(cand))
	var anyAfter *hdl.Expr = hdl.U(1, 0)
	for q, x := range cand {
		after[q] = x.And(last.Lt(hdl.U(b.qb, uint64(q))))
		anyAfter = anyAfter.Or(after[q])
	}
	first, wrapped := firstOf(after), firstOf(cand)
	out := make([]*hdl.Expr, len(cand))
	for q := range cand {
		out[q] = hdl.Mux(anyAfter, first[q], wrapped[q])
	}
	return out, last
}

// firstOf is the one-hot select of the first true x.
func firstOf(xs []*hdl.Expr) []*hdl.Expr {
	out := make([]*hdl.Expr, len(xs))
	var before *hdl.Expr = hdl.U(1, 0)
	for i, x := range xs {
		out[i] = x.And(before.Not())
		before = before.Or(x)
	}
	return out
}
