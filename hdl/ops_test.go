package hdl_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// opIns are the operands every operator test draws from.
type opIns struct {
	u8, u3, s8, s3, sel *hdl.Signal
}

func newOpIns(m *hdl.Module) opIns {
	return opIns{
		u8:  m.Input("u8", hdl.UInt(8)),
		u3:  m.Input("u3", hdl.UInt(3)),
		s8:  m.Input("s8", hdl.SInt(8)),
		s3:  m.Input("s3", hdl.SInt(3)),
		sel: m.Input("sel", hdl.Bool),
	}
}

// shape renders an expression tree with the op and type of every node, so
// one string pins down result types and operand normalisation.
func shape(e *hdl.Expr) string {
	switch e.Op {
	case hdl.OpSignal:
		return e.Sig.Name
	case hdl.OpConst:
		return fmt.Sprintf("%s'%d", e.Type.Short(), e.Const)
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = shape(a)
	}
	op := e.Op.String()
	switch e.Op {
	case hdl.OpSlice:
		op += fmt.Sprintf("[%d:%d]", e.Hi, e.Lo)
	case hdl.OpShlConst:
		op += fmt.Sprintf("%d", e.Amount)
	}
	return fmt.Sprintf("%s:%s(%s)", op, e.Type.Short(), strings.Join(args, ","))
}

type opCase struct {
	name  string
	build func(in opIns) *hdl.Expr
	want  hdl.Type
	op    hdl.Op
}

