package sparse

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// weightStage is what the weight iterator hands the multipliers: a weight
// record read in the previous cycle (its data arrives now) and the entry
// it meets.
type weightStage struct {
	valid    *hdl.Signal
	value    *hdl.Signal
	row, col *hdl.Signal
	data     *hdl.Signal // the weight record
}

// fetch is the front of the unit: entry fetch (memory unit read), channel
// lookup (table read), a short queue of looked-up entries and the weight
// iterator, which issues one weight record of the head entry's channel
// per cycle and pops the entry after its last record (at once when the
// channel has none: an empty weight list costs the entry one cycle).
// done says every entry of the task has left the queue.
func (u *unit) fetch(conv *hdl.Expr, entries, table, weights *hdl.Memory) (done, issue *hdl.Expr, w *weightStage) {
	c, m := u.c, u.m
	cw := u.count.Width()
	eaw := c.EntryAddrWidth()

	ptr := m.Reg("ptr", hdl.UInt(cw), 0)
	occ := m.Reg("q_occ", hdl.UInt(3), 0)
	f1v := m.Reg("f1_valid", hdl.Bool, 0)
	f2v := m.Reg("f2_valid", hdl.Bool, 0)
	inFlight := occ.Add(f1v).Add(f2v)
	f0 := m.Wire("f0_issue", hdl.Bool)
	f0.Set(conv.And(ptr.Lt(u.count)).And(ptr.Lt(u.fill)).And(inFlight.Lt(hdl.U(3, queueDepth))))
	ptr.SetNext(hdl.Mux(u.start, hdl.U(cw, 0), hdl.Mux(f0, ptr.Add(hdl.U(1, 1)).Trunc(cw), ptr)))
	f1v.SetNext(f0)

	// f1: the entry arrives; look its channel up.
	ed := entries.Read("e_rd", hdl.Cat(u.set, ptr.Slice(eaw-1, 0)))
	td := table.Read("t_rd", u.tbase.Add(Get(u.entry, &ed.Expr, "channel")).Trunc(c.TableAddrWidth()))
	f2e := m.Reg("f2_entry", hdl.UInt(u.entry.Width), 0)
	f2e.SetNext(ed)
	f2v.SetNext(f1v)

	// f2: the lookup arrives; queue the pair (table record above the entry).
	rec := hdl.Cat(td, f2e)
	qw := rec.Width()
	var slots []*hdl.Signal
	wp := m.Reg("q_wp", hdl.UInt(2), 0)
	rp := m.Reg("q_rp", hdl.UInt(2), 0)
	for i := range queueDepth {
		s := m.Reg(fmt.Sprintf("q%d", i), hdl.UInt(qw), 0)
		s.SetNext(rec)
		s.SetEnable(f2v.And(wp.Eq(hdl.U(2, uint64(i)))))
		slots = append(slots, s)
	}
	wp.SetNext(hdl.Mux(f2v, wp.Add(hdl.U(1, 1)).Trunc(2), wp))
	vs := make([]hdl.Value, len(slots))
	for i, s := range slots {
		vs[i] = s
	}
	head := hdl.Pick(rp, vs, slots[queueDepth-1])
	hEntry := head.Slice(u.entry.Width-1, 0)
	hTab := head.Slice(qw-1, u.entry.Width)
	hStart, hCount := Get(u.tab, hTab, "start"), Get(u.tab, hTab, "count")

	// The weight iterator.
	jw := hCount.Width()
	j := m.Reg("wj", hdl.UInt(jw), 0)
	nonEmpty := occ.Ne(hdl.U(3, 0))
	none := hCount.Eq(hdl.U(jw, 0))
	last := none.Or(j.Add(hdl.U(1, 1)).Trunc(jw).Eq(hCount))
	iss := m.Wire("w_issue", hdl.Bool)
	iss.Set(nonEmpty.And(none.Not()))
	pop := m.Wire("q_pop", hdl.Bool)
	pop.Set(nonEmpty.And(last))
	j.SetNext(hdl.Mux(pop, hdl.U(jw, 0), hdl.Mux(iss, j.Add(hdl.U(1, 1)).Trunc(jw), j)))
	rp.SetNext(hdl.Mux(pop, rp.Add(hdl.U(1, 1)).Trunc(2), rp))
	occ.SetNext(occ.Add(f2v).Sub(pop).Trunc(3))

	w = &weightStage{
		valid: m.Reg("m1_valid", hdl.Bool, 0),
		value: m.Reg("m1_value", hdl.SInt(c.ValueWidth), 0),
		row:   m.Reg("m1_row", hdl.UInt(c.IndexWidth), 0),
		col:   m.Reg("m1_col", hdl.UInt(c.IndexWidth), 0),
		data:  weights.Read("w_rd", hStart.Add(j).Trunc(c.WeightAddrWidth())),
	}
	w.valid.SetNext(iss)
	w.value.SetNext(Get(u.entry, hEntry, "value"))
	w.row.SetNext(Get(u.entry, hEntry, "row"))
	w.col.SetNext(Get(u.entry, hEntry, "col"))

	done = ptr.Eq(u.count).And(f1v.Not()).And(f2v.Not()).And(nonEmpty.Not())
	return done, &iss.Expr, w
}
