package sim

// The partitioned interpreter: supernodes evaluated whole at a settle,
// sink groups committed whole at an edge.

import (
	"fmt"
	"math/bits"
)

// settleParts evaluates the dirty supernodes in index order and returns
// how many nodes it evaluated. A supernode marks only later ones (they
// are numbered in topological order), so one forward pass, re-reading
// the word being worked on, evaluates each at most once, after all it
// reads.
func (s *Sim) settleParts() (evals uint64) {
	d := s.dirty
	for w := range d {
		for d[w] != 0 {
			x := d[w]
			j := w<<6 | bits.TrailingZeros64(x)
			d[w] = x & (x - 1)
			p := &s.parts[j]
			if s.tr == nil {
				s.evalRuns(p)
			} else {
				s.evalPart(p.lo, p.hi)
			}
			evals += uint64(p.hi - p.lo)
			if p.aw >= 0 {
				s.bits[p.aw] |= p.am
			} else {
				s.fire(markRange{-p.aw - 1, int32(p.am)})
			}
		}
	}
	return evals
}

// run is the nodes lo..hi-1 of one supernode, all of one operator: the
// interpreter dispatches once per run (nodes of a supernode are sorted
// by operator within each level, which makes runs of the same cone of
// sibling instances). In an extending run every node sign-extends an
// operand (node.sa, node.sb); in the others none does.
type run struct {
	op     opcode
	ext    bool
	lo, hi int32
}

// evalRuns evaluates supernode p run by run, each with the loop of its
// operator. Only the nodes read outside the supernode (outFlag) compare
// their result and mark their fan-out (put).
func (s *Sim) evalRuns(p *part) {
	v, cat, marks, hot := s.v, s.cat, s.bits, s.hot
	for _, rn := range s.runs[p.rlo:p.rhi] {
		if rn.ext {
			s.evalExtRun(rn)
			continue
		}
		switch rn.op {
		default:
			s.evalWideRun(rn)
			// The run loops are generated from the operator table (go generate).
		case nAdd:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]+v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nSub:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]-v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nMul:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]*v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nAnd:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]&v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nOr:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]|v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nXor:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]^v[h.b])&mask(uint64(h.w&^outFlag)))
			}
		case nNot:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, ^v[h.a]&mask(uint64(h.w&^outFlag)))
			}
		case nNeg:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, -v[h.a]&mask(uint64(h.w&^outFlag)))
			}
		case nShlC:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]<<uint64(h.k))&mask(uint64(h.w&^outFlag)))
			}
		case nShl:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, shl(v[h.a], v[h.b], uint64(h.w&^outFlag), mask(uint64(h.w&^outFlag))))
			}
		case nShr:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, shr(v[h.a], v[h.b], uint64(h.w&^outFlag)))
			}
		case nSra:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, sra(v[h.a], v[h.b], uint64(h.w&^outFlag), mask(uint64(h.w&^outFlag))))
			}
		case nEq:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] == v[h.b]))
			}
		case nNe:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] != v[h.b]))
			}
		case nLtU:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] < v[h.b]))
			}
		case nLeU:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] <= v[h.b]))
			}
		case nLtS:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(int64(v[h.a]) < int64(v[h.b])))
			}
		case nLeS:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(int64(v[h.a]) <= int64(v[h.b])))
			}
		case nMux:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, mux(v[h.a], v[h.b], v[h.k]))
			}
		case nCat:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				var r uint64
				for _, c := range cat[h.k : h.k+int32(h.sa)] {
					r = r<<uint64(c.w) | v[c.off]
				}
				s.put(v, marks, h, r)
			}
		case nSlice:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, (v[h.a]>>uint64(h.k))&mask(uint64(h.w&^outFlag)))
			}
		case nSext:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, sx(v[h.a], 64-uint64(h.k))&mask(uint64(h.w&^outFlag)))
			}
		case nCopy:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, v[h.a])
			}
		case nRedAnd:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] == mask(uint64(h.k))))
			}
		case nRedOr:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, b2u(v[h.a] != 0))
			}
		case nRedXor:
			for j := rn.lo; j < rn.hi; j++ {
				h := &hot[j]
				s.put(v, marks, h, uint64(bits.OnesCount64(v[h.a])&1))
			}
		} // End of the generated run loops.
	}
}

// evalWideRun evaluates a run of multi-word operators.
func (s *Sim) evalWideRun(rn run) {
	for j := rn.lo; j < rn.hi; j++ {
		if s.evalWide(&s.nodes[j]) {
			s.fireFan(s.hot[j].fw, s.hot[j].fm)
		}
	}
}

