package golden

import (
	"fmt"
	"math"
)

// A lookup table maps every value of an element type to an element of
// that type: entry k is the result for the value t.Min() + k, so a
// table of t has 2^t.Width entries, in ascending order of the input.
// It is the planar engine's lut stage (the index is the element the
// post-processor produced) and how non-linear functions (sigmoid,
// tanh, exp, a power) run on an integer engine: TableOf samples a
// float function at every quantized input.

// MaxTableWidth bounds the element types TableOf and Lookup take (a
// table of 2^16 entries); the planar engine's own table is narrower
// (isa/planar.MaxLUTElemWidth).
const MaxTableWidth = 16

// CheckTable reports a table that is not one for t: its length must be
// 2^t.Width and every entry a value of t.
func CheckTable(table []int64, t Int) error {
	if t.Width < 1 || t.Width > MaxTableWidth {
		return fmt.Errorf("golden: a lookup table of %v: element width must be in 1..%d", t, MaxTableWidth)
	}
	if n := 1 << uint(t.Width); len(table) != n {
		return fmt.Errorf("golden: a lookup table of %v has %d entries, not %d (one per value)", t, len(table), n)
	}
	for k, v := range table {
		if !t.Fits(v) {
			return fmt.Errorf("golden: lookup table entry %d (input %d) = %d is not a value of %v (%d..%d)", k, t.Min()+int64(k), v, t, t.Min(), t.Max())
		}
	}
	return nil
}

// Lookup replaces every element v of x (a value of out) by its entry,
// table[v − out.Min()].
func Lookup(x *Tensor, table []int64, out Int) (*Tensor, error) {
	if x == nil {
		return nil, fmt.Errorf("golden: Lookup of a nil tensor")
	}
	if err := CheckTable(table, out); err != nil {
		return nil, err
	}
	res := New(x.Shape...)
	for i, v := range x.Data {
		if !out.Fits(v) {
			return nil, fmt.Errorf("golden: Lookup of %d (element %d), not a value of %v", v, i, out)
		}
		res.Data[i] = table[v-out.Min()]
	}
	return res, nil
}

// TableOf is the lookup table of the float function f between two
// quantizations of elem: the input value v stands for v·inScale, the
// output value u for u·outScale, and entry k (v = elem.Min() + k) is
// f(v·inScale) / outScale rounded half away from zero and saturated to
// elem (a NaN gives 0). So every entry is within half an output step of
// f wherever f is within elem's range.
func TableOf(f func(float64) float64, inScale, outScale float64, elem Int) ([]int64, error) {
	for _, s := range []struct {
		name string
		v    float64
	}{{"inScale", inScale}, {"outScale", outScale}} {
		if !(s.v > 0) || math.IsInf(s.v, 0) {
			return nil, fmt.Errorf("golden: TableOf: %s = %v must be a positive finite scale", s.name, s.v)
		}
	}
	if elem.Width < 1 || elem.Width > MaxTableWidth {
		return nil, fmt.Errorf("golden: TableOf of %v: element width must be in 1..%d", elem, MaxTableWidth)
	}
	table := make([]int64, 1<<uint(elem.Width))
	for k := range table {
		table[k] = quantize(f(float64(elem.Min()+int64(k))*inScale)/outScale, elem)
	}
	return table, nil
}

// quantize is y rounded half away from zero (math.Round) and saturated
// to t; NaN is 0.
func quantize(y float64, t Int) int64 {
	switch r := math.Round(y); {
	case math.IsNaN(r):
		return 0
	case r <= float64(t.Min()):
		return t.Min()
	case r >= float64(t.Max()):
		return t.Max()
	default:
		return int64(r)
	}
}
