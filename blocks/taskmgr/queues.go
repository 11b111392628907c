package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// buildQueues builds the descriptor queues and the command port.
func (b *builder) buildQueues() {
	c, m := b.cfg, b.m
	// A queue number beyond the last queue goes to the last (lowest
	// priority) queue, so no push is ever refused for its number.
	var qsel hdl.Value = b.cmdQueue
	if 1<<b.qb > c.Queues {
		qsel = hdl.Mux(b.cmdQueue.Ge(hdl.U(b.qb, uint64(c.Queues))), hdl.U(b.qb, uint64(c.Queues-1)), b.cmdQueue)
	}
	qmod := queueModule(c.QueueDepth, b.lay.Width, c.Lean)
	switch {
	case b.regQueues():
		qmod = shiftFIFO("taskmgr_queue_regs", c.QueueDepth, b.lay.Width)
	case c.words() > 1:
		qmod = wordQueueModule(c.QueueDepth, b.lay.Width, c.words())
	}
	b.queues = make([]*hdl.Instance, c.Queues)
	var cmdReady *hdl.Expr = hdl.U(1, 0)
	room := make([]hdl.Value, c.Queues)
	b.pops = make([]*hdl.Signal, c.Queues)
	for q := range b.queues {
		is := exprOf(qsel).Eq(hdl.U(b.qb, uint64(q)))
		u := m.Instance(fmt.Sprintf("queue%d", q), qmod)
		b.pops[q] = m.Wire(fmt.Sprintf("pop%d", q), hdl.Bool)
		notFull := u.Out("full").Not()
		u.Connect("push", b.cmdValid.And(is).And(notFull)).Connect("data", b.cmdDesc).Connect("pop", b.pops[q])
		cmdReady = cmdReady.Or(is.And(notFull))
		room[c.Queues-1-q] = notFull
		b.queues[q] = u
	}
	m.Output("cmd_ready", hdl.Bool).Set(cmdReady)
	if c.RoomPort {
		m.Output("cmd_room", hdl.UInt(c.Queues)).Set(hdl.Cat(room...))
	}
}

// regQueues is whether the queues are register FIFOs: lean queues of
// the least depth, 2. Synthesis keeps so small a memory in flip-flops
// anyway, and then a memory costs a read register (a descriptor wide)
// and a multiplexer on top of its entries; a shift FIFO's head is its
// first register, readable in the cycle after the push (no bypass, and
// no cycle lost).
func (b *builder) regQueues() bool { return b.cfg.Lean && b.cfg.QueueDepth == 2 }

// queued is whether queue q holds a descriptor (the head of a lean
// memory queue, or of a queue in words, may not be readable yet).
func (b *builder) queued(q int) *hdl.Expr {
	if (b.cfg.Lean && !b.regQueues()) || b.cfg.words() > 1 {
		return &b.queues[q].Out("pending").Expr
	}
	return &b.queues[q].Out("valid").Expr
}

// slotRecord is what waits in front of engine e: the fields it receives,
// which dependency fields are used and the low l bits of each dependency
// ID (enough to place it relative to the scoreboard base). The queue is
// the slot FIFO's own.
func (b *builder) slotRecord(e isa.Engine) *record {
	r := newRecord()
	for _, f := range b.lay.EngineFieldsOf(e) {
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

// engineSlots builds the slot FIFOs: issued tasks waiting for their
// dependencies. One FIFO per engine and queue, so a queue's task waiting
// for its dependencies never holds back another queue's task.
func (b *builder) engineSlots() {
	c, m := b.cfg, b.m
	engines := c.Engines()
	b.recs = make([]*record, len(engines))
	b.slots = make([][]*hdl.Instance, len(engines))
	for e, def := range engines {
		b.recs[e] = b.slotRecord(def.Engine)
		slotMod := shiftFIFO("taskmgr_slots", c.EngineSlots, b.recs[e].width)
		for q := range b.queues {
			b.slots[e] = append(b.slots[e], m.Instance(fmt.Sprintf("slots_%s_%d", def.Name, q), slotMod))
		}
	}
}
