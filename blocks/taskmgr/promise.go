package taskmgr

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// target is where a slot head goes: for the NE with several arrays the
// array its param names (named false: any array), else the one engine
// (index 0).
type target struct {
	named *hdl.Expr
	index *hdl.Expr
}

// promise is an offer an engine (or one NE array) has seen and not yet
// taken. The offer must not change until it is taken: the NE prefetches
// the offered task's first weights while it finishes the one before, so
// it must get exactly that task next.
type promise struct {
	held  *hdl.Signal // an offer is pending
	queue *hdl.Signal // whose
}

// targets gives each queue's slot head its target.
func (b *builder) targets(hs []map[string]*hdl.Expr, multi bool) []target {
	c := b.cfg
	out := make([]target, len(hs))
	for q, h := range hs {
		if !multi {
			out[q] = target{hdl.U(1, 1), hdl.U(1, 0)}
			continue
		}
		tw := c.targetBits()
		var words []hdl.Value // the param words, the first at the bottom
		for _, fl := range b.lay.EngineFieldsOf(isa.NE) {
			if strings.HasPrefix(fl.Name, "param") {
				words = append([]hdl.Value{h[fl.Name]}, words...)
			}
		}
		t := hdl.Cat(words...).Slice(c.NETargetOffset+tw-1, c.NETargetOffset)
		out[q] = target{t.Lt(hdl.U(tw, uint64(c.NETargets))), t.Resize(hdl.ClogWidth(c.NETargets))}
	}
	return out
}

// keepPromises drops the candidates that name a target promised to
// another queue; it creates the promise registers (one per target) and
// keeps them on the builder for updatePromises.
func (b *builder) keepPromises(prefix string, n int, tg []target, cand []*hdl.Expr) []*hdl.Expr {
	b.promises = make([]promise, n)
	for t := range b.promises {
		b.promises[t] = promise{
			held:  b.m.Reg(fmt.Sprintf("%soffer%d", prefix, t), hdl.Bool, 0),
			queue: b.m.Reg(fmt.Sprintf("%soffer%d_queue", prefix, t), hdl.UInt(b.qb), 0),
		}
	}
	out := make([]*hdl.Expr, len(cand))
	for q := range cand {
		var blocked *hdl.Expr = hdl.U(1, 0)
		for t, pr := range b.promises {
			other := pr.held.And(pr.queue.Ne(hdl.U(b.qb, uint64(q))))
			blocked = blocked.Or(tg[q].named.And(b.isTarget(tg[q].index, t)).And(other))
		}
		out[q] = cand[q].And(blocked.Not())
	}
	return out
}

func (b *builder) isTarget(index *hdl.Expr, t int) *hdl.Expr {
	if len(b.promises) == 1 {
		return hdl.U(1, 1)
	}
	return index.Eq(hdl.U(index.Width(), uint64(t)))
}

// updatePromises: an offer to a named target that is not taken becomes
// that target's promise; taking the promised queue's task ends it.
func (b *builder) updatePromises(tg []target, dpick func(func(int) hdl.Value) *hdl.Expr, valid, fire *hdl.Expr, dq *hdl.Expr) {
	named := dpick(func(q int) hdl.Value { return tg[q].named })
	index := dpick(func(q int) hdl.Value { return tg[q].index })
	for t, pr := range b.promises {
		offered := valid.And(named).And(b.isTarget(index, t))
		taken := fire.And(dq.Eq(pr.queue))
		pr.held.SetNext(hdl.Mux(pr.held, taken.Not(), offered.And(fire.Not())))
		pr.queue.SetNext(dq)
		pr.queue.SetEnable(pr.held.Not().And(offered))
	}
}
