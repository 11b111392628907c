package planar

import (
	"fmt"
	"math/bits"
)

// FieldDef is one field of the task descriptor: the hardware's task port
// t_<Name>, Width bits, Signed when the port is two's complement.
type FieldDef struct {
	Name   string
	Width  int
	Signed bool
}

// Field is one encoded field value (the bit pattern of the port).
type Field struct {
	Name  string
	Width int
	Value uint64
}

// field is one row of the field table: the port's name and width, how a
// value is checked (signed port, or an element value whose signedness
// follows the element type), and how it is read from and written to a
// Task. A nil set marks a field computed from the others (oh, ow).
type field struct {
	name   string
	width  func(s Sizes) int
	signed bool
	elem   bool
	get    func(t *Task) int64
	set    func(t *Task, v int64)
}

func fixed(w int) func(Sizes) int { return func(Sizes) int { return w } }

func flag(get func(t *Task) *bool) (func(*Task) int64, func(*Task, int64)) {
	return func(t *Task) int64 { return b2i(*get(t)) }, func(t *Task, v int64) { *get(t) = v != 0 }
}

func num(get func(t *Task) *int) (func(*Task) int64, func(*Task, int64)) {
	return func(t *Task) int64 { return int64(*get(t)) }, func(t *Task, v int64) { *get(t) = int(v) }
}

func wide(get func(t *Task) *int64) (func(*Task) int64, func(*Task, int64)) {
	return func(t *Task) int64 { return *get(t) }, func(t *Task, v int64) { *get(t) = v }
}

func row(name string, width func(Sizes) int, acc func(*Task) int64, set func(*Task, int64)) field {
	return field{name: name, width: width, get: acc, set: set}
}

// fieldTable is the task descriptor, in port order: the one list the
// encoder, the decoder, the NPU's param layout and the hardware's task
// ports are made from.
var fieldTable = func() []field {
	dim := func(s Sizes) int { return s.DimWidth() }
	addr := func(s Sizes) int { return s.AddrWidth() }
	k := func(s Sizes) int { return s.KWidth() }
	pad := func(s Sizes) int { return s.PadWidth() }
	elem := func(s Sizes) int { return s.ElemWidth }
	f := []field{
		row("op", fixed(OpWidth()), func(t *Task) int64 { return int64(t.Op) }, func(t *Task, v int64) { t.Op = Op(v) }),
		row("fn", fixed(FnWidth()), func(t *Task) int64 { return int64(t.Fn) }, func(t *Task, v int64) { t.Fn = Fn(v) }),
		row("mask", func(s Sizes) int { return s.Lanes }, func(t *Task) int64 { return int64(t.Mask) }, func(t *Task, v int64) { t.Mask = uint64(v) }),
		row("src", func(s Sizes) int { return s.SrcWidth() }, nil, nil),
		row("src2", addr, nil, nil),
		row("dst", addr, nil, nil),
		row("h", dim, nil, nil),
		row("w", dim, nil, nil),
		row("kh", k, nil, nil),
		row("kw", k, nil, nil),
		row("stride", k, nil, nil),
		row("pad_h", pad, nil, nil),
		row("pad_w", pad, nil, nil),
		row("pad_edge", fixed(1), nil, nil),
		row("pad_ignore", fixed(1), nil, nil),
		row("oh", dim, func(t *Task) int64 { oh, _ := t.poolOut(); return int64(oh) }, nil),
		row("ow", dim, func(t *Task) int64 { _, ow := t.poolOut(); return int64(ow) }, nil),
		row("scalar_operand", fixed(1), nil, nil),
		{name: "scalar", width: elem, elem: true},
		{name: "scale", width: func(s Sizes) int { return s.ScaleWidth }, signed: true},
		{name: "bias", width: func(s Sizes) int { return s.AccWidth }, signed: true},
		row("shift", func(s Sizes) int { return s.ShiftWidth() }, nil, nil),
		row("round_even", fixed(1), nil, nil),
		row("relu", fixed(1), nil, nil),
		row("clamp", fixed(1), nil, nil),
		{name: "lo", width: elem, elem: true},
		{name: "hi", width: elem, elem: true},
		row("per_lane", fixed(1), nil, nil),
		row("wrap", fixed(1), nil, nil),
		row("broadcast", fixed(1), nil, nil),
		row("post", fixed(PostWidth()), func(t *Task) int64 { return int64(t.Post) }, func(t *Task, v int64) { t.Post = Post(v) }),
		row("lut", fixed(1), nil, nil),
	}
	ints := map[string]func(*Task) *int{
		"src": func(t *Task) *int { return &t.Src }, "src2": func(t *Task) *int { return &t.Src2 }, "dst": func(t *Task) *int { return &t.Dst },
		"h": func(t *Task) *int { return &t.H }, "w": func(t *Task) *int { return &t.W },
		"kh": func(t *Task) *int { return &t.KH }, "kw": func(t *Task) *int { return &t.KW }, "stride": func(t *Task) *int { return &t.Stride },
		"pad_h": func(t *Task) *int { return &t.PadH }, "pad_w": func(t *Task) *int { return &t.PadW }, "shift": func(t *Task) *int { return &t.Shift },
	}
	flags := map[string]func(*Task) *bool{
		"pad_edge": func(t *Task) *bool { return &t.PadEdge }, "pad_ignore": func(t *Task) *bool { return &t.PadIgnore },
		"scalar_operand": func(t *Task) *bool { return &t.ScalarOperand }, "round_even": func(t *Task) *bool { return &t.RoundEven },
		"relu": func(t *Task) *bool { return &t.Relu }, "clamp": func(t *Task) *bool { return &t.Clamp },
		"per_lane": func(t *Task) *bool { return &t.PerLane }, "wrap": func(t *Task) *bool { return &t.Wrap },
		"broadcast": func(t *Task) *bool { return &t.Broadcast }, "lut": func(t *Task) *bool { return &t.Lut },
	}
	wides := map[string]func(*Task) *int64{
		"scalar": func(t *Task) *int64 { return &t.Scalar }, "scale": func(t *Task) *int64 { return &t.Scale },
		"bias": func(t *Task) *int64 { return &t.Bias }, "lo": func(t *Task) *int64 { return &t.Lo }, "hi": func(t *Task) *int64 { return &t.Hi },
	}
	for i := range f {
		if p, ok := ints[f[i].name]; ok {
			f[i].get, f[i].set = num(p)
		}
		if p, ok := flags[f[i].name]; ok {
			f[i].get, f[i].set = flag(p)
		}
		if p, ok := wides[f[i].name]; ok {
			f[i].get, f[i].set = wide(p)
		}
		if f[i].get == nil {
			panic("planar: field " + f[i].name + " has no accessor")
		}
	}
	return f
}()

