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
	w := i >> 6
	s.dirty[w] |= 1 << uint(i&63)
	s.lo = min(s.lo, w)
	s.hi = max(s.hi, w)
}

func (s *Sim) markSink(i int32) {
	if s.pendFlag[i] {
		return
	}
	s.pendFlag[i] = true
	s.pending = append(s.pending, i)
}

// changed schedules the fan-out of a slot whose value just changed.
func (s *Sim) changed(id int32) {
	if s.tr != nil {
		s.tr.mark(id)
	}
	r := s.fan[id]
	if r.sink > r.node {
		fan := s.fanout[r.node:r.sink]
		d := s.dirty
		for _, t := range fan {
			d[t>>6] |= 1 << uint(t&63)
		}
		s.lo = min(s.lo, fan[0]>>6)
		s.hi = max(s.hi, fan[len(fan)-1]>>6)
	}
	for _, k := range s.fanout[r.sink:r.end] {
		s.markSink(k)
	}
}

// settle evaluates the dirty nodes in index order, which is level order.
// A node's fan-out always has a higher index, so it is marked ahead of the
// scan and picked up in the same pass: each node runs at most once.
func (s *Sim) settle() {
	d := s.dirty
	for w := s.lo; w <= s.hi; w++ {
		for d[w] != 0 {
			b := bits.TrailingZeros64(d[w])
			d[w] &^= 1 << uint(b)
			n := &s.nodes[int(w)<<6|b]
			s.evals++
			if s.eval(n) {
				s.changed(n.slot)
			}
		}
	}
	s.lo, s.hi = int32(len(d)), -1
}

// opA and opB read a node's operands, sign-extended to 64 bits when the
// node says so (see node.sa).
func (n *node) opA(v []uint64) uint64 { return uint64(int64(v[n.a]<<n.sa) >> n.sa) }
func (n *node) opB(v []uint64) uint64 { return uint64(int64(v[n.b]<<n.sb) >> n.sb) }

// eval computes one node and reports whether its value changed.
func (s *Sim) eval(n *node) bool {
	if n.op >= wAdd {
		return s.evalWide(n)
	}
	v := s.v
	var r uint64
	switch n.op {
	case nAdd:
		r = (n.opA(v) + n.opB(v)) & mask64(n.w)
	case nSub:
		r = (n.opA(v) - n.opB(v)) & mask64(n.w)
	case nMul:
		r = (n.opA(v) * n.opB(v)) & mask64(n.w)
	case nAnd:
		r = (n.opA(v) & n.opB(v)) & mask64(n.w)
	case nOr:
		r = (n.opA(v) | n.opB(v)) & mask64(n.w)
	case nXor:
		r = (n.opA(v) ^ n.opB(v)) & mask64(n.w)
	case nNot:
		r = ^n.opA(v) & mask64(n.w)
	case nNeg:
		r = -n.opA(v) & mask64(n.w)
	case nShlC:
		r = (v[n.a] << uint(n.k)) & mask64(n.w)
	case nShl:
		if amt := v[n.b]; amt < uint64(n.w) {
			r = (v[n.a] << amt) & mask64(n.w)
		}
	case nShr:
		if amt := v[n.b]; amt < uint64(n.w) {
			r = v[n.a] >> amt
		}
	case nSra:
		amt := v[n.b]
		if amt >= uint64(n.w) {
			amt = uint64(n.w) - 1 // every bit becomes the sign bit
		}
		r = uint64(sext64(v[n.a], n.w)>>amt) & mask64(n.w)
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
			r = v[n.c]
		}
	case nCat:
		for _, a := range s.cat[n.k : n.k+n.k2] {
			r = r<<uint(a.w) | v[a.off]
		}
	case nSlice:
		r = (v[n.a] >> uint(n.k)) & mask64(n.w)
	case nSext:
		r = uint64(sext64(v[n.a], n.aw)) & mask64(n.w)
	case nCopy:
		r = v[n.a]
	case nRedAnd:
		r = b2u(v[n.a] == mask64(n.aw))
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
