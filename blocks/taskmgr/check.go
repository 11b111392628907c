package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// check decodes the selected head and finds its fault, if any: the first
// in err_code's priority order.
func (b *builder) check(s *issueStage) {
	c, m := b.cfg, b.m
	f := b.lay.Slice(s.head)
	s.f = f
	engine, op, ndeps := f["engine"], f["op"], f["ndeps"]
	badID := f["id"].Ne(s.seq)
	badEngine := engine.Ge(hdl.U(isa.EngineBits, uint64(len(b.slots))))
	var opMask *hdl.Expr = hdl.U(1<<isa.OpBits, 0)
	for e := len(b.slots) - 1; e >= 0; e-- {
		opMask = hdl.Mux(engine.Eq(hdl.U(isa.EngineBits, uint64(e))), hdl.U(1<<isa.OpBits, isa.Engine(e).OpMaskOf(c.Sparse)), opMask)
	}
	badOp := opMask.Shr(op).Bit(0).Not()
	var badNDeps *hdl.Expr = hdl.U(1, 0)
	if c.MaxDeps < 1<<ndepsBits(c)-1 { // else every count fits (and Verilator rejects a constant compare)
		badNDeps = ndeps.Gt(hdl.U(ndepsBits(c), uint64(c.MaxDeps)))
	}
	var badDep *hdl.Expr = hdl.U(1, 0)
	s.used = make([]hdl.Value, c.MaxDeps)
	for i := 0; i < c.MaxDeps; i++ {
		s.used[i] = ndeps.Gt(hdl.U(ndepsBits(c), uint64(i)))
		// The distance back from this task, modulo 2^id_bits: 1..window-1
		// is inside the window; 0 (itself) and anything else (too old,
		// or a forward reference) is not.
		dist := s.seq.Sub(f[fmt.Sprintf("dep%d", i)]).Trunc(c.IDBits)
		outside := dist.Eq(hdl.U(c.IDBits, 0)).Or(dist.Ge(hdl.U(c.IDBits, uint64(c.Window))))
		badDep = badDep.Or(exprOf(s.used[i]).And(outside))
	}
	s.code = hdl.Mux(badID, hdl.U(errBits, ErrID),
		hdl.Mux(badEngine, hdl.U(errBits, ErrEngine),
			hdl.Mux(badOp, hdl.U(errBits, ErrOp),
				hdl.Mux(badNDeps, hdl.U(errBits, ErrNDeps),
					hdl.Mux(badDep, hdl.U(errBits, ErrDepWindow), hdl.U(errBits, ErrNone))))))
	s.malformed = m.Wire("malformed", hdl.Bool)
	s.malformed.Set(s.code.Ne(hdl.U(errBits, ErrNone)))
}

// errorRegs hold the first malformed descriptor's fault, ID and queue.
type errorRegs struct{ code, id, queue *hdl.Signal }

// errorStatus latches the first malformed descriptor (one of a queue
// already skipping does not count) until err_clear.
func (b *builder) errorStatus(s *issueStage) errorRegs {
	c, m := b.cfg, b.m
	errCode := m.Reg("err_code_r", hdl.UInt(errBits), 0)
	errID := m.Reg("err_id_r", hdl.UInt(c.IDBits), 0)
	errQueue := m.Reg("err_queue_r", hdl.UInt(b.qb), 0)
	latch := s.issue.And(s.malformed).And(s.skip.Not()).And(errCode.Eq(hdl.U(errBits, 0)).Or(b.errClear))
	errCode.SetNext(hdl.Mux(latch, s.code, hdl.U(errBits, 0)))
	errCode.SetEnable(latch.Or(b.errClear))
	errID.SetNext(hdl.Mux(latch, s.f["id"], hdl.U(c.IDBits, 0)))
	errID.SetEnable(latch.Or(b.errClear))
	errQueue.SetNext(hdl.Mux(latch, s.idx, hdl.U(b.qb, 0)))
	errQueue.SetEnable(latch.Or(b.errClear))
	return errorRegs{errCode, errID, errQueue}
}
