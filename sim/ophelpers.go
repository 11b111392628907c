package sim

// The functions the operator table's expressions call (internal/optab).
// The cases of the interpreter's evaluation loop call them here, and the
// source of this file goes into every generated plugin, which is why it
// imports nothing and holds nothing else.

// b2u is 1 for true.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mask is 2^w-1 for 1 <= w <= 64. (The &63 changes nothing there; it
// tells the compiler the shift is below 64, which spares a test.)
func mask(w uint64) uint64 { return ^uint64(0) >> ((64 - w) & 63) }

// sx sign-extends x from bit 63-sh (sh = 0: x as it is), 0 <= sh < 64.
func sx(x, sh uint64) uint64 { return uint64(int64(x<<(sh&63)) >> (sh & 63)) }

func mux(sel, a, b uint64) uint64 {
	if sel != 0 {
		return a
	}
	return b
}

// shl, shr and sra shift a w-bit value by a variable amount; shifting
// out every bit leaves 0, or the sign for sra.
func shl(a, amt, w, m uint64) uint64 {
	if amt < w {
		return (a << amt) & m
	}
	return 0
}

func shr(a, amt, w uint64) uint64 {
	if amt < w {
		return a >> amt
	}
	return 0
}

func sra(a, amt, w, m uint64) uint64 {
	if amt >= w {
		amt = w - 1
	}
	return uint64(int64(sx(a, 64-w))>>amt) & m
}
