package sim

import "math/bits"

// mask64 is 2^w-1 for 1 <= w <= 64.
func mask64(w int32) uint64 { return ^uint64(0) >> (64 - uint(w)) }

// sext64 sign-extends the low w bits of x.
func sext64(x uint64, w int32) int64 {
	sh := 64 - uint(w)
	return int64(x<<sh) >> sh
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (s *Sim) markNode(i int32) {
	s.dirty[i>>6] |= 1 << uint(i&63)
	s.nodesDue = true
}

func (s *Sim) markSink(i int32) {
	s.sdirty[i>>6] |= 1 << uint(i&63)
	s.sinksDue = true
}

// changed schedules the fan-out of a slot whose value just changed.
func (s *Sim) changed(id int32) {
	if s.tr != nil {
		s.tr.mark(id)
	}
	s.fire(s.markOf[id])
	s.nodesDue, s.sinksDue = true, true
}

// fire marks a fan-out: nodes in the dirty bitmap, sinks in the pending
// bitmap. The caller sees to nodesDue and sinksDue.
func (s *Sim) fire(r markRange) {
	bits := s.bits
	for _, mk := range s.marks[r.lo:r.hi] {
		bits[mk.w] |= mk.m
	}
}

// settle evaluates the dirty nodes in index order, which is level order.
// A node's fan-out always has a higher index, so it is marked ahead of the
// scan and picked up in the same pass: each node runs at most once.
func (s *Sim) settle() {
	if !s.nodesDue {
		return
	}
	s.nodesDue = false
	if s.cc != nil && s.tr == nil {
		if n := s.cc.settle(); n > 0 {
			s.evals += n
			s.sinksDue = true
		}
		return
	}
	d := s.dirty
	hot := s.hot
	v := s.v
	marks := s.bits
	traced := s.tr != nil
	var evals uint64
	for w := range d {
		x := d[w]
		if x == 0 {
			continue
		}
		d[w] = 0
		for x != 0 {
			b := bits.TrailingZeros64(x)
			x &= x - 1
			j := w<<6 | b
			h := &hot[j]
			evals++
			if h.op >= wAdd {
				if !s.evalWide(&s.nodes[j]) {
					continue
				}
			} else {
				// evalNarrow, inline.
				n := h
				w := int32(n.w &^ selfFan)
				var r uint64
				switch n.op {
				case nAdd:
					r = (n.opA(v) + n.opB(v)) & mask64(w)
				case nSub:
					r = (n.opA(v) - n.opB(v)) & mask64(w)
				case nMul:
					r = (n.opA(v) * n.opB(v)) & mask64(w)
				case nAnd:
					r = (n.opA(v) & n.opB(v)) & mask64(w)
				case nOr:
					r = (n.opA(v) | n.opB(v)) & mask64(w)
				case nXor:
					r = (n.opA(v) ^ n.opB(v)) & mask64(w)
				case nNot:
					r = ^n.opA(v) & mask64(w)
				case nNeg:
					r = -n.opA(v) & mask64(w)
				case nShlC:
					r = (v[n.a] << uint(n.k)) & mask64(w)
				case nShl:
					if amt := v[n.b]; amt < uint64(w) {
						r = (v[n.a] << amt) & mask64(w)
					}
				case nShr:
					if amt := v[n.b]; amt < uint64(w) {
						r = v[n.a] >> amt
					}
				case nSra:
					amt := v[n.b]
					if amt >= uint64(w) {
						amt = uint64(w) - 1 // every bit becomes the sign bit
					}
					r = uint64(sext64(v[n.a], w)>>amt) & mask64(w)
				case nEq:
					r = b2u(n.opA(v) == n.opB(v))
				case nNe:
					r = b2u(n.opA(v) != n.opB(v))
				case nLtU:
					r = b2u(n.opA(v) < n.opB(v))
				case nLeU:
					r = b2u(n.opA(v) <= n.opB(v))
				case nLtS:
					r = b2u(int64(n.opA(v)) < int64(n.opB(v)))
				case nLeS:
					r = b2u(int64(n.opA(v)) <= int64(n.opB(v)))
				case nMux:
					if v[n.a] != 0 {
						r = v[n.b]
					} else {
						r = v[n.k]
					}
				case nCat:
					for _, a := range s.cat[n.k : n.k+int32(n.sa)] {
						r = r<<uint(a.w) | v[a.off]
					}
				case nSlice:
					r = (v[n.a] >> uint(n.k)) & mask64(w)
				case nSext:
					r = uint64(sext64(v[n.a], n.k)) & mask64(w)
				case nCopy:
					r = v[n.a]
				case nRedAnd:
					r = b2u(v[n.a] == mask64(n.k))
				case nRedOr:
					r = b2u(v[n.a] != 0)
				case nRedXor:
					r = uint64(bits.OnesCount64(v[n.a]) & 1)
				}
				if v[n.dst] == r {
					continue
				}
				v[n.dst] = r
			}
			if traced {
				s.tr.mark(s.nodes[j].slot)
			}
			if h.fw >= 0 {
				marks[h.fw] |= h.fm
			} else {
				s.fire(markRange{-h.fw - 1, int32(h.fm)})
			}
			if h.w&selfFan != 0 {
				// Part of the fan-out lies in this word, above this
				// node: it joins the bits still to do.
				x |= d[w]
				d[w] = 0
			}
		}
	}
	if evals > 0 {
		s.evals += evals
		s.sinksDue = true // conservatively: a changed node may have marked a sink
	}
}

// evalWideNode evaluates node i for compiled code, which leaves the
// multi-word operators to the interpreter.
func (s *Sim) evalWideNode(i int32) bool { return s.evalWide(&s.nodes[i]) }

// hnode is the part of a node that the settle loop reads, 32 bytes.
type hnode struct {
	op     opcode
	sa, sb uint8 // operand sign-extension shifts (node.sa); cat: sa is the number of arguments
	w      uint8 // result width, 1..64 (0 for a wide node), | selfFan
	dst    int32
	a      int32
	b      int32
	k      int32 // slice low bit, shift amount, first cat argument; sext, redand: the operand width; mux: the else operand
	fw     int32 // the fan-out (see fanOf)
	fm     uint64
}

// selfFan flags (in hnode.w) a node whose fan-out includes nodes of its
// own dirty word.
const selfFan = 0x80

// fanOf packs a fan-out into fw, fm: one mark inline (fw >= 0; an empty
// fan-out is the no-op mark 0, 0), or the marks Sim.marks[-fw-1 : fm].
func (s *Sim) fanOf(r markRange) (int32, uint64) {
	switch r.hi - r.lo {
	case 0:
		return 0, 0
	case 1:
		return s.marks[r.lo].w, s.marks[r.lo].m
	}
	return -r.lo - 1, uint64(r.hi)
}

// fireFan marks a packed fan-out.
func (s *Sim) fireFan(fw int32, fm uint64) {
	if fw >= 0 {
		s.bits[fw] |= fm
		return
	}
	s.fire(markRange{-fw - 1, int32(fm)})
}

// hotOf is the evaluation record of n (its fan-out left empty).
func hotOf(n *node) hnode {
	h := hnode{op: n.op, sa: n.sa, sb: n.sb, dst: n.dst, a: n.a, b: n.b, k: n.k}
	if n.op < wAdd {
		h.w = uint8(n.w)
		switch n.op {
		case nSext, nRedAnd:
			h.k = n.aw
		case nCat:
			h.sa = uint8(n.k2)
		case nMux:
			h.k = n.c
		}
	}
	return h
}

// eval computes one node and reports whether its value changed (at
// compile time, for constant folding).
func (s *Sim) eval(n *node) bool {
	if n.op >= wAdd {
		return s.evalWide(n)
	}
	h := hotOf(n)
	return s.evalNarrow(&h)
}

// opA and opB read a node's operands, sign-extended to 64 bits when the
// node says so (see node.sa).
func (h *hnode) opA(v []uint64) uint64 { return uint64(int64(v[h.a]<<h.sa) >> h.sa) }
func (h *hnode) opB(v []uint64) uint64 { return uint64(int64(v[h.b]<<h.sb) >> h.sb) }

// evalNarrow computes a one-word node and reports whether its value changed.
func (s *Sim) evalNarrow(n *hnode) bool {
	v := s.v
	w := int32(n.w)
	var r uint64
	switch n.op {
	case nAdd:
		r = (n.opA(v) + n.opB(v)) & mask64(w)
	case nSub:
		r = (n.opA(v) - n.opB(v)) & mask64(w)
	case nMul:
		r = (n.opA(v) * n.opB(v)) & mask64(w)
	case nAnd:
		r = (n.opA(v) & n.opB(v)) & mask64(w)
	case nOr:
		r = (n.opA(v) | n.opB(v)) & mask64(w)
	case nXor:
		r = (n.opA(v) ^ n.opB(v)) & mask64(w)
	case nNot:
		r = ^n.opA(v) & mask64(w)
	case nNeg:
		r = -n.opA(v) & mask64(w)
	case nShlC:
		r = (v[n.a] << uint(n.k)) & mask64(w)
	case nShl:
		if amt := v[n.b]; amt < uint64(w) {
			r = (v[n.a] << amt) & mask64(w)
		}
	case nShr:
		if amt := v[n.b]; amt < uint64(w) {
			r = v[n.a] >> amt
		}
	case nSra:
		amt := v[n.b]
		if amt >= uint64(w) {
			amt = uint64(w) - 1 // every bit becomes the sign bit
		}
		r = uint64(sext64(v[n.a], w)>>amt) & mask64(w)
	case nEq:
		r = b2u(n.opA(v) == n.opB(v))
	case nNe:
		r = b2u(n.opA(v) != n.opB(v))
	case nLtU:
		r = b2u(n.opA(v) < n.opB(v))
	case nLeU:
		r = b2u(n.opA(v) <= n.opB(v))
	case nLtS:
		r = b2u(int64(n.opA(v)) < int64(n.opB(v)))
	case nLeS:
		r = b2u(int64(n.opA(v)) <= int64(n.opB(v)))
	case nMux:
		if v[n.a] != 0 {
			r = v[n.b]
		} else {
			r = v[n.k]
		}
	case nCat:
		for _, a := range s.cat[n.k : n.k+int32(n.sa)] {
			r = r<<uint(a.w) | v[a.off]
		}
	case nSlice:
		r = (v[n.a] >> uint(n.k)) & mask64(w)
	case nSext:
		r = uint64(sext64(v[n.a], n.k)) & mask64(w)
	case nCopy:
		r = v[n.a]
	case nRedAnd:
		r = b2u(v[n.a] == mask64(n.k))
	case nRedOr:
		r = b2u(v[n.a] != 0)
	case nRedXor:
		r = uint64(bits.OnesCount64(v[n.a]) & 1)
	}
	if v[n.dst] == r {
		return false
	}
	v[n.dst] = r
	return true
}
