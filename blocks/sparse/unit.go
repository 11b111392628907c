package sparse

import (
	"fmt"
	isasparse "github.com/hwgen/hwgen/isa/sparse"

	"github.com/hwgen/hwgen/hdl"
)

// queueDepth is the entry queue between the fetch stages and the weight
// iterator: room for the two records in flight in the fetch stages and
// two more, so one entry with a single weight record retires every cycle.
const queueDepth = 4

// unit is one compute unit with its memory unit, its weight memory and
// channel table, and its accumulator.
type unit struct {
	c                    Config
	m                    *hdl.Module
	entry, wrec, tab, tk isasparse.Layout

	running, isConv  *hdl.Signal
	start            *hdl.Expr
	fill             *hdl.Expr // entries loaded into the running task's set
	set, tbase, oh   *hdl.Signal
	ow, shift, count *hdl.Signal
	bank             *hdl.Signal // the accumulator bank of the running task
}

// BuildUnit builds one compute unit (docs/engines.md, "Sparse engine").
func BuildUnit(c Config) (*hdl.Module, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	u := &unit{c: c, m: hdl.NewModule(fmt.Sprintf("%s_unit", Name(c))),
		entry: c.Entry(), wrec: c.Weight(), tab: c.Table(), tk: c.Task()}
	u.build()
	return u.m, nil
}

func (u *unit) build() {
	c, m := u.c, u.m
	// The task.
	goIn := m.Input("go", hdl.Bool)
	task := m.Input("task_in", hdl.UInt(u.tk.Width))
	u.running = m.Reg("running", hdl.Bool, 0)
	start := goIn.And(u.running.Not())
	u.start = start
	latch := func(name string) *hdl.Signal {
		f := u.tk.Field(name)
		r := m.Reg("t_"+name, hdl.UInt(f.Width), 0)
		r.SetNext(Get(u.tk, &task.Expr, name))
		r.SetEnable(start)
		return r
	}
	opReg := latch("op")
	u.isConv = m.Wire("is_conv", hdl.Bool)
	u.isConv.Set(opReg.Eq(hdl.U(isasparse.OpBits, isasparse.OpConv)))
	u.set, u.count, u.tbase = latch("set"), latch("count"), latch("tbase")
	u.oh, u.ow, u.shift = latch("oh"), latch("ow"), latch("stride_log2")
	u.bank = latch("bank")

	// The memory unit: two buffer sets of entries, the set the running
	// task reads is closed to writes.
	inEn := m.Input("in_wr_en", hdl.Bool)
	inSet := m.Input("in_wr_set", hdl.UInt(1))
	inAddr := m.Input("in_wr_addr", hdl.UInt(c.EntryAddrWidth()))
	inData := m.Input("in_wr_data", hdl.UInt(u.entry.Width))
	inReady := m.Output("in_wr_ready", hdl.Bool)
	entries := m.Memory("entries", 2<<uint(c.EntryAddrWidth()), hdl.UInt(u.entry.Width))
	entries.Write(hdl.Cat(inSet, inAddr), inData, inEn.And(inReady))

	weights := m.Memory("weights", c.WeightDepth, hdl.UInt(u.wrec.Width))
	if c.Macros {
		entries.AsMacro()
		weights.AsMacro()
	}
	weights.Write(m.Input("w_wr_addr", hdl.UInt(c.WeightAddrWidth())), m.Input("w_wr_data", hdl.UInt(u.wrec.Width)), m.Input("w_wr_en", hdl.Bool))
	table := m.Memory("chan_table", c.TableDepth, hdl.UInt(u.tab.Width))
	if c.Macros {
		table.AsMacro()
	}
	table.Write(m.Input("t_wr_addr", hdl.UInt(c.TableAddrWidth())), m.Input("t_wr_data", hdl.UInt(u.tab.Width)), m.Input("t_wr_en", hdl.Bool))

	conv := u.running.And(u.isConv)
	// Fill levels: a load writes a set from address 0 up; the running
	// conv task never fetches past its set's level, so it may start as
	// soon as its load has begun and run behind it. Into the set it reads
	// only the next entry of that load may be written.
	cw := u.count.Width()
	var fill []*hdl.Signal
	for s := range 2 {
		f := m.Reg(fmt.Sprintf("fill%d", s), hdl.UInt(cw), 0)
		f.SetNext(inAddr.Add(hdl.U(1, 1)).Resize(cw))
		f.SetEnable(inEn.And(inReady).And(inSet.Eq(hdl.U(1, uint64(s)))))
		fill = append(fill, f)
	}
	u.fill = hdl.Mux(u.set.Eq(hdl.U(1, 1)), fill[1], fill[0])
	inReady.Set(conv.And(inSet.Eq(u.set)).And(inAddr.Resize(cw).Ne(u.fill)).Not())
	fetchDone, issue, w := u.fetch(conv, entries, table, weights)
	acc := u.scatter(w)
	clearDone := u.clear(acc)

	finished := m.Wire("finished", hdl.Bool)
	finished.Set(u.running.And(hdl.Mux(u.isConv, fetchDone.And(acc.drained), clearDone)))
	u.running.SetNext(hdl.Mux(start, hdl.U(1, 1), hdl.Mux(finished, hdl.U(1, 0), u.running)))
	done := m.Reg("done_r", hdl.Bool, 0)
	done.SetNext(finished)
	m.Output("done", hdl.Bool).Set(done)
	m.Output("ready", hdl.Bool).Set(u.running.Not())

	u.counters(conv, issue, acc.nz)
}

// counters: multiplications performed (non-zero weights times the
// non-zero value they meet), cycles with a task, cycles of a running
// convolution in which no weight record was issued.
func (u *unit) counters(conv, issue *hdl.Expr, nz *hdl.Signal) {
	m, cw := u.m, u.c.CounterWidth
	count := func(name string, inc *hdl.Expr) {
		r := m.Reg(name+"_r", hdl.UInt(cw), 0)
		r.SetNext(r.Add(inc).Trunc(cw))
		m.Output(name, hdl.UInt(cw)).Set(r)
	}
	count("mults", &nz.Expr)
	count("busy_cycles", &u.running.Expr)
	count("stall_cycles", conv.And(issue.Not()))
}
