package golden

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// This file holds the models of the planar engine (blocks/planar):
// requantization with activation, elementwise operations, pooling and
// reduction. Every one of them ends in the same post-processor, Requant,
// which is where the hardware saturates (the only models here that do).

// Rounding selects how Requant rounds away the bits shifted out.
type Rounding int

const (
	// HalfUp rounds to the nearest integer, ties towards +infinity:
	// floor(v/2^s + 1/2).
	HalfUp Rounding = iota
	// HalfEven rounds to the nearest integer, ties to the even one.
	HalfEven
)

var roundingNames = [...]string{HalfUp: "half-up", HalfEven: "half-even"}

func (r Rounding) String() string { return nameOf(roundingNames[:], r, "rounding") }

// ParseRounding is the rounding mode called name ("half-up", "half-even").
func ParseRounding(name string) (Rounding, error) {
	return parse("rounding", name, roundingNames[:], Rounding(0))
}

// nameOf is names[v], or kind(v) for a value without a name.
func nameOf[T ~int](names []string, v T, kind string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, int(v))
}

// Requant is the planar engine's post-processor:
//
//	v = x·Scale + Bias                        (exact)
//	r = v                                     if Shift = 0
//	r = floor(v / 2^Shift)                    if Wrap (no rounding)
//	r = floor(v / 2^Shift) + up               otherwise, with rem = v − floor(v/2^Shift)·2^Shift,
//	                                          half = 2^(Shift−1) and
//	    up = rem ≥ half                       (HalfUp)
//	    up = rem > half or (rem = half and floor(v/2^Shift) is odd)   (HalfEven)
//	r = max(r, 0)                             if Relu
//	r = min(max(r, Lo), Hi)                   if Clamp
//	out = min(max(r, out.Min()), out.Max())   saturation to the output format
//	out = r mod 2^out.Width                   if Wrap: the low bits of r as an element (out.Wrap)
//
// Wrap cuts a wide value into elements: with Scale 1 and Shift k·w, out
// is digit k (w bits) of x + Bias, and the digits of every k together
// give x + Bias exactly. Rounding is ignored then, since a rounded digit
// would carry into the next one. ReLU and clamp still apply (a ReLU
// before the cut gives the digits of max(x + Bias, 0)).
//
// The model computes v in int64: |x·Scale + Bias| must stay below 2^62,
// which the engine's configuration limits guarantee.
type Requant struct {
	Scale, Bias int64
	Shift       int // 0..62
	Rounding    Rounding
	Relu        bool
	Clamp       bool
	Lo, Hi      int64
	Wrap        bool
}

// Identity is the post-processor that only saturates: scale 1, bias 0,
// no shift.
func Identity() Requant { return Requant{Scale: 1} }

// Apply runs the post-processor on one value.
func (q Requant) Apply(x int64, out Int) int64 {
	v := x*q.Scale + q.Bias
	r := v
	if q.Wrap {
		r = v >> uint(q.Shift) // arithmetic: floor
	} else if q.Shift > 0 {
		fl := v >> uint(q.Shift) // arithmetic: floor
		rem := v - fl<<uint(q.Shift)
		half := int64(1) << uint(q.Shift-1)
		up := rem >= half
		if q.Rounding == HalfEven {
			up = rem > half || (rem == half && fl&1 == 1)
		}
		r = fl
		if up {
			r++
		}
	}
	if q.Relu && r < 0 {
		r = 0
	}
	if q.Clamp {
		r = max(min(r, q.Hi), q.Lo)
	}
	if q.Wrap {
		return out.Wrap(r)
	}
	return max(min(r, out.Max()), out.Min())
}

func (q Requant) check() error {
	if q.Shift < 0 || q.Shift > 62 {
		return fmt.Errorf("golden: requant shift %d outside 0..62", q.Shift)
	}
	return nil
}

// Activate is the activation/requantization of a psum tile: x is C×N
// (channel c in row c), out[c][n] = Requant(x[c][n]) with channel c's
// scale and bias when scale and bias are given (one per channel), else
// q's own.
func Activate(x *Tensor, scale, bias []int64, q Requant, out Int) (*Tensor, error) {
	if err := rank2("x", x); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	C, N := x.Shape[0], x.Shape[1]
	if (scale == nil) != (bias == nil) || (scale != nil && (len(scale) != C || len(bias) != C)) {
		return nil, fmt.Errorf("golden: Activate of %s needs %d per-channel scales and biases or none, got %d and %d",
			shapeString(x.Shape), C, len(scale), len(bias))
	}
	res := New(C, N)
	for c := 0; c < C; c++ {
		qc := q
		if scale != nil {
			qc.Scale, qc.Bias = scale[c], bias[c]
		}
		for n := 0; n < N; n++ {
			res.Data[c*N+n] = qc.Apply(x.Data[c*N+n], out)
		}
	}
	return res, nil
}

