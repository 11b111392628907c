package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// scoreboardState creates each queue's scoreboard registers: the next
// task ID, the window base (oldest incomplete task), the window's done
// bits, the skip flag and (Partial) the started bits.
func (b *builder) scoreboardState() {
	c, m := b.cfg, b.m
	for q := 0; q < c.Queues; q++ {
		b.seq = append(b.seq, m.Reg(fmt.Sprintf("seq%d", q), hdl.UInt(c.IDBits), 0))
		b.base = append(b.base, m.Reg(fmt.Sprintf("base%d", q), hdl.UInt(b.l), 0))
		b.bits = append(b.bits, m.Reg(fmt.Sprintf("done%d", q), hdl.UInt(c.Window), 0))
		b.skip = append(b.skip, m.Reg(fmt.Sprintf("skip%d", q), hdl.Bool, 0))
		if c.Partial {
			b.started = append(b.started, m.Reg(fmt.Sprintf("started%d", q), hdl.UInt(c.Window), 0))
		}
	}
}

// scoreboardUpdate marks retired and completed tasks done (and, with
// Partial, dispatched tasks started) and moves each window base.
func (b *builder) scoreboardUpdate(s *issueStage) {
	c := b.cfg
	onehot := func(ix hdl.Value) *hdl.Expr { return hdl.U(c.Window, 1).ShlWrap(ix) }
	zero := hdl.U(c.Window, 0)
	for q := 0; q < c.Queues; q++ {
		qc := hdl.U(b.qb, uint64(q))
		set := hdl.Mux(s.retire.And(s.sel[q]), onehot(s.seq.Trunc(b.n)), zero)
		for e := range b.comp {
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
