package sim

// Linking: the steps after flattening, and the fan-out lists, the marks
// that fire them and the records settle and the edge walk.

// link orders the sinks and the nodes, builds the fan-out lists, lays the
// values out and makes the records the simulation runs on. Nodes are
// created after their operands, so creation order is already
// topological; after renumbering, every node's fan-out has a higher
// index, which is what lets settle drain a single dirty bitmap in one
// forward pass.
func (b *builder) link() {
	s := b.s
	if b.mode == modeParts {
		b.linkParts()
		return
	}
	b.orderSinks(b.sinkAfter(), nil)
	b.renumber()
	b.fanLists()
	b.relayout(b.slotOrder())
	b.markLists()
	b.hotRecords()
	// Everything is evaluated once at the start: all nodes dirty, all
	// sinks pending.
	for i := range s.nodes {
		s.markNode(int32(i))
	}
	for i := range s.sinks {
		s.markSink(int32(i))
	}
}

// fanLists builds the fan-out of every slot in CSR form, nodes and sinks
// apart; each list is sorted, so its last entry bounds the dirty range.
func (b *builder) fanLists() {
	s := b.s
	nodeFan := make([][]int32, len(s.slots))
	sinkFan := make([][]int32, len(s.slots))
	for i, srcs := range b.nodeSrc {
		for j, sid := range srcs {
			if !seenBefore(srcs, j) && !b.isConst[sid] {
				nodeFan[sid] = append(nodeFan[sid], int32(i))
			}
		}
	}
	for i, srcs := range b.sinkSrc {
		for j, sid := range srcs {
			if !seenBefore(srcs, j) && !b.isConst[sid] {
				sinkFan[sid] = append(sinkFan[sid], int32(i))
			}
		}
	}
	s.fan = make([]fanRange, len(s.slots))
	for id := range s.slots {
		r := &s.fan[id]
		r.node = int32(len(s.fanout))
		s.fanout = append(s.fanout, nodeFan[id]...)
		r.sink = int32(len(s.fanout))
		s.fanout = append(s.fanout, sinkFan[id]...)
		r.end = int32(len(s.fanout))
	}
}

// markLists turns the fan-out lists into marks.
func (b *builder) markLists() {
	s := b.s
	// One array holds both bitmaps, so a fan-out is a list of (word,
	// bits) marks into it: one OR per distinct word.
	nd := (len(s.nodes) + 63) / 64
	nsd := (len(s.sinks) + 63) / 64
	s.bits = make([]uint64, nd+nsd)
	s.dirty, s.sdirty = s.bits[:nd:nd], s.bits[nd:]
	// Marks in the order they are used: nodes, then sinks, then the rest.
	s.markOf = make([]markRange, len(s.slots))
	done := make([]bool, len(s.slots))
	add := func(id int32) {
		if id < 0 || done[id] {
			return
		}
		done[id] = true
		r := s.fan[id]
		lo := int32(len(s.marks))
		b.addMarks(s.fanout[r.node:r.sink], 0)
		b.addMarks(s.fanout[r.sink:r.end], int32(nd))
		s.markOf[id] = markRange{lo, int32(len(s.marks))}
	}
	for i := range s.nodes {
		add(s.nodes[i].slot)
	}
	for i := range s.sinks {
		add(s.sinks[i].slot)
	}
	for id := range s.slots {
		add(int32(id))
	}
}

// hotRecords makes what settle and the edge read of each node and sink.
func (b *builder) hotRecords() {
	s := b.s
	s.hot = make([]hnode, len(s.nodes))
	for i := range s.nodes {
		s.nodes[i].mk = s.markOf[s.nodes[i].slot]
		s.hot[i] = hotOf(&s.nodes[i])
		s.hot[i].fw, s.hot[i].fm = s.fanOf(s.nodes[i].mk)
		r := s.fan[s.nodes[i].slot]
		for _, t := range s.fanout[r.node:r.sink] {
			if t>>6 == int32(i)>>6 {
				s.hot[i].w |= selfFan
			}
		}
	}
	b.sinkRecords()
}

// sinkRecords makes what the edge reads of each sink.
func (b *builder) sinkRecords() {
	s := b.s
	s.hsinks = make([]hsink, len(s.sinks))
	for i := range s.sinks {
		k := &s.sinks[i]
		if k.slot >= 0 {
			k.mk = s.markOf[k.slot]
		}
		h := hsink{fast: k.kind == sinkReg && k.nw == 1 && !k.staged, off: k.off, next: k.next, en: k.en}
		h.fw, h.fm = s.fanOf(k.mk)
		if h.next < 0 {
			h.next = h.off
		}
		if h.en < 0 {
			h.en = s.slots[b.one].off
		}
		s.hsinks[i] = h
	}
}

// addMarks appends the marks of a sorted target list into the bitmap at
// offset base of Sim.bits.
func (b *builder) addMarks(targets []int32, base int32) {
	s := b.s
	first := len(s.marks)
	for _, t := range targets {
		w := base + t>>6
		if n := len(s.marks); n > first && s.marks[n-1].w == w {
			s.marks[n-1].m |= 1 << uint(t&63)
		} else {
			s.marks = append(s.marks, mark{w: w, m: 1 << uint(t&63)})
		}
	}
}

// seenBefore reports whether list[j] already occurred in list[:j]. Operand
// lists are short except for wide Cats, for which a linear scan is cheap
// enough: a Cat of 4096 one-bit values costs 8M comparisons once.
func seenBefore(list []int32, j int) bool {
	for _, x := range list[:j] {
		if x == list[j] {
			return true
		}
	}
	return false
}
