package sim

import "sort"

// Sink groups: the registers and memory ports of the partitioned
// simulator, committed together at an edge.

// A sink's home is where its value comes from: the supernode computing its
// next value (or, failing that, its enable; for a read port its address),
// or for a register that copies another register or a read port directly
// (a shift chain, a skew stage), that sink's home. Sinks of one home form
// a group, committed whole when the home was evaluated or when one of
// their inputs changed: what feeds them changes together, so they do.
//
// An edge visits the groups in index order and the sinks of a group in
// index order, updating each in place; like orderSinks in the
// per-register simulator, a sink that reads another's state directly
// must come first, so the groups are ordered by those reads, and groups
// that read each other's state both ways are merged.

// sinkHomes returns each sink's home as a key: a supernode index below
// nparts, else nparts plus the input slot it copies, else nparts plus
// the number of slots plus its scope (a sink that only holds its value).
func (b *builder) sinkHomes(partOf []int32, nparts int) []int32 {
	home, _, _ := b.sinkHomeDepths(partOf, nparts)
	return home
}

// sinkHomeDepths is sinkHomes with, per sink, its depth and its line's
// root: for a register that copies another directly, one more than that
// one's depth and the same root; otherwise 0 and the sink itself.
func (b *builder) sinkHomeDepths(partOf []int32, nparts int) (home, depth, root []int32) {
	s := b.s
	bySlot := make(map[int32]int32, len(s.sinks))
	for i, k := range s.sinks {
		if k.kind != sinkWrite {
			bySlot[k.slot] = int32(i)
		}
	}
	home = make([]int32, len(s.sinks))
	depth = make([]int32, len(s.sinks))
	root = make([]int32, len(s.sinks))
	for i := range root {
		root[i] = int32(i)
	}
	const (
		unknown = -1
		busy    = -2
	)
	for i := range home {
		home[i] = unknown
	}
	var find func(i int32) int32
	find = func(i int32) int32 {
		if home[i] >= 0 {
			return home[i]
		}
		if home[i] == busy {
			return unknown // a cycle of direct copies: decided by its other members
		}
		home[i] = busy
		h := int32(unknown)
		srcs := b.sinkSrc[i]
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && sid != s.rstSlot {
				h = partOf[p]
				break
			}
		}
		for _, sid := range srcs {
			if t, ok := bySlot[sid]; ok && h < 0 && t != i {
				if h = find(t); h >= 0 {
					depth[i], root[i] = depth[t]+1, root[t]
				}
			}
		}
		for _, sid := range srcs {
			if h < 0 && sid != s.rstSlot && !b.isConst[sid] {
				h = int32(nparts) + sid
			}
		}
		if h < 0 {
			sc := int32(0)
			if k := s.sinks[i]; k.slot >= 0 && b.slotScope[k.slot] >= 0 {
				sc = b.slotScope[k.slot]
			}
			h = int32(nparts+len(s.slots)) + sc
		}
		home[i] = h
		return h
	}
	for i := range home {
		find(int32(i))
	}
	return home, depth, root
}

// stageDepth is how many stages of a line of copies make one group.
const stageDepth = 8

// stageHomes splits the home of copying registers by line and depth
// (see sinkHomeDepths). A line of copies carries a change one stage a
// cycle (a wave of swaps or weight loads crossing an array), so a whole
// line in one group is woken as long as a change is anywhere on it and
// commits every stage each time; split into groups of stageDepth stages,
// each is woken only while the change crosses it. A register copying an
// input is its line's first stage. Smaller groups would wake fewer
// stages for more dispatches (measured on the NPU and on array16:
// docs/notes/simulator-speed.md). The keys of split homes start at
// keys, after those of sinkHomes, whose input slots' keys start at
// inputs and scopes' at scopes.
func stageHomes(home, depth, root []int32, inputs, scopes, keys int32) []int32 {
	type stage struct{ root, depth int32 }
	split := map[stage]int32{}
	out := make([]int32, len(home))
	for i, h := range home {
		if depth[i] == 0 && (h < inputs || h >= scopes) {
			out[i] = h // its own value: the group of its home
			continue
		}
		st := stage{root[i], depth[i] / stageDepth}
		k, ok := split[st]
		if !ok {
			k = keys + int32(len(split))
			split[st] = k
		}
		out[i] = k
	}
	return out
}

// homeRanks ranks the homes so that a home whose sinks read another's
// state directly (after lists the sinks that must follow each sink) comes
// first where the reads allow it; homes that read each other's state
// both ways get adjacent ranks. It returns each sink's home rank: the
// key orderSinks groups the sinks by. Where the reads force it, the
// sinks of one home end up in several runs; each run is a group.
func (b *builder) homeRanks(home []int32, after [][]int32) []int32 {
	n := len(home)
	dense := map[int32]int32{}
	hid := make([]int32, n)
	for i, h := range home {
		d, ok := dense[h]
		if !ok {
			d = int32(len(dense))
			dense[h] = d
		}
		hid[i] = d
	}
	nh := len(dense)
	succ := make([][]int32, nh)
	for a, ts := range after {
		for _, t := range ts {
			if ha, ht := hid[a], hid[t]; ha != ht {
				succ[ha] = append(succ[ha], ht)
			}
		}
	}
	comp, ncomp := sccs(succ)
	// Kahn over the components, the one holding the earliest sink first
	// (instance by instance, as the sinks were created); within a
	// component, homes by their earliest sink.
	first := make([]int32, nh)
	for i := range first {
		first[i] = int32(n)
	}
	for i, h := range hid {
		first[h] = min(first[h], int32(i))
	}
	cfirst := make([]int32, ncomp)
	for i := range cfirst {
		cfirst[i] = int32(n)
	}
	members := make([][]int32, ncomp)
	for h, c := range comp {
		cfirst[c] = min(cfirst[c], first[h])
		members[c] = append(members[c], int32(h))
	}
	indeg := make([]int32, ncomp)
	csucc := make([][]int32, ncomp)
	for h, ts := range succ {
		for _, t := range ts {
			if ch, ct := comp[h], comp[t]; ch != ct {
				csucc[ch] = append(csucc[ch], ct)
				indeg[ct]++
			}
		}
	}
	hp := &minHeap{key: cfirst}
	for c := range ncomp {
		if indeg[c] == 0 {
			hp.push(int32(c))
		}
	}
	rank := make([]int32, nh)
	next := int32(0)
	for hp.len() > 0 {
		c := hp.pop()
		ms := members[c]
		sort.Slice(ms, func(x, y int) bool { return first[ms[x]] < first[ms[y]] })
		for _, h := range ms {
			rank[h] = next
			next++
		}
		for _, x := range csucc[c] {
			if indeg[x]--; indeg[x] == 0 {
				hp.push(x)
			}
		}
	}
	if int(next) != nh {
		b.fail("internal: sink homes have a cycle (%d of %d ranked)", next, nh)
	}
	out := make([]int32, n)
	for i, h := range hid {
		out[i] = rank[h]
	}
	return out
}
