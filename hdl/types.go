package hdl

import (
	"fmt"
	"math/big"
)

// MaxWidth is the widest value the DSL accepts.
const MaxWidth = 4096

// Type is the type of every value: a width in bits and a signedness.
type Type struct {
	Width  int
	Signed bool
}

// UInt is an unsigned type of w bits.
func UInt(w int) Type { return Type{Width: w} }

// SInt is a two's-complement signed type of w bits.
func SInt(w int) Type { return Type{Width: w, Signed: true} }

// Bool is UInt(1).
var Bool = UInt(1)

func (t Type) String() string {
	if t.Signed {
		return fmt.Sprintf("SInt(%d)", t.Width)
	}
	return fmt.Sprintf("UInt(%d)", t.Width)
}

// Short is the compact spelling used in derived module names: s8, u32.
func (t Type) Short() string {
	if t.Signed {
		return fmt.Sprintf("s%d", t.Width)
	}
	return fmt.Sprintf("u%d", t.Width)
}

func (t Type) valid() bool { return t.Width >= 1 && t.Width <= MaxWidth }

// Mask returns 2^w - 1.
func (t Type) Mask() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(t.Width)), big.NewInt(1))
}

// Bits returns v as the unsigned bit pattern of t (two's complement for
// negative values, wrapped to the width).
func (t Type) Bits(v *big.Int) *big.Int {
	return new(big.Int).And(v, t.Mask())
}

// Fits reports whether v is representable in t without wrapping.
func (t Type) Fits(v *big.Int) bool {
	if t.Signed {
		lim := new(big.Int).Lsh(big.NewInt(1), uint(t.Width-1))
		return v.Cmp(new(big.Int).Neg(lim)) >= 0 && v.Cmp(lim) < 0
	}
	return v.Sign() >= 0 && v.BitLen() <= t.Width
}

// Interpret reads the unsigned bit pattern bits as a value of t.
func (t Type) Interpret(bits *big.Int) *big.Int {
	v := t.Bits(bits)
	if t.Signed && v.Bit(t.Width-1) == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(t.Width)))
	}
	return v
}

// ClogWidth is the address width needed to index depth entries (at least 1).
func ClogWidth(depth int) int {
	w := 1
	for w < 63 && (1<<w) < depth {
		w++
	}
	return w
}
