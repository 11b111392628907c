// Package optab is the one definition of what the simulator's one-word
// operators compute. The cases of the interpreter's evaluation loop
// (spliced into sim/eval.go by ./gen, which also writes the opcodes into
// sim/ops_gen.go) and the Go code the compiled mode emits (sim/codegen.go)
// are both expansions of the same expression templates, so the two
// cannot disagree.
package optab

import "strings"

// Op is one narrow operator: its result and every operand fit one word.
type Op struct {
	Name string // the opcode is "n"+Name; its multi-word twin "w"+Wide
	Wide string // the twin's name when it differs from Name
	Doc  string // a remark for the opcode's declaration
	// Expr is a Go expression of type uint64, calling at most the helpers
	// of sim/ophelpers.go, over the placeholders:
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

// Args are the Go expressions that replace an Op's placeholders.
type Args struct {
	A, B, X, Y, Z, K, N, W, M, R string
}

// Expand substitutes args into the template e.
func Expand(e string, a Args) string {
	return strings.NewReplacer("$A", a.A, "$B", a.B, "$x", a.X, "$y", a.Y, "$z", a.Z,
		"$k", a.K, "$n", a.N, "$w", a.W, "$m", a.M, "$r", a.R).Replace(e)
}
