package verilog

import (
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

func bigInt(v int) *big.Int { return big.NewInt(int64(v)) }

// folder finds the nodes whose value is a constant and computes it, so the
// emitter writes them as literals. Verilator propagates constants itself
// and then warns about what it finds (a compare that is always true, a
// shift by 2^33, a bit selected from a literal is not even Verilog), so
// the emitter must see at least as many constants as Verilator does. It
// folds whole constant subtrees, the absorbing cases x*0, x&0, x|~0 and
// 0 shifted by anything, a mux between two equal constants, and values
// all of whose bits are known to be 0 (bits selected from the fill of a
// zero-extension, say); it looks through a wire or an output to the
// constant that drives it. Instance outputs and inputs are not followed:
// Verilator 5.006 does not warn about constants across a module boundary.
type folder struct {
	memo  map[*hdl.Expr]*big.Int // nil value: not constant
	done  map[*hdl.Expr]bool
	zeros map[*hdl.Expr]*big.Int // bits known to be 0 of a node that is not constant
	busy  map[*hdl.Signal]bool   // signals whose driver is being folded
	twins map[[2]*hdl.Expr]bool  // same's answers
}

func newFolder() *folder {
	return &folder{memo: map[*hdl.Expr]*big.Int{}, done: map[*hdl.Expr]bool{},
		zeros: map[*hdl.Expr]*big.Int{}, busy: map[*hdl.Signal]bool{}, twins: map[[2]*hdl.Expr]bool{}}
}

// value returns the bits of x if x is constant.
func (f *folder) value(x *hdl.Expr) (*big.Int, bool) {
	if f.done[x] {
		v := f.memo[x]
		return v, v != nil
	}
	v := f.eval(x)
	if v != nil {
		v = x.Type.Bits(v)
	}
	f.memo[x], f.done[x] = v, true
	return v, v != nil
}

// zeroBits returns the bits of x known to be 0.
func (f *folder) zeroBits(x *hdl.Expr) *big.Int {
	if v, ok := f.value(x); ok {
		return new(big.Int).AndNot(x.Type.Mask(), v)
	}
	if z := f.zeros[x]; z != nil {
		return z
	}
	return new(big.Int)
}

// signal folds a wire or output through to its driver; other signals
// (inputs, registers, memory and instance outputs) are not constant here.
// A signal met again while its own driver is folded (a combinational loop,
// which elaboration rejects anyway) counts as not constant.
func (f *folder) signal(x *hdl.Expr) *big.Int {
	s := x.Sig
	if s == nil || s.Kind != hdl.Wire && s.Kind != hdl.Output || s.Driver == nil || f.busy[s] {
		return nil
	}
	f.busy[s] = true
	defer delete(f.busy, s)
	if v, ok := f.value(s.Driver); ok {
		return v
	}
	f.zeros[x] = f.zeroBits(s.Driver)
	return nil
}

func (f *folder) eval(x *hdl.Expr) *big.Int {
	t := x.Type
	switch x.Op {
	case hdl.OpConst:
		return x.Const
	case hdl.OpSignal:
		return f.signal(x)
	}
	if v, ok := rangeEndCompare(f, x); ok {
		return v
	}
	args := make([]*big.Int, len(x.Args))
	all := true
	for i, a := range x.Args {
		args[i], _ = f.value(a)
		all = all && args[i] != nil
	}
	isZero := func(i int) bool { return args[i] != nil && args[i].Sign() == 0 }
	isOnes := func(i int) bool { return args[i] != nil && args[i].Cmp(x.Args[i].Type.Mask()) == 0 }
	switch x.Op {
	case hdl.OpMul, hdl.OpAnd:
		if isZero(0) || isZero(1) {
			return new(big.Int)
		}
	case hdl.OpOr:
		if isOnes(0) || isOnes(1) {
			return t.Mask()
		}
	case hdl.OpMux:
		switch {
		case args[0] != nil: // a constant select picks an arm
			arm := 2
			if args[0].Sign() != 0 {
				arm = 1
			}
			if args[arm] != nil {
				return args[arm]
			}
		case args[1] != nil && args[2] != nil && args[1].Cmp(args[2]) == 0:
			return args[1] // either way the same constant
		}
	case hdl.OpShl, hdl.OpShr:
		// 0 shifted either way by anything is 0; a logical shift by a
		// constant amount of at least the width leaves nothing.
		if isZero(0) {
			return new(big.Int)
		}
		if args[1] != nil && args[1].Cmp(bigInt(t.Width)) >= 0 && !(x.Op == hdl.OpShr && x.Args[0].Type.Signed) {
			return new(big.Int)
		}
	}
	if len(x.Args) == 2 && f.same(x.Args[0], x.Args[1], 0) {
		// Verilator folds an operation of a value with itself (then warns
		// about what it compares the result with): x == x, x - x, x ^ x.
		switch x.Op {
		case hdl.OpEq, hdl.OpLe, hdl.OpGe:
			return big.NewInt(1)
		case hdl.OpNe, hdl.OpLt, hdl.OpGt, hdl.OpSub, hdl.OpXor:
			return new(big.Int)
		}
	}
	if x.Op == hdl.OpRedAnd && f.zeroBits(x.Args[0]).Sign() != 0 {
		return new(big.Int) // a bit known to be 0: Verilator folds &{1'b0, y} too
	}
	if !all {
		z := f.knownZeros(x, args)
		if z.Cmp(t.Mask()) == 0 {
			return new(big.Int) // every bit known to be 0
		}
		if z.Sign() != 0 {
			f.zeros[x] = z
		}
		return nil
	}
	a := args[0]
	sv := func(i int) *big.Int { return x.Args[i].Type.Interpret(args[i]) }
	switch x.Op {
	case hdl.OpExt:
		return sv(0)
	case hdl.OpTrunc, hdl.OpAsSInt, hdl.OpAsUInt:
		return a
	case hdl.OpSlice:
		return new(big.Int).Rsh(a, uint(x.Lo))
	case hdl.OpNot:
		return new(big.Int).Xor(a, t.Mask())
	case hdl.OpNeg:
		return new(big.Int).Neg(a)
	case hdl.OpAdd:
		return new(big.Int).Add(a, args[1])
	case hdl.OpSub:
		return new(big.Int).Sub(a, args[1])
	case hdl.OpMul:
		return new(big.Int).Mul(a, args[1])
	case hdl.OpAnd:
		return new(big.Int).And(a, args[1])
	case hdl.OpOr:
		return new(big.Int).Or(a, args[1])
	case hdl.OpXor:
		return new(big.Int).Xor(a, args[1])
	case hdl.OpShlConst:
		return new(big.Int).Lsh(a, uint(x.Amount))
	case hdl.OpShl, hdl.OpShr:
		if args[1].Cmp(bigInt(t.Width)) >= 0 {
			args[1] = bigInt(t.Width) // only an arithmetic shift gets here: all sign bits
		}
		n := uint(args[1].Int64())
		if x.Op == hdl.OpShl {
			return new(big.Int).Lsh(a, n)
		}
		return new(big.Int).Rsh(sv(0), n)
	case hdl.OpCat:
		v := new(big.Int)
		for i, p := range args {
			v.Lsh(v, uint(x.Args[i].Type.Width)).Or(v, p)
		}
		return v
	case hdl.OpRedAnd:
		return boolInt(a.Cmp(x.Args[0].Type.Mask()) == 0)
	case hdl.OpRedOr:
		return boolInt(a.Sign() != 0)
	case hdl.OpRedXor:
		n := 0
		for _, w := range a.Bits() {
			for ; w != 0; w &= w - 1 {
				n++
			}
		}
		return boolInt(n%2 == 1)
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		c := sv(0).Cmp(sv(1))
		return boolInt(map[hdl.Op]bool{hdl.OpEq: c == 0, hdl.OpNe: c != 0, hdl.OpLt: c < 0, hdl.OpLe: c <= 0, hdl.OpGt: c > 0, hdl.OpGe: c >= 0}[x.Op])
	}
	return nil
}

// knownZeros returns the bits of x, not itself constant, that are 0
// whatever its operands' unknown bits are. args are the operands' values
// where constant.
func (f *folder) knownZeros(x *hdl.Expr, args []*big.Int) *big.Int {
	t := x.Type
	mask := t.Mask()
	z := func(i int) *big.Int { return f.zeroBits(x.Args[i]) }
	low := func(n int) *big.Int { // bits n-1..0
		return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n)), big.NewInt(1))
	}
	high := func(n int) *big.Int { // the top n bits
		return new(big.Int).AndNot(mask, low(max(t.Width-n, 0)))
	}
	// trailing and leading counts of known-zero bits of operand i
	trailing := func(i int) int {
		zi, n := z(i), 0
		for n < x.Args[i].Type.Width && zi.Bit(n) == 1 {
			n++
		}
		return n
	}
	leading := func(i int) int {
		zi, w, n := z(i), x.Args[i].Type.Width, 0
		for n < w && zi.Bit(w-1-n) == 1 {
			n++
		}
		return n
	}
	amount := -1 // a constant shift amount, clamped to the width
	if (x.Op == hdl.OpShl || x.Op == hdl.OpShr) && args[1] != nil {
		amount = t.Width
		if args[1].IsInt64() && args[1].Int64() < int64(t.Width) {
			amount = int(args[1].Int64())
		}
	}
	r := new(big.Int)
	switch x.Op {
	case hdl.OpExt:
		a := x.Args[0]
		r.Set(z(0))
		if !a.Type.Signed || r.Bit(a.Type.Width-1) == 1 { // the fill is 0
			r.Or(r, new(big.Int).AndNot(mask, a.Type.Mask()))
		}
	case hdl.OpTrunc, hdl.OpAsSInt, hdl.OpAsUInt:
		r.Set(z(0))
	case hdl.OpSlice:
		r.Rsh(z(0), uint(x.Lo))
	case hdl.OpCat:
		for i, a := range x.Args {
			r.Lsh(r, uint(a.Type.Width)).Or(r, z(i))
		}
	case hdl.OpAnd:
		r.Or(z(0), z(1))
	case hdl.OpOr, hdl.OpXor:
		r.And(z(0), z(1))
	case hdl.OpMux:
		switch {
		case args[0] == nil:
			r.And(z(1), z(2))
		case args[0].Sign() != 0:
			r.Set(z(1))
		default:
			r.Set(z(2))
		}
	case hdl.OpMul: // the product has as many trailing zeros as both factors
		r = low(min(trailing(0)+trailing(1), t.Width))
	case hdl.OpShlConst:
		r.Lsh(z(0), uint(x.Amount)).Or(r, low(min(x.Amount, t.Width)))
	case hdl.OpShl:
		if amount >= 0 {
			r.Lsh(z(0), uint(amount)).Or(r, low(amount))
		} else { // trailing zeros stay
			r = low(trailing(0))
		}
	case hdl.OpShr:
		arith := x.Args[0].Type.Signed && z(0).Bit(t.Width-1) == 0 // sign bit may be 1
		switch {
		case arith && amount >= 0:
			r.Rsh(z(0), uint(amount))
		case amount >= 0:
			r.Rsh(z(0), uint(amount)).Or(r, high(amount))
		case !arith: // leading zeros stay (a known-0 sign bit fills with 0)
			r = high(leading(0))
		}
	}
	return r.And(r, mask)
}

