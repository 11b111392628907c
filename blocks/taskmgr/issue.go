package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// issueStage is the queue head chosen to issue this cycle and what is
// decoded from it: the issue bookkeeping, dispatch and the scoreboard all
// read it.
type issueStage struct {
	sel            []*hdl.Expr // one-hot: the queue whose head issues
	any            *hdl.Expr   // some queue's head can issue
	last           *hdl.Signal // RoundRobin: the queue issued last, else nil
	held, heldQ    *hdl.Signal // several queues: a hold run is on, and whose
	idx, seq, skip *hdl.Expr   // the selected queue's number, next ID and skip flag
	head           *hdl.Signal // the selected head

	f          map[string]*hdl.Expr // the head's fields
	code       *hdl.Expr            // its fault (err_code), ErrNone if none
	malformed  *hdl.Signal
	used       []hdl.Value // per dependency field: within ndeps
	isEngine   []*hdl.Expr // per engine: the head names it
	retireMode *hdl.Expr   // the head retires without taking a slot
	issue      *hdl.Signal
	retire     *hdl.Signal
	slotData   []*hdl.Expr // per engine: the slot entry the head becomes
}

// arbiter selects the highest-priority queue whose head can issue.
func (b *builder) arbiter() *issueStage {
	c, m := b.cfg, b.m
	s := &issueStage{}
	cans := b.canIssue()
	if c.Queues > 1 {
		s.held, s.heldQ = b.holdRuns(cans)
	}
	s.any = hdl.U(1, 0)
	for _, can := range cans {
		s.any = s.any.Or(can)
	}
	s.sel, s.last = b.choose("issue", cans)
	pick := func(xs []hdl.Value) *hdl.Expr { // the selected queue's x (one-hot select)
		r := exprOf(xs[len(xs)-1])
		for q := len(xs) - 2; q >= 0; q-- {
			r = hdl.Mux(s.sel[q], xs[q], r)
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
	s.idx = pick(vals(c.Queues, func(q int) hdl.Value { return hdl.U(b.qb, uint64(q)) }))
	s.head = m.Wire("issue_desc", hdl.UInt(b.lay.Width))
	s.head.Set(pick(vals(c.Queues, func(q int) hdl.Value { return b.queues[q].Out("head") })))
	s.seq = pick(vals(c.Queues, func(q int) hdl.Value { return b.seq[q] }))
	s.skip = pick(vals(c.Queues, func(q int) hdl.Value { return b.skip[q] }))
	return s
}

// canIssue is, per queue, whether its head can issue. It can unless its
// queue's window is full or the slot FIFO of its engine is (a queue that
// skips retires without a slot). A head naming no engine is malformed
// and retires.
func (b *builder) canIssue() []*hdl.Expr {
	c, m := b.cfg, b.m
	cans := make([]*hdl.Expr, c.Queues)
	for q := range b.queues {
		hf := b.lay.Slice(b.queues[q].Out("head"))
		var slotFull *hdl.Expr = hdl.U(1, 0)
		for e := range b.slots {
			slotFull = slotFull.Or(hf["engine"].Eq(hdl.U(isa.EngineBits, uint64(e))).And(b.slots[e][q].Out("full")))
		}
		windowFull := b.seq[q].Trunc(b.l).Sub(b.base[q]).Trunc(b.l).Eq(hdl.U(b.l, uint64(c.Window)))
		can := m.Wire(fmt.Sprintf("can_issue%d", q), hdl.Bool)
		can.Set(b.queues[q].Out("valid").And(windowFull.Not()).And(b.skip[q].Or(slotFull.Not())))
		cans[q] = &can.Expr
	}
	return cans
}

// holdRuns narrows cans (in place) for hold runs and returns the run
// registers: whether a run is held, and by which queue.
//
// A task issued with the hold flag keeps the issue on its queue: only
// that queue may issue next, while it has a task waiting (a queue run
// empty lets the others go, so a program ending on hold cannot lock
// them out).
// A run starts only while every other queue is idle (nothing left to
// issue, nothing issued and waiting in a slot), so a run never passes
// another queue's waiting task, not even one of lower priority.
func (b *builder) holdRuns(cans []*hdl.Expr) (held, heldQ *hdl.Signal) {
	c, m := b.cfg, b.m
	held, heldQ = m.Reg("held", hdl.Bool, 0), m.Reg("held_q", hdl.UInt(b.qb), 0)
	var heldWaits *hdl.Expr = hdl.U(1, 0)
	pending := make([]*hdl.Expr, c.Queues)
	for q := range b.queues {
		heldWaits = heldWaits.Or(heldQ.Eq(hdl.U(b.qb, uint64(q))).And(b.queued(q)))
		pending[q] = b.queued(q)
		for e := range b.slots {
			pending[q] = pending[q].Or(b.slots[e][q].Out("valid"))
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
		startsRun := b.lay.Slice(b.queues[q].Out("head"))["hold"].And(isHeld.Not())
		cans[q] = cans[q].And(holding.Not().Or(isHeld)).And(startsRun.And(othersBusy).Not())
	}
	return held, heldQ
}

// issue pops the selected queue and makes its head a slot entry; a
// malformed head, or any head of a queue skipping after an error,
// retires instead.
func (b *builder) issue(s *issueStage) {
	c, m := b.cfg, b.m
	f := s.f
	engine := f["engine"]
	s.isEngine = make([]*hdl.Expr, len(b.slots))
	for e := range s.isEngine {
		s.isEngine[e] = engine.Eq(hdl.U(isa.EngineBits, uint64(e)))
	}
	s.retireMode = s.malformed.Or(s.skip)
	s.issue = m.Wire("issue", hdl.Bool)
	s.issue.Set(s.any)
	for q := range b.queues {
		b.pops[q].Set(s.issue.And(s.sel[q]))
	}
	if s.last != nil {
		s.last.SetNext(s.idx)
		s.last.SetEnable(s.issue)
	}
	if s.held != nil {
		s.held.SetNext(f["hold"])
		s.held.SetEnable(s.issue)
		s.heldQ.SetNext(s.idx)
		s.heldQ.SetEnable(s.issue)
	}
	s.retire = m.Wire("retire", hdl.Bool)
	s.retire.Set(s.issue.And(s.retireMode))

	entry := map[string]hdl.Value{}
	for _, fl := range b.lay.EngineFields() {
		entry[fl.Name] = f[fl.Name]
	}
	mask := make([]hdl.Value, c.MaxDeps) // Cat wants the top bit first
	for i := range mask {
		mask[c.MaxDeps-1-i] = s.used[i]
		entry[fmt.Sprintf("dl%d", i)] = f[fmt.Sprintf("dep%d", i)].Trunc(b.l)
	}
	entry["depmask"] = hdl.Cat(mask...)
	if s.held != nil {
		// Part of a hold run: it starts one, or issues while one is held
		// (the run's closing task too).
		entry["run"] = s.held.Or(f["hold"])
	}
	s.slotData = make([]*hdl.Expr, len(b.recs))
	for e, r := range b.recs {
		s.slotData[e] = r.pack(entry)
	}
}

// issueBookkeeping advances each queue's next ID on issue and sets its
// skip flag on a malformed head (until err_clear).
func (b *builder) issueBookkeeping(s *issueStage) {
	c := b.cfg
	for q := 0; q < c.Queues; q++ {
		b.seq[q].SetNext(b.seq[q].Add(hdl.U(1, 1)).Trunc(c.IDBits))
		b.seq[q].SetEnable(b.pops[q])
		erred := b.pops[q].And(s.malformed)
		b.skip[q].SetNext(erred)
		b.skip[q].SetEnable(erred.Or(b.errClear))
	}
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
