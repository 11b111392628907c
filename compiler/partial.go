package compiler

import (
	"github.com/hwgen/hwgen/isa"
)

// Partial outputs (npu config partial_gating): a task that reads a
// producer's state-buffer output may start once the producer has
// started; the NPU holds each of its reads until the producer has
// written that address. The hardware tracks a producer by one write
// pointer, so only producers that write each state address at most once,
// in increasing order, qualify, and only consumers whose reads the NPU
// gates use it.

// partialDep is the dependency of t (its Deps, final) that may be
// partial, -1 if none: the latest one that writes state addresses t
// reads, when t is a gated reader and the producer a monotonic writer
// that t does not otherwise conflict with (t writing what the producer
// reads or writes must wait for its end).
func (e *emitter) partialDep(t *Task) int {
	if !e.partial || !gatedReader(&t.Desc) {
		return -1
	}
	best := -1
	for _, dep := range t.Desc.Deps {
		p := &e.tasks[dep]
		if !e.monotonicWriter(&p.Desc) || !spansMeet(stateSpans(t.Reads), stateSpans(p.Writes)) {
			continue
		}
		if spansMeet(t.Writes, p.Reads) || spansMeet(t.Writes, p.Writes) {
			continue
		}
		best = max(best, int(dep))
	}
	return best
}

// gatedReader: the NE's conv, GEMM and transpose and dma_out's store read
// the state buffer through the NPU's read gates.
func gatedReader(d *isa.Descriptor) bool {
	switch d.Engine {
	case isa.NE:
		return d.Op == isa.NEConv || d.Op == isa.NEGEMM || d.Op == isa.NETranspose
	case isa.DMAOut:
		return d.Op == isa.DMAOutStore
	}
	return false
}

// monotonicWriter: dma_in's load and the planar engine's write-back,
// eltwise and pool write each state address once, in increasing order;
// an act does too when it writes whole lines.
func (e *emitter) monotonicWriter(d *isa.Descriptor) bool {
	switch d.Engine {
	case isa.DMAIn:
		return d.Op == isa.DMAInLoad
	case isa.Planar:
		switch d.Op {
		case isa.PlanarEltwise, isa.PlanarPool:
			return true
		case isa.PlanarAct, isa.PlanarWriteBack:
			return e.fullActs
		}
	}
	return false
}

// stateSpans keeps the state-buffer spans.
func stateSpans(spans []isa.Span) []isa.Span {
	var out []isa.Span
	for _, s := range spans {
		if s.Mem == isa.MemState {
			out = append(out, s)
		}
	}
	return out
}

// partialFirst puts dependency p first (the descriptor's partial flag
// names dep0), the rest in ascending order.
func partialFirst(deps []uint64, p int) []uint64 {
	out := []uint64{uint64(p)}
	for _, d := range deps {
		if d != uint64(p) {
			out = append(out, d)
		}
	}
	return out
}
