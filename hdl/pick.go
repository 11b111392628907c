package hdl

// Pick returns values[sel] where sel < len(values) and def elsewhere: a
// balanced tree of two-way muxes on the bits of sel, log2(len(values))
// muxes deep, where the chain Mux(sel == i, values[i], …) is len(values)
// deep and needs a comparator per entry. Values of mixed widths widen as
// in Mux; def must have their signedness.
func Pick(sel Value, values []Value, def Value) *Expr {
	s, d := sel.node(), def.node()
	if len(values) == 0 {
		return d
	}
	level := make([]*Expr, len(values))
	for i, v := range values {
		level[i] = v.node()
	}
	bit := 0
	for ; len(level) > 1 && bit < s.Width(); bit++ {
		next := make([]*Expr, (len(level)+1)/2)
		for i := range next {
			odd := d // past the end: the default
			if 2*i+1 < len(level) {
				odd = level[2*i+1]
			}
			next[i] = Mux(s.Bit(bit), odd, level[2*i])
		}
		level = next
	}
	out := level[0]
	if bit < s.Width() {
		// The tree covers 2^bit >= len(values) indices: a higher bit set
		// is past the end.
		out = Mux(s.Slice(s.Width()-1, bit).OrR(), d, out)
	}
	return out
}
