package verilog

import (
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

func bigInt(v int) *big.Int { return big.NewInt(int64(v)) }

// constFold evaluates the width-changing operators on a constant argument,
// so the emitter never has to select bits of a literal (which Verilog does
// not allow).
func constFold(x *hdl.Expr) (*big.Int, bool) {
	if v, ok := rangeEndCompare(x); ok {
		return v, true
	}
	if len(x.Args) != 1 || x.Args[0].Op != hdl.OpConst {
		return nil, false
	}
	arg := x.Args[0]
	switch x.Op {
	case hdl.OpSlice:
		v := new(big.Int).Rsh(arg.Const, uint(x.Lo))
		return x.Type.Bits(v), true
	case hdl.OpTrunc, hdl.OpAsSInt, hdl.OpAsUInt:
		return x.Type.Bits(arg.Const), true
	case hdl.OpExt:
		return x.Type.Bits(arg.Type.Interpret(arg.Const)), true
	}
	return nil, false
}

// rangeEndCompare evaluates a comparison of a value with a constant at an
// end of the value's range (x >= 0 or x > max for unsigned x, x < min for
// signed x, ...). Its result does not depend on x, and Verilator -Wall
// rejects such a comparison (CMPCONST, UNSIGNED), so it is written as the
// literal; x then counts as unread in this place.
func rangeEndCompare(x *hdl.Expr) (*big.Int, bool) {
	if !x.Op.IsCompare() || x.Op == hdl.OpEq || x.Op == hdl.OpNe {
		return nil, false
	}
	a, b, op := x.Args[0], x.Args[1], x.Op
	ca, aConst := constValue(a)
	cb, bConst := constValue(b)
	if aConst == bConst {
		return nil, false // both or neither constant: nothing special
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

// constValue returns the bits of a constant or of a width change of one.
func constValue(e *hdl.Expr) (*big.Int, bool) {
	if e.Op == hdl.OpConst {
		return e.Const, true
	}
	return constFold(e)
}
