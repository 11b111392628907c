package sim

// Lowering hdl operators to nodes, checking hdl's normal form and
// fusing extensions and truncations into their readers.

import "github.com/hwgen/hwgen/hdl"

// simpleOps are the operators whose operands all have the result's
// width (hdl normalises them so), mapped to their narrow opcodes.
var simpleOps = map[hdl.Op]opcode{
	hdl.OpNot: nNot, hdl.OpNeg: nNeg, hdl.OpAdd: nAdd, hdl.OpSub: nSub, hdl.OpMul: nMul,
	hdl.OpAnd: nAnd, hdl.OpOr: nOr, hdl.OpXor: nXor,
}

var reduceOps = map[hdl.Op]opcode{hdl.OpRedAnd: nRedAnd, hdl.OpRedOr: nRedOr, hdl.OpRedXor: nRedXor}

func (b *builder) operator(sc *scope, x *hdl.Expr) int32 {
	w := x.Type.Width
	// Before the operands are built: folding an Ext or a truncation in
	// means the extension or the full-width operator is never built.
	if id, ok := b.fused(sc, x, w); ok {
		return id
	}
	if len(x.Args) == 1 && (x.Op == hdl.OpTrunc || x.Op == hdl.OpSlice && x.Lo == 0) && lowBitsClosed[x.Args[0].Op] {
		inner := x.Args[0]
		// The low bits of these operators depend only on the low bits of
		// their operands: compute them at the narrow width at once.
		if id, ok := b.fused(sc, inner, w); ok {
			return id
		}
	}
	args := make([]int32, len(x.Args))
	for i, a := range x.Args {
		args[i] = b.expr(sc, a)
	}
	// The evaluators rely on hdl's normal form (operands pre-extended, no
	// implicit masking of inputs); a design that breaks it is refused here
	// instead of being simulated wrongly.
	shape := func(n int, same ...int) {
		if len(args) != n {
			b.fail("%s: %s node at %s has %d operands, want %d", b.where(sc), x.Op, x.Pos, len(args), n)
		}
		for _, i := range same {
			if b.width(args[i]) != w {
				b.fail("%s: %s node at %s: operand %d is %d bits, result %d", b.where(sc), x.Op, x.Pos, i, b.width(args[i]), w)
			}
		}
	}
	signed := len(x.Args) > 0 && x.Args[0].Type.Signed
	if op, ok := simpleOps[x.Op]; ok {
		if op == nNot || op == nNeg {
			shape(1, 0)
		} else {
			shape(2, 0, 1)
		}
		return b.node(op, w, args...)
	}
	switch x.Op {
	case hdl.OpRedAnd, hdl.OpRedOr, hdl.OpRedXor:
		shape(1)
		return b.node(reduceOps[x.Op], w, args[0])
	case hdl.OpShlConst:
		shape(1, 0)
		if x.Amount < 0 || x.Amount >= w {
			b.fail("%s: shift by %d of %d bits at %s", b.where(sc), x.Amount, w, x.Pos)
		}
		return b.nodeK(nShlC, w, int32(x.Amount), 0, args[0])
	case hdl.OpShl:
		shape(2, 0)
		return b.node(nShl, w, args[0], args[1])
	case hdl.OpShr:
		shape(2, 0)
		if signed {
			return b.node(nSra, w, args[0], args[1])
		}
		return b.node(nShr, w, args[0], args[1])
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		shape(2)
		l, r := args[0], args[1]
		if b.width(l) != b.width(r) {
			b.fail("%s: %s node at %s compares %d and %d bits", b.where(sc), x.Op, x.Pos, b.width(l), b.width(r))
		}
		var op opcode
		switch x.Op {
		case hdl.OpEq:
			op = nEq
		case hdl.OpNe:
			op = nNe
		case hdl.OpLt, hdl.OpGt:
			op = nLtU
		default:
			op = nLeU
		}
		if x.Op == hdl.OpGt || x.Op == hdl.OpGe {
			l, r = r, l
		}
		if signed && (op == nLtU || op == nLeU) {
			op += nLtS - nLtU
		}
		return b.node(op, w, l, r)
	case hdl.OpMux:
		shape(3, 1, 2)
		if b.width(args[0]) != 1 {
			b.fail("%s: mux select at %s is %d bits", b.where(sc), x.Pos, b.width(args[0]))
		}
		return b.node(nMux, w, args...)
	case hdl.OpCat:
		first := int32(len(b.s.cat))
		total := 0
		for _, a := range args {
			b.s.cat = append(b.s.cat, catArg{off: b.off(a), w: int32(b.width(a))})
			total += b.width(a)
		}
		if total != w || len(args) == 0 {
			b.fail("%s: cat at %s of %d bits into %d", b.where(sc), x.Pos, total, w)
		}
		return b.nodeK(nCat, w, first, int32(len(args)), args...)
	case hdl.OpSlice, hdl.OpTrunc:
		shape(1)
		lo := 0
		if x.Op == hdl.OpSlice {
			lo = x.Lo
		}
		if lo < 0 || lo+w > b.width(args[0]) {
			b.fail("%s: slice [%d+:%d] of %d bits at %s", b.where(sc), lo, w, b.width(args[0]), x.Pos)
		}
		return b.nodeK(nSlice, w, int32(lo), 0, args[0])
	}
	b.fail("%s: unsupported operator %s at %s", b.where(sc), x.Op, x.Pos)
	return 0
}

