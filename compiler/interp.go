package compiler

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/machine"
)

// newMachine is a machine of cfg (checked first), all memories zero.
func newMachine(cfg npu.Config) (*machine.Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return machine.New(cfg.ISA())
}

// Interpret runs p in program order on a fresh reference machine
// (isa/machine) and returns the outputs and the machine.
func Interpret(p *Program) (map[string]*golden.Tensor, *machine.Machine, error) {
	order := make([]int, len(p.Tasks))
	for i := range order {
		order[i] = i
	}
	return InterpretOrder(p, order)
}

// InterpretOrder runs p's tasks in the given order (a permutation of the
// IDs) on a fresh machine and returns the outputs.
func InterpretOrder(p *Program, order []int) (map[string]*golden.Tensor, *machine.Machine, error) {
	m, err := newMachine(p.Config)
	if err != nil {
		return nil, nil, err
	}
	if err := m.LoadImage(p.Image); err != nil {
		return nil, nil, err
	}
	m.NetBases = p.NetBases
	for _, id := range order {
		bits, err := p.Layout.Encode(p.Tasks[id].Desc)
		if err != nil {
			return nil, m, err
		}
		if err := m.Exec(p.Layout.Decode(bits)); err != nil {
			return nil, m, fmt.Errorf("task %d (%s): %w", id, p.Tasks[id].Label, err)
		}
	}
	res, err := p.Results(m.Line)
	return res, m, err
}

// RandomOrder is a random legal execution order of p: every task after
// the previous task of its lane (laneOf) in its queue, after its dependencies,
// and after every task of its queue window or more IDs before it (the
// scoreboard window). Any such order must give the same results if the
// dependencies are right.
func RandomOrder(p *Program, rng *rand.Rand) []int {
	n := len(p.Tasks)
	qt := p.QueueTasks()
	done := make([]bool, n)
	type lane struct{ q, e int }
	var lanes []lane
	heads := map[lane][]int{}
	for i := range p.Tasks {
		l := lane{p.Tasks[i].Queue, laneOf(&p.Tasks[i].Desc)}
		if heads[l] == nil {
			lanes = append(lanes, l)
		}
		heads[l] = append(heads[l], i)
	}
	oldest := make([]int, len(qt)) // per queue: lowest ID not done
	order := make([]int, 0, n)
	win := p.Config.Window
	for len(order) < n {
		var ready []lane
		for _, l := range lanes {
			if len(heads[l]) == 0 {
				continue
			}
			t := heads[l][0]
			ok := int(p.Tasks[t].Desc.ID) < oldest[l.q]+win
			for _, d := range p.Tasks[t].Desc.Deps {
				ok = ok && done[qt[l.q][d]]
			}
			if ok {
				ready = append(ready, l)
			}
		}
		if len(ready) == 0 {
			panic("compiler: RandomOrder: no task is ready (dependency on a later task?)")
		}
		l := ready[rng.IntN(len(ready))]
		t := heads[l][0]
		heads[l] = heads[l][1:]
		done[t] = true
		order = append(order, t)
		for q := l.q; oldest[q] < len(qt[q]) && done[qt[q][oldest[q]]]; {
			oldest[q]++
		}
	}
	return order
}