// EltOp is an elementwise function of two values, or of one (EltAbs).
type EltOp int

// The elementwise functions.
const (
	EltAdd EltOp = iota // a + b
	EltSub              // a − b
	EltMul              // a · b
	EltMax              // max(a, b)
	EltMin              // min(a, b)
	// EltAbs is |a|, unary: the second operand is ignored.
	// The exact value goes through Requant, so |min| of a signed type
	// saturates to its maximum.
	EltAbs
	// EltNeg is −a, unary; −min of a signed type saturates to its
	// maximum, as EltAbs's |min| does.
	EltNeg
)

// eltDefs is the elementwise table: each function's name, whether it
// is unary (its second operand ignored) and its exact result.
var eltDefs = [...]struct {
	name  string
	unary bool
	f     func(a, b int64) int64
}{
	EltAdd: {"add", false, func(a, b int64) int64 { return a + b }},
	EltSub: {"sub", false, func(a, b int64) int64 { return a - b }},
	EltMul: {"mul", false, func(a, b int64) int64 { return a * b }},
	EltMax: {"max", false, func(a, b int64) int64 { return max(a, b) }},
	EltMin: {"min", false, func(a, b int64) int64 { return min(a, b) }},
	EltAbs: {"abs", true, func(a, _ int64) int64 { return max(a, -a) }},
	EltNeg: {"neg", true, func(a, _ int64) int64 { return -a }},
}

var eltNames = func() []string {
	names := make([]string, len(eltDefs))
	for i, d := range eltDefs {
		names[i] = d.name
	}
	return names
}()

func (o EltOp) String() string { return nameOf(eltNames, o, "eltop") }

// Unary reports whether o takes one operand (its second is ignored).
func (o EltOp) Unary() bool { return o.valid() && eltDefs[o].unary }

func (o EltOp) valid() bool { return o >= 0 && int(o) < len(eltDefs) }

// EltOpNames lists the elementwise functions by name, in code order.
func EltOpNames() []string { return eltNames }

// ParseEltOp is the elementwise function called name.
func ParseEltOp(name string) (EltOp, error) {
	return parse("elementwise function", name, eltNames, EltOp(0))
}

