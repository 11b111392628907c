package hdl

import (
	"fmt"
	"math/big"
)

// Op is the operation of an expression node.
//
// The constructors normalise operands so that back ends never extend
// implicitly: the Args of Add, Sub, Mul, And, Or, Xor, the comparisons and
// the data arms of Mux all have exactly the same Type; the Arg of Neg and of
// the shifts already has the result type. Only Ext, Trunc, Slice, Cat, As*
// and the reductions change width.
type Op int

const (
	OpConst  Op = iota // Const holds the bits
	OpSignal           // Sig names the signal
	OpNot
	OpNeg
	OpRedAnd
	OpRedOr
	OpRedXor
	OpAdd
	OpSub
	OpMul
	OpAnd
	OpOr
	OpXor
	OpShlConst // Args[0] << Amount, modulo the width
	OpShl      // Args[0] << Args[1], modulo the width
	OpShr      // Args[0] >> Args[1]; arithmetic when Args[0] is signed
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpMux   // Args[0] ? Args[1] : Args[2]
	OpCat   // Args[0] is the most significant part
	OpSlice // bits Hi..Lo of Args[0]
	OpExt   // zero- or sign-extends Args[0] (by its signedness) to Type.Width
	OpTrunc // low Type.Width bits of Args[0], same signedness
	OpAsSInt
	OpAsUInt
	numOps
)

var opNames = [...]string{
	OpConst: "const", OpSignal: "signal", OpNot: "not", OpNeg: "neg",
	OpRedAnd: "andr", OpRedOr: "orr", OpRedXor: "xorr",
	OpAdd: "add", OpSub: "sub", OpMul: "mul", OpAnd: "and", OpOr: "or", OpXor: "xor",
	OpShlConst: "shlc", OpShl: "shl", OpShr: "shr",
	OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le", OpGt: "gt", OpGe: "ge",
	OpMux: "mux", OpCat: "cat", OpSlice: "slice", OpExt: "ext", OpTrunc: "trunc",
	OpAsSInt: "assint", OpAsUInt: "asuint",
}

func (o Op) String() string {
	if o >= 0 && o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", int(o))
}

// IsCompare reports whether o is one of eq, ne, lt, le, gt, ge.
func (o Op) IsCompare() bool { return o >= OpEq && o <= OpGe }

// Value is anything usable as an operand: an *Expr or a *Signal.
type Value interface {
	node() *Expr
}

// Expr is one node of a module's expression graph.
type Expr struct {
	Op     Op
	Type   Type
	Args   []*Expr
	Const  *big.Int // OpConst: the bits, 0 <= Const < 2^Width
	Sig    *Signal  // OpSignal
	Hi, Lo int      // OpSlice
	Amount int      // OpShlConst
	Pos    string   // where the user built it

	mod *Module // owning module; nil for constant-only expressions
	err []error // errors of a constant-only expression, handed to the first module that uses it
}

func (e *Expr) node() *Expr { return e }

// Width is shorthand for e.Type.Width.
func (e *Expr) Width() int { return e.Type.Width }

// Signed is shorthand for e.Type.Signed.
func (e *Expr) Signed() bool { return e.Type.Signed }

// ---- constants ----

// U is an unsigned constant of w bits.
func U(w int, v uint64) *Expr { return Const(UInt(w), new(big.Int).SetUint64(v)) }

// S is a signed constant of w bits.
func S(w int, v int64) *Expr { return Const(SInt(w), big.NewInt(v)) }

// Const is a constant of type t; v must fit t.
func Const(t Type, v *big.Int) *Expr {
	e := &Expr{Op: OpConst, Type: t, Pos: callerPos()}
	if !t.valid() {
		e.fail("constant width %d outside 1..%d", t.Width, MaxWidth)
		e.Type = UInt(1)
		e.Const = new(big.Int)
		return e
	}
	if !t.Fits(v) {
		e.fail("constant %s does not fit %s", v, t)
	}
	e.Const = t.Bits(v)
	return e
}

// ---- construction helpers ----

// newNode builds a node, inheriting the module of its arguments and the
// pending errors of constant-only arguments.
func newNode(pos string, op Op, t Type, args ...*Expr) *Expr {
	e := &Expr{Op: op, Type: t, Args: args, Pos: pos}
	for _, a := range args {
		if a.mod != nil {
			if e.mod == nil {
				e.mod = a.mod
			} else if e.mod != a.mod {
				e.fail("operands come from two modules (%s and %s); connect them through instance ports", e.mod.Name, a.mod.Name)
			}
		}
	}
	for _, a := range args {
		if len(a.err) > 0 {
			e.adopt(a)
		}
	}
	return e
}