func boolInt(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return new(big.Int)
}

// rangeEndCompare evaluates a comparison of a value with a constant
// whose result does not depend on the value: the constant is at an end of
// the value's range (x >= 0 or x > max for unsigned x, x < min for signed
// x, ...), or past it once the bits known to be 0 are taken into account
// (16 <= {68'b0, y}, {1'b0, y} == 2'd2). Verilator -Wall rejects such a
// comparison (CMPCONST, UNSIGNED), or folds it to a constant and then
// rejects what reads it, so it is written as the literal; x then counts as
// unread in this place.
func rangeEndCompare(f *folder, x *hdl.Expr) (*big.Int, bool) {
	if !x.Op.IsCompare() {
		return nil, false
	}
	a, b, op := x.Args[0], x.Args[1], x.Op
	ca, aConst := f.value(a)
	cb, bConst := f.value(b)
	if aConst == bConst {
		return nil, false // both constant (folded elsewhere) or neither
	}
	if aConst { // put the constant on the right: c < x is x > c
		a, cb = b, ca
		op = map[hdl.Op]hdl.Op{hdl.OpLt: hdl.OpGt, hdl.OpGt: hdl.OpLt, hdl.OpLe: hdl.OpGe, hdl.OpGe: hdl.OpLe, hdl.OpEq: hdl.OpEq, hdl.OpNe: hdl.OpNe}[op]
	}
	t := a.Type
	c := t.Interpret(cb)
	zeros := f.zeroBits(a)
	// The range of a: every bit not known to be 0 may be 1.
	min, max := new(big.Int), new(big.Int).AndNot(t.Mask(), zeros)
	if t.Signed {
		sign := new(big.Int).Lsh(big.NewInt(1), uint(t.Width-1))
		max.AndNot(max, sign)
		if zeros.Bit(t.Width-1) == 0 { // the sign bit may be 1
			min.Neg(sign)
		}
	}
	below, atMin := c.Cmp(min) < 0, c.Cmp(min) == 0
	above, atMax := c.Cmp(max) > 0, c.Cmp(max) == 0
	never := below || above || new(big.Int).And(cb, zeros).Sign() != 0 // a can never equal c
	switch {
	case op == hdl.OpEq && never:
		return big.NewInt(0), true
	case op == hdl.OpNe && never:
		return big.NewInt(1), true
	case op == hdl.OpLt && (below || atMin), op == hdl.OpGt && (above || atMax),
		op == hdl.OpLe && below, op == hdl.OpGe && above:
		return big.NewInt(0), true
	case op == hdl.OpGe && (below || atMin), op == hdl.OpLe && (above || atMax),
		op == hdl.OpGt && below, op == hdl.OpLt && above:
		return big.NewInt(1), true
	}
	return nil, false
}

