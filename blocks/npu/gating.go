package npu

import (
	"github.com/hwgen/hwgen/hdl"
)

// Gating on partial outputs (Config.PartialGating): a task whose
// descriptor has the partial flag is dispatched once its dep0 has
// started (the task manager's partial dependency), and each of its
// state-buffer reads waits until dep0's state writes have passed the
// address read.
//
// Producers are the engines that write the state buffer, dma_in and the
// planar engine. Each takes a task only when idle, and the compiler makes
// a task a partial dependency only when it writes each state address at
// most once, in increasing order (dma_in's load; the planar engine's
// act, write-back, eltwise and pool). So one register per producer
// suffices: its task's queue and window index, and wp, one past the
// last address it wrote; every address below wp that the task writes is
// written. Consumers are the NE (its input and transpose reads) and
// dma_out (its store reads); each takes a task only when its reads of
// the previous one are over, so the partial flag and dep0 it latched at
// acceptance belong to the reads it issues. A read of address a is held
// (valid and ready both low, so the state buffer never sees it) while
// its dep0 is the producer's running task and a ≥ wp; a held read never
// has been presented, so the buffer's hold rule is kept. When the
// producer finishes (or already had), the match fails and reads flow.
type progress struct {
	active *hdl.Signal // the producer runs a task
	queue  *hdl.Signal
	index  *hdl.Signal // the task's ID, low log2(window)+1 bits
	wp     *hdl.Signal // one past the last state address written
}

// partialGate is one consumer's latched partial dependency.
type partialGate struct {
	partial *hdl.Signal
	queue   *hdl.Signal
	dep     *hdl.Signal
}

// trackProducer builds the progress register of engine name: start and
// done are its task handshake and done pulse; wValid, wReady, wAddr its
// state-buffer writes.
func (b *top) trackProducer(name string, start, done, wValid, wReady, wAddr *hdl.Expr) *progress {
	m, tm := b.m, b.tm
	aw := b.c.stateAddrWidth()
	pdw := tm.Out(name + "_pdep").Type.Width
	p := &progress{
		active: m.Reg(name+"_prod_active", hdl.Bool, 0),
		queue:  m.Reg(name+"_prod_queue", tm.Out(name+"_queue").Type, 0),
		index:  m.Reg(name+"_prod_index", hdl.UInt(pdw), 0),
		wp:     m.Reg(name+"_prod_wp", hdl.UInt(aw+1), 0),
	}
	p.active.SetNext(start.Or(done.Not().And(p.active)))
	p.queue.SetNext(tm.Out(name + "_queue"))
	p.queue.SetEnable(start)
	p.index.SetNext(tm.Out(name + "_id").Resize(pdw))
	p.index.SetEnable(start)
	wrote := wValid.And(wReady)
	p.wp.SetNext(hdl.Mux(start, hdl.U(aw+1, 0), wAddr.Resize(aw+1).Add(hdl.U(1, 1)).Resize(aw+1)))
	p.wp.SetEnable(start.Or(wrote))
	return p
}

// latchGate keeps consumer name's partial flag and dep0 from its task
// handshake start on.
func (b *top) latchGate(name string, start *hdl.Expr) *partialGate {
	m, tm := b.m, b.tm
	g := &partialGate{
		partial: m.Reg(name+"_gate_partial", hdl.Bool, 0),
		queue:   m.Reg(name+"_gate_queue", tm.Out(name+"_queue").Type, 0),
		dep:     m.Reg(name+"_gate_dep", tm.Out(name+"_pdep").Type, 0),
	}
	for _, r := range []struct {
		reg *hdl.Signal
		in  string
	}{{g.partial, "_partial"}, {g.queue, "_queue"}, {g.dep, "_pdep"}} {
		r.reg.SetNext(tm.Out(name + r.in))
		r.reg.SetEnable(start)
	}
	return g
}

// held is 1 when a read of addr by g's task must wait for a producer.
func (g *partialGate) held(addr *hdl.Expr, prods []*progress) *hdl.Expr {
	var any *hdl.Expr = hdl.U(1, 0)
	for _, p := range prods {
		a := addr.Resize(p.wp.Type.Width)
		match := p.active.And(p.queue.Eq(g.queue)).And(p.index.Eq(g.dep))
		any = any.Or(match.And(a.Ge(p.wp)))
	}
	return g.partial.And(any)
}

// stateAddrWidth is the width of a state-buffer address of the whole NPU
// (the slice bits included).
func (c Config) stateAddrWidth() int { return log2(c.StateDepth) + c.SliceBits() }
