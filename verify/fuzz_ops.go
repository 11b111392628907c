package verify

// The random operations of a design: one per operator kind, and the
// live, opaque and address operands they need.

import (
	"math/bits"

	"github.com/hwgen/hwgen/hdl"
)

// op builds one random operation of kind k (fuzz_gen.go lists the
// kinds), by operator family.
func (g *gen) op(k string) *hdl.Expr {
	switch k {
	case "not", "neg", "andr", "orr", "xorr":
		return g.unaryOp(k)
	case "add", "sub", "mul":
		return g.arithOp(k)
	case "and", "or", "xor":
		return g.bitwiseOp(k)
	case "shlc", "shl", "shlwrap", "shr", "shrc":
		return g.shiftOp(k)
	case "eq", "ne", "lt", "le", "gt", "ge":
		return g.compareOp(k)
	case "mux", "cat":
		return g.combineOp(k)
	case "slice", "bit", "ext", "trunc", "resize", "assint", "asuint":
		return g.widthOp(k)
	case "const":
		return g.constOp()
	case "wire":
		return g.wireOp()
	}
	panic("verify: unknown fuzz operation " + k)
}

// unaryOp: not, neg and the reductions.
func (g *gen) unaryOp(k string) *hdl.Expr {
	maxW := g.opts.MaxWidth
	switch k {
	case "not":
		return g.operand(g.typ(maxW)).Not()
	case "neg":
		return g.operand(g.typ(maxW - 1)).Neg()
	case "andr":
		return g.operand(g.typ(maxW)).AndR()
	case "orr":
		return g.operand(g.typ(maxW)).OrR()
	}
	return g.operand(g.typ(maxW)).XorR()
}

// arithOp: add, sub and mul.
func (g *gen) arithOp(k string) *hdl.Expr {
	r := g.r
	maxW := g.opts.MaxWidth
	if k == "mul" {
		w := g.width(2, maxW)
		wa := 1 + r.IntN(w-1)
		if r.IntN(3) == 0 {
			wa = w / 2 // 32x32, 64x64: the word boundaries of the product
		}
		signed := r.IntN(2) == 0
		return g.operand(hdl.Type{Width: wa, Signed: signed}).Mul(g.operand(hdl.Type{Width: w - wa, Signed: signed}))
	}
	t := g.typ(maxW - 1)
	a, b := g.operand(t), g.operandOfSign(t, maxW-1)
	if r.IntN(2) == 0 {
		a, b = b, a
	}
	if k == "add" {
		return a.Add(b)
	}
	return a.Sub(b)
}

// bitwiseOp: and, or and xor.
func (g *gen) bitwiseOp(k string) *hdl.Expr {
	maxW := g.opts.MaxWidth
	t := g.typ(maxW)
	a, b := g.operand(t), g.operandOfSign(t, maxW)
	switch k {
	case "and":
		return a.And(b)
	case "or":
		return a.Or(b)
	}
	return a.Xor(b)
}

// shiftOp: the constant, growing, wrapping and right shifts.
func (g *gen) shiftOp(k string) *hdl.Expr {
	r := g.r
	maxW := g.opts.MaxWidth
	switch k {
	case "shlc":
		t := g.typ(maxW - 1)
		n := 1 + r.IntN(maxW-t.Width)
		if r.IntN(2) == 0 {
			n = 1 + r.IntN(min(8, maxW-t.Width))
		}
		g.feat["ShlConst"]++
		return g.operand(t).ShlConst(n)
	case "shl":
		t := g.typ(maxW - 1)
		kmax := min(7, bits.Len(uint(maxW-t.Width+1))-1) // w + 2^k - 1 <= maxW
		g.feat["Shl (growing)"]++
		return g.operand(t).Shl(g.operand(hdl.UInt(1 + r.IntN(kmax))))
	case "shlwrap":
		g.feat["ShlWrap"]++
		t := g.typ(maxW)
		return g.operand(t).ShlWrap(g.amount(t.Width))
	case "shr":
		t := g.typ(maxW)
		if t.Signed {
			g.feat["Shr (arithmetic)"]++
		} else {
			g.feat["Shr (logical)"]++
		}
		return g.operand(t).Shr(g.amount(t.Width))
	}
	t := g.typ(maxW)
	n := 1 + r.IntN(t.Width)
	if r.IntN(3) == 0 {
		n = t.Width + r.IntN(3)
	}
	if n >= t.Width {
		g.feat["ShrConst (n >= width)"]++
	} else {
		g.feat["ShrConst"]++
	}
	return g.operand(t).ShrConst(n)
}

// compareOp: the six comparisons.
func (g *gen) compareOp(k string) *hdl.Expr {
	maxW := g.opts.MaxWidth
	t := g.typ(maxW)
	a, b := g.operand(t), g.operandOfSign(t, maxW)
	if !t.Signed && k != "eq" && k != "ne" && g.avoid(UnsignedCompareConstant) {
		a, b = g.opaqueCompare(a, b)
	}
	switch k {
	case "eq":
		return a.Eq(b)
	case "ne":
		return a.Ne(b)
	case "lt":
		return a.Lt(b)
	case "le":
		return a.Le(b)
	case "gt":
		return a.Gt(b)
	}
	return a.Ge(b)
}

// combineOp: mux and cat.
func (g *gen) combineOp(k string) *hdl.Expr {
	r := g.r
	maxW := g.opts.MaxWidth
	if k == "mux" {
		t := g.typ(maxW)
		return hdl.Mux(g.boolean(), g.operand(t), g.operandOfSign(t, maxW))
	}
	total := g.width(1, maxW)
	var parts []hdl.Value
	for left := total; left > 0; {
		w := 1 + r.IntN(left)
		if len(parts) == 3 {
			w = left
		}
		parts = append(parts, g.operand(hdl.Type{Width: w, Signed: r.IntN(2) == 0}))
		left -= w
	}
	return hdl.Cat(parts...)
}

