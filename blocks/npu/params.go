package npu

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// ISA is the sizes of this configuration that the instruction set and
// the reference machine depend on.
func (c Config) ISA() isa.Sizes {
	return isa.Sizes{Rows: c.Rows, Cols: c.Cols,
		StateDepth: c.StateDepth, PsumDepth: c.PsumDepth, WeightDepth: c.WeightDepth,
		Engines: c.Engines, ElemWidth: c.ElemWidth, AccWidth: c.AccWidth, ExtAddrWidth: c.ExtAddrWidth,
		Planar: c.Planar().Sizes, Sparse: c.Sparse().Sizes}
}

// Codec is the instruction set of this configuration: the task encoder
// and decoder with the NE's and the planar engine's param layouts.
func (c Config) Codec() *isa.Codec { return isa.NewCodec(c.ISA()) }

// NEParams is the NE's param layout (conv and gemm).
func (c Config) NEParams() isa.ParamLayout { return c.Codec().NE }

// PlanarParams is the planar engine's param layout.
func (c Config) PlanarParams() isa.ParamLayout { return c.Codec().Planar }

// AnyEngine is the NE engine field's value for "the first free engine".
func (c Config) AnyEngine() uint64 { return uint64(c.Engines) }

func (c Config) paramBits() int { return c.Codec().ParamBits() }

// sliceParams is the hardware side of a param layout: it cuts the param
// operand (the concatenated param words) into its fields.
func sliceParams(l isa.ParamLayout, param *hdl.Expr) map[string]*hdl.Expr {
	out := make(map[string]*hdl.Expr, len(l.Fields))
	for _, f := range l.Fields {
		out[f.Name] = param.Slice(f.Offset+f.Width-1, f.Offset)
	}
	return out
}

// neTargetOffset is the bit offset of the NE param's engine field, which
// the task manager reads to prefer a task whose engine is free (0 with
// one engine: there is no such field).
func (c Config) neTargetOffset() int {
	for _, f := range c.NEParams().Fields {
		if f.Name == isa.EngineField {
			return f.Offset
		}
	}
	return 0
}
