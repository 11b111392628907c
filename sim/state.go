package sim

import "math/bits"

// staged is a value computed during an edge and committed at its end,
// for the sinks on a cycle of direct state reads (sink.staged).
type staged struct{ sink, off int32 }

// edge is one rising clock edge on a settled design. The pending sinks
// are visited in index order and updated in place: orderSinks numbered
// them so that whatever a sink reads directly from another register or
// read port is still the old value, and the reads of a memory come before
// its writes. Sinks on a cycle of such reads commit at the end. A commit
// marks sinks only below the one being visited (its direct readers come
// first), so those marks wait for the next edge, as they must.
func (s *Sim) edge() {
	s.stageBuf, s.staged = s.stageBuf[:0], s.staged[:0]
	v := s.v
	rst := v[s.slots[s.rstSlot].off] != 0
	if s.sinksDue {
		s.sinksDue = false
		var visits uint64
		switch {
		case s.groups == nil:
			visits = s.edgeSinks(rst)
		case s.plug != nil && !rst && s.tr == nil:
			s.toCompact()
			visits = s.plug.edge()
		default:
			s.toV()
			visits = s.edgeGroups(rst)
		}
		s.sinkEvals += visits
		if visits > 0 {
			// Commits marked nodes, and sinks below the ones visited (for
			// the next edge); conservatively both.
			s.nodesDue, s.sinksDue = true, true
		}
	}
	for _, st := range s.staged {
		k := &s.sinks[st.sink]
		copy(v[k.off:k.off+k.nw], s.stageBuf[st.off:st.off+k.nw])
		if s.tr != nil {
			s.tr.mark(k.slot)
		}
		s.fire(k.mk)
		s.nodesDue, s.sinksDue = true, true
	}
	s.cycle++
}

// edgeSinks visits the pending sinks of the per-register simulator and
// returns how many.
func (s *Sim) edgeSinks(rst bool) (visits uint64) {
	v := s.v
	sd := s.sdirty
	hs := s.hsinks
	fast := !rst && s.tr == nil
	for w := range sd {
		x := sd[w]
		if x == 0 {
			continue
		}
		sd[w] = 0
		visits += uint64(bits.OnesCount64(x))
		for x != 0 {
			j := int32(w<<6 | bits.TrailingZeros64(x))
			x &= x - 1
			k := &hs[j]
			if !k.fast || !fast {
				s.visit(j, &s.sinks[j], rst)
				continue
			}
			// A one-word register off any cycle, out of reset, not
			// traced: visit's fast path, with no branch on the
			// register's shape (en and next always point somewhere).
			if v[k.en] == 0 {
				continue
			}
			if nv := v[k.next]; nv != v[k.off] {
				v[k.off] = nv
				if k.fw >= 0 {
					s.bits[k.fw] |= k.fm
				} else {
					s.fire(markRange{-k.fw - 1, int32(k.fm)})
				}
			}
		}
	}
	return visits
}

// hsink is the part of a sink that the edge reads for a one-word register
// off any cycle (fast), 32 bytes; every other sink goes through visit.
type hsink struct {
	fast bool
	off  int32
	next int32 // the register's own offset when it only holds
	en   int32 // a constant 1 when it has no enable
	fw   int32 // the fan-out (see fanOf)
	fm   uint64
}

// visit updates sink j (k) at an edge.
func (s *Sim) visit(j int32, k *sink, rst bool) {
	v := s.v
	switch k.kind {
	case sinkReg:
		switch {
		case rst && k.init >= 0:
			s.update(j, k, s.inits[k.init:k.init+k.nw])
		case k.next < 0 || k.en >= 0 && v[k.en] == 0:
			// holds
		default:
			s.update(j, k, v[k.next:k.next+k.nw])
		}
	case sinkRead:
		if k.en >= 0 && v[k.en] == 0 {
			return
		}
		mem := s.mems[k.mem]
		addr := v[k.addr]
		if k.nw == 1 && !k.staged && !rst && s.tr == nil {
			// One word: update's fast path.
			var x uint64
			if addr < uint64(mem.depth) {
				x = mem.load(int(addr))
			}
			if x != v[k.off] {
				v[k.off] = x
				s.fireFan(s.hsinks[j].fw, s.hsinks[j].fm)
			}
			return
		}
		if addr < uint64(mem.depth) {
			buf := s.tmp2[:k.nw]
			mem.get(buf, int(addr))
			s.update(j, k, buf)
		} else {
			s.update(j, k, s.zero[:k.nw])
		}
	case sinkWrite:
		s.writeMem(k.mem)
	}
}

// update gives sink k the value src, now or (staged) at the end of the edge.
func (s *Sim) update(j int32, k *sink, src []uint64) {
	dst := s.v[k.off : k.off+k.nw]
	if eqW(dst, src) {
		return
	}
	if k.staged {
		s.staged = append(s.staged, staged{sink: j, off: int32(len(s.stageBuf))})
		s.stageBuf = append(s.stageBuf, src...)
		return
	}
	copy(dst, src)
	if s.tr != nil {
		s.tr.mark(k.slot)
	}
	s.fire(k.mk)
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
		if nw == 1 {
			old, x := m.load(int(addr)), v[p.data]
			if p.mask >= 0 {
				mk := v[p.mask]
				x = old&^mk | x&mk
			}
			if old != x {
				m.store(int(addr), x)
				changed = true
			}
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
		// The reads of this edge already saw the old contents (they come
		// first); the next edge must read again.
		for _, r := range m.reads {
			s.markSink(r)
		}
	}
}