// widthOp: the selects, width changes and sign casts.
func (g *gen) widthOp(k string) *hdl.Expr {
	r := g.r
	maxW := g.opts.MaxWidth
	switch k {
	case "slice":
		v := g.pick()
		lo := r.IntN(v.Width())
		hi := lo + r.IntN(v.Width()-lo)
		g.feat["Slice"]++
		return v.Slice(hi, lo)
	case "bit":
		v := g.pick()
		g.feat["Bit"]++
		return v.Bit(r.IntN(v.Width()))
	case "ext":
		v := g.pick()
		if v.Width() == maxW {
			v = v.Trunc(maxW - 1 - r.IntN(maxW-1))
		}
		g.feat["Ext"]++
		return v.Ext(g.width(v.Width()+1, maxW))
	case "trunc":
		v := g.pick()
		if v.Width() == 1 {
			v = g.operand(hdl.Type{Width: g.width(2, maxW), Signed: v.Signed()})
		}
		g.feat["Trunc"]++
		return v.Trunc(g.width(1, v.Width()-1))
	case "resize":
		v := g.pick()
		g.feat["Resize"]++
		w := g.width(1, maxW)
		if w == v.Width() {
			w = max(1, w-1)
			if w == v.Width() {
				w++
			}
		}
		return v.Resize(w)
	case "assint":
		g.feat["AsSInt"]++
		return g.operand(hdl.UInt(g.width(1, maxW))).AsSInt()
	}
	g.feat["AsUInt"]++
	return g.operand(hdl.SInt(g.width(1, maxW))).AsUInt()
}

// constOp is a constant-only expression combined with a live value: both
// sides constant-fold their part.
func (g *gen) constOp() *hdl.Expr {
	r := g.r
	t := g.typ(g.opts.MaxWidth - 1)
	c := g.constant(t)
	switch r.IntN(4) {
	case 0:
		c = c.Add(g.constant(t)).Trunc(t.Width)
	case 1:
		c = g.coerce(c.Not(), t)
	case 2:
		c = g.coerce(c.ShrConst(r.IntN(t.Width)+1), t)
	}
	if r.IntN(2) == 0 {
		return c.Xor(g.operand(t))
	}
	return c.Add(g.operand(t))
}

// wireOp names a picked value with a wire.
func (g *gen) wireOp() *hdl.Expr {
	v := g.pick()
	g.feat["named wire"]++
	w := g.m.Wire(g.name("w"), v.Type)
	w.Set(v)
	return &w.Expr
}

const avoidedPrefix = "AVOIDED: "

// avoid reports whether c is to be left out, tallying it when so.
func (g *gen) avoid(c Construct) bool {
	if g.opts.avoids(c) {
		g.feat[avoidedPrefix+string(c)]++
		return true
	}
	return false
}

// live is an operand of type t that is not constant-only.
func (g *gen) live(t hdl.Type) *hdl.Expr {
	for i := 0; i < 20; i++ {
		if x := g.coerce(g.pick(), t); !constOnly(x) {
			return x
		}
	}
	return g.coerce(g.pool[0], t) // the first input
}

// address is an address operand for mem.
func (g *gen) address(mem *hdl.Memory) *hdl.Expr {
	if 1<<mem.AddrType.Width == mem.Depth { // every address is in range
		return g.operand(mem.AddrType)
	}
	return g.opaqueIf(ConstAddressOutOfRange, mem.AddrType)
}

// opaqueCompare replaces the operands of an unsigned ordered comparison
// by values Verilator cannot prove constant (it propagates constants
// through wires, instances and operators such as x*0): registers, memory
// read data and top-level inputs, taken whole. Without such values it
// makes the comparison signed.
func (g *gen) opaqueCompare(a, b *hdl.Expr) (*hdl.Expr, *hdl.Expr) {
	cands := g.opaques()
	if len(cands) == 0 {
		return g.live(a.Type).AsSInt(), g.live(b.Type).AsSInt()
	}
	pick := func() *hdl.Expr { return cands[g.r.IntN(len(cands))].AsUInt() }
	return pick(), pick()
}

// opaques are the values Verilator cannot prove constant.
func (g *gen) opaques() []*hdl.Expr {
	var cands []*hdl.Expr
	for _, x := range g.pool {
		if x.Op == hdl.OpSignal && (x.Sig.Kind == hdl.Reg || x.Sig.Kind == hdl.MemRead || g.isTop && x.Sig.Kind == hdl.Input) {
			cands = append(cands, x)
		}
	}
	return cands
}

// opaqueIf is operand(t), or when c is avoided a value of type t built
// from a register, memory data or top-level input by extension or bit
// selection, which Verilator cannot prove constant either.
func (g *gen) opaqueIf(c Construct, t hdl.Type) *hdl.Expr {
	if !g.avoid(c) {
		return g.operand(t)
	}
	if cands := g.opaques(); len(cands) > 0 {
		return g.coerce(cands[g.r.IntN(len(cands))], t)
	}
	return g.live(t)
}

// constOnly reports whether x depends on no signal.
func constOnly(x *hdl.Expr) bool {
	if x.Op == hdl.OpConst {
		return true
	}
	if x.Op == hdl.OpSignal {
		return false
	}
	for _, a := range x.Args {
		if !constOnly(a) {
			return false
		}
	}
	return true
}
