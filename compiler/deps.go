package compiler

import (
	"fmt"
	"sort"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/isa"
)

// Dependencies are derived, never written by hand: every task declares
// the address spans it reads and writes, and a task depends on every
// earlier task of another engine it conflicts with — read after write,
// write after read, write after write — on any address space.
//
// The ordering rules of the hardware that make a dependency unnecessary:
//
//   - Same engine: each engine runs its tasks one at a time in program
//     order (taskmgr dispatches per engine in order; the engine takes the
//     next task only as the previous one finishes its memory traffic), so
//     two tasks of one engine never need a dependency, whatever they touch.
//   - Transitivity: a dependency on a task that is already an ancestor of
//     another dependency (or of the previous task of the same engine) is
//     implied and dropped; what remains is the antichain of the latest
//     conflicting tasks.
//   - Window: a task is issued only when its ID is below base+window (base
//     = the oldest task not yet completed), so every task window or more
//     IDs back has completed: such a dependency is implicit and dropped.
//
// When more than max_deps dependencies remain, nop tasks of the same
// engine are inserted just before the task as joins: each takes up to
// max_deps of the dependencies, and the task follows the nops implicitly
// (same engine, in order).
type emitter struct {
	window  int
	maxDeps int
	// partial: the NPU gates reads on partial outputs (npu config
	// partial_gating); fullActs: an act writes whole lines (cols = rows),
	// so each of its state addresses once.
	partial, fullActs bool
	// networks: DMA tasks' external lines are relative to their
	// network's base pointer (npu config networks > 0)
	networks bool

	tasks []Task
	anc   []ancBits   // anc[t]: bit d-1 set when task t-d is an ancestor of t (d < window)
	last  map[int]int // per lane (laneOf): its latest task
	nops  int
}

func newEmitter(cfg npu.Config) *emitter {
	return &emitter{window: cfg.Window, maxDeps: cfg.MaxDeps, partial: cfg.PartialGating, fullActs: cfg.Cols == cfg.Rows,
		networks: cfg.Networks > 0, last: map[int]int{}}
}

// laneOf is what runs a task one at a time in program order: its engine,
// or for the sparse engine, whose units run at once, the unit (dst).
// Only the previous task of the same lane is known to have completed
// when a task starts.
func laneOf(d *isa.Descriptor) int {
	if d.Engine == isa.Sparse {
		return isa.NumEngines + int(d.Dst)
	}
	return int(d.Engine)
}

// prev is the latest task of t's lane, -1 if none.
func (e *emitter) prev(d *isa.Descriptor) int {
	if p, ok := e.last[laneOf(d)]; ok {
		return p
	}
	return -1
}

// ancBits is a small bitset over distances 1..window-1.
type ancBits []uint64

func newAncBits(n int) ancBits { return make(ancBits, (n+63)/64) }

func (b ancBits) set(i int)      { b[i/64] |= 1 << uint(i%64) }
func (b ancBits) has(i int) bool { return i >= 0 && i/64 < len(b) && b[i/64]>>uint(i%64)&1 == 1 }

// orShifted ors src shifted up by k bit positions into b (bits past the
// end fall off).
func (b ancBits) orShifted(src ancBits, k int) {
	w, s := k/64, uint(k%64)
	for i := len(b) - 1; i >= w; i-- {
		j := i - w
		v := src[j] << s
		if s > 0 && j > 0 {
			v |= src[j-1] >> (64 - s)
		}
		b[i] |= v
	}
}

// isAncestor reports whether task a is ordered before task t (a < t):
// a dependency chain, same-engine order or the window.
func (e *emitter) isAncestor(a, t int) bool {
	d := t - a
	if d >= e.window {
		return true
	}
	return e.anc[t].has(d - 1)
}

// conflicts lists the earlier tasks within the window, of other lanes,
// that task t (not yet appended, id = len(tasks)) conflicts with.
func (e *emitter) conflicts(t *Task) []int {
	id := len(e.tasks)
	var out []int
	for u := id - 1; u >= 0 && id-u < e.window; u-- {
		o := &e.tasks[u]
		if laneOf(&o.Desc) == laneOf(&t.Desc) {
			continue
		}
		if spansMeet(t.Writes, o.Reads) || spansMeet(t.Writes, o.Writes) || spansMeet(t.Reads, o.Writes) {
			out = append(out, u)
		}
	}
	return out
}

