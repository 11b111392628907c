package sim

// Placing the values in memory in evaluation order.

// relayout moves every value to its place, order listing the slots
// in the order they are placed; each is placed once, at its first
// occurrence (slotOrder and partSlotOrder list some twice).
func (b *builder) relayout(order []int32) {
	s := b.s
	newOff := make([]int32, len(s.v)) // by the old offset of a slot's first word
	for i := range newOff {
		newOff[i] = -1
	}
	nv := make([]uint64, 0, len(s.v))
	for _, id := range order {
		sl := s.slots[id]
		if newOff[sl.off] >= 0 {
			continue
		}
		newOff[sl.off] = int32(len(nv))
		nv = append(nv, s.v[sl.off:int(sl.off)+nwords(int(sl.w))]...)
	}
	m := func(o *int32) {
		if *o >= 0 {
			if newOff[*o] < 0 {
				b.fail("internal: offset %d is no slot's", *o)
			}
			*o = newOff[*o]
		}
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		m(&n.dst)
		m(&n.a)
		m(&n.b)
		m(&n.c)
	}
	for i := range s.cat {
		m(&s.cat[i].off)
	}
	for i := range s.sinks {
		k := &s.sinks[i]
		if k.kind != sinkWrite {
			m(&k.off)
		}
		m(&k.next)
		m(&k.en)
		if k.kind == sinkRead {
			m(&k.addr)
		}
	}
	for _, mem := range s.mems {
		for i := range mem.writes {
			p := &mem.writes[i]
			m(&p.addr)
			m(&p.data)
			m(&p.en)
			m(&p.mask)
		}
	}
	for id := range s.slots {
		m(&s.slots[id].off)
	}
	s.v = nv
}

// slotOrder places the values of the per-register simulator: first the
// slots no node computes (rst, inputs, registers, read data, constants)
// in creation order, then the node results in node (level) order, so a
// settle writes results and reads its fan-out lists front to back.
// Instance by instance, its registers and read data, then the results of
// its nodes in node order: what an edge and a settle of one instance
// touch shares cache lines. Inputs, constants and anything unowned go
// first.
func (b *builder) slotOrder() []int32 {
	s := b.s
	var first []int32
	byScope := make([][]int32, len(b.scopes))
	for id := range s.slots {
		sc := b.slotScope[id]
		if s.producer[id] < 0 && (sc < 0 || b.isConst[id]) {
			first = append(first, int32(id))
		} else if s.producer[id] < 0 {
			byScope[sc] = append(byScope[sc], int32(id))
		}
	}
	for i := range s.nodes {
		id := s.nodes[i].slot
		if sc := b.slotScope[id]; sc >= 0 {
			byScope[sc] = append(byScope[sc], id)
		} else {
			first = append(first, id)
		}
	}
	for _, ids := range byScope {
		first = append(first, ids...)
	}
	return first
}
