package sim

// The interpreter's combinational evaluation: the dirty bitmaps, the
// evaluation loop and the node records it walks.

import "math/bits"

func (s *Sim) markNode(i int32) {
	s.dirty[i>>6] |= 1 << uint(i&63)
	s.nodesDue = true
}

// markSink makes sink i due at the next edge: its group, when the
// sinks are grouped.
func (s *Sim) markSink(i int32) {
	if s.groupOf != nil {
		i = s.groupOf[i]
	}
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

// settle evaluates the dirty nodes, with the generated code when there
// is (and no trace wants every change), else with settleParts or, in
// the per-register simulator, evalDirty.
func (s *Sim) settle() {
	if !s.nodesDue {
		return
	}
	s.nodesDue = false
	var n uint64
	switch {
	case s.plug != nil && s.tr == nil:
		s.toCompact()
		n = s.plug.settle()
	case s.parts != nil:
		s.toV()
		n = s.settleParts()
	default:
		n = s.evalDirty(s.hot, s.dirty)
	}
	if n > 0 {
		s.evals += n
		s.sinksDue = true // conservatively: a changed node may have marked a sink
	}
}

// evalDirty evaluates the nodes of hot whose bits are set in the dirty
// bitmap d, in index order, clears d and returns how many it evaluated.
// A node's fan-out always has a higher index, so it is marked ahead of
// the scan and picked up in the same pass: each node runs at most once.
func (s *Sim) evalDirty(hot []hnode, d []uint64) (evals uint64) {
	v, cat, marks := s.v, s.cat, s.bits
	traced := s.tr != nil
	for w := range d {
		x := d[w]
		if x == 0 {
			continue
		}
		d[w] = 0
		for x != 0 {
			j := w<<6 | bits.TrailingZeros64(x)
			x &= x - 1
			h := &hot[j]
			evals++
			if h.op >= wAdd {
				if !s.evalWide(&s.nodes[j]) {
					continue
				}
			} else {
				bw := uint64(h.w &^ selfFan)
				var r uint64
				switch h.op {
				// The cases are generated from the operator table (go generate).
				case nAdd:
					r = (sx(v[h.a], uint64(h.sa)) + sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nSub:
					r = (sx(v[h.a], uint64(h.sa)) - sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nMul:
					r = (sx(v[h.a], uint64(h.sa)) * sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nAnd:
					r = (sx(v[h.a], uint64(h.sa)) & sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nOr:
					r = (sx(v[h.a], uint64(h.sa)) | sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nXor:
					r = (sx(v[h.a], uint64(h.sa)) ^ sx(v[h.b], uint64(h.sb))) & mask(bw)
				case nNot:
					r = ^sx(v[h.a], uint64(h.sa)) & mask(bw)
				case nNeg:
					r = -sx(v[h.a], uint64(h.sa)) & mask(bw)
				case nShlC:
					r = (v[h.a] << uint64(h.k)) & mask(bw)
				case nShl:
					r = shl(v[h.a], v[h.b], bw, mask(bw))
				case nShr:
					r = shr(v[h.a], v[h.b], bw)
				case nSra:
					r = sra(v[h.a], v[h.b], bw, mask(bw))
				case nEq:
					r = b2u(sx(v[h.a], uint64(h.sa)) == sx(v[h.b], uint64(h.sb)))
				case nNe:
					r = b2u(sx(v[h.a], uint64(h.sa)) != sx(v[h.b], uint64(h.sb)))
				case nLtU:
					r = b2u(sx(v[h.a], uint64(h.sa)) < sx(v[h.b], uint64(h.sb)))
				case nLeU:
					r = b2u(sx(v[h.a], uint64(h.sa)) <= sx(v[h.b], uint64(h.sb)))
				case nLtS:
					r = b2u(int64(sx(v[h.a], uint64(h.sa))) < int64(sx(v[h.b], uint64(h.sb))))
				case nLeS:
					r = b2u(int64(sx(v[h.a], uint64(h.sa))) <= int64(sx(v[h.b], uint64(h.sb))))
				case nMux:
					r = mux(v[h.a], v[h.b], v[h.k])
				case nCat:
					for _, c := range cat[h.k : h.k+int32(h.sa)] {
						r = r<<uint64(c.w) | v[c.off]
					}
				case nSlice:
					r = (v[h.a] >> uint64(h.k)) & mask(bw)
				case nSext:
					r = sx(v[h.a], 64-uint64(h.k)) & mask(bw)
				case nCopy:
					r = v[h.a]
				case nRedAnd:
					r = b2u(v[h.a] == mask(uint64(h.k)))
				case nRedOr:
					r = b2u(v[h.a] != 0)
				case nRedXor:
					r = uint64(bits.OnesCount64(v[h.a]) & 1)
				} // End of the generated cases.
				if v[h.dst] == r {
					continue
				}
				v[h.dst] = r
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
	return evals
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

// eval computes one node at build time, for constant folding: a narrow
// one through evalDirty as the only node, with an empty fan-out.
func (s *Sim) eval(n *node) {
	if n.op >= wAdd {
		s.evalWide(n)
		return
	}
	h := hotOf(n)
	h.fw, h.fm = -1, 0 // the marks s.marks[0:0]
	s.evalDirty([]hnode{h}, []uint64{1})
}
