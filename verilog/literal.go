package verilog

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// literal spells bits (0 <= bits < 2^w) as a sized Verilog literal of t.
// Signed literals are written in hex so a negative value needs no unary
// minus (which would change the expression's width rules).
func literal(t hdl.Type, bits *big.Int) string {
	switch {
	case t.Width == 1 && !t.Signed:
		return fmt.Sprintf("1'b%d", bits.Bit(0))
	case t.Signed:
		return fmt.Sprintf("%d'sh%s", t.Width, bits.Text(16))
	case t.Width <= 32:
		return fmt.Sprintf("%d'd%s", t.Width, bits.Text(10))
	default:
		return fmt.Sprintf("%d'h%s", t.Width, bits.Text(16))
	}
}

// declType is the part of a declaration between the kind and the name:
// "signed [7:0] ", "[3:0] ", "" for a plain bit.
func declType(t hdl.Type) string {
	s := ""
	if t.Signed {
		s = "signed "
	}
	if t.Width > 1 {
		s += fmt.Sprintf("[%d:0] ", t.Width-1)
	}
	return s
}
