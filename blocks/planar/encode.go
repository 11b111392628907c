package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// FieldDef is one field of the task descriptor: the task port t_<Name>.
type FieldDef struct {
	Name string
	Type hdl.Type
}

// Field is one encoded field value (the bit pattern of the port).
type Field struct {
	Name  string
	Width int
	Value uint64
}

// Fields lists the task descriptor's fields in port order. OH and OW are
// not Task fields: Encode computes them, and the hardware checks them (a
// raw descriptor with wrong ones gets ErrOutShape rather than a walk
// that never ends).
func (c Config) Fields() []FieldDef {
	et := hdl.UInt(c.ElemWidth)
	dim := hdl.UInt(c.DimWidth())
	return []FieldDef{
		{"op", hdl.UInt(3)},
		{"fn", hdl.UInt(3)},
		{"mask", hdl.UInt(c.Lanes)},
		{"src", hdl.UInt(c.srcWidth())},
		{"src2", hdl.UInt(c.AddrWidth())},
		{"dst", hdl.UInt(c.AddrWidth())},
		{"h", dim},
		{"w", dim},
		{"kh", hdl.UInt(c.kWidth())},
		{"kw", hdl.UInt(c.kWidth())},
		{"stride", hdl.UInt(c.kWidth())},
		{"pad_h", hdl.UInt(c.padWidth())},
		{"pad_w", hdl.UInt(c.padWidth())},
		{"pad_edge", hdl.Bool},
		{"pad_ignore", hdl.Bool},
		{"oh", dim},
		{"ow", dim},
		{"scalar_operand", hdl.Bool},
		{"scalar", et},
		{"scale", hdl.SInt(c.ScaleWidth)},
		{"bias", hdl.SInt(c.AccWidth)},
		{"shift", hdl.UInt(c.shiftWidth())},
		{"round_even", hdl.Bool},
		{"relu", hdl.Bool},
		{"clamp", hdl.Bool},
		{"lo", et},
		{"hi", et},
		{"per_lane", hdl.Bool},
		{"wrap", hdl.Bool},
		{"broadcast", hdl.Bool},
		{"post", hdl.UInt(2)},
	}
}

// values is t's value of every field, in Fields order, as signed
// integers (not yet fitted to the widths).
func (t Task) values() []int64 {
	oh, ow := 0, 0
	if t.Op == OpPool {
		oh, ow = t.PoolOut()
	}
	return []int64{int64(t.Op), int64(t.Fn), int64(t.Mask), int64(t.Src), int64(t.Src2), int64(t.Dst),
		int64(t.H), int64(t.W), int64(t.KH), int64(t.KW), int64(t.Stride), int64(t.PadH), int64(t.PadW), b2i(t.PadEdge),
		b2i(t.PadIgnore), int64(oh), int64(ow), b2i(t.ScalarOperand), t.Scalar, t.Scale, t.Bias, int64(t.Shift),
		b2i(t.RoundEven), b2i(t.Relu), b2i(t.Clamp), t.Lo, t.Hi, b2i(t.PerLane), b2i(t.Wrap), b2i(t.Broadcast), int64(t.Post)}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Encode validates t against c and returns its descriptor.
func (t Task) Encode(c Config) ([]Field, error) {
	if err := t.Validate(c); err != nil {
		return nil, err
	}
	return t.EncodeRaw(c)
}

// EncodeRaw returns t's descriptor without the checks the hardware
// makes, so a test can hand the hardware a bad task; it still refuses a
// value that does not fit its field (ErrField), which the hardware
// could not see.
func (t Task) EncodeRaw(c Config) ([]Field, error) {
	if err := t.fieldErrors(c); err != nil {
		return nil, err
	}
	defs := c.Fields()
	vals := t.values()
	out := make([]Field, len(defs))
	for i, d := range defs {
		v := uint64(vals[i])
		if d.Type.Width < 64 {
			v &= 1<<uint(d.Type.Width) - 1
		}
		out[i] = Field{Name: d.Name, Width: d.Type.Width, Value: v}
	}
	return out, nil
}

// fieldErrors reports every value that does not fit its field: element
// values (scalar, lo, hi) must be values of the element type, the rest
// must fit their widths.
func (t Task) fieldErrors(c Config) error {
	var errs []error
	et := c.ElemType()
	for i, d := range c.Fields() {
		v := t.values()[i]
		w, signed := d.Type.Width, d.Type.Signed
		switch d.Name {
		case "scalar", "lo", "hi":
			signed = et.Signed
		case "mask":
			if w >= 64 {
				continue
			}
			if uint64(v)>>uint(w) != 0 {
				errs = append(errs, &TaskError{ErrField, d.Name, fmt.Sprintf("%#x", t.Mask),
					fmt.Sprintf("must have bits only below %d (the lanes)", w)})
			}
			continue
		case "oh", "ow":
			continue // computed, and checked by the hardware
		}
		if !fits(v, w, signed) {
			lo, hi := int64(0), int64(1)<<uint(w)-1
			if signed {
				lo, hi = -(1 << uint(w-1)), 1<<uint(w-1)-1
			}
			errs = append(errs, &TaskError{ErrField, d.Name, v, fmt.Sprintf("must fit its %d-bit field: %d..%d", w, lo, hi)})
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