var opCases = []opCase{
	{"u8+u3", func(in opIns) *hdl.Expr { return in.u8.Add(in.u3) }, hdl.UInt(9), hdl.OpAdd},
	{"u3+u8", func(in opIns) *hdl.Expr { return in.u3.Add(in.u8) }, hdl.UInt(9), hdl.OpAdd},
	{"u8+u8", func(in opIns) *hdl.Expr { return in.u8.Add(in.u8) }, hdl.UInt(9), hdl.OpAdd},
	{"s8+s3", func(in opIns) *hdl.Expr { return in.s8.Add(in.s3) }, hdl.SInt(9), hdl.OpAdd},
	{"s3+s3", func(in opIns) *hdl.Expr { return in.s3.Add(in.s3) }, hdl.SInt(4), hdl.OpAdd},
	{"u8+const", func(in opIns) *hdl.Expr { return in.u8.Add(hdl.U(1, 1)) }, hdl.UInt(9), hdl.OpAdd},
	{"u8-u3", func(in opIns) *hdl.Expr { return in.u8.Sub(in.u3) }, hdl.UInt(9), hdl.OpSub},
	{"s3-s8", func(in opIns) *hdl.Expr { return in.s3.Sub(in.s8) }, hdl.SInt(9), hdl.OpSub},
	{"u8*u3", func(in opIns) *hdl.Expr { return in.u8.Mul(in.u3) }, hdl.UInt(11), hdl.OpMul},
	{"s8*s3", func(in opIns) *hdl.Expr { return in.s8.Mul(in.s3) }, hdl.SInt(11), hdl.OpMul},
	{"s3*s3", func(in opIns) *hdl.Expr { return in.s3.Mul(in.s3) }, hdl.SInt(6), hdl.OpMul},
	{"-u8", func(in opIns) *hdl.Expr { return in.u8.Neg() }, hdl.SInt(9), hdl.OpNeg},
	{"-s8", func(in opIns) *hdl.Expr { return in.s8.Neg() }, hdl.SInt(9), hdl.OpNeg},
	{"-s3", func(in opIns) *hdl.Expr { return in.s3.Neg() }, hdl.SInt(4), hdl.OpNeg},
	{"-bool", func(in opIns) *hdl.Expr { return in.sel.Neg() }, hdl.SInt(2), hdl.OpNeg},
	{"u8&u3", func(in opIns) *hdl.Expr { return in.u8.And(in.u3) }, hdl.UInt(8), hdl.OpAnd},
	{"s3|s8", func(in opIns) *hdl.Expr { return in.s3.Or(in.s8) }, hdl.SInt(8), hdl.OpOr},
	{"u3^u3", func(in opIns) *hdl.Expr { return in.u3.Xor(in.u3) }, hdl.UInt(3), hdl.OpXor},
	{"s3^s8", func(in opIns) *hdl.Expr { return in.s3.Xor(in.s8) }, hdl.SInt(8), hdl.OpXor},
	{"~u8", func(in opIns) *hdl.Expr { return in.u8.Not() }, hdl.UInt(8), hdl.OpNot},
	{"~s3", func(in opIns) *hdl.Expr { return in.s3.Not() }, hdl.SInt(3), hdl.OpNot},
	{"&s8", func(in opIns) *hdl.Expr { return in.s8.AndR() }, hdl.Bool, hdl.OpRedAnd},
	{"|u3", func(in opIns) *hdl.Expr { return in.u3.OrR() }, hdl.Bool, hdl.OpRedOr},
	{"^s3", func(in opIns) *hdl.Expr { return in.s3.XorR() }, hdl.Bool, hdl.OpRedXor},
	{"u8<<3", func(in opIns) *hdl.Expr { return in.u8.ShlConst(3) }, hdl.UInt(11), hdl.OpShlConst},
	{"s3<<5", func(in opIns) *hdl.Expr { return in.s3.ShlConst(5) }, hdl.SInt(8), hdl.OpShlConst},
	{"u8>>3", func(in opIns) *hdl.Expr { return in.u8.ShrConst(3) }, hdl.UInt(5), hdl.OpSlice},
	{"u8>>7", func(in opIns) *hdl.Expr { return in.u8.ShrConst(7) }, hdl.UInt(1), hdl.OpSlice},
	{"u8>>8", func(in opIns) *hdl.Expr { return in.u8.ShrConst(8) }, hdl.UInt(1), hdl.OpConst},
	{"u8>>100", func(in opIns) *hdl.Expr { return in.u8.ShrConst(100) }, hdl.UInt(1), hdl.OpConst},
	{"s8>>3", func(in opIns) *hdl.Expr { return in.s8.ShrConst(3) }, hdl.SInt(5), hdl.OpAsSInt},
	{"s8>>7", func(in opIns) *hdl.Expr { return in.s8.ShrConst(7) }, hdl.SInt(1), hdl.OpAsSInt},
	{"s8>>8", func(in opIns) *hdl.Expr { return in.s8.ShrConst(8) }, hdl.SInt(1), hdl.OpAsSInt},
	{"s3>>50", func(in opIns) *hdl.Expr { return in.s3.ShrConst(50) }, hdl.SInt(1), hdl.OpAsSInt},
	{"u8<<u3", func(in opIns) *hdl.Expr { return in.u8.Shl(in.u3) }, hdl.UInt(15), hdl.OpShl},
	{"s3<<u3", func(in opIns) *hdl.Expr { return in.s3.Shl(in.u3) }, hdl.SInt(10), hdl.OpShl},
	{"u8<<bool", func(in opIns) *hdl.Expr { return in.u8.Shl(in.sel) }, hdl.UInt(9), hdl.OpShl},
	{"u8<<<u3", func(in opIns) *hdl.Expr { return in.u8.ShlWrap(in.u3) }, hdl.UInt(8), hdl.OpShl},
	{"s8<<<u8", func(in opIns) *hdl.Expr { return in.s8.ShlWrap(in.u8) }, hdl.SInt(8), hdl.OpShl},
	{"u8>>u3", func(in opIns) *hdl.Expr { return in.u8.Shr(in.u3) }, hdl.UInt(8), hdl.OpShr},
	{"s8>>u3", func(in opIns) *hdl.Expr { return in.s8.Shr(in.u3) }, hdl.SInt(8), hdl.OpShr},
	{"s3>>u8", func(in opIns) *hdl.Expr { return in.s3.Shr(in.u8) }, hdl.SInt(3), hdl.OpShr},
	{"u8==u3", func(in opIns) *hdl.Expr { return in.u8.Eq(in.u3) }, hdl.Bool, hdl.OpEq},
	{"u3!=u8", func(in opIns) *hdl.Expr { return in.u3.Ne(in.u8) }, hdl.Bool, hdl.OpNe},
	{"s8<s3", func(in opIns) *hdl.Expr { return in.s8.Lt(in.s3) }, hdl.Bool, hdl.OpLt},
	{"s3<=s8", func(in opIns) *hdl.Expr { return in.s3.Le(in.s8) }, hdl.Bool, hdl.OpLe},
	{"u8>u3", func(in opIns) *hdl.Expr { return in.u8.Gt(in.u3) }, hdl.Bool, hdl.OpGt},
	{"s3>=s3", func(in opIns) *hdl.Expr { return in.s3.Ge(in.s3) }, hdl.Bool, hdl.OpGe},
	{"mux u8 u3", func(in opIns) *hdl.Expr { return hdl.Mux(in.sel, in.u8, in.u3) }, hdl.UInt(8), hdl.OpMux},
	{"mux s3 s8", func(in opIns) *hdl.Expr { return hdl.Mux(in.sel, in.s3, in.s8) }, hdl.SInt(8), hdl.OpMux},
	{"mux s3 s3", func(in opIns) *hdl.Expr { return hdl.Mux(in.u8.Bit(0), in.s3, in.s3) }, hdl.SInt(3), hdl.OpMux},
	{"cat", func(in opIns) *hdl.Expr { return hdl.Cat(in.u8, in.s3, in.sel) }, hdl.UInt(12), hdl.OpCat},
	{"cat signed", func(in opIns) *hdl.Expr { return hdl.Cat(in.s8) }, hdl.UInt(8), hdl.OpCat},
	{"u8[5:2]", func(in opIns) *hdl.Expr { return in.u8.Slice(5, 2) }, hdl.UInt(4), hdl.OpSlice},
	{"s8[7:0]", func(in opIns) *hdl.Expr { return in.s8.Slice(7, 0) }, hdl.UInt(8), hdl.OpSlice},
	{"s8[7]", func(in opIns) *hdl.Expr { return in.s8.Bit(7) }, hdl.Bool, hdl.OpSlice},
	{"u3[0]", func(in opIns) *hdl.Expr { return in.u3.Bit(0) }, hdl.Bool, hdl.OpSlice},
	{"ext u3", func(in opIns) *hdl.Expr { return in.u3.Ext(8) }, hdl.UInt(8), hdl.OpExt},
	{"ext s3", func(in opIns) *hdl.Expr { return in.s3.Ext(8) }, hdl.SInt(8), hdl.OpExt},
	{"trunc u8", func(in opIns) *hdl.Expr { return in.u8.Trunc(3) }, hdl.UInt(3), hdl.OpTrunc},
	{"trunc s8", func(in opIns) *hdl.Expr { return in.s8.Trunc(3) }, hdl.SInt(3), hdl.OpTrunc},
	{"resize up u3", func(in opIns) *hdl.Expr { return in.u3.Resize(8) }, hdl.UInt(8), hdl.OpExt},
	{"resize up s3", func(in opIns) *hdl.Expr { return in.s3.Resize(8) }, hdl.SInt(8), hdl.OpExt},
	{"resize down s8", func(in opIns) *hdl.Expr { return in.s8.Resize(3) }, hdl.SInt(3), hdl.OpTrunc},
	{"resize down u8", func(in opIns) *hdl.Expr { return in.u8.Resize(1) }, hdl.UInt(1), hdl.OpTrunc},
	{"assint", func(in opIns) *hdl.Expr { return in.u8.AsSInt() }, hdl.SInt(8), hdl.OpAsSInt},
	{"asuint", func(in opIns) *hdl.Expr { return in.s3.AsUInt() }, hdl.UInt(3), hdl.OpAsUInt},
	{"u8+s8.asuint", func(in opIns) *hdl.Expr { return in.u8.Add(in.s8.AsUInt()) }, hdl.UInt(9), hdl.OpAdd},
}

