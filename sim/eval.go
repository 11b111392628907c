package sim

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

// settle evaluates the dirty nodes, with the generated code when there
// is (and no trace wants every change), else with evalDirty.
func (s *Sim) settle() {
	if !s.nodesDue {
		return
	}
	s.nodesDue = false
	var n uint64
	if s.plug != nil && s.tr == nil {
		n = s.plug.settle()
	} else {
		n = s.evalDirty(s.hot, s.dirty)
	}
	if n > 0 {
		s.evals += n
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
