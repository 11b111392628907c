package sim

import "slices"

// Supernodes: the combinational nodes cut into acyclic groups, each
// evaluated whole when one of its inputs changed.

// The cost of a supernode is paid whenever any of its inputs changes,
// and so is a dispatch, so a good one holds nodes that change together.
// Without a workload to measure, the partition estimates that from the
// structure:
//
//   - a node read by a single supernode changes only to make that one
//     change (maximal fan-out-free cones, merged into their reader);
//   - the same logic in sibling instances of one module (the PEs of an
//     array, the lanes of a vector unit, the banks of a buffer) works
//     in lock step, so the same cone of every sibling goes into one
//     supernode, up to templateCap nodes, while the different cones of
//     one instance (a PE's multiply-accumulate, its zero flags, its
//     weight load) stay apart, as their activity differs;
//   - supernodes that read the same things are woken together, so they
//     are merged (sources, in partmerge.go).
//
// Measured on the NPU's GEMM, a busy cycle then wakes about 100
// supernodes and 100 sink groups where the per-register simulator
// scheduled about 1,600 nodes and 1,100 sinks one by one. The cap on
// sibling cones trades the nodes evaluated for nothing (a wave crossing
// the PE array changes a few rows of it at a time) against dispatches:
// 64 nodes (a quarter of a 16×16 array's PEs) runs the compiled code
// 11–14% faster than 256 on the NPU's GEMM and costs the interpreter,
// which pays more per dispatch, about 2% (docs/notes/simulator-speed.md).
const templateCap = 64 // nodes of a supernode made of sibling instances' cones

// partitioner holds the state of partition: a union-find over the nodes
// (creation order), whose classes are the supernodes being formed.
type partitioner struct {
	b       *builder
	readers [][]int32 // per node, the distinct nodes reading it
	uf      []int32   // union-find parent
	size    []int32   // per class representative, its number of nodes
	top     []int32   // per class representative, its last node: a cone's root
}

// partition assigns every node (creation order) to a supernode and
// returns the assignment with the supernodes numbered in a topological
// order of the graph between them.
func (b *builder) partition() (partOf []int32, nparts int) {
	n := len(b.s.nodes)
	p := &partitioner{b: b, readers: make([][]int32, n), uf: make([]int32, n), size: make([]int32, n), top: make([]int32, n)}
	for i := range p.uf {
		p.uf[i], p.size[i], p.top[i] = int32(i), 1, int32(i)
	}
	for i, srcs := range b.nodeSrc {
		for j, sid := range srcs {
			if u := b.s.producer[sid]; u >= 0 && !seenBefore(srcs, j) {
				p.readers[u] = append(p.readers[u], int32(i))
			}
		}
	}
	p.cones()
	p.siblings()
	p.sources()
	return p.number()
}

func (p *partitioner) find(x int32) int32 {
	for p.uf[x] != x {
		p.uf[x] = p.uf[p.uf[x]]
		x = p.uf[x]
	}
	return x
}

func (p *partitioner) union(a, b int32) {
	a, b = p.find(a), p.find(b)
	if a == b {
		return
	}
	if p.size[a] < p.size[b] {
		a, b = b, a
	}
	p.uf[b] = a
	p.size[a] += p.size[b]
	p.top[a] = max(p.top[a], p.top[b])
}

// cones merges every node into its readers' class when they all belong
// to one: the maximal fan-out-free cones. A class whose only successor
// is another cannot close a cycle by joining it. Readers come later in
// creation order, so one backward pass suffices.
func (p *partitioner) cones() {
	for i := len(p.readers) - 1; i >= 0; i-- {
		rs := p.readers[i]
		if len(rs) == 0 {
			continue
		}
		r := p.find(rs[0])
		one := true
		for _, x := range rs[1:] {
			one = one && p.find(x) == r
		}
		if one {
			p.union(int32(i), r)
		}
	}
}

// graph returns the classes (their representatives) and, per
// representative, the classes it reads from: the edges between
// supernodes, deduplicated.
func (p *partitioner) graph() (reps []int32, preds [][]int32) {
	preds = make([][]int32, len(p.uf))
	for i, srcs := range p.b.nodeSrc {
		c := p.find(int32(i))
		for _, sid := range srcs {
			if u := p.b.s.producer[sid]; u >= 0 {
				if cu := p.find(u); cu != c {
					preds[c] = append(preds[c], cu)
				}
			}
		}
	}
	for i := range p.uf {
		if p.find(int32(i)) == int32(i) {
			reps = append(reps, int32(i))
			preds[i] = slices.Compact(slices.Sorted(slices.Values(preds[i])))
		}
	}
	return reps, preds
}

// levels numbers the classes topologically (Kahn, the earliest root
// first, which keeps instances together) and gives each its level: the
// longest path to it from state or inputs. It returns the classes'
// representatives in that order, and the levels by representative.
func (p *partitioner) levels() (order []int32, level []int32) {
	reps, preds := p.graph()
	succ := make([][]int32, len(p.uf))
	indeg := make([]int32, len(p.uf))
	for _, c := range reps {
		indeg[c] = int32(len(preds[c]))
		for _, u := range preds[c] {
			succ[u] = append(succ[u], c)
		}
	}
	h := &minHeap{key: p.top}
	for _, c := range reps {
		if indeg[c] == 0 {
			h.push(c)
		}
	}
	level = make([]int32, len(p.uf))
	for h.len() > 0 {
		c := h.pop()
		order = append(order, c)
		for _, u := range preds[c] {
			level[c] = max(level[c], level[u]+1)
		}
		for _, x := range succ[c] {
			if indeg[x]--; indeg[x] == 0 {
				h.push(x)
			}
		}
	}
	if len(order) != len(reps) {
		p.b.fail("internal: supernode graph has a cycle (%d of %d ordered)", len(order), len(reps))
	}
	return order, level
}

// siblings merges the same cone of sibling instances: classes whose
// representatives were built from the same expression, in instances with
// the same parent, at the same level. Classes of one level have no path
// between them, so merging them keeps the graph acyclic. The classes are
// taken in creation order (instance after instance) and cut into
// supernodes of at most templateCap nodes.
func (p *partitioner) siblings() {
	order, level := p.levels()
	type key struct {
		origin any
		parent int32
		level  int32
	}
	groups := map[key][]int32{}
	var keys []key
	for _, c := range order {
		root := p.top[c]
		x := p.b.origin[root]
		if x == nil {
			continue
		}
		sc := p.b.slotScope[p.b.s.nodes[root].slot]
		if sc < 0 {
			continue
		}
		par := int32(-1)
		if pp := p.b.scopes[sc].parent; pp != nil {
			par = pp.idx
		}
		k := key{x, par, level[c]}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	for _, k := range keys {
		cs := groups[k]
		first, sum := cs[0], p.size[cs[0]]
		for _, c := range cs[1:] {
			if sum+p.size[c] > templateCap {
				first, sum = c, p.size[c]
				continue
			}
			sum += p.size[c]
			p.union(first, c)
		}
	}
}

// number returns each node's supernode, the supernodes numbered in
// topological order.
func (p *partitioner) number() ([]int32, int) {
	order, _ := p.levels()
	idx := make([]int32, len(p.uf))
	for i, c := range order {
		idx[c] = int32(i)
	}
	partOf := make([]int32, len(p.uf))
	for i := range partOf {
		partOf[i] = idx[p.find(int32(i))]
	}
	return partOf, len(order)
}
