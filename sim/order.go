package sim

// Evaluation order: of the sinks at an edge, and of the nodes for the
// interpreter (levels) and for generated code (trees).

import "sort"

// nodeLevels returns each node's level (the length of the longest path
// to it from state or inputs, 1 for a node reading only those) and sets
// Sim.levels, the deepest.
func (b *builder) nodeLevels() []int32 {
	s := b.s
	level := make([]int32, len(s.nodes))
	for i, srcs := range b.nodeSrc {
		l := int32(0)
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && level[p] > l {
				l = level[p]
			}
		}
		level[i] = l + 1
		s.levels = max(s.levels, int(l+1))
	}
	return level
}

// renumber puts the nodes of the per-register simulator in evaluation
// order (treeOrder or levelOrder).
func (b *builder) renumber() {
	s := b.s
	level := b.nodeLevels()
	var order []int32
	if b.mode == modeTrees {
		order = b.treeOrder()
	} else {
		order = b.levelOrder(level)
	}
	b.applyNodeOrder(order)
	// Each tree is contiguous and ends with its root.
	s.treeFirst = make([]int32, len(s.nodes))
	first := int32(0)
	for i := range s.nodes {
		s.treeFirst[i] = first
		if !b.internal[order[i]] {
			first = int32(i) + 1
		}
	}
	inner := make([]bool, len(s.nodes))
	for ni, old := range order {
		inner[ni] = b.internal[old]
	}
	b.internal = inner
	s.internal = inner
}

// applyNodeOrder renumbers the nodes: order lists the old index of each
// new one.
func (b *builder) applyNodeOrder(order []int32) {
	s := b.s
	nodes := make([]node, len(order))
	srcs := make([][]int32, len(order))
	for ni, old := range order {
		nodes[ni] = s.nodes[old]
		srcs[ni] = b.nodeSrc[old]
		s.producer[nodes[ni].slot] = int32(ni)
	}
	s.nodes, b.nodeSrc = nodes, srcs
}

// sinkAfter lists, per sink, the sinks that must come after it at an
// edge: those whose state it reads directly (next, enable, address,
// write data or mask), and for a read port its memory's writes.
func (b *builder) sinkAfter() [][]int32 {
	s := b.s
	bySlot := map[int32]int32{} // state slot -> the sink that updates it
	for i, k := range s.sinks {
		if k.kind != sinkWrite {
			bySlot[k.slot] = int32(i)
		}
	}
	after := make([][]int32, len(s.sinks))
	for a, srcs := range b.sinkSrc {
		for _, sid := range srcs {
			if t, ok := bySlot[sid]; ok && t != int32(a) {
				after[a] = append(after[a], t)
			}
		}
	}
	for _, m := range s.mems {
		if m.group >= 0 {
			for _, r := range m.reads {
				after[r] = append(after[r], m.group)
			}
		}
	}
	return after
}

// orderSinks numbers the sinks so that an edge can update each one in
// place, in index order, and still let every sink see the old state: a
// sink that reads a register or a read port's data directly comes before
// it, and the read ports of a memory come before its writes (after, from
// sinkAfter). Sinks on a cycle of such reads (two registers swapping
// values, say) are marked staged: they compute in order but commit after
// all others. Among the sinks free to go, the lowest rank comes first
// (rank is nil for the per-register simulator, else from homeRanks),
// then creation order, which keeps an instance's registers together. It
// returns the new index of each sink.
func (b *builder) orderSinks(after [][]int32, rank []int32) []int32 {
	s := b.s
	n := len(s.sinks)
	comp, ncomp := sccs(after)
	size := make([]int32, ncomp)
	for _, cp := range comp {
		size[cp]++
	}
	// Kahn's algorithm over the components, by group, then smallest
	// creation index first.
	first := make([]int32, ncomp)
	for i := range first {
		first[i] = int32(n)
	}
	members := make([][]int32, ncomp)
	for i := range n {
		cp := comp[i]
		first[cp] = min(first[cp], int32(i))
		members[cp] = append(members[cp], int32(i))
	}
	if rank != nil {
		first = rankKeys(first, rank)
	}
	// Within a cycle every register and read port stages its value, but a
	// memory write lands at once: the cycle's writes come after its
	// reads, which must see the old words.
	for _, ms := range members {
		if len(ms) > 1 {
			sort.SliceStable(ms, func(x, y int) bool {
				return s.sinks[ms[x]].kind != sinkWrite && s.sinks[ms[y]].kind == sinkWrite
			})
		}
	}
	indeg := make([]int32, ncomp)
	succ := make([][]int32, ncomp)
	for a := range after {
		for _, t := range after[a] {
			if ca, ct := comp[a], comp[t]; ca != ct {
				succ[ca] = append(succ[ca], ct)
				indeg[ct]++
			}
		}
	}
	h := &minHeap{key: first}
	for cp := range ncomp {
		if indeg[cp] == 0 {
			h.push(int32(cp))
		}
	}
	order := make([]int32, 0, n)
	for h.len() > 0 {
		cp := h.pop()
		order = append(order, members[cp]...)
		for _, nx := range succ[cp] {
			if indeg[nx]--; indeg[nx] == 0 {
				h.push(nx)
			}
		}
	}
	if len(order) != n {
		b.fail("internal: sink order has %d of %d sinks", len(order), n)
	}
	newIdx := make([]int32, n)
	sinks := make([]sink, n)
	srcs := make([][]int32, n)
	for ni, old := range order {
		newIdx[old] = int32(ni)
		sinks[ni] = s.sinks[old]
		sinks[ni].staged = size[comp[old]] > 1
		srcs[ni] = b.sinkSrc[old]
	}
	s.sinks, b.sinkSrc = sinks, srcs
	for _, m := range s.mems {
		for i, r := range m.reads {
			m.reads[i] = newIdx[r]
		}
		if m.group >= 0 {
			m.group = newIdx[m.group]
		}
	}
	return newIdx
}