// Fields lists the task descriptor's fields in port order. OH and OW are
// not Task fields: Encode computes them, and the hardware checks them (a
// raw descriptor with wrong ones gets ErrOutShape rather than a walk
// that never ends).
func (s Sizes) Fields() []FieldDef {
	out := make([]FieldDef, len(fieldTable))
	for i, f := range fieldTable {
		out[i] = FieldDef{Name: f.name, Width: f.width(s), Signed: f.signed}
	}
	return out
}

// Computed reports whether the named field is computed from the others
// (oh, ow), so a decoder does not set it.
func Computed(name string) bool {
	for _, f := range fieldTable {
		if f.name == name {
			return f.set == nil
		}
	}
	return false
}

// poolOut is PoolOut for a pooling task, (0, 0) for the others: what the
// oh and ow fields carry.
func (t *Task) poolOut() (oh, ow int) {
	if t.Op != OpPool {
		return 0, 0
	}
	return t.PoolOut()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Encode validates t against s and returns its descriptor.
func (t Task) Encode(s Sizes) ([]Field, error) {
	if err := t.Validate(s); err != nil {
		return nil, err
	}
	return t.EncodeRaw(s)
}

// EncodeRaw returns t's descriptor without the checks the hardware
// makes, so a test can hand the hardware a bad task; it still refuses a
// value that does not fit its field (ErrField), which the hardware
// could not see.
func (t Task) EncodeRaw(s Sizes) ([]Field, error) {
	if err := t.fieldErrors(s); err != nil {
		return nil, err
	}
	out := make([]Field, len(fieldTable))
	for i, f := range fieldTable {
		w := f.width(s)
		v := uint64(f.get(&t))
		if w < 64 {
			v &= 1<<uint(w) - 1
		}
		out[i] = Field{Name: f.name, Width: w, Value: v}
	}
	return out, nil
}

// Decode rebuilds a task from its field bit patterns (a field missing
// from vals is 0): signed fields and element values are sign-extended,
// the computed ones (oh, ow) are left out. It is EncodeRaw's inverse.
func Decode(s Sizes, vals map[string]uint64) Task {
	var t Task
	for _, f := range fieldTable {
		if f.set == nil {
			continue
		}
		v, w := vals[f.name], f.width(s)
		if (f.signed || f.elem && s.ElemSigned) && w < 64 {
			sh := uint(64 - w)
			f.set(&t, int64(v<<sh)>>sh)
			continue
		}
		f.set(&t, int64(v))
	}
	return t
}

// fieldErrors reports every value that does not fit its field: element
// values (scalar, lo, hi) must be values of the element type, the rest
// must fit their widths.
func (t Task) fieldErrors(s Sizes) error {
	var errs []error
	for _, f := range fieldTable {
		if f.set == nil {
			continue // computed, and checked by the hardware
		}
		v, w, signed := f.get(&t), f.width(s), f.signed
		if f.elem {
			signed = s.ElemSigned
		}
		if f.name == "mask" {
			if w < 64 && t.Mask>>uint(w) != 0 {
				errs = append(errs, &TaskError{ErrField, f.name, fmt.Sprintf("%#x", t.Mask),
					fmt.Sprintf("must have bits only below %d (the lanes)", w)})
			}
			continue
		}
		if !fits(v, w, signed) {
			lo, hi := int64(0), int64(1)<<uint(w)-1
			if signed {
				lo, hi = -(1 << uint(w-1)), 1<<uint(w-1)-1
			}
			errs = append(errs, &TaskError{ErrField, f.name, v, fmt.Sprintf("must fit its %d-bit field: %d..%d", w, lo, hi)})
		}
	}
	return joinErrs(errs)
}

// fits reports whether v is a value of a w-bit integer.
func fits(v int64, w int, signed bool) bool {
	if w >= 64 {
		return true
	}
	if signed {
		return v >= -(1<<uint(w-1)) && v < 1<<uint(w-1)
	}
	return v >= 0 && v < 1<<uint(w)
}

// widthOf is the number of bits of codes 0..n-1 (at least 1).
func widthOf(n int) int { return max(1, bits.Len(uint(n-1))) }
