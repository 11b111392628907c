package sim

import (
	"maps"
	"slices"
	"sort"

	"github.com/hwgen/hwgen/sim/internal/optab"
)

// Linking the partitioned simulator: supernodes, sink groups, the marks
// between them and the records the settle and the edge walk.

// part is a supernode: the nodes lo..hi-1, evaluated whole in index
// order, and the groups it arms (the sinks whose value it computes),
// as a packed fan-out (see fanOf).
type part struct {
	lo, hi   int32
	rlo, rhi int32 // its runs, Sim.runs[rlo:rhi]
	aw       int32
	am       uint64
}

// group is the sinks lo..hi-1, committed together at an edge. Its
// one-word registers (hsink.fast) commit without a branch each: when
// any of them changed, the union of their fan-outs is marked (fw, fm,
// packed as by fanOf); the other sinks mark their own.
type group struct {
	lo, hi int32
	regs   bool // all its sinks are one-word registers: commitRegs
	fw     int32
	fm     uint64
	mk     markRange // the same fan-out, unpacked
}

// reg is what commitRegs reads of a one-word register: the offsets of
// its value, its next value (its own when it holds) and its enable (a
// constant 1 when it has none).
type reg struct{ off, next, en int32 }

// outFlag flags (in hnode.w) a node of a supernode that is read outside
// it: the only nodes that compare their result and mark their fan-out.
const outFlag = 0x80

// linkParts is link for the partitioned simulator. The supernodes are
// numbered in topological order and their nodes are contiguous, so, as
// for single nodes, a forward pass over a bitmap of supernodes
// evaluates each dirty one once, after everything it reads.
func (b *builder) linkParts() {
	s := b.s
	b.nodeLevels()
	partOf, np := b.partition()
	home, depth, root := b.sinkHomeDepths(partOf, np)
	home = stageHomes(home, depth, root, int32(np), int32(np+len(s.slots)), int32(np+len(s.slots)+len(b.scopes)))
	after := b.sinkAfter()
	newIdx := b.orderSinks(after, b.homeRanks(home, after))
	// A group is a run of sinks of one home; its home arms it.
	homeOf := make([]int32, len(newIdx))
	for old, ni := range newIdx {
		homeOf[ni] = home[old]
	}
	s.groupOf = make([]int32, len(s.sinks))
	armed := make([][]int32, np) // per supernode, the groups it arms
	for i, h := range homeOf {
		if i == 0 || h != homeOf[i-1] {
			s.groups = append(s.groups, group{lo: int32(i)})
		}
		g := int32(len(s.groups) - 1)
		s.groups[g].hi = int32(i) + 1
		s.groupOf[i] = g
		if h < int32(np) && !slices.Contains(armed[h], g) {
			armed[h] = append(armed[h], g)
		}
	}
	order := b.partNodeOrder(partOf)
	b.applyNodeOrder(order)
	s.parts = make([]part, np)
	for ni, old := range order {
		p := &s.parts[partOf[old]]
		if p.hi == 0 {
			p.lo = int32(ni)
		}
		p.hi = int32(ni) + 1
	}
	s.partOf = make([]int32, len(order))
	for ni, old := range order {
		s.partOf[ni] = partOf[old]
	}
	b.internal = make([]bool, len(s.nodes))
	b.fanLists()
	b.relayout(b.partSlotOrder(armed))
	b.narrowSlices()
	b.partMarks(armed)
	b.partRecords()
	for i := range s.parts {
		s.dirty[i>>6] |= 1 << uint(i&63)
	}
	for i := range s.groups {
		s.sdirty[i>>6] |= 1 << uint(i&63)
	}
	s.nodesDue, s.sinksDue = true, true
}

// partSlotOrder places the values of the partitioned simulator in the
// order they are evaluated: inputs and constants, then supernode by
// supernode its node results and the state of the groups it arms (their
// next values are its results), then the rest. A supernode's evaluation
// and its groups' commits walk memory front to back.
func (b *builder) partSlotOrder(armed [][]int32) []int32 {
	s := b.s
	var order []int32
	for id := range s.slots {
		if s.producer[id] < 0 && (b.slotScope[id] < 0 || b.isConst[id]) {
			order = append(order, int32(id))
		}
	}
	for pi, p := range s.parts {
		for j := p.lo; j < p.hi; j++ {
			order = append(order, s.nodes[j].slot)
		}
		for _, g := range armed[pi] {
			for j := s.groups[g].lo; j < s.groups[g].hi; j++ {
				if k := s.sinks[j]; k.slot >= 0 {
					order = append(order, k.slot)
				}
			}
		}
	}
	for id := range s.slots {
		order = append(order, int32(id))
	}
	return order
}

// narrowSlices turns a slice of a multi-word value into a one-word slice
// of the word holding it, when it lies in one word (a byte lane of a
// wide bus): an operator of the narrow kind, which the interpreter
// evaluates inline and compiled code as an expression, instead of the
// multi-word evaluator.
func (b *builder) narrowSlices() {
	for i := range b.s.nodes {
		n := &b.s.nodes[i]
		if n.op != wSlice || n.w > 64 || n.k>>6 != (n.k+n.w-1)>>6 {
			continue
		}
		n.op, n.a, n.k, n.aw = nSlice, n.a+n.k>>6, n.k&63, 64
	}
}

