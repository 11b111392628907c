package taskmgr

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// outstanding is an engine's record of the tasks it has accepted and not
// completed: at most Outstanding of them (full), any (valid), and which
// task a done pulse completes (comp, with its queue compQ and scoreboard
// index compIx). push records a dispatched task: its queue and index.
type outstanding struct {
	valid, full         *hdl.Expr
	comp, compQ, compIx *hdl.Expr
	push                func(fire, tag *hdl.Expr)
}

// tagged reports whether engine e names the task its done pulse
// completes (ports <e>_done_queue and <e>_done_id): the sparse engine,
// whose units finish their tasks in any order. Every other engine
// completes its tasks in the order it took them.
func tagged(e isa.Engine) bool { return e == isa.Sparse }

// fifoOutstanding keeps the dispatched tasks in order: a done pulse
// completes the oldest.
func (b *builder) fifoOutstanding(name string, done *hdl.Signal) *outstanding {
	c, m := b.cfg, b.m
	f := m.Instance("outstanding_"+name, shiftFIFO("taskmgr_outstanding", c.Outstanding, b.qb+b.n))
	head := &f.Out("head").Expr
	o := &outstanding{valid: &f.Out("valid").Expr, full: &f.Out("full").Expr,
		compQ: head.Slice(b.qb+b.n-1, b.n), compIx: head.Slice(b.n-1, 0)}
	o.comp = done.And(f.Out("valid"))
	o.push = func(fire, tag *hdl.Expr) { f.Connect("push", fire).Connect("data", tag).Connect("pop", o.comp) }
	return o
}

// taggedOutstanding counts the dispatched tasks; the engine names the
// one a done pulse completes (<name>_done_queue, <name>_done_id: the
// queue and task ID it was dispatched with).
func (b *builder) taggedOutstanding(name string, done *hdl.Signal) *outstanding {
	c, m := b.cfg, b.m
	q := m.Input(name+"_done_queue", hdl.UInt(b.qb))
	id := m.Input(name+"_done_id", hdl.UInt(c.IDBits))
	cw := hdl.ClogWidth(c.Outstanding + 1)
	n := m.Reg("outstanding_"+name+"_n", hdl.UInt(cw), 0)
	o := &outstanding{valid: n.Ne(hdl.U(cw, 0)), full: n.Eq(hdl.U(cw, uint64(c.Outstanding))),
		comp: &done.Expr, compQ: &q.Expr, compIx: id.Trunc(b.n)}
	o.push = func(fire, _ *hdl.Expr) { n.SetNext(n.Add(fire).Sub(done).Trunc(cw)) }
	return o
}
