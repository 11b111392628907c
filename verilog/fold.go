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
// folds whole constant subtrees plus the absorbing cases x*0, x&0, x|~0.
type folder struct {
	memo map[*hdl.Expr]*big.Int // nil value: not constant
	done map[*hdl.Expr]bool
}

func newFolder() *folder {
	return &folder{memo: map[*hdl.Expr]*big.Int{}, done: map[*hdl.Expr]bool{}}
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

func (f *folder) eval(x *hdl.Expr) *big.Int {
	t := x.Type
	switch x.Op {
	case hdl.OpConst:
		return x.Const
	case hdl.OpSignal:
		return nil
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
		if args[0] != nil { // a constant select picks an arm
			arm := 2
			if args[0].Sign() != 0 {
				arm = 1
			}
			return args[arm]
		}
	case hdl.OpShl, hdl.OpShr:
		// A logical shift by a constant amount of at least the width
		// leaves nothing.
		if args[1] != nil && args[1].Cmp(bigInt(t.Width)) >= 0 && !(x.Op == hdl.OpShr && x.Args[0].Type.Signed) {
			return new(big.Int)
		}
	}
	if !all {
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

func boolInt(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return new(big.Int)
}

// rangeEndCompare evaluates a comparison of a value with a constant at an
// end of the value's range (x >= 0 or x > max for unsigned x, x < min for
// signed x, ...). Its result does not depend on x, and Verilator -Wall
// rejects such a comparison (CMPCONST, UNSIGNED), so it is written as the
// literal; x then counts as unread in this place.
func rangeEndCompare(f *folder, x *hdl.Expr) (*big.Int, bool) {
	if !x.Op.IsCompare() || x.Op == hdl.OpEq || x.Op == hdl.OpNe {
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
		op = map[hdl.Op]hdl.Op{hdl.OpLt: hdl.OpGt, hdl.OpGt: hdl.OpLt, hdl.OpLe: hdl.OpGe, hdl.OpGe: hdl.OpLe}[op]
	}
	t := a.Type
	c := t.Interpret(cb)
	min, max := new(big.Int), t.Mask()
	if t.Signed {
		max = new(big.Int).Rsh(t.Mask(), 1)
		min = new(big.Int).Not(max)
	}
	atMin, atMax := c.Cmp(min) == 0, c.Cmp(max) == 0
	switch {
	case op == hdl.OpLt && atMin, op == hdl.OpGt && atMax:
		return big.NewInt(0), true
	case op == hdl.OpGe && atMin, op == hdl.OpLe && atMax:
		return big.NewInt(1), true
	}
	return nil, false
}