// adopt takes over the pending errors of a constant-only expression.
func (e *Expr) adopt(a *Expr) {
	if e.mod != nil {
		e.mod.errs = append(e.mod.errs, withPath(a.err, e.mod.Name)...)
	} else {
		e.err = append(e.err, a.err...)
	}
	a.err = nil
}

// withPath gives pathless errors (those of constant-only expressions) the
// path of the place that uses them.
func withPath(errs []error, path string) []error {
	for _, err := range errs {
		if ce, ok := err.(*Error); ok && ce.Path == "" {
			ce.Path = path
		}
	}
	return errs
}

func (e *Expr) fail(format string, args ...any) {
	err := &Error{Pos: e.Pos, Msg: fmt.Sprintf(format, args...)}
	if e.mod != nil {
		err.Path = e.mod.Name
		e.mod.errs = append(e.mod.errs, err)
	} else {
		e.err = append(e.err, err)
	}
}

// extend widens e to w bits by its own signedness (no-op when already w).
func extend(pos string, e *Expr, w int) *Expr {
	if e.Type.Width == w {
		return e
	}
	return newNode(pos, OpExt, Type{Width: w, Signed: e.Type.Signed}, e)
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// sameSign checks that a and b share a signedness; on a mismatch it records
// an error on the result node and returns false.
func sameSign(res *Expr, a, b *Expr, what string) bool {
	if a.Type.Signed != b.Type.Signed {
		res.fail("%s of %s and %s mixes signed and unsigned; convert one with AsSInt/AsUInt", what, a.Type, b.Type)
		return false
	}
	return true
}

// binary builds an operation on two operands extended to width w.
func binary(pos string, op Op, a, b *Expr, w int, res Type) *Expr {
	probe := newNode(pos, op, res, a, b)
	if !sameSign(probe, a, b, op.String()) {
		return probe
	}
	if !res.valid() {
		probe.fail("%s result width %d exceeds %d", op, res.Width, MaxWidth)
		return probe
	}
	probe.Args = []*Expr{extend(pos, a, w), extend(pos, b, w)}
	return probe
}

// ---- arithmetic ----

// Add returns e+o, one bit wider than the wider operand.
func (e *Expr) Add(o Value) *Expr {
	b := o.node()
	w := maxInt(e.Width(), b.Width()) + 1
	return binary(callerPos(), OpAdd, e, b, w, Type{w, e.Signed()})
}

// Sub returns e-o, one bit wider than the wider operand. For unsigned
// operands a negative difference wraps modulo 2^w.
func (e *Expr) Sub(o Value) *Expr {
	b := o.node()
	w := maxInt(e.Width(), b.Width()) + 1
	return binary(callerPos(), OpSub, e, b, w, Type{w, e.Signed()})
}

// Mul returns e*o, wa+wb bits wide.
func (e *Expr) Mul(o Value) *Expr {
	b := o.node()
	w := e.Width() + b.Width()
	return binary(callerPos(), OpMul, e, b, w, Type{w, e.Signed()})
}

// Neg returns -e as SInt(w+1); an unsigned operand is zero-extended first.
func (e *Expr) Neg() *Expr {
	pos := callerPos()
	t := SInt(e.Width() + 1)
	x := extend(pos, e, t.Width)
	if !x.Signed() {
		x = newNode(pos, OpAsSInt, t, x)
	}
	r := newNode(pos, OpNeg, t, x)
	if !t.valid() {
		r.fail("neg result width %d exceeds %d", t.Width, MaxWidth)
	}
	return r
}

// ---- bitwise ----

func (e *Expr) bitwise(pos string, op Op, o Value) *Expr {
	b := o.node()
	w := maxInt(e.Width(), b.Width())
	return binary(pos, op, e, b, w, Type{w, e.Signed()})
}

// And is bitwise and; the narrower operand is extended by its signedness.
func (e *Expr) And(o Value) *Expr { return e.bitwise(callerPos(), OpAnd, o) }

// Or is bitwise or.
func (e *Expr) Or(o Value) *Expr { return e.bitwise(callerPos(), OpOr, o) }

// Xor is bitwise exclusive or.
func (e *Expr) Xor(o Value) *Expr { return e.bitwise(callerPos(), OpXor, o) }

// Not is bitwise complement, same type.
func (e *Expr) Not() *Expr { return newNode(callerPos(), OpNot, e.Type, e) }

// AndR is the and-reduction of all bits.
func (e *Expr) AndR() *Expr { return newNode(callerPos(), OpRedAnd, Bool, e) }

// OrR is the or-reduction of all bits.
func (e *Expr) OrR() *Expr { return newNode(callerPos(), OpRedOr, Bool, e) }

// XorR is the xor-reduction (parity) of all bits.
func (e *Expr) XorR() *Expr { return newNode(callerPos(), OpRedXor, Bool, e) }

// ---- shifts ----

// ShlConst shifts left by a constant; the result is n bits wider.
func (e *Expr) ShlConst(n int) *Expr {
	pos := callerPos()
	if n < 0 {
		r := newNode(pos, OpShlConst, e.Type, e)
		r.fail("shift amount %d is negative", n)
		return r
	}
	if n == 0 {
		return e
	}
	t := Type{e.Width() + n, e.Signed()}
	r := newNode(pos, OpShlConst, t, extend(pos, e, t.Width))
	r.Amount = n
	if !t.valid() {
		r.fail("shift result width %d exceeds %d", t.Width, MaxWidth)
	}
	return r
}

// ShrConst shifts right by a constant, arithmetic for signed values; the
// result is n bits narrower (at least 1 bit).
func (e *Expr) ShrConst(n int) *Expr {
	pos := callerPos()
	switch {
	case n < 0:
		r := newNode(pos, OpShr, e.Type, e)
		r.fail("shift amount %d is negative", n)
		return r
	case n == 0:
		return e
	case n >= e.Width():
		if !e.Signed() {
			return U(1, 0) // every bit shifted out
		}
		top := slice(pos, e, e.Width()-1, e.Width()-1)
		return newNode(pos, OpAsSInt, SInt(1), top)
	}
	s := slice(pos, e, e.Width()-1, n)
	if e.Signed() {
		return newNode(pos, OpAsSInt, SInt(s.Width()), s)
	}
	return s
}

// Shl shifts left by an unsigned signal amount; the result is 2^wa - 1 bits
// wider so no bit is lost.
func (e *Expr) Shl(amount Value) *Expr {
	pos := callerPos()
	a := amount.node()
	if a.Width() > 12 {
		r := newNode(pos, OpShl, e.Type, e, a)
		r.fail("shift amount of %s is too wide for a growing left shift; Trunc it or use ShlWrap", a.Type)
		return r
	}
	w := e.Width() + (1 << a.Width()) - 1
	return shift(pos, OpShl, e, a, Type{w, e.Signed()})
}

// ShlWrap shifts left by a signal amount keeping the width (high bits drop).
func (e *Expr) ShlWrap(amount Value) *Expr {
	return shift(callerPos(), OpShl, e, amount.node(), e.Type)
}

// Shr shifts right by an unsigned signal amount: logical for UInt,
// arithmetic for SInt. The width is unchanged.
func (e *Expr) Shr(amount Value) *Expr {
	return shift(callerPos(), OpShr, e, amount.node(), e.Type)
}

func shift(pos string, op Op, e, a *Expr, t Type) *Expr {
	r := newNode(pos, op, t, extend(pos, e, minInt(t.Width, MaxWidth)), a)
	if a.Signed() {
		r.fail("shift amount must be unsigned, got %s", a.Type)
	}
	if !t.valid() {
		r.fail("shift result width %d exceeds %d", t.Width, MaxWidth)
	}
	return r
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// ---- comparisons ----

func (e *Expr) compare(pos string, op Op, o Value) *Expr {
	b := o.node()
	return binary(pos, op, e, b, maxInt(e.Width(), b.Width()), Bool)
}

// Eq is e == o.
func (e *Expr) Eq(o Value) *Expr { return e.compare(callerPos(), OpEq, o) }

// Ne is e != o.
func (e *Expr) Ne(o Value) *Expr { return e.compare(callerPos(), OpNe, o) }

// Lt is e < o (signed when both are SInt).
func (e *Expr) Lt(o Value) *Expr { return e.compare(callerPos(), OpLt, o) }

// Le is e <= o.
func (e *Expr) Le(o Value) *Expr { return e.compare(callerPos(), OpLe, o) }

// Gt is e > o.
func (e *Expr) Gt(o Value) *Expr { return e.compare(callerPos(), OpGt, o) }

// Ge is e >= o.
func (e *Expr) Ge(o Value) *Expr { return e.compare(callerPos(), OpGe, o) }

// ---- selection and shaping ----

// Mux returns then when sel is 1, otherwise els. The arms must share a
// signedness; the result is as wide as the wider arm.
func Mux(sel, then, els Value) *Expr {
	pos := callerPos()
	s, a, b := sel.node(), then.node(), els.node()
	w := maxInt(a.Width(), b.Width())
	r := newNode(pos, OpMux, Type{w, a.Signed()}, s, a, b)
	if s.Type != Bool {
		r.fail("mux select must be UInt(1), got %s", s.Type)
		return r
	}
	if sameSign(r, a, b, "mux") {
		r.Args = []*Expr{s, extend(pos, a, w), extend(pos, b, w)}
	}
	return r
}

// Cat concatenates values, the first one most significant, as UInt.
func Cat(vs ...Value) *Expr {
	pos := callerPos()
	args := make([]*Expr, len(vs))
	w := 0
	for i, v := range vs {
		args[i] = v.node()
		w += args[i].Width()
	}
	r := newNode(pos, OpCat, UInt(w), args...)
	if len(vs) == 0 {
		r.Type = UInt(1)
		r.fail("Cat of nothing")
	} else if w > MaxWidth {
		r.fail("Cat result width %d exceeds %d", w, MaxWidth)
	}
	return r
}

// Slice returns bits hi..lo (inclusive) as UInt(hi-lo+1).
func (e *Expr) Slice(hi, lo int) *Expr { return slice(callerPos(), e, hi, lo) }

// Bit returns bit i as UInt(1).
func (e *Expr) Bit(i int) *Expr { return slice(callerPos(), e, i, i) }

func slice(pos string, e *Expr, hi, lo int) *Expr {
	if lo < 0 || hi < lo || hi >= e.Width() {
		r := newNode(pos, OpSlice, UInt(1), e)
		r.fail("slice [%d:%d] out of range for %s (bits %d..0)", hi, lo, e.Type, e.Width()-1)
		return r
	}
	r := newNode(pos, OpSlice, UInt(hi-lo+1), e)
	r.Hi, r.Lo = hi, lo
	return r
}

// Ext widens e to w bits by its signedness (sign- or zero-extension).
// Narrowing is an error: use Trunc.
func (e *Expr) Ext(w int) *Expr {
	pos := callerPos()
	if w < e.Width() {
		r := newNode(pos, OpExt, e.Type, e)
		r.fail("Ext to %d bits would narrow %s; use Trunc", w, e.Type)
		return r
	}
	if w > MaxWidth {
		r := newNode(pos, OpExt, e.Type, e)
		r.fail("Ext to %d bits exceeds %d", w, MaxWidth)
		return r
	}
	return extend(pos, e, w)
}

// Trunc keeps the low w bits, same signedness. Widening is an error: use Ext.
func (e *Expr) Trunc(w int) *Expr {
	pos := callerPos()
	if w < 1 || w > e.Width() {
		r := newNode(pos, OpTrunc, e.Type, e)
		r.fail("Trunc to %d bits is not a narrowing of %s (allowed 1..%d)", w, e.Type, e.Width())
		return r
	}
	if w == e.Width() {
		return e
	}
	return newNode(pos, OpTrunc, Type{w, e.Signed()}, e)
}

// Resize sign/zero-extends or truncates e to w bits: the explicit "I know"
// conversion between widths.
func (e *Expr) Resize(w int) *Expr {
	pos := callerPos()
	switch {
	case w < 1 || w > MaxWidth:
		r := newNode(pos, OpTrunc, e.Type, e)
		r.fail("Resize to %d bits outside 1..%d", w, MaxWidth)
		return r
	case w > e.Width():
		return extend(pos, e, w)
	case w < e.Width():
		return newNode(pos, OpTrunc, Type{w, e.Signed()}, e)
	}
	return e
}

// AsSInt reinterprets the bits as signed.
func (e *Expr) AsSInt() *Expr {
	if e.Signed() {
		return e
	}
	return newNode(callerPos(), OpAsSInt, SInt(e.Width()), e)
}

// AsUInt reinterprets the bits as unsigned.
func (e *Expr) AsUInt() *Expr {
	if !e.Signed() {
		return e
	}
	return newNode(callerPos(), OpAsUInt, UInt(e.Width()), e)
}