// CheckDeps verifies p's dependencies statically: IDs in sequence per
// queue, every dependency an earlier task of its queue within the
// window, at most max_deps, and every pair of tasks that touch the same
// address (one of them writing) ordered by dependencies, engine order in
// one queue or the window. Tasks of different queues are ordered by
// nothing, so they must not share an address that one of them writes.
func CheckDeps(p *Program, acc []Access) error {
	if acc == nil {
		acc = make([]Access, len(p.Tasks))
		for i := range p.Tasks {
			acc[i] = Access{p.Tasks[i].Reads, p.Tasks[i].Writes}
		}
	}
	n := len(p.Tasks)
	qt := p.QueueTasks()
	win := p.Config.Window
	words := (n + 63) / 64
	anc := make([][]uint64, n)
	type lane struct{ q, e int }
	last := map[lane]int{}
	pos := make([]int, len(qt)) // per queue: the next ID
	for t := range p.Tasks {
		d := &p.Tasks[t].Desc
		q := p.Tasks[t].Queue
		id := pos[q]
		pos[q]++
		if d.ID != uint64(id) {
			return fmt.Errorf("task %d (queue %d) has ID %d, want %d", t, q, d.ID, id)
		}
		if len(d.Deps) > p.Config.MaxDeps {
			return fmt.Errorf("task %d has %d dependencies, max_deps %d", t, len(d.Deps), p.Config.MaxDeps)
		}
		a := make([]uint64, words)
		var preds []int
		for _, u := range idsOf(d.Deps) {
			if u >= id || id-u >= win {
				return fmt.Errorf("task %d depends on task %d of queue %d: not one of the %d before it", t, u, q, win-1)
			}
			preds = append(preds, qt[q][u])
		}
		if l, ok := last[lane{q, laneOf(d)}]; ok {
			preds = append(preds, l)
		}
		for _, u := range preds {
			a[u/64] |= 1 << uint(u%64)
			for i := range a {
				a[i] |= anc[u][i]
			}
		}
		for u := 0; u <= id-win; u++ { // all tasks of the queue up to id-win have completed
			g := qt[q][u]
			a[g/64] |= 1 << uint(g%64)
		}
		anc[t] = a
		last[lane{q, laneOf(d)}] = t
	}
	for t := range p.Tasks {
		for u := 0; u < t; u++ {
			same := p.Tasks[u].Queue == p.Tasks[t].Queue && p.Tasks[u].Desc.Engine == p.Tasks[t].Desc.Engine
			if same || anc[t][u/64]>>uint(u%64)&1 == 1 {
				continue
			}
			x, y := &acc[t], &acc[u]
			if spansMeet(x.Writes, y.Reads) || spansMeet(x.Writes, y.Writes) || spansMeet(x.Reads, y.Writes) {
				return fmt.Errorf("tasks %d (%s) and %d (%s) touch the same addresses but are not ordered", u, p.Tasks[u].Label, t, p.Tasks[t].Label)
			}
		}
	}
	return nil
}

// tracer records the addresses one task touches (the machine's OnTouch).
type tracer struct {
	reads, writes [isa.NumMems]map[int]bool
}

func (t *tracer) touch(mem isa.Mem, a int, write bool) {
	set := &t.reads[mem]
	if write {
		set = &t.writes[mem]
	}
	if *set == nil {
		*set = map[int]bool{}
	}
	(*set)[a] = true
}

func spansOf(sets [isa.NumMems]map[int]bool) []isa.Span {
	var out []isa.Span
	for mem, set := range sets {
		addrs := make([]int, 0, len(set))
		for a := range set {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		for i := 0; i < len(addrs); {
			j := i
			for j+1 < len(addrs) && addrs[j+1] == addrs[j]+1 {
				j++
			}
			out = append(out, isa.Span{Mem: isa.Mem(mem), Lo: addrs[i], Hi: addrs[j] + 1})
			i = j + 1
		}
	}
	return out
}

// Access is what one task actually read and wrote, as the reference machine saw it.
type Access struct {
	Reads, Writes []isa.Span
}

// TraceAccesses runs p in program order and records the addresses every
// task really touches (independently of the spans the compiler declared),
// for CheckDeps.
func TraceAccesses(p *Program) ([]Access, error) {
	m, err := newMachine(p.Config)
	if err != nil {
		return nil, err
	}
	if err := m.LoadImage(p.Image); err != nil {
		return nil, err
	}
	out := make([]Access, len(p.Tasks))
	for id := range p.Tasks {
		tr := &tracer{}
		m.OnTouch = tr.touch
		if err := m.Exec(p.Tasks[id].Desc); err != nil {
			return nil, fmt.Errorf("task %d (%s): %w", id, p.Tasks[id].Label, err)
		}
		out[id] = Access{Reads: spansOf(tr.reads), Writes: spansOf(tr.writes)}
	}
	return out, nil
}

// CheckSpans verifies that every address a task really touched (acc,
// from TraceAccesses) lies in the spans the compiler declared for it, so
// the dependency derivation saw every access.
func CheckSpans(p *Program, acc []Access) error {
	within := func(s isa.Span, decl []isa.Span) bool {
		for a := s.Lo; a < s.Hi; a++ {
			ok := false
			for _, d := range decl {
				if d.Mem == s.Mem && a >= d.Lo && a < d.Hi {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}
	for id := range acc {
		t := &p.Tasks[id]
		for _, s := range acc[id].Reads {
			if !within(s, t.Reads) && !within(s, t.Writes) {
				return fmt.Errorf("task %d (%s) reads %v, declared reads %v", id, t.Label, s, t.Reads)
			}
		}
		for _, s := range acc[id].Writes {
			if !within(s, t.Writes) {
				return fmt.Errorf("task %d (%s) writes %v, declared writes %v", id, t.Label, s, t.Writes)
			}
		}
	}
	return nil
}