// TestResultTypes checks the type and op of every operator, and that the
// result elaborates cleanly when it drives an output of its own type.
func TestResultTypes(t *testing.T) {
	for _, tt := range opCases {
		t.Run(tt.name, func(t *testing.T) {
			m := hdl.NewModule("top")
			e := tt.build(newOpIns(m))
			type result struct {
				Type hdl.Type
				Op   string
			}
			if diff := cmp.Diff(result{tt.want, tt.op.String()}, result{e.Type, e.Op.String()}); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s\nshape: %s", diff, shape(e))
			}
			if e.Width() != e.Type.Width || e.Signed() != e.Type.Signed {
				t.Errorf("Width/Signed = %d/%v, Type is %v", e.Width(), e.Signed(), e.Type)
			}
			m.Output("y", e.Type).Set(e)
			mustElaborate(t, m)
		})
	}
}

// TestOperandShape pins the whole tree built by each operator: back ends
// rely on binary operands and mux arms having exactly the same type, the
// narrower one extended by its own signedness.
func TestOperandShape(t *testing.T) {
	tests := []struct {
		name  string
		build func(in opIns) *hdl.Expr
		want  string
	}{
		{"add extends both", func(in opIns) *hdl.Expr { return in.u8.Add(in.u3) }, "add:u9(ext:u9(u8),ext:u9(u3))"},
		{"add signed", func(in opIns) *hdl.Expr { return in.s3.Add(in.s8) }, "add:s9(ext:s9(s3),ext:s9(s8))"},
		{"add const", func(in opIns) *hdl.Expr { return in.u3.Add(hdl.U(1, 1)) }, "add:u4(ext:u4(u3),ext:u4(u1'1))"},
		{"sub", func(in opIns) *hdl.Expr { return in.s8.Sub(in.s3) }, "sub:s9(ext:s9(s8),ext:s9(s3))"},
		{"mul", func(in opIns) *hdl.Expr { return in.u8.Mul(in.u3) }, "mul:u11(ext:u11(u8),ext:u11(u3))"},
		{"mul signed", func(in opIns) *hdl.Expr { return in.s3.Mul(in.s8) }, "mul:s11(ext:s11(s3),ext:s11(s8))"},
		{"and", func(in opIns) *hdl.Expr { return in.u3.And(in.u8) }, "and:u8(ext:u8(u3),u8)"},
		{"or signed", func(in opIns) *hdl.Expr { return in.s8.Or(in.s3) }, "or:s8(s8,ext:s8(s3))"},
		{"xor same", func(in opIns) *hdl.Expr { return in.u3.Xor(in.u3) }, "xor:u3(u3,u3)"},
		{"eq", func(in opIns) *hdl.Expr { return in.u8.Eq(in.u3) }, "eq:u1(u8,ext:u8(u3))"},
		{"lt signed", func(in opIns) *hdl.Expr { return in.s3.Lt(in.s8) }, "lt:u1(ext:s8(s3),s8)"},
		{"ge", func(in opIns) *hdl.Expr { return in.u3.Ge(in.u8) }, "ge:u1(ext:u8(u3),u8)"},
		{"mux", func(in opIns) *hdl.Expr { return hdl.Mux(in.sel, in.u3, in.u8) }, "mux:u8(sel,ext:u8(u3),u8)"},
		{"mux signed", func(in opIns) *hdl.Expr { return hdl.Mux(in.sel, in.s8, in.s3) }, "mux:s8(sel,s8,ext:s8(s3))"},
		{"neg unsigned", func(in opIns) *hdl.Expr { return in.u8.Neg() }, "neg:s9(assint:s9(ext:u9(u8)))"},
		{"neg signed", func(in opIns) *hdl.Expr { return in.s3.Neg() }, "neg:s4(ext:s4(s3))"},
		{"shlconst", func(in opIns) *hdl.Expr { return in.u8.ShlConst(3) }, "shlc3:u11(ext:u11(u8))"},
		{"shlconst signed", func(in opIns) *hdl.Expr { return in.s3.ShlConst(1) }, "shlc1:s4(ext:s4(s3))"},
		{"shrconst", func(in opIns) *hdl.Expr { return in.u8.ShrConst(3) }, "slice[7:3]:u5(u8)"},
		{"shrconst signed", func(in opIns) *hdl.Expr { return in.s8.ShrConst(3) }, "assint:s5(slice[7:3]:u5(s8))"},
		{"shrconst all signed", func(in opIns) *hdl.Expr { return in.s8.ShrConst(9) }, "assint:s1(slice[7:7]:u1(s8))"},
		{"shrconst all unsigned", func(in opIns) *hdl.Expr { return in.u3.ShrConst(3) }, "u1'0"},
		{"shl", func(in opIns) *hdl.Expr { return in.u8.Shl(in.u3) }, "shl:u15(ext:u15(u8),u3)"},
		{"shlwrap", func(in opIns) *hdl.Expr { return in.s8.ShlWrap(in.u3) }, "shl:s8(s8,u3)"},
		{"shr", func(in opIns) *hdl.Expr { return in.s8.Shr(in.u3) }, "shr:s8(s8,u3)"},
		{"cat", func(in opIns) *hdl.Expr { return hdl.Cat(in.u3, in.s8) }, "cat:u11(u3,s8)"},
		{"trunc", func(in opIns) *hdl.Expr { return in.s8.Trunc(2) }, "trunc:s2(s8)"},
		{"resize down", func(in opIns) *hdl.Expr { return in.u8.Resize(4) }, "trunc:u4(u8)"},
		{"resize up", func(in opIns) *hdl.Expr { return in.s3.Resize(4) }, "ext:s4(s3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.build(newOpIns(hdl.NewModule("top")))
			if diff := cmp.Diff(tt.want, shape(e)); diff != "" {
				t.Errorf("shape mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBinaryArgsSameType checks the invariant for every case of opCases
// whose op takes two same-typed operands (and Mux arms).
func TestBinaryArgsSameType(t *testing.T) {
	for _, tt := range opCases {
		e := tt.build(newOpIns(hdl.NewModule("top")))
		switch {
		case e.Op == hdl.OpAdd || e.Op == hdl.OpSub || e.Op == hdl.OpMul ||
			e.Op == hdl.OpAnd || e.Op == hdl.OpOr || e.Op == hdl.OpXor:
			if diff := cmp.Diff([]hdl.Type{e.Type, e.Type}, []hdl.Type{e.Args[0].Type, e.Args[1].Type}); diff != "" {
				t.Errorf("%s: args not of the result type (-want +got):\n%s", tt.name, diff)
			}
		case e.Op.IsCompare():
			if e.Args[0].Type != e.Args[1].Type {
				t.Errorf("%s: compare args %v and %v differ", tt.name, e.Args[0].Type, e.Args[1].Type)
			}
		case e.Op == hdl.OpMux:
			if diff := cmp.Diff([]hdl.Type{hdl.Bool, e.Type, e.Type}, []hdl.Type{e.Args[0].Type, e.Args[1].Type, e.Args[2].Type}); diff != "" {
				t.Errorf("%s: mux args (-want +got):\n%s", tt.name, diff)
			}
		case e.Op == hdl.OpNeg || e.Op == hdl.OpShlConst || e.Op == hdl.OpShl || e.Op == hdl.OpShr:
			if e.Args[0].Type != e.Type {
				t.Errorf("%s: operand %v, result %v", tt.name, e.Args[0].Type, e.Type)
			}
		}
	}
}

// Conversions that change nothing return their operand itself.
func TestNoOpConversions(t *testing.T) {
	in := newOpIns(hdl.NewModule("top"))
	u8, s8 := in.u8.Expr.Add(in.u8).Trunc(8), in.s8.Expr.Not()
	tests := []struct {
		name string
		x    *hdl.Expr
		got  *hdl.Expr
	}{
		{"ShlConst(0)", u8, u8.ShlConst(0)},
		{"ShrConst(0)", s8, s8.ShrConst(0)},
		{"Ext(same)", u8, u8.Ext(8)},
		{"Trunc(same)", s8, s8.Trunc(8)},
		{"Resize(same)", u8, u8.Resize(8)},
		{"AsSInt(signed)", s8, s8.AsSInt()},
		{"AsUInt(unsigned)", u8, u8.AsUInt()},
	}
	for _, tt := range tests {
		if tt.got != tt.x {
			t.Errorf("%s built a new node %s, want its operand %s", tt.name, shape(tt.got), shape(tt.x))
		}
	}
}

func TestConstants(t *testing.T) {
	tests := []struct {
		name  string
		e     *hdl.Expr
		typ   hdl.Type
		bits  string
		value string
	}{
		{"U(4,5)", hdl.U(4, 5), hdl.UInt(4), "5", "5"},
		{"U(64,max)", hdl.U(64, ^uint64(0)), hdl.UInt(64), "0xffffffffffffffff", "0xffffffffffffffff"},
		{"S(4,-1)", hdl.S(4, -1), hdl.SInt(4), "15", "-1"},
		{"S(8,-128)", hdl.S(8, -128), hdl.SInt(8), "128", "-128"},
		{"S(8,127)", hdl.S(8, 127), hdl.SInt(8), "127", "127"},
		{"Const(SInt(70),-2)", hdl.Const(hdl.SInt(70), big.NewInt(-2)), hdl.SInt(70), "0x3ffffffffffffffffe", "-2"},
	}
	for _, tt := range tests {
		type c struct{ Op, Type, Bits, Value string }
		want := c{"const", tt.typ.String(), bi(tt.bits).String(), bi(tt.value).String()}
		got := c{tt.e.Op.String(), tt.e.Type.String(), tt.e.Const.String(), tt.e.Type.Interpret(tt.e.Const).String()}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestOpString(t *testing.T) {
	tests := []struct {
		op   hdl.Op
		want string
	}{
		{hdl.OpAdd, "add"}, {hdl.OpShlConst, "shlc"}, {hdl.OpAsUInt, "asuint"}, {hdl.Op(999), "op999"}, {hdl.Op(-1), "op-1"},
	}
	for _, tt := range tests {
		if got := tt.op.String(); got != tt.want {
			t.Errorf("Op(%d).String() = %q, want %q", int(tt.op), got, tt.want)
		}
	}
	var compares []string
	for op := hdl.OpConst; op <= hdl.OpAsUInt; op++ {
		if op.IsCompare() {
			compares = append(compares, op.String())
		}
	}
	if diff := cmp.Diff([]string{"eq", "ne", "lt", "le", "gt", "ge"}, compares); diff != "" {
		t.Errorf("IsCompare set mismatch (-want +got):\n%s", diff)
	}
}
