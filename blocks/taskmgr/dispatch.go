package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// dispatch offers each engine a slot head whose dependencies are done.
// It returns idle: no task queued, waiting in a slot or outstanding.
func (b *builder) dispatch(s *issueStage) *hdl.Expr {
	engines := b.cfg.Engines()
	outs := make([]*outstanding, len(engines))
	for e, def := range engines {
		if tagged(def.Engine) {
			outs[e] = b.taggedOutstanding(def.Name, b.done[e])
		} else {
			outs[e] = b.fifoOutstanding(def.Name, b.done[e])
		}
		b.comp = append(b.comp, outs[e].comp)
		b.compQ = append(b.compQ, outs[e].compQ)
		b.compIx = append(b.compIx, outs[e].compIx)
	}
	var idle *hdl.Expr = hdl.U(1, 1)
	for q := range b.queues {
		idle = idle.And(b.queued(q).Not())
	}
	for e, def := range engines {
		idle = b.dispatchEngine(s, e, def.Name+"_", outs[e], idle)
	}
	return idle
}

// dispatchEngine builds engine e's dispatch port (names prefixed p) and
// returns idle narrowed by the engine's slots and outstanding tasks.
func (b *builder) dispatchEngine(s *issueStage, e int, p string, o *outstanding, idle *hdl.Expr) *hdl.Expr {
	c, m := b.cfg, b.m
	hs, tg, cand, idle := b.candidates(e, p, idle)
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
	fields := b.lay.EngineFieldsOf(isa.Engine(e))
	for _, fl := range fields {
		name := fl.Name
		h[name] = dpick(func(q int) hdl.Value { return hs[q][name] })
	}
	dq := dpick(func(q int) hdl.Value { return hdl.U(b.qb, uint64(q)) })
	valid := m.Wire(p+"dispatch", hdl.Bool)
	valid.Set(any.And(o.full.Not()))
	fire := valid.And(b.ready[e])
	if c.Partial {
		b.fires = append(b.fires, dispatchEvent{fire, dq, h["id"].Trunc(b.n)})
		m.Output(p+"pdep", hdl.UInt(b.l)).Set(dpick(func(q int) hdl.Value { return hs[q]["dl0"] }))
	}
	b.updatePromises(tg, dpick, &valid.Expr, fire, dq)
	if lastServed != nil {
		lastServed.SetNext(dq)
		lastServed.SetEnable(fire)
	}
	for q, sl := range b.slots[e] {
		sl.Connect("push", s.issue.And(s.retireMode.Not()).And(s.isEngine[e]).And(s.sel[q])).Connect("data", s.slotData[e]).
			Connect("pop", fire.And(dsel[q]))
	}
	o.push(fire, hdl.Cat(dq, h["id"].Trunc(b.n)))

	m.Output(p+"valid", hdl.Bool).Set(valid)
	m.Output(p+"queue", hdl.UInt(b.qb)).Set(dq)
	for _, fl := range fields {
		m.Output(p+fl.Name, hdl.UInt(fl.Width)).Set(h[fl.Name])
	}
	m.Output(p+"busy", hdl.Bool).Set(o.valid)
	completed := m.Reg(p+"completed_r", hdl.UInt(CounterBits), 0)
	completed.SetNext(completed.Add(hdl.U(1, 1)).Trunc(CounterBits))
	completed.SetEnable(b.comp[e])
	m.Output(p+"completed", hdl.UInt(CounterBits)).Set(completed)
	return idle.And(o.valid.Not())
}

// candidates gives engine e's slot heads (per queue), their targets and
// which of them may be offered. Each queue's oldest slot of this engine is
// a candidate once its dependencies have completed; the highest-priority
// candidate is offered (with several NE targets: the highest whose target
// can take it, if any can).
func (b *builder) candidates(e int, p string, idle *hdl.Expr) ([]map[string]*hdl.Expr, []target, []*hdl.Expr, *hdl.Expr) {
	c, m := b.cfg, b.m
	hs := make([]map[string]*hdl.Expr, c.Queues)
	cand := make([]*hdl.Expr, c.Queues)
	for q, s := range b.slots[e] {
		hs[q] = b.recs[e].slice(s.Out("head"))
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
		for q, sl := range b.slots[e] {
			waiting[q] = sl.Out("valid").And(hs[q]["run"])
		}
		cand = preferRun(waiting, cand)
	}
	return hs, tg, cand, idle
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
