package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// queueModule is a first-word-fall-through FIFO of depth (a power of two)
// entries of width bits kept in a memory, so a deep queue costs SRAM, not
// flip-flops.
//
// Ports: push, data (written when push; the parent never pushes when full),
// pop (the parent pops only when valid); valid, head (the oldest entry,
// readable in the cycle it becomes valid), full, level.
//
// The memory reads synchronously, so the read address is the head pointer
// of the *next* cycle (rd + pop): the head is always already read when it
// is needed, and back-to-back pops leave no bubble. A word written at the
// same edge as it is read comes back old from the memory; that case is
// caught by the bypass register. A lean queue (Config.Lean) has no bypass
// register: the head is not valid in that cycle (the memory reads the
// same address again and has the word one cycle later), and the output
// pending (not empty) says that the queue holds a descriptor all the
// same. Only a descriptor pushed into a queue that is empty, or emptied by
// the pop of the same cycle, waits so; a queue that stays filled does not.
func queueModule(depth, width int, lean bool) *hdl.Module {
	name := hdl.Name("taskmgr_queue", fmt.Sprintf("%dx%d", depth, width))
	if lean {
		name = hdl.Name(name, "lean")
	}
	m := hdl.NewModule(name)
	push := m.Input("push", hdl.Bool)
	data := m.Input("data", hdl.UInt(width))
	pop := m.Input("pop", hdl.Bool)

	aw := log2(depth)
	lw := hdl.ClogWidth(depth + 1)
	wr := m.Reg("wr", hdl.UInt(aw), 0)
	rd := m.Reg("rd", hdl.UInt(aw), 0)
	level := m.Reg("count", hdl.UInt(lw), 0)

	mem := m.Memory("entries", depth, hdl.UInt(width))
	mem.Write(wr, data, push)
	rdNext := rd.Add(pop).Trunc(aw)
	word := mem.Read("word", rdNext)

	byp := m.Reg("byp", hdl.Bool, 0)
	byp.SetNext(push.And(wr.Eq(rdNext)))

	wr.SetNext(wr.Add(push).Trunc(aw))
	rd.SetNext(rdNext)
	level.SetNext(level.Add(push).Sub(pop).Trunc(lw))

	nonEmpty := level.Ne(hdl.U(lw, 0))
	if lean {
		m.Output("valid", hdl.Bool).Set(nonEmpty.And(byp.Not()))
		m.Output("head", hdl.UInt(width)).Set(word)
		m.Output("pending", hdl.Bool).Set(nonEmpty)
	} else {
		bypData := m.Reg("byp_data", hdl.UInt(width), 0)
		bypData.SetNext(data)
		bypData.SetEnable(push)
		m.Output("valid", hdl.Bool).Set(nonEmpty)
		m.Output("head", hdl.UInt(width)).Set(hdl.Mux(byp, bypData, word))
	}
	m.Output("full", hdl.Bool).Set(level.Eq(hdl.U(lw, uint64(depth))))
	m.Output("level", hdl.UInt(lw)).Set(level)
	return m
}

// shiftFIFO is a small register FIFO whose head is always register 0, so
// whatever the head drives (an engine's dispatch port) comes straight from
// flip-flops. Same port contract as queueModule, without level.
func shiftFIFO(base string, depth, width int) *hdl.Module {
	m := hdl.NewModule(hdl.Name(base, fmt.Sprintf("%dx%d", depth, width)))
	push := m.Input("push", hdl.Bool)
	data := m.Input("data", hdl.UInt(width))
	pop := m.Input("pop", hdl.Bool)

	cw := hdl.ClogWidth(depth + 1)
	count := m.Reg("count", hdl.UInt(cw), 0)
	// The pushed word lands behind the last entry that stays.
	at := hdl.Mux(pop, count.Sub(hdl.U(cw, 1)).Trunc(cw), count)
	regs := make([]*hdl.Signal, depth)
	for i := range regs {
		regs[i] = m.Reg(fmt.Sprintf("e%d", i), hdl.UInt(width), 0)
	}
	for i, r := range regs {
		write := push.And(at.Eq(hdl.U(cw, uint64(i))))
		var behind hdl.Value = data // the last register has nothing behind it
		if i+1 < depth {
			behind = regs[i+1]
		}
		r.SetNext(hdl.Mux(write, data, behind))
		r.SetEnable(pop.Or(write))
	}
	count.SetNext(count.Add(push).Sub(pop).Trunc(cw))
	m.Output("valid", hdl.Bool).Set(count.Ne(hdl.U(cw, 0)))
	m.Output("head", hdl.UInt(width)).Set(regs[0])
	m.Output("full", hdl.Bool).Set(count.Eq(hdl.U(cw, uint64(depth))))
	return m
}
