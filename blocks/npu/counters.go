package npu

import (
	"github.com/hwgen/hwgen/hdl"
)

// counters builds the performance counters (with perf_counters) and the
// timeline ports.
func (b *top) counters() {
	c, m, tm, pl, nes, sbs, pbs := b.c, b.m, b.tm, b.pl, b.nes, b.sbs, b.pbs
	cw := c.CounterWidth
	count := func(name string, en *hdl.Expr) {
		if !c.PerfCounters {
			return
		}
		r := m.Reg(name+"_r", hdl.UInt(cw), 0)
		r.SetNext(r.Add(hdl.U(1, 1)).Trunc(cw))
		r.SetEnable(en)
		m.Output(name, hdl.UInt(cw)).Set(r)
	}
	var planarStall *hdl.Expr
	if c.Engines == 1 {
		planarStall = pl.Out("plr_valid").And(sbs[0].Out("plr_ready").Not()).
			Or(pl.Out("plw_valid").And(sbs[0].Out("plw_ready").Not())).
			Or(pl.Out("rd_valid").And(pbs[0].Out("rd_ready").Not()))
	} else {
		planarStall = pl.Out("plr_valid").And(b.routedReady["plr"].Not()).
			Or(pl.Out("plw_valid").And(b.routedReady["plw"].Not())).
			Or(pl.Out("rd_valid").And(b.routedReady["rd"].Not()))
	}
	neStall := &nes[0].Out("stall").Expr
	for _, ne := range nes[1:] {
		neStall = neStall.Or(ne.Out("stall"))
	}
	stalls := []*hdl.Expr{&b.di.Out("stall").Expr, neStall, planarStall, &b.do.Out("stall").Expr}
	if b.sp != nil {
		stalls = append(stalls, b.sp.stall)
	}
	for e, name := range c.EngineNames() {
		count(name+"_busy_cycles", &tm.Out(name+"_busy").Expr)
		count(name+"_stall_cycles", b.late(name+"_stall", stalls[e]))
		if c.PerfCounters {
			m.Output(name+"_completed", tm.Out(name+"_completed").Type).Set(tm.Out(name + "_completed"))
		}
		m.Output(name+"_start", hdl.Bool).Set(b.starts[e])
		m.Output(name+"_start_id", tm.Out(name+"_id").Type).Set(tm.Out(name + "_id"))
		m.Output(name+"_start_queue", tm.Out(name+"_queue").Type).Set(tm.Out(name + "_queue"))
		m.Output(name+"_done", hdl.Bool).Set(b.dones[e])
	}
	if c.Engines == 1 && c.PerfCounters {
		m.Output("mac_count", hdl.UInt(cw)).Set(nes[0].Out("mac_count"))
		m.Output("skip_count", hdl.UInt(cw)).Set(nes[0].Out("skip_count"))
	} else if c.Engines > 1 {
		b.engineCounters(count)
	}
	m.Output("planar_err_code", pl.Out("err_code").Type).Set(pl.Out("err_code"))
}

// late registers a stall before it is counted. A stall is a request
// meeting a ready that an arbiter in another block decides in the same
// cycle; counted directly, the counter's enable would hang off a
// combinational path through three blocks (the requester, the
// arbiter, the requester again: hdl.Passages). The count still
// completes before the engine is idle: a stall is always followed by the
// cycle its request is accepted.
func (b *top) late(name string, stall *hdl.Expr) *hdl.Expr {
	r := b.m.Reg(name+"_q", hdl.Bool, 0)
	r.SetNext(stall)
	return &r.Expr
}