// sameDepth bounds the structural comparison of same.
const sameDepth = 16

// same reports whether a and b are the same value by construction: one
// node, one signal (a wire or output seen through to its driver), or the
// same operator of the same type and parameters on operands that are the
// same. The emitter writes such twins as one wire, so the comparison of
// two of them reads one name twice.
func (f *folder) same(a, b *hdl.Expr, depth int) bool {
	a, b = f.through(a), f.through(b)
	if a == b {
		return true
	}
	if depth > sameDepth || a.Op != b.Op || a.Type != b.Type || len(a.Args) != len(b.Args) ||
		a.Amount != b.Amount || a.Hi != b.Hi || a.Lo != b.Lo {
		return false
	}
	switch a.Op {
	case hdl.OpSignal:
		return a.Sig == b.Sig
	case hdl.OpConst:
		return a.Const.Cmp(b.Const) == 0
	}
	key := [2]*hdl.Expr{a, b}
	if v, ok := f.twins[key]; ok {
		return v
	}
	v := true
	for i := range a.Args {
		if !f.same(a.Args[i], b.Args[i], depth+1) {
			v = false
			break
		}
	}
	f.twins[key] = v
	return v
}

// through returns the driver of a wire or output signal (as signal
// folds), x otherwise.
func (f *folder) through(x *hdl.Expr) *hdl.Expr {
	for i := 0; i < sameDepth && x.Op == hdl.OpSignal && x.Sig != nil &&
		(x.Sig.Kind == hdl.Wire || x.Sig.Kind == hdl.Output) && x.Sig.Driver != nil; i++ {
		x = x.Sig.Driver
	}
	return x
}
