package sim

import "math/bits"

// Multi-word values are little-endian []uint64 with the bits above the
// width kept 0, like narrow values. Every function here works for any
// number of words, one included, so mixed narrow/wide operators need no
// special case.

// topMask is the mask of the most significant word of a w-bit value.
func topMask(w int) uint64 {
	if r := uint(w) & 63; r != 0 {
		return 1<<r - 1
	}
	return ^uint64(0)
}

func bit(a []uint64, i int) uint64 { return a[i>>6] >> (uint(i) & 63) & 1 }

// amount reads a shift amount; anything beyond 64 bits saturates.
func amount(a []uint64) uint64 {
	for _, x := range a[1:] {
		if x != 0 {
			return ^uint64(0)
		}
	}
	return a[0]
}

func addW(d, a, b []uint64) {
	var c uint64
	for i := range d {
		d[i], c = bits.Add64(a[i], b[i], c)
	}
}

func subW(d, a, b []uint64) {
	var c uint64
	for i := range d {
		d[i], c = bits.Sub64(a[i], b[i], c)
	}
}

// mulW is schoolbook multiplication keeping only len(d) words: the result
// is taken modulo 2^w anyway, so the upper half is never computed. a and b
// have len(d) words (operands already extended to the result width).
func mulW(d, a, b []uint64) {
	n := len(d)
	clear(d)
	for i := 0; i < n; i++ {
		ai := a[i]
		if ai == 0 {
			continue
		}
		var carry uint64
		for j := 0; i+j < n; j++ {
			hi, lo := bits.Mul64(ai, b[j])
			var c uint64
			lo, c = bits.Add64(lo, d[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			d[i+j] = lo
			carry = hi
		}
	}
}

func negW(d, a []uint64) {
	var c uint64
	for i := range d {
		d[i], c = bits.Sub64(0, a[i], c)
	}
}

// shlW sets d = a << s for s < 64*len(d); d and a have the same length.
func shlW(d, a []uint64, s uint64) {
	ws, bs := int(s>>6), uint(s&63)
	for i := len(d) - 1; i >= 0; i-- {
		j := i - ws
		var x uint64
		if j >= 0 {
			x = a[j] << bs
			if bs != 0 && j > 0 {
				x |= a[j-1] >> (64 - bs)
			}
		}
		d[i] = x
	}
}

// shrW sets d = a >> s, reading fill for the words above a (0 for a
// logical shift, all ones for an arithmetic shift of a negative value
// whose top word is already sign-filled). d may be shorter than a, which
// makes it a bit-field extraction.
func shrW(d, a []uint64, s uint64, fill uint64) {
	n := len(a)
	ws, bs := s>>6, uint(s&63)
	get := func(j uint64) uint64 {
		if j < uint64(n) {
			return a[j]
		}
		return fill
	}
	for i := range d {
		j := uint64(i) + ws
		x := get(j) >> bs
		if bs != 0 {
			x |= get(j+1) << (64 - bs)
		}
		d[i] = x
	}
}

// orAt sets d |= a << pos, dropping bits beyond d.
func orAt(d, a []uint64, pos int) {
	ws, bs := pos>>6, uint(pos&63)
	for i, x := range a {
		k := i + ws
		if k >= len(d) {
			return
		}
		d[k] |= x << bs
		if bs != 0 && k+1 < len(d) {
			d[k+1] |= x >> (64 - bs)
		}
	}
}

func cmpU(a, b []uint64) int {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// cmpS compares w-bit two's complement values: with equal signs the
// unsigned order is the signed order.
func cmpS(a, b []uint64, w int) int {
	sa, sb := bit(a, w-1), bit(b, w-1)
	if sa != sb {
		if sa == 1 {
			return -1
		}
		return 1
	}
	return cmpU(a, b)
}

func eqW(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// extW sets d (width w) to a (width aw <= w), sign-extended if signed.
func extW(d, a []uint64, aw int, signed bool) {
	copy(d, a)
	clear(d[len(a):])
	if signed && bit(a, aw-1) == 1 {
		d[len(a)-1] |= ^topMask(aw)
		for i := len(a); i < len(d); i++ {
			d[i] = ^uint64(0)
		}
	}
}

// evalWide computes a node with a multi-word result or operand into a
// scratch buffer and reports whether the result slot changed.
func (s *Sim) evalWide(n *node) bool {
	w := int(n.w)
	nw := nwords(w)
	v := s.v
	d := s.tmp[:nw]
	var a, b []uint64
	if n.a >= 0 {
		a = v[n.a : int(n.a)+nwords(int(n.aw))]
	}
	if n.b >= 0 {
		b = v[n.b : int(n.b)+nwords(int(n.bw))]
	}
	switch n.op {
	case wAdd:
		addW(d, a, b)
	case wSub:
		subW(d, a, b)
	case wMul:
		mulW(d, a, b)
	case wAnd:
		for i := range d {
			d[i] = a[i] & b[i]
		}
	case wOr:
		for i := range d {
			d[i] = a[i] | b[i]
		}
	case wXor:
		for i := range d {
			d[i] = a[i] ^ b[i]
		}
	case wNot:
		for i := range d {
			d[i] = ^a[i]
		}
	case wNeg:
		negW(d, a)
	case wShlC:
		shlW(d, a, uint64(n.k))
	case wShl:
		if amt := amount(b); amt < uint64(w) {
			shlW(d, a, amt)
		} else {
			clear(d)
		}
	case wShr, wSra:
		amt := amount(b)
		var fill uint64
		src := a
		if n.op == wSra && bit(a, w-1) == 1 {
			fill = ^uint64(0)
			src = s.tmp2[:nw]
			copy(src, a)
			src[nw-1] |= ^topMask(w)
		}
		if amt >= uint64(w) {
			for i := range d {
				d[i] = fill
			}
		} else {
			shrW(d, src, amt, fill)
		}
	case wEq:
		d[0] = b2u(eqW(a, b))
	case wNe:
		d[0] = b2u(!eqW(a, b))
	case wLtU:
		d[0] = b2u(cmpU(a, b) < 0)
	case wLeU:
		d[0] = b2u(cmpU(a, b) <= 0)
	case wLtS:
		d[0] = b2u(cmpS(a, b, int(n.aw)) < 0)
	case wLeS:
		d[0] = b2u(cmpS(a, b, int(n.aw)) <= 0)
	case wMux:
		src := v[n.c : int(n.c)+nw]
		if v[n.a] != 0 {
			src = v[n.b : int(n.b)+nw]
		}
		copy(d, src)
	case wCat:
		clear(d)
		pos := w
		for _, x := range s.cat[n.k : n.k+n.k2] {
			pos -= int(x.w)
			orAt(d, v[x.off:int(x.off)+nwords(int(x.w))], pos)
		}
	case wSlice:
		shrW(d, a, uint64(n.k), 0)
	case wSext, wZext:
		extW(d, a, int(n.aw), n.op == wSext)
	case wRedAnd:
		all := true
		for i, x := range a {
			m := ^uint64(0)
			if i == len(a)-1 {
				m = topMask(int(n.aw))
			}
			all = all && x == m
		}
		d[0] = b2u(all)
	case wRedOr:
		some := false
		for _, x := range a {
			some = some || x != 0
		}
		d[0] = b2u(some)
	case wRedXor:
		p := 0
		for _, x := range a {
			p += bits.OnesCount64(x)
		}
		d[0] = uint64(p & 1)
	}
	d[nw-1] &= topMask(w)
	dst := v[n.dst : int(n.dst)+nw]
	if eqW(dst, d) {
		return false
	}
	copy(dst, d)
	return true
}
