package isa

import (
	"fmt"
	"math/bits"
	"strings"
)

// ParamField is one sub-field of a descriptor's param operand.
type ParamField struct {
	Name   string
	Width  int
	Offset int
}

// ParamLayout packs an engine's parameters into the param operand, field
// 0 at bit 0. It is defined once per engine (Codec.NE, Codec.Planar): the
// encoder packs with Pack, the reference machine unpacks with Unpack, the
// hardware cuts the same fields out of the param bits.
type ParamLayout struct {
	Fields []ParamField
	Width  int
}

func newParamLayout(defs ...ParamField) ParamLayout {
	var l ParamLayout
	for _, d := range defs {
		d.Offset = l.Width
		l.Fields = append(l.Fields, d)
		l.Width += d.Width
	}
	return l
}

// Field returns the field called name.
func (l ParamLayout) Field(name string) (ParamField, bool) {
	for _, f := range l.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return ParamField{}, false
}

// Max is the largest value of the named field (0 for a field the layout
// lacks): the limit a compiler checks before it encodes.
func (l ParamLayout) Max(name string) uint64 {
	f, ok := l.Field(name)
	if !ok {
		return 0
	}
	if f.Width >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(f.Width) - 1
}

// Pack returns the param words of the named values (missing ones are 0).
func (l ParamLayout) Pack(vals map[string]uint64) ([]uint64, error) {
	words := make([]uint64, (l.Width+63)/64)
	known := map[string]bool{}
	for _, f := range l.Fields {
		known[f.Name] = true
		v := vals[f.Name]
		if f.Width < 64 && v>>uint(f.Width) != 0 {
			return nil, fmt.Errorf("param field %s = %d does not fit %d bits", f.Name, v, f.Width)
		}
		for b := 0; b < f.Width; b++ {
			if v>>uint(b)&1 != 0 {
				at := f.Offset + b
				words[at/64] |= 1 << uint(at%64)
			}
		}
	}
	for name := range vals {
		if !known[name] {
			return nil, fmt.Errorf("param has no field %q", name)
		}
	}
	return words, nil
}

// Unpack returns the value of every field of the param words (the
// inverse of Pack; fields beyond the words read as 0).
func (l ParamLayout) Unpack(words []uint64) map[string]uint64 {
	out := make(map[string]uint64, len(l.Fields))
	for _, f := range l.Fields {
		var v uint64
		for b := 0; b < f.Width && b < 64; b++ {
			at := f.Offset + b
			if at/64 < len(words) && words[at/64]>>uint(at%64)&1 != 0 {
				v |= 1 << uint(b)
			}
		}
		out[f.Name] = v
	}
	return out
}

// Markdown documents the layout as a table.
func (l ParamLayout) Markdown(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Param layout of %s: %d bits, field 0 at bit 0.\n\n| bits | field |\n|---|---|\n", name, l.Width)
	for _, f := range l.Fields {
		fmt.Fprintf(&b, "| %d..%d | %s |\n", f.Offset+f.Width-1, f.Offset, f.Name)
	}
	return b.String()
}

// EngineField is the NE param field that selects the engine (several
// engines only).
const EngineField = "engine"

// neParams is the NE's param layout (conv and gemm): the kernel, the
// stride, the padding on each side, the output plane and whether the
// first pass accumulates onto the psums already there. With several
// engines a last field, engine (clog2(engines+1) bits), names the engine
// that runs the task: 0..engines-1 that engine, engines (AnyEngine) or
// more the first free one.
func neParams(s Sizes) ParamLayout {
	dim := bits.Len(uint(s.StateDepth)) // log2(state_depth) + 1: a whole plane's side
	defs := []ParamField{
		{Name: "kh", Width: 4}, {Name: "kw", Width: 4}, {Name: "stride", Width: 4},
		{Name: "pad_h", Width: 4}, {Name: "pad_w", Width: 4},
		{Name: "oh", Width: dim}, {Name: "ow", Width: dim},
		{Name: "acc", Width: 1},
	}
	if s.Engines > 1 {
		defs = append(defs, ParamField{Name: EngineField, Width: bits.Len(uint(s.Engines))})
	}
	return newParamLayout(defs...)
}

// planarOperands are the planar task fields carried by the descriptor's
// own operands (op, src, aux, dst, d0, d1) rather than by param.
var planarOperands = map[string]string{"op": "op", "src": "src", "src2": "aux", "dst": "dst", "h": "d0", "w": "d1"}

// PlanarFieldOperand names the descriptor operand carrying a planar field
// ("param" for the packed ones).
func PlanarFieldOperand(field string) string {
	if op, ok := planarOperands[field]; ok {
		return op
	}
	return "param"
}

// planarParams is the planar engine's param layout: every planar task
// field that is not a descriptor operand, in planar field order.
func planarParams(s Sizes) ParamLayout {
	var defs []ParamField
	for _, f := range s.Planar.Fields() {
		if PlanarFieldOperand(f.Name) == "param" {
			defs = append(defs, ParamField{Name: f.Name, Width: f.Width})
		}
	}
	return newParamLayout(defs...)
}