// parse finds name in names and returns its index as a T.
func parse[T ~int](what, name string, names []string, _ T) (T, error) {
	for i, n := range names {
		if n == name {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%s %q is not one of %s", what, name, strings.Join(names, ", "))
}

// apply is the exact result of the function.
func (o EltOp) apply(a, b int64) (int64, error) {
	if !o.valid() {
		return 0, fmt.Errorf("golden: unknown elementwise function %d", int(o))
	}
	return eltDefs[o].f(a, b), nil
}

// Eltwise is out = Requant(a op b) element by element on two tensors of
// one shape (the exact result, then the post-processor: with Identity it
// is the operation saturated to out).
func Eltwise(op EltOp, a, b *Tensor, q Requant, out Int) (*Tensor, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("golden: Eltwise of a nil tensor")
	}
	if !slices.Equal(a.Shape, b.Shape) {
		return nil, fmt.Errorf("golden: Eltwise of a %s and b %s: shapes differ", shapeString(a.Shape), shapeString(b.Shape))
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	res := New(a.Shape...)
	for i := range a.Data {
		v, err := op.apply(a.Data[i], b.Data[i])
		if err != nil {
			return nil, err
		}
		res.Data[i] = q.Apply(v, out)
	}
	return res, nil
}

// EltwiseScalar is out = Requant(a op s) with a scalar second operand.
func EltwiseScalar(op EltOp, a *Tensor, s int64, q Requant, out Int) (*Tensor, error) {
	if a == nil {
		return nil, fmt.Errorf("golden: EltwiseScalar of a nil tensor")
	}
	b := New(a.Shape...)
	for i := range b.Data {
		b.Data[i] = s
	}
	return Eltwise(op, a, b, q, out)
}

// EltwiseChannel is out = Requant(a op b[c]) with one second operand
// per channel: a is [C, N] (channel c's plane flattened in row c), b
// [C] (a per-channel bias or scale, the planar engine's broadcast).
func EltwiseChannel(op EltOp, a, b *Tensor, q Requant, out Int) (*Tensor, error) {
	if err := rank2("a", a); err != nil {
		return nil, err
	}
	if b == nil || len(b.Shape) != 1 || b.Shape[0] != a.Shape[0] {
		return nil, fmt.Errorf("golden: EltwiseChannel of a %s wants one operand per channel, b [%d]", shapeString(a.Shape), a.Shape[0])
	}
	N := a.Shape[1]
	full := New(a.Shape...)
	for i := range full.Data {
		full.Data[i] = b.Data[i/N]
	}
	return Eltwise(op, a, full, q, out)
}

// Abs is out = Requant(|a|) element by element.
func Abs(a *Tensor, q Requant, out Int) (*Tensor, error) {
	if a == nil {
		return nil, fmt.Errorf("golden: Abs of a nil tensor")
	}
	return EltwiseScalar(EltAbs, a, 0, q, out)
}

// PoolKind is how a pooling window's values combine.
type PoolKind int

// The pooling kinds.
const (
	PoolMax PoolKind = iota // maximum of the window
	PoolAvg                 // sum of the window, then Requant (the scale and shift divide)
	PoolMin                 // minimum of the window
)

// poolKinds defines every pooling kind: its name and how one more window
// value v joins the result so far (the first value is the result).
var poolKinds = [...]struct {
	name    string
	combine func(acc, v int64) int64
}{
	PoolMax: {"max", func(acc, v int64) int64 { return max(acc, v) }},
	PoolAvg: {"avg", func(acc, v int64) int64 { return acc + v }},
	PoolMin: {"min", func(acc, v int64) int64 { return min(acc, v) }},
}

func (k PoolKind) String() string { return nameOf(PoolKindNames(), k, "poolkind") }

func (k PoolKind) valid() bool { return k >= 0 && int(k) < len(poolKinds) }

// PoolKindNames lists the pooling kinds by name, in code order.
func PoolKindNames() []string {
	out := make([]string, len(poolKinds))
	for i, k := range poolKinds {
		out[i] = k.name
	}
	return out
}

// ParsePoolKind is the pooling kind called name.
func ParsePoolKind(name string) (PoolKind, error) {
	return parse("pooling kind", name, PoolKindNames(), PoolKind(0))
}

// Padding says what lies outside the plane.
type Padding int

// The padding modes.
const (
	PadZero Padding = iota // the value 0 (for max pooling too)
	PadEdge                // the nearest element of the plane (coordinates clamped)
	// PadIgnore leaves the padded positions out of the window, as if
	// they held −∞ for max pooling and +∞ for min pooling: padding never
	// wins (ONNX MaxPool). Average pooling cannot use it, since the
	// divisor would then depend on the window's position. Every padding
	// must be below the window (PadH < KH, PadW < KW), so that each
	// window holds at least one element of the plane.
	PadIgnore
)

var paddingNames = [...]string{PadZero: "zero", PadEdge: "edge", PadIgnore: "ignore"}

func (p Padding) String() string { return nameOf(paddingNames[:], p, "padding") }

// checkPadding reports a padding mode that p's kind or window cannot use.
func (p Pooling) checkPadding() error {
	switch p.Padding {
	case PadZero, PadEdge:
		return nil
	case PadIgnore:
		switch {
		case p.Kind != PoolMax && p.Kind != PoolMin:
			return fmt.Errorf("golden: %v pooling cannot ignore the padding (only max and min can)", p.Kind)
		case p.PadH >= p.KH || p.PadW >= p.KW:
			return fmt.Errorf("golden: ignored padding %d, %d must be below the window %dx%d (else a window may hold only padding)",
				p.PadH, p.PadW, p.KH, p.KW)
		}
		return nil
	}
	return fmt.Errorf("golden: unknown padding mode %d", int(p.Padding))
}

// Pooling describes a pooling window: KH×KW, one stride for both
// directions, PadH rows above and below and PadW columns left and right.
type Pooling struct {
	Kind       PoolKind
	KH, KW     int
	Stride     int
	PadH, PadW int
	Padding    Padding
}

// PoolOutSize is the output plane of p on an H×W input:
// OH = (H + 2·PadH − KH)/Stride + 1 (floor), OW likewise. It rejects a
// zero stride or kernel, negative padding, and a window larger than the
// padded plane.
func PoolOutSize(h, w int, p Pooling) (oh, ow int, err error) {
	switch {
	case h < 1 || w < 1:
		return 0, 0, fmt.Errorf("golden: pooling an empty %dx%d plane", h, w)
	case p.KH < 1 || p.KW < 1 || p.Stride < 1:
		return 0, 0, fmt.Errorf("golden: pooling window %dx%d stride %d: every one must be at least 1", p.KH, p.KW, p.Stride)
	case p.PadH < 0 || p.PadW < 0:
		return 0, 0, fmt.Errorf("golden: negative padding %d, %d", p.PadH, p.PadW)
	case p.KH > h+2*p.PadH || p.KW > w+2*p.PadW:
		return 0, 0, fmt.Errorf("golden: window %dx%d larger than the padded %dx%d plane", p.KH, p.KW, h+2*p.PadH, w+2*p.PadW)
	}
	return (h+2*p.PadH-p.KH)/p.Stride + 1, (w+2*p.PadW-p.KW)/p.Stride + 1, nil
}

// Pool pools each plane of x (shape [C, H, W]): out[c][oy][ox] is
// Requant of the window's values combined by the kind (PoolMax: their
// maximum, PoolAvg: their sum, PoolMin: their minimum) over the window
// rows oy·Stride−PadH … +KH−1 and columns ox·Stride−PadW … +KW−1 of the
// padded plane (with PadIgnore, over the window's positions inside the
// plane only). Use Identity for max pooling, and a scale and shift
// that divide by KH·KW for averaging.
func Pool(x *Tensor, p Pooling, q Requant, out Int) (*Tensor, error) {
	if x == nil || len(x.Shape) != 3 {
		return nil, fmt.Errorf("golden: Pool wants a [C, H, W] tensor")
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	C, H, W := x.Shape[0], x.Shape[1], x.Shape[2]
	OH, OW, err := PoolOutSize(H, W, p)
	if err != nil {
		return nil, err
	}
	if !p.Kind.valid() {
		return nil, fmt.Errorf("golden: unknown pooling kind %d", int(p.Kind))
	}
	if err := p.checkPadding(); err != nil {
		return nil, err
	}
	combine := poolKinds[p.Kind].combine
	// at is the value at (y, xx) of the padded plane, and false for a
	// position the window leaves out.
	at := func(c, y, xx int) (int64, bool) {
		if y < 0 || y >= H || xx < 0 || xx >= W {
			switch p.Padding {
			case PadZero:
				return 0, true
			case PadIgnore:
				return 0, false
			}
			y, xx = min(max(y, 0), H-1), min(max(xx, 0), W-1)
		}
		return x.Data[(c*H+y)*W+xx], true
	}
	res := New(C, OH, OW)
	for c := 0; c < C; c++ {
		for oy := 0; oy < OH; oy++ {
			for ox := 0; ox < OW; ox++ {
				var acc int64
				first := true
				for ky := 0; ky < p.KH; ky++ {
					for kx := 0; kx < p.KW; kx++ {
						v, in := at(c, oy*p.Stride-p.PadH+ky, ox*p.Stride-p.PadW+kx)
						switch {
						case !in: // an ignored padding position
						case first:
							acc, first = v, false
						default:
							acc = combine(acc, v)
						}
					}
				}
				res.Data[(c*OH+oy)*OW+ox] = q.Apply(acc, out)
			}
		}
	}
	return res, nil
}

// ReduceKind is a reduction of planes: of the whole plane to one value,
// or across rows (the H rows of an H×W plane combined element by element
// into one row of W values).
type ReduceKind int

// The reductions.
const (
	ReduceSum    ReduceKind = iota // the plane's sum
	ReduceMax                      // the plane's maximum
	ReduceRowSum                   // each column's sum: W values
	ReduceRowMax                   // each column's maximum: W values
)

var reduceNames = [...]string{ReduceSum: "sum", ReduceMax: "max", ReduceRowSum: "rowsum", ReduceRowMax: "rowmax"}

func (k ReduceKind) String() string { return nameOf(reduceNames[:], k, "reduction") }

// ReduceKindNames lists the reductions by name, in code order.
func ReduceKindNames() []string { return reduceNames[:] }

// AcrossRows reports whether k reduces across rows (W results per plane).
func (k ReduceKind) AcrossRows() bool { return k == ReduceRowSum || k == ReduceRowMax }

// isMax reports whether k combines by maximum (else by sum).
func (k ReduceKind) isMax() bool { return k == ReduceMax || k == ReduceRowMax }

// PostFn is a function the planar engine's reductions may apply between
// v = x·Scale + Bias and the shift of Requant (ApplyPost).
type PostFn int

// The post functions.
const (
	PostNone  PostFn = iota // u = v
	PostSqrt                // u = floor(√v), 0 for v < 0
	PostRecip               // u = trunc(2^k / v), 2^(k+1) − 1 for v = 0
)

var postNames = [...]string{PostNone: "none", PostSqrt: "sqrt", PostRecip: "recip"}

func (p PostFn) String() string { return nameOf(postNames[:], p, "post") }

// PostFnNames lists the post functions by name, in code order.
func PostFnNames() []string { return postNames[:] }

// ParsePostFn is the post function called name.
func ParsePostFn(name string) (PostFn, error) {
	return parse("post function", name, postNames[:], PostFn(0))
}

// ApplyPost is Apply with the post function p on v = x·Scale + Bias
// before the shift: u = p(v) takes v's place in the rounding, ReLU,
// clamp and saturation (or wrap). k is the reciprocal's numerator
// exponent (the planar engine's RecipShift): with Shift s the reciprocal
// is 2^(k−s)/v and the square root √v/2^s, both rounded as Requant
// rounds. |v| must stay below 2^k for the reciprocal.
func (q Requant) ApplyPost(x int64, p PostFn, k int, out Int) int64 {
	v := x*q.Scale + q.Bias
	switch p {
	case PostSqrt:
		v = isqrt(v)
	case PostRecip:
		switch num := int64(1) << uint(k); {
		case v == 0:
			v = 2*num - 1
		default:
			v = num / v // Go's division truncates towards zero
		}
	}
	q.Scale, q.Bias = 1, 0
	return q.Apply(v, out)
}

// isqrt is floor(√v) for v ≥ 0, and 0 for v < 0.
func isqrt(v int64) int64 {
	if v <= 0 {
		return 0
	}
	return new(big.Int).Sqrt(big.NewInt(v)).Int64()
}

// Reduce reduces the planes of x: out[c] = Requant of the sum or maximum
// of row c of x (shape [C, N]: channel c's plane flattened) for ReduceSum
// and ReduceMax; across rows (x [C, H, W]), out[c][j] = Requant of the
// sum or maximum of column j of plane c (ReduceRowSum, ReduceRowMax).
func Reduce(x *Tensor, kind ReduceKind, q Requant, out Int) (*Tensor, error) {
	return ReducePost(x, kind, PostNone, 0, q, out)
}

// ReducePost is Reduce with the post function p between v = x·Scale +
// Bias and the shift (Requant.ApplyPost, k the reciprocal's exponent).
func ReducePost(x *Tensor, kind ReduceKind, p PostFn, k int, q Requant, out Int) (*Tensor, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	if p < PostNone || p > PostRecip {
		return nil, fmt.Errorf("golden: unknown post function %d", int(p))
	}
	if kind < ReduceSum || kind > ReduceRowMax {
		return nil, fmt.Errorf("golden: unknown reduction %d", int(kind))
	}
	// lines are the value sets reduced: lines[c·per+j] holds n values.
	var C, per, n int
	var at func(c, j, i int) int64
	if kind.AcrossRows() {
		if x == nil || len(x.Shape) != 3 {
			return nil, fmt.Errorf("golden: Reduce %v wants a [C, H, W] tensor", kind)
		}
		H, W := x.Shape[1], x.Shape[2]
		C, per, n = x.Shape[0], W, H
		at = func(c, j, y int) int64 { return x.Data[(c*H+y)*W+j] }
	} else {
		if err := rank2("x", x); err != nil {
			return nil, err
		}
		C, per, n = x.Shape[0], 1, x.Shape[1]
		at = func(c, _, i int) int64 { return x.Data[c*n+i] }
	}
	if n < 1 || per < 1 {
		return nil, fmt.Errorf("golden: Reduce of an empty plane")
	}
	res := New(C)
	if kind.AcrossRows() {
		res = New(C, per)
	}
	for c := 0; c < C; c++ {
		for j := 0; j < per; j++ {
			acc := at(c, j, 0)
			for i := 1; i < n; i++ {
				if v := at(c, j, i); kind.isMax() {
					acc = max(acc, v)
				} else {
					acc += v
				}
			}
			res.Data[c*per+j] = q.ApplyPost(acc, p, k, out)
		}
	}
	return res, nil
}