// evalExtRun evaluates an extending run.
func (s *Sim) evalExtRun(rn run) {
	v, marks, hot := s.v, s.bits, s.hot
	switch rn.op {
	default:
		panic(fmt.Sprintf("sim: internal: no extending run of opcode %d", rn.op))
		// The extending run loops are generated from the operator table (go generate).
	case nAdd:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))+sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nSub:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))-sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nMul:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))*sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nAnd:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))&sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nOr:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))|sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nXor:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, (sx(v[h.a], uint64(h.sa))^sx(v[h.b], uint64(h.sb)))&mask(uint64(h.w&^outFlag)))
		}
	case nNot:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, ^sx(v[h.a], uint64(h.sa))&mask(uint64(h.w&^outFlag)))
		}
	case nNeg:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, -sx(v[h.a], uint64(h.sa))&mask(uint64(h.w&^outFlag)))
		}
	case nEq:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(sx(v[h.a], uint64(h.sa)) == sx(v[h.b], uint64(h.sb))))
		}
	case nNe:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(sx(v[h.a], uint64(h.sa)) != sx(v[h.b], uint64(h.sb))))
		}
	case nLtU:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(sx(v[h.a], uint64(h.sa)) < sx(v[h.b], uint64(h.sb))))
		}
	case nLeU:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(sx(v[h.a], uint64(h.sa)) <= sx(v[h.b], uint64(h.sb))))
		}
	case nLtS:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(int64(sx(v[h.a], uint64(h.sa))) < int64(sx(v[h.b], uint64(h.sb)))))
		}
	case nLeS:
		for j := rn.lo; j < rn.hi; j++ {
			h := &hot[j]
			s.put(v, marks, h, b2u(int64(sx(v[h.a], uint64(h.sa))) <= int64(sx(v[h.b], uint64(h.sb)))))
		}
	} // End of the generated extending run loops.
}

// put stores the result r of node h: a node read outside its supernode
// compares it and marks its fan-out when it changed.
func (s *Sim) put(v, marks []uint64, h *hnode, r uint64) {
	if h.w&outFlag == 0 {
		v[h.dst] = r
		return
	}
	if v[h.dst] != r {
		v[h.dst] = r
		if h.fw >= 0 {
			marks[h.fw] |= h.fm
		} else {
			s.fire(markRange{-h.fw - 1, int32(h.fm)})
		}
	}
}

// evalPart evaluates the nodes lo..hi-1 in order, node by node, for a
// trace: every node compares its result, to record its changes.
func (s *Sim) evalPart(lo, hi int32) {
	v, cat, marks := s.v, s.cat, s.bits
	traced := s.tr != nil
	for j := lo; j < hi; j++ {
		h := &s.hot[j]
		if h.op >= wAdd {
			if s.evalWide(&s.nodes[j]) {
				if traced {
					s.tr.mark(s.nodes[j].slot)
				}
				s.fireFan(h.fw, h.fm)
			}
			continue
		}
		bw := uint64(h.w &^ outFlag)
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
		if h.w&outFlag == 0 && !traced {
			v[h.dst] = r
			continue
		}
		if v[h.dst] == r {
			continue
		}
		v[h.dst] = r
		if traced {
			s.tr.mark(s.nodes[j].slot)
		}
		if h.fw >= 0 {
			marks[h.fw] |= h.fm
		} else {
			s.fire(markRange{-h.fw - 1, int32(h.fm)})
		}
	}
}

// edgeGroups commits the armed sink groups in index order, each sink of
// a group in index order (see edge), and returns how many sinks it
// visited. A commit marks only groups up to its own (readers of state
// come first), which wait for the next edge: the word of armed groups is
// taken whole before its groups are committed.
func (s *Sim) edgeGroups(rst bool) (visits uint64) {
	gd := s.sdirty
	fast := !rst && s.tr == nil
	for w := range gd {
		x := gd[w]
		if x == 0 {
			continue
		}
		gd[w] = 0
		for x != 0 {
			g := &s.groups[w<<6|bits.TrailingZeros64(x)]
			x &= x - 1
			visits += uint64(g.hi - g.lo)
			var chg uint64
			if fast && g.regs {
				chg = commitRegs(s.v, s.regs[g.lo:g.hi])
			} else {
				chg = s.commitGroup(g, rst)
			}
			if chg != 0 {
				s.fireFan(g.fw, g.fm)
			}
		}
	}
	return visits
}

// commitRegs commits one-word registers (visit's fast path, see
// edgeSinks) without a branch: registers that hold and ones that load,
// changed or not, commit the same way, and only their group as a whole
// marks its fan-out. It returns the bits that changed.
func commitRegs(v []uint64, regs []reg) (chg uint64) {
	for _, k := range regs {
		o := v[k.off]
		d := (v[k.next] ^ o) & -v[k.en]
		v[k.off] = o ^ d
		chg |= d
	}
	return chg
}

// commitGroup commits group g sink by sink, the one-word registers as
// commitRegs does (out of reset and untraced), the others through visit.
func (s *Sim) commitGroup(g *group, rst bool) (chg uint64) {
	fast := !rst && s.tr == nil
	for j := g.lo; j < g.hi; j++ {
		if !s.hsinks[j].fast || !fast {
			s.visit(j, &s.sinks[j], rst)
			continue
		}
		chg |= commitRegs(s.v, s.regs[j:j+1])
	}
	return chg
}
