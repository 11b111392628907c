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
