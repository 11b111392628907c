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
	s.dsum[i>>12] |= 1 << uint(i>>6&63)
}

func (s *Sim) markSink(i int32) {
	s.sdirty[i>>6] |= 1 << uint(i&63)
	s.ssum[i>>12] |= 1 << uint(i>>6&63)
}

// changed schedules the fan-out of a slot whose value just changed.
func (s *Sim) changed(id int32) {
	if s.tr != nil {
		s.tr.mark(id)
	}
	s.fire(s.fan[id])
}

// fire marks a fan-out: nodes in the dirty bitmap, sinks in the pending
// bitmap, and their words in the summaries.
func (s *Sim) fire(r fanRange) {
	if r.sink > r.node {
		d, sum := s.dirty, s.dsum
		for _, t := range s.fanout[r.node:r.sink] {
			d[t>>6] |= 1 << uint(t&63)
			sum[t>>12] |= 1 << uint(t>>6&63)
		}
	}
	if r.end > r.sink {
		d, sum := s.sdirty, s.ssum
		for _, k := range s.fanout[r.sink:r.end] {
			d[k>>6] |= 1 << uint(k&63)
			sum[k>>12] |= 1 << uint(k>>6&63)
		}
	}
}

// settle evaluates the dirty nodes in index order, which is level order.
// A node's fan-out always has a higher index, so it is marked ahead of the
// scan and picked up in the same pass: each node runs at most once.
func (s *Sim) settle() {
	if s.cc != nil && s.tr == nil {
		s.evals += s.cc.settle()
		return
	}
	d, sum := s.dirty, s.dsum
	nodes := s.nodes
	var evals uint64
	for i := range sum {
		for sum[i] != 0 {
			bw := bits.TrailingZeros64(sum[i])
			w := i<<6 | bw
			x := d[w]
			d[w] = 0
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &= x - 1
				n := &nodes[w<<6|b]
				evals++
				if s.eval(n) {
					if s.tr != nil {
						s.tr.mark(n.slot)
					}
					s.fire(n.fan)
					// The fan-out lies above this node: what it marked in
					// this word joins the bits still to do.
					x |= d[w]
					d[w] = 0
				}
			}
			sum[i] &^= 1 << uint(bw)
		}
	}
	s.evals += evals
}

// evalWideNode evaluates node i for compiled code, which leaves the
// multi-word operators to the interpreter.
func (s *Sim) evalWideNode(i int32) bool { return s.evalWide(&s.nodes[i]) }

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
