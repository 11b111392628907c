package verilog

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// This file decides which operator nodes are written out in place where
// they are read instead of through a temporary wire, and spells them so
// Verilog computes the same bits: an operand goes inline when its class
// is read in one place only and Verilog evaluates it at its own width;
// $signed or $unsigned pin its signedness where the spelling alone would
// not.

// countReaders counts the readers of every class: each root, and each
// operand slot of a reader class (a class is spelled once however many
// twins it has, so its operands are read once). The operands of a node
// written as a literal are never spelled and do not count.
func (w *moduleWriter) countReaders() {
	seen := map[*hdl.Expr]bool{}
	slots := map[[2]int]bool{}
	var visit func(x *hdl.Expr)
	visit = func(x *hdl.Expr) {
		if seen[x] {
			return
		}
		seen[x] = true
		if x.Op == hdl.OpSignal {
			return
		}
		if _, ok := w.fold.value(x); ok {
			return
		}
		c := w.classOf(x)
		for i, a := range x.Args {
			if slot := [2]int{c, i}; !slots[slot] {
				slots[slot] = true
				w.readers[w.classOf(a)]++
			}
			visit(a)
		}
	}
	for _, x := range w.roots() {
		if x != nil {
			w.readers[w.classOf(x)]++
			visit(x)
		}
	}
}

// inlinable reports an operator node that may be written out where it is
// read instead of through a temporary wire: it has no name yet, is not a
// constant, and its class is read in one place only, or it is a select
// of a name, which reads as well as a name wherever it is written.
func (w *moduleWriter) inlinable(x *hdl.Expr) bool {
	if x.Op == hdl.OpSignal || x.Op == hdl.OpConst {
		return false
	}
	if _, named := w.names[x]; named {
		return false
	}
	if _, constant := w.fold.value(x); constant {
		return false
	}
	return w.isSelect(x) || w.readers[w.classOf(x)] == 1
}

// ownWidth reports whether Verilog evaluates operand i of x at the
// operand's own width, so that writing the operand out in place computes
// the same bits as reading a wire of its type. Operands whose width the
// context determines (of +, -, *, &, |, ^, ~, unary -, shifts, the arms of
// ?:, and the two sides of a comparison) qualify when they are exactly as
// wide as that context (hdl normalises them so, but it is checked here);
// self-determined ones (a condition, a shift amount, a part of a
// concatenation, a reduction's operand) always do. An operand whose bits
// are selected never does, Verilog-2005 cannot select bits of an
// expression, unless it is a select itself (selectFrom).
func (w *moduleWriter) ownWidth(x *hdl.Expr, i int) bool {
	a := x.Args[i]
	switch x.Op {
	case hdl.OpAdd, hdl.OpSub, hdl.OpMul, hdl.OpAnd, hdl.OpOr, hdl.OpXor,
		hdl.OpNot, hdl.OpNeg, hdl.OpShlConst, hdl.OpAsSInt, hdl.OpAsUInt:
		for _, b := range x.Args {
			if b.Type.Width != x.Type.Width {
				return false
			}
		}
		return true
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		return x.Args[0].Type.Width == x.Args[1].Type.Width
	case hdl.OpMux:
		return i == 0 || x.Args[1].Type.Width == x.Type.Width && x.Args[2].Type.Width == x.Type.Width
	case hdl.OpShl, hdl.OpShr:
		if w.guardedShift(x) {
			return false // the guarded form selects bits of both
		}
		return i == 1 || a.Type.Width == x.Type.Width
	case hdl.OpCat, hdl.OpRedAnd, hdl.OpRedOr, hdl.OpRedXor:
		return true
	case hdl.OpExt:
		return !a.Type.Signed || w.isSelect(a) // a sign-extension selects the sign bit
	}
	return false // Slice, Trunc: selectBits reads its operand
}

// primary reports a node whose spelling needs no parentheses as an
// operand: a select, a concatenation, a $signed or $unsigned call.
func primary(x *hdl.Expr) bool {
	switch x.Op {
	case hdl.OpSlice, hdl.OpTrunc, hdl.OpExt, hdl.OpCat, hdl.OpAsSInt, hdl.OpAsUInt:
		return true
	}
	return false
}

// arg spells operand i of x: written out in place when it is inlinable
// and Verilog evaluates it at its own width, with its own signedness
// ($signed or $unsigned pins the latter where the spelling alone would
// not), and by its name or literal otherwise. An operator written out is
// parenthesised unless bare is set (x's spelling brackets it already).
func (w *moduleWriter) arg(x *hdl.Expr, i int, bare bool) string {
	a := x.Args[i]
	if !w.ownWidth(x, i) || !w.inlinable(a) {
		return w.operand(a)
	}
	text := w.rhs(a)
	if len(text) > maxInlineLen {
		return w.temp(a, "_"+a.Op.String(), text, true)
	}
	switch signed := w.spelledSigned(a); {
	case signed && !a.Type.Signed:
		return "$unsigned(" + text + ")"
	case !signed && a.Type.Signed:
		return "$signed(" + text + ")"
	case bare || primary(a):
		return text
	}
	return "(" + text + ")"
}

// spelledSigned reports whether Verilog takes rhs(x) as signed. It is x's
// own signedness except where rhs writes a concatenation or a select (a
// sign-extension, a signed Trunc: Verilog takes them as unsigned), a whole
// 1-bit signed value for a bit of it, or the guarded form of a shift.
func (w *moduleWriter) spelledSigned(x *hdl.Expr) bool {
	switch x.Op {
	case hdl.OpExt, hdl.OpCat:
		return false
	case hdl.OpSlice, hdl.OpTrunc:
		hi, lo := x.Type.Width-1, 0
		if x.Op == hdl.OpSlice {
			hi, lo = x.Hi, x.Lo
		}
		from, _, _ := w.selectFrom(x.Args[0], hi, lo)
		return from.Type.Width == 1 && from.Type.Signed // a whole 1-bit value is spelled as its name
	case hdl.OpShl, hdl.OpShr:
		if w.guardedShift(x) {
			return false
		}
	}
	return x.Type.Signed
}

// isSelect reports a node spelled as a select of a name: a Slice or
// Trunc that is not a constant.
func (w *moduleWriter) isSelect(x *hdl.Expr) bool {
	if x.Op != hdl.OpSlice && x.Op != hdl.OpTrunc {
		return false
	}
	_, constant := w.fold.value(x)
	return !constant
}

// selectFrom returns the node and bit range that bits hi..lo of x are
// selected from: bits of a select are bits of what it selects from, so
// a select of a select is one select (Verilog-2005 has no select of a
// select, and needs no wire for the inner one).
func (w *moduleWriter) selectFrom(x *hdl.Expr, hi, lo int) (*hdl.Expr, int, int) {
	for w.isSelect(x) {
		if x.Op == hdl.OpSlice {
			hi, lo = hi+x.Lo, lo+x.Lo
		}
		x = x.Args[0]
	}
	return x, hi, lo
}

// selectBits spells bits hi..lo of x; a whole 1-bit value is its own name
// since a scalar has no bit range to select from.
func (w *moduleWriter) selectBits(x *hdl.Expr, hi, lo int) string {
	x, hi, lo = w.selectFrom(x, hi, lo)
	n := w.part(x, hi, lo)
	switch {
	case x.Type.Width == 1:
		return n
	case hi == lo:
		return fmt.Sprintf("%s[%d]", n, hi)
	}
	return fmt.Sprintf("%s[%d:%d]", n, hi, lo)
}