func spansMeet(a, b []isa.Span) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Overlaps(y) {
				return true
			}
		}
	}
	return false
}

// reduce drops every candidate that is implied by a later candidate or
// by the previous task of the engine (prev, -1 if none), for a task
// about to get ID id. Candidates are in descending order.
func (e *emitter) reduce(id int, cands []int, prev int) []int {
	var keep []int
	implied := func(u int) bool {
		if id-u >= e.window {
			return true
		}
		if prev >= 0 && (u == prev || (u < prev && e.isAncestor(u, prev))) {
			return true
		}
		for _, k := range keep {
			if u < k && e.isAncestor(u, k) {
				return true
			}
		}
		return false
	}
	for _, u := range cands {
		if !implied(u) {
			keep = append(keep, u)
		}
	}
	return keep
}

// emitTask encodes an isa task with codec and emits it with the spans the
// instruction set declares for it.
func (e *emitter) emitTask(codec *isa.Codec, label string, t isa.Task) error {
	d, err := codec.Encode(t)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	rd, wr := codec.Access(t)
	e.emit(Task{Label: label, Desc: d, Reads: rd, Writes: wr})
	return nil
}

// emit appends t with its derived dependencies (and join nops when
// needed) and returns its ID.
func (e *emitter) emit(t Task) int {
	if e.networks {
		memRelative(&t.Desc)
	}
	cands := e.conflicts(&t)
	for {
		id := len(e.tasks)
		deps := e.reduce(id, cands, e.prev(&t.Desc))
		if len(deps) <= e.maxDeps {
			t.Desc.Deps = sortedIDs(deps)
			t.Desc.Partial = false
			if p := e.partialDep(&t); p >= 0 {
				t.Desc.Deps, t.Desc.Partial = partialFirst(t.Desc.Deps, p), true
			}
			return e.push(t)
		}
		// A join: the oldest max_deps dependencies move to a nop of the
		// same engine that runs just before t.
		sort.Ints(deps)
		// (On the sparse engine the nop names t's unit: its lane.)
		nop := Task{Desc: isa.Descriptor{Engine: t.Desc.Engine, Op: isa.OpNop, Dst: sparseUnitOf(&t.Desc)}, Label: "join for " + t.Label}
		nop.Desc.Deps = sortedIDs(deps[:e.maxDeps])
		e.push(nop)
		e.nops++
	}
}

func sortedIDs(ids []int) []uint64 {
	out := make([]uint64, len(ids))
	for i, v := range ids {
		out[i] = uint64(v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	if len(out) == 0 {
		return nil
	}
	return out
}

// push appends a task whose Deps are final and records its ancestors.
func (e *emitter) push(t Task) int {
	id := len(e.tasks)
	t.Desc.ID = uint64(id)
	a := newAncBits(e.window)
	preds := append([]int(nil), idsOf(t.Desc.Deps)...)
	if p := e.prev(&t.Desc); p >= 0 {
		preds = append(preds, p)
	}
	for k, p := range preds {
		d := id - p
		if d >= e.window {
			continue
		}
		// A partial dependency has only started when t starts: its own
		// ancestors have completed, not itself.
		if !(k == 0 && t.Desc.Partial) {
			a.set(d - 1)
		}
		a.orShifted(e.anc[p], d)
	}
	e.tasks = append(e.tasks, t)
	e.anc = append(e.anc, a)
	e.last[laneOf(&t.Desc)] = id
	return id
}

func idsOf(d []uint64) []int {
	out := make([]int, len(d))
	for i, v := range d {
		out[i] = int(v)
	}
	return out
}

// sparseUnitOf is the unit a sparse-engine descriptor names (0 for other
// engines).
func sparseUnitOf(d *isa.Descriptor) uint64 {
	if d.Engine == isa.Sparse {
		return d.Dst
	}
	return 0
}

// memRelative marks a DMA task's external operand (dma_in's src,
// dma_out's dst) relative to its network's base pointer. The compiler
// lays a program out from external line 0, so with base pointer 0 the
// lines are where they stand.
func memRelative(d *isa.Descriptor) {
	switch {
	case d.Op == isa.OpNop:
	case d.Engine == isa.DMAIn:
		d.SrcMem = true
	case d.Engine == isa.DMAOut:
		d.DstMem = true
	}
}
