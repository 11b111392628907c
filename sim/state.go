package sim

// staged is a value computed in the first phase of an edge, committed in
// the last so that every register and read port sees the old state.
type staged struct{ sink, off int32 }

// edge is one rising clock edge on a settled design: registers, then
// memory reads (old contents), then memory writes in port order, then the
// commit of the new register and read values. Only pending sinks are
// visited.
func (s *Sim) edge() {
	pend := s.pending
	s.pending = s.spare[:0]
	for _, i := range pend {
		s.pendFlag[i] = false
	}
	s.sinkEvals += uint64(len(pend))
	s.stageBuf, s.staged, s.writeMems = s.stageBuf[:0], s.staged[:0], s.writeMems[:0]
	v := s.v
	rst := v[s.slots[s.rstSlot].off] != 0
	for _, i := range pend {
		k := &s.sinks[i]
		switch k.kind {
		case sinkReg:
			if k.nw == 1 {
				// One-word fast path of the general case below.
				var x uint64
				switch {
				case rst:
					x = k.init[0]
				case k.next < 0 || k.en >= 0 && v[k.en] == 0:
					continue
				default:
					x = v[k.next]
				}
				if x != v[k.off] {
					s.staged = append(s.staged, staged{sink: i, off: int32(len(s.stageBuf))})
					s.stageBuf = append(s.stageBuf, x)
				}
				continue
			}
			switch {
			case rst:
				s.stage(i, k, k.init)
			case k.next < 0 || k.en >= 0 && v[k.en] == 0:
				// holds
			default:
				s.stage(i, k, v[k.next:k.next+k.nw])
			}
		case sinkRead:
			if k.en >= 0 && v[k.en] == 0 {
				continue
			}
			m := s.mems[k.mem]
			if addr := v[k.addr]; addr < uint64(m.depth) {
				s.stage(i, k, m.data[int(addr)*m.nw:(int(addr)+1)*m.nw])
			} else {
				s.stage(i, k, s.zero[:k.nw])
			}
		case sinkWrite:
			s.writeMems = append(s.writeMems, k.mem)
		}
	}
	for _, mi := range s.writeMems {
		s.writeMem(mi)
	}
	for _, st := range s.staged {
		k := &s.sinks[st.sink]
		if k.nw == 1 {
			v[k.off] = s.stageBuf[st.off]
		} else {
			copy(v[k.off:k.off+k.nw], s.stageBuf[st.off:st.off+k.nw])
		}
		s.changed(k.slot)
	}
	s.spare = pend[:0]
	s.cycle++
}

func (s *Sim) stage(i int32, k *sink, src []uint64) {
	if eqW(s.v[k.off:k.off+k.nw], src) {
		return
	}
	s.staged = append(s.staged, staged{sink: i, off: int32(len(s.stageBuf))})
	s.stageBuf = append(s.stageBuf, src...)
}

// writeMem applies all write ports of a memory in port order. Re-applying
// the same writes is idempotent, which is why the ports only run when one
// of their inputs changed (or a backdoor write touched the memory).
func (s *Sim) writeMem(mi int32) {
	m := s.mems[mi]
	v := s.v
	nw := m.nw
	changed := false
	for _, p := range m.writes {
		if v[p.en] == 0 {
			continue
		}
		addr := v[p.addr]
		if addr >= uint64(m.depth) {
			continue
		}
		word := m.data[int(addr)*nw : (int(addr)+1)*nw]
		data := v[p.data : int(p.data)+nw]
		for j := range word {
			x := data[j]
			if p.mask >= 0 {
				mk := v[int(p.mask)+j]
				x = word[j]&^mk | x&mk
			}
			if word[j] != x {
				word[j] = x
				changed = true
			}
		}
	}
	if changed {
		// The reads of this edge already saw the old contents; the next
		// edge must read again.
		for _, r := range m.reads {
			s.markSink(r)
		}
	}
}
