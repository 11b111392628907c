package golden

import (
	"fmt"
	"strings"
)

// Int is an integer format of the hardware: Width bits (1..64), two's
// complement when Signed.
type Int struct {
	Width  int
	Signed bool
}

// S is the signed format of w bits.
func S(w int) Int { return Int{Width: w, Signed: true} }

// U is the unsigned format of w bits.
func U(w int) Int { return Int{Width: w} }

func (t Int) String() string {
	if t.Signed {
		return fmt.Sprintf("int%d", t.Width)
	}
	return fmt.Sprintf("uint%d", t.Width)
}

// Min is the smallest value of t.
func (t Int) Min() int64 {
	if !t.Signed {
		return 0
	}
	return -1 << (t.Width - 1)
}

// Max is the largest value of t. An unsigned 64-bit format is limited to
// the int64 range: its top half is not representable here.
func (t Int) Max() int64 {
	if t.Signed {
		return 1<<(t.Width-1) - 1
	}
	if t.Width >= 63 {
		return 1<<63 - 1
	}
	return 1<<t.Width - 1
}

// Fits reports whether v is a value of t.
func (t Int) Fits(v int64) bool { return v >= t.Min() && v <= t.Max() }

// Wrap reduces v modulo 2^Width into t's range, as a register of that
// width does. Since int64 arithmetic is itself modulo 2^64, wrapping a
// sum or product computed in int64 equals wrapping after every step.
func (t Int) Wrap(v int64) int64 {
	if t.Width >= 64 {
		return v
	}
	sh := uint(64 - t.Width)
	if t.Signed {
		return v << sh >> sh
	}
	return int64(uint64(v) << sh >> sh)
}

// Tensor is a dense row-major array of int64 values.
type Tensor struct {
	Shape []int
	Data  []int64
}

// New is a zero tensor of the given shape (every dimension >= 0).
func New(shape ...int) *Tensor {
	n := 1
	for _, d := range shape {
		if d < 0 {
			d = 0
		}
		n *= d
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]int64, n)}
}

// FromRows builds a matrix from equal-length rows.
func FromRows(rows [][]int64) (*Tensor, error) {
	cols := 0
	if len(rows) > 0 {
		cols = len(rows[0])
	}
	t := New(len(rows), cols)
	for i, r := range rows {
		if len(r) != cols {
			return nil, fmt.Errorf("golden: row %d has %d values, row 0 has %d", i, len(r), cols)
		}
		copy(t.Data[i*cols:], r)
	}
	return t, nil
}

// Rows returns a rank-2 tensor as a fresh slice of rows.
func (t *Tensor) Rows() [][]int64 {
	if len(t.Shape) != 2 {
		return nil
	}
	out := make([][]int64, t.Shape[0])
	for i := range out {
		out[i] = append([]int64(nil), t.Data[i*t.Shape[1]:(i+1)*t.Shape[1]]...)
	}
	return out
}

// index is the offset of idx in Data, or -1 when idx is out of range.
func (t *Tensor) index(idx []int) int {
	if len(idx) != len(t.Shape) {
		return -1
	}
	off := 0
	for i, x := range idx {
		if x < 0 || x >= t.Shape[i] {
			return -1
		}
		off = off*t.Shape[i] + x
	}
	return off
}

// At returns the element at idx; it panics on an index outside the shape,
// like a slice does.
func (t *Tensor) At(idx ...int) int64 {
	off := t.index(idx)
	if off < 0 {
		panic(fmt.Sprintf("golden: index %v outside shape %v", idx, t.Shape))
	}
	return t.Data[off]
}

// Set stores v at idx; it panics on an index outside the shape.
func (t *Tensor) Set(v int64, idx ...int) {
	off := t.index(idx)
	if off < 0 {
		panic(fmt.Sprintf("golden: index %v outside shape %v", idx, t.Shape))
	}
	t.Data[off] = v
}

// Clone is a deep copy.
func (t *Tensor) Clone() *Tensor {
	return &Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]int64(nil), t.Data...)}
}

// CheckFits returns an error naming the first element that is not a value
// of f, so a test finds bad stimulus before it blames the hardware.
func (t *Tensor) CheckFits(f Int) error {
	for i, v := range t.Data {
		if !f.Fits(v) {
			return fmt.Errorf("golden: element %d = %d does not fit %s", i, v, f)
		}
	}
	return nil
}

func shapeString(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, "x") + "]"
}

func rank2(name string, t *Tensor) error {
	if t == nil {
		return fmt.Errorf("golden: %s is nil", name)
	}
	if len(t.Shape) != 2 {
		return fmt.Errorf("golden: %s has shape %s, want a matrix", name, shapeString(t.Shape))
	}
	return nil
}