// partNodeOrder orders the nodes by supernode and, within one, by level
// inside the supernode, then by operator (the interpreter's dispatch
// then meets runs of one operator: the same cone of sibling instances
// side by side), then by creation.
func (b *builder) partNodeOrder(partOf []int32) []int32 {
	s := b.s
	local := make([]int32, len(s.nodes))
	for i, srcs := range b.nodeSrc {
		l := int32(0)
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && partOf[p] == partOf[i] {
				l = max(l, local[p])
			}
		}
		local[i] = l + 1
	}
	order := make([]int32, len(s.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(x, y int) bool {
		p, q := order[x], order[y]
		switch {
		case partOf[p] != partOf[q]:
			return partOf[p] < partOf[q]
		case local[p] != local[q]:
			return local[p] < local[q]
		case s.nodes[p].op != s.nodes[q].op:
			return s.nodes[p].op < s.nodes[q].op
		}
		// Extending nodes last, so each operator makes at most two runs.
		return s.nodes[p].sa|s.nodes[p].sb == 0 && s.nodes[q].sa|s.nodes[q].sb != 0
	})
	return order
}

// partMarks sets up the bitmaps (supernodes, then groups) and the marks
// of every slot: the supernodes and groups reading it. A node's own
// supernode and the groups that supernode arms need no mark: they are
// evaluated, or armed, whenever the node is.
func (b *builder) partMarks(armed [][]int32) {
	s := b.s
	np, ng := (len(s.parts)+63)/64, (len(s.groups)+63)/64
	s.bits = make([]uint64, np+ng)
	s.dirty, s.sdirty = s.bits[:np:np], s.bits[np:]
	s.markOf = make([]markRange, len(s.slots))
	var parts, groups []int32
	for id := range s.slots {
		r := s.fan[id]
		own := int32(-1)
		if p := s.producer[id]; p >= 0 {
			own = s.partOf[p]
		}
		parts = parts[:0]
		for _, t := range s.fanout[r.node:r.sink] {
			if p := s.partOf[t]; p != own {
				parts = append(parts, p)
			}
		}
		groups = groups[:0]
		for _, t := range s.fanout[r.sink:r.end] {
			if g := s.groupOf[t]; own < 0 || !slices.Contains(armed[own], g) {
				groups = append(groups, g)
			}
		}
		lo := int32(len(s.marks))
		b.addMarks(slices.Compact(slices.Sorted(slices.Values(parts))), 0)
		b.addMarks(slices.Compact(slices.Sorted(slices.Values(groups))), int32(np))
		s.markOf[id] = markRange{lo, int32(len(s.marks))}
	}
	s.armOf = make([]markRange, len(s.parts))
	for p, gs := range armed {
		lo := int32(len(s.marks))
		b.addMarks(slices.Sorted(slices.Values(gs)), int32(np))
		s.armOf[p] = markRange{lo, int32(len(s.marks))}
	}
}

// partRecords makes the evaluation records of the nodes (outFlag on
// those read outside their supernode), the supernodes' arming marks and
// the sinks' records.
func (b *builder) partRecords() {
	s := b.s
	s.hot = make([]hnode, len(s.nodes))
	for i := range s.nodes {
		n := &s.nodes[i]
		n.mk = s.markOf[n.slot]
		s.hot[i] = hotOf(n)
		s.hot[i].fw, s.hot[i].fm = s.fanOf(n.mk)
		if n.mk.hi > n.mk.lo && n.op < wAdd {
			s.hot[i].w |= outFlag
		}
	}
	for i := range s.parts {
		p := &s.parts[i]
		p.aw, p.am = s.fanOf(s.armOf[i])
		p.rlo = int32(len(s.runs))
		for j := p.lo; j < p.hi; j++ {
			n := &s.nodes[j]
			op, ext := n.op, n.op < wAdd && (n.sa != 0 || n.sb != 0) && optab.Narrow[n.op].Extends()
			if k := len(s.runs); k > int(p.rlo) && s.runs[k-1].op == op && s.runs[k-1].ext == ext {
				s.runs[k-1].hi = j + 1
				continue
			}
			s.runs = append(s.runs, run{op: op, ext: ext, lo: j, hi: j + 1})
		}
		p.rhi = int32(len(s.runs))
	}
	b.sinkRecords()
	s.regs = make([]reg, len(s.sinks))
	for j, h := range s.hsinks {
		s.regs[j] = reg{off: h.off, next: h.next, en: h.en}
	}
	for i := range s.groups {
		g := &s.groups[i]
		g.mk = b.unionMarks(g.lo, g.hi)
		g.fw, g.fm = s.fanOf(g.mk)
		g.regs = true
		for j := g.lo; j < g.hi; j++ {
			g.regs = g.regs && s.hsinks[j].fast
		}
	}
}

// unionMarks appends the union of the marks of the sinks lo..hi-1 that
// commit without marking on their own (fast registers, and in generated
// code one-word read ports: oneWordRead) and returns it.
func (b *builder) unionMarks(lo, hi int32) markRange {
	s := b.s
	words := map[int32]uint64{}
	for j := lo; j < hi; j++ {
		if s.hsinks[j].fast || s.oneWordRead(j) {
			for _, mk := range s.marks[s.sinks[j].mk.lo:s.sinks[j].mk.hi] {
				words[mk.w] |= mk.m
			}
		}
	}
	ws := slices.Sorted(maps.Keys(words))
	r := markRange{lo: int32(len(s.marks))}
	for _, w := range ws {
		s.marks = append(s.marks, mark{w: w, m: words[w]})
	}
	r.hi = int32(len(s.marks))
	return r
}

// oneWordRead reports whether sink j is a read port of a one-word memory
// off any cycle of direct state reads: generated code reads it in place.
func (s *Sim) oneWordRead(j int32) bool {
	k := &s.sinks[j]
	return k.kind == sinkRead && k.nw == 1 && !k.staged
}
