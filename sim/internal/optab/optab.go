// Package optab is the one definition of what the simulator's one-word
// operators compute. The interpreter's evaluation (generated from the
// table into sim/ops_gen.go by ./gen) and the Go code the compiled mode
// emits are both expansions of the same expression templates, so the two
// cannot disagree.
package optab

import "strings"

// Op is one narrow operator: its result and every operand fit one word.
type Op struct {
	Name string // the opcode is "n"+Name; its multi-word twin "w"+Wide
	Wide string // the twin's name when it differs from Name
	Doc  string // a remark for the opcode's declaration
	// Expr is a Go expression of type uint64 over the placeholders:
	//
	//	$A, $B  operands a and b, sign-extended per the node (see sim.node.sa)
	//	$x, $y, $z  operands a, b and c as stored
	//	$k  the constant (slice low bit, shift amount)
	//	$n  the width of operand a
	//	$w  the result width
	//	$m  the mask of the result width
	//
	// For a Cat (Variadic) it is one step of the fold over the arguments,
	// most significant first, starting from 0: $r is the bits so far, $x
	// the next argument and $n its width.
	Expr     string
	Variadic bool
}

// Narrow lists the narrow operators in opcode order.
var Narrow = []Op{
	{Name: "Add", Expr: "($A + $B) & $m"},
	{Name: "Sub", Expr: "($A - $B) & $m"},
	{Name: "Mul", Expr: "($A * $B) & $m"},
	{Name: "And", Expr: "($A & $B) & $m"},
	{Name: "Or", Expr: "($A | $B) & $m"},
	{Name: "Xor", Expr: "($A ^ $B) & $m"},
	{Name: "Not", Expr: "^$A & $m"},
	{Name: "Neg", Expr: "-$A & $m"},
	{Name: "ShlC", Expr: "($x << $k) & $m"},
	{Name: "Shl", Expr: "shl($x, $y, $w, $m)"},
	{Name: "Shr", Expr: "shr($x, $y, $w)"},
	{Name: "Sra", Expr: "sra($x, $y, $w, $m)"},
	{Name: "Eq", Expr: "b2u($A == $B)"},
	{Name: "Ne", Expr: "b2u($A != $B)"},
	{Name: "LtU", Expr: "b2u($A < $B)"},
	{Name: "LeU", Expr: "b2u($A <= $B)"},
	{Name: "LtS", Expr: "b2u(int64($A) < int64($B))"},
	{Name: "LeS", Expr: "b2u(int64($A) <= int64($B))"},
	{Name: "Mux", Expr: "mux($x, $y, $z)"},
	{Name: "Cat", Expr: "$r<<$n | $x", Variadic: true},
	{Name: "Slice", Doc: "also Trunc (Lo = 0)", Expr: "($x >> $k) & $m"},
	{Name: "Sext", Expr: "sx($x, 64-$n) & $m"},
	{Name: "Copy", Wide: "Zext", Doc: "zero extension: the bits are already masked", Expr: "$x"},
	{Name: "RedAnd", Expr: "b2u($x == mask($n))"},
	{Name: "RedOr", Expr: "b2u($x != 0)"},
	{Name: "RedXor", Expr: "uint64(bits.OnesCount64($x) & 1)"},
}

// Helpers is the Go source of the functions the expressions call. It
// goes into sim/ops_gen.go and into every generated plugin; it needs
// math/bits imported.
const Helpers = `
// b2u is 1 for true.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mask is 2^w-1 for 1 <= w <= 64.
func mask(w uint64) uint64 { return ^uint64(0) >> (64 - w) }

// sx sign-extends x from bit 63-sh (sh = 0: x as it is).
func sx(x, sh uint64) uint64 { return uint64(int64(x<<sh) >> sh) }

func mux(sel, a, b uint64) uint64 {
	if sel != 0 {
		return a
	}
	return b
}

// shl, shr and sra shift a w-bit value by a variable amount; shifting
// out every bit leaves 0, or the sign for sra.
func shl(a, amt, w, m uint64) uint64 {
	if amt < w {
		return (a << amt) & m
	}
	return 0
}

func shr(a, amt, w uint64) uint64 {
	if amt < w {
		return a >> amt
	}
	return 0
}

func sra(a, amt, w, m uint64) uint64 {
	if amt >= w {
		amt = w - 1
	}
	return uint64(int64(sx(a, 64-w))>>amt) & m
}
`

// Args are the Go expressions that replace an Op's placeholders.
type Args struct {
	A, B, X, Y, Z, K, N, W, M, R string
}

// Expand substitutes args into the template e.
func Expand(e string, a Args) string {
	return strings.NewReplacer("$A", a.A, "$B", a.B, "$x", a.X, "$y", a.Y, "$z", a.Z,
		"$k", a.K, "$n", a.N, "$w", a.W, "$m", a.M, "$r", a.R).Replace(e)
}