// rankKeys turns the first sink of each component into a key ordering
// the components by the rank of that sink, then by the sink.
func rankKeys(first, rank []int32) []int32 {
	idx := make([]int32, len(first))
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.Slice(idx, func(x, y int) bool {
		p, q := first[idx[x]], first[idx[y]]
		if rank[p] != rank[q] {
			return rank[p] < rank[q]
		}
		return p < q
	})
	key := make([]int32, len(first))
	for pos, c := range idx {
		key[c] = int32(pos)
	}
	return key
}

// treeOrder numbers the nodes for evaluation: a topological order in
// which every tree (a root and the internal nodes only it reads, directly
// or through other internal nodes) is contiguous, in post-order, ending
// with its root.
// Roots keep creation order, which is topological (a node is created
// after its operands) and keeps each instance's logic together.
func (b *builder) treeOrder() []int32 {
	s := b.s
	n := len(s.nodes)
	readers := make([][]int32, n)
	bySink := make([]bool, n)
	for i, srcs := range b.nodeSrc {
		for j, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && !seenBefore(srcs, j) {
				readers[p] = append(readers[p], int32(i))
			}
		}
	}
	for _, srcs := range b.sinkSrc {
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 {
				bySink[p] = true
			}
		}
	}
	// A node joins the tree of its readers when they all belong to one
	// tree (one reader, or several inside the same tree): readers come
	// later in creation order, so walk backwards.
	root := make([]int32, n)
	b.internal = make([]bool, n)
	for i := n - 1; i >= 0; i-- {
		root[i] = int32(i)
		rs := readers[i]
		if len(rs) == 0 || bySink[i] || s.nodes[i].op >= wAdd {
			continue
		}
		r := root[rs[0]]
		ok := true
		for _, x := range rs {
			ok = ok && root[x] == r && s.nodes[x].op < wAdd
		}
		if ok {
			root[i], b.internal[i] = r, true
		}
	}
	order := make([]int32, 0, n)
	done := make([]bool, n)
	var emit func(i int32)
	emit = func(i int32) {
		done[i] = true
		for _, sid := range b.nodeSrc[i] {
			if p := s.producer[sid]; p >= 0 && b.internal[p] && !done[p] {
				emit(p)
			}
		}
		order = append(order, i)
	}
	for i := range s.nodes {
		if !b.internal[i] {
			emit(int32(i))
		}
	}
	if len(order) != n {
		b.fail("internal: tree order has %d of %d nodes", len(order), n)
	}
	return order
}

// levelOrder numbers the nodes for the interpreter: by level (the length
// of the longest path from a register or input), and within a level by
// opcode, so that the interpreter's dispatch meets runs of the same
// operator (its indirect branch then predicts well; on the 16×16 NPU
// this is worth a quarter of the run time over creation order).
// Creation order breaks ties, which keeps instances together.
func (b *builder) levelOrder(level []int32) []int32 {
	s := b.s
	order := make([]int32, len(s.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(x, y int) bool {
		p, q := order[x], order[y]
		if level[p] != level[q] {
			return level[p] < level[q]
		}
		return s.nodes[p].op < s.nodes[q].op
	})
	b.internal = make([]bool, len(s.nodes))
	return order
}
