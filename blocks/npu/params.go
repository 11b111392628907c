package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// ParamField is one sub-field of a descriptor's param operand.
type ParamField struct {
	Name   string
	Width  int
	Offset int
}

// ParamLayout packs an engine's parameters into the param operand, field
// 0 at bit 0. It is defined once per engine (NEParams, PlanarParams): the
// compiler packs with Pack, the hardware cuts with Slice.
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

// Slice cuts the param operand (the concatenated param words) into its fields.
func (l ParamLayout) Slice(param *hdl.Expr) map[string]*hdl.Expr {
	out := make(map[string]*hdl.Expr, len(l.Fields))
	for _, f := range l.Fields {
		out[f.Name] = param.Slice(f.Offset+f.Width-1, f.Offset)
	}
	return out
}

// NEParams is the NE's param layout (conv and gemm): the kernel, the
// stride, the padding on each side, the output plane and whether the
// first pass accumulates onto the psums already there. With several
// engines a last field, engine (clog2(engines+1) bits), names the engine
// that runs the task: 0..engines-1 that engine, engines (AnyEngine) or
// more the first free one.
func (c Config) NEParams() ParamLayout {
	dim := log2(c.StateDepth) + 1
	defs := []ParamField{
		{Name: "kh", Width: 4}, {Name: "kw", Width: 4}, {Name: "stride", Width: 4},
		{Name: "pad_h", Width: 4}, {Name: "pad_w", Width: 4},
		{Name: "oh", Width: dim}, {Name: "ow", Width: dim},
		{Name: "acc", Width: 1},
	}
	if c.Engines > 1 {
		defs = append(defs, ParamField{Name: EngineField, Width: hdl.ClogWidth(c.Engines + 1)})
	}
	return newParamLayout(defs...)
}

// EngineField is the NE param field that selects the engine (several
// engines only).
const EngineField = "engine"

// AnyEngine is the engine field's value for "the first free engine".
func (c Config) AnyEngine() uint64 { return uint64(c.Engines) }

// planarOperands are the planar task fields carried by the descriptor's
// own operands (op, src, aux, dst, d0, d1) rather than by param.
var planarOperands = map[string]string{"op": "op", "src": "src", "src2": "aux", "dst": "dst", "h": "d0", "w": "d1"}

// PlanarParams is the planar engine's param layout: every planar task
// field that is not a descriptor operand, in planar.Config.Fields order.
func (c Config) PlanarParams() ParamLayout {
	var defs []ParamField
	for _, f := range c.Planar().Fields() {
		if _, ok := planarOperands[f.Name]; !ok {
			defs = append(defs, ParamField{Name: f.Name, Width: f.Type.Width})
		}
	}
	return newParamLayout(defs...)
}

func (c Config) paramBits() int { return max(c.NEParams().Width, c.PlanarParams().Width) }

// PlanarFieldOperand names the descriptor operand carrying a planar field
// ("param" for the packed ones).
func PlanarFieldOperand(field string) string {
	if op, ok := planarOperands[field]; ok {
		return op
	}
	return "param"
}