// lowBitsClosed are the operators whose result's low n bits depend only
// on the low n bits of their operands, so a truncation can be folded in.
var lowBitsClosed = map[hdl.Op]bool{
	hdl.OpAdd: true, hdl.OpSub: true, hdl.OpMul: true, hdl.OpAnd: true, hdl.OpOr: true, hdl.OpXor: true,
	hdl.OpNot: true, hdl.OpNeg: true,
}

// fusedOps are the narrow operators that read their operands through the
// sign-extension shifts, mapped to their opcodes (ordered compares are
// turned into their unsigned or signed form by the caller).
var fusedOps = map[hdl.Op]opcode{
	hdl.OpAdd: nAdd, hdl.OpSub: nSub, hdl.OpMul: nMul, hdl.OpAnd: nAnd, hdl.OpOr: nOr, hdl.OpXor: nXor,
	hdl.OpNot: nNot, hdl.OpNeg: nNeg, hdl.OpEq: nEq, hdl.OpNe: nNe,
	hdl.OpLt: nLtU, hdl.OpGt: nLtU, hdl.OpLe: nLeU, hdl.OpGe: nLeU,
}

// fused builds x as one narrow node of width w that reads through any
// Ext of its operands (and, when w is below x's width, truncates): an
// extension or truncation then costs no node, no level and no event of
// its own. It declines (false) when anything is wider than a word.
func (b *builder) fused(sc *scope, x *hdl.Expr, w int) (int32, bool) {
	op, ok := fusedOps[x.Op]
	if !ok || w > 64 || x.Type.Width > 64 {
		return 0, false
	}
	for _, a := range x.Args {
		if a.Type.Width > 64 {
			return 0, false
		}
	}
	signed := x.Args[0].Type.Signed
	srcs := make([]int32, len(x.Args))
	shifts := make([]uint8, len(x.Args))
	for i, a := range x.Args {
		if lowBitsClosed[x.Op] {
			// Only the low w bits of the operands matter: read through
			// reinterpretations, through extensions of values at least w
			// bits wide (they change no bit that matters), and through
			// narrower extensions of one kind, whatever the operator's
			// signedness (Trunc(x + AsUInt(Ext(signed y)), 32) adds y
			// sign-extended).
			a = peelAs(a)
			ext, sext := false, false
			for a.Op == hdl.OpExt {
				src := a.Args[0]
				if src.Type.Width < w {
					if ext && src.Type.Signed != sext {
						break
					}
					ext, sext = true, src.Type.Signed
				}
				a = peelAs(src)
			}
			srcs[i] = b.expr(sc, a)
			if sext {
				shifts[i] = uint8(64 - b.width(srcs[i]))
			}
			continue
		}
		// An Ext keeps its operand's signedness, which hdl makes the
		// operator's: a signed operand is sign-extended from its own
		// width, an unsigned one is already zero-extended as stored.
		for a.Op == hdl.OpExt {
			a = a.Args[0]
		}
		srcs[i] = b.expr(sc, a)
		if signed {
			shifts[i] = uint8(64 - b.width(srcs[i]))
		}
	}
	if x.Op == hdl.OpGt || x.Op == hdl.OpGe {
		srcs[0], srcs[1] = srcs[1], srcs[0]
		shifts[0], shifts[1] = shifts[1], shifts[0]
	}
	if signed && (op == nLtU || op == nLeU) {
		op += nLtS - nLtU
	}
	var sb uint8
	if len(shifts) > 1 {
		sb = shifts[1]
	}
	return b.nodeX(op, w, 0, 0, shifts[0], sb, srcs...), true
}

// peelAs strips reinterpretations, which change no bit.
func peelAs(a *hdl.Expr) *hdl.Expr {
	for a.Op == hdl.OpAsSInt || a.Op == hdl.OpAsUInt {
		a = a.Args[0]
	}
	return a
}
