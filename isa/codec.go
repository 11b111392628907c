package isa

import (
	"fmt"

	"github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/isa/sparse"
)

// Sizes are the numbers of an NPU configuration the instruction set
// depends on (the NPU configuration derives them).
type Sizes struct {
	Rows, Cols                         int
	StateDepth, PsumDepth, WeightDepth int // per engine
	Engines                            int
	ElemWidth                          int // bits of an element: a line is Rows of them
	AccWidth                           int // bits of a psum accumulator
	ExtAddrWidth                       int // bits of an external line address
	Planar                             planar.Sizes
	// Sparse is the sparse engine's configuration; Units 0: the NPU has
	// none.
	Sparse sparse.Sizes
}

// HasSparse reports whether the NPU has the sparse engine.
func (s Sizes) HasSparse() bool { return s.Sparse.Units > 0 }

// SparseLoadLines is how many external lines n records of kind k take:
// records narrower than a line share one, wider ones span several
// (sparse.Grouping).
func (s Sizes) SparseLoadLines(k sparse.Kind, n int) int {
	return sparse.GroupLines(n, s.Sparse.Record(k).Width, s.Rows*s.ElemWidth)
}

// SparseAccLines is how many external lines one accumulator entry of
// the sparse engine takes.
func (s Sizes) SparseAccLines() int {
	return sparse.LinesPer(s.Sparse.AccWordWidth(), s.Rows*s.ElemWidth)
}

// Codec encodes and decodes the tasks of one configuration. NE, Planar
// and Sparse are the param layouts of the engines that pack parameters.
type Codec struct {
	Sizes  Sizes
	NE     ParamLayout
	Planar ParamLayout
	Sparse ParamLayout
}

// NewCodec derives the codec of s.
func NewCodec(s Sizes) *Codec {
	return &Codec{Sizes: s, NE: neParams(s), Planar: planarParams(s), Sparse: sparseParams}
}

// ParamBits is the width of the descriptor's param operand: the widest
// param layout.
func (c *Codec) ParamBits() int { return max(c.NE.Width, c.Planar.Width, c.Sparse.Width) }

// AnyEngine is Conv.Unit's value for "the first free engine".
func (c *Codec) AnyEngine() int { return c.Sizes.Engines }

func u(v int) uint64 { return uint64(v) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Encode returns the descriptor of t (ID and dependencies unset). It
// refuses a value its field cannot hold and a planar task the planar
// engine would reject, naming the field.
func (c *Codec) Encode(t Task) (Descriptor, error) {
	d := Descriptor{Engine: t.Engine(), Op: t.Op()}
	var err error
	switch t := t.(type) {
	case Nop:
	case Load:
		d.Src, d.Dst, d.D0, d.D1, d.D2 = u(t.Ext), u(t.State), u(t.Lines), u(t.Rows), u(t.Stride)
	case LoadWeights:
		d.Src, d.Dst, d.D0, d.D1, d.D2 = u(t.Ext), u(t.Row), u(t.Lines), u(t.Rows), u(t.Stride)
	case Store:
		d.Src, d.Dst, d.D0, d.D1, d.D2 = u(t.State), u(t.Ext), u(t.Lines), u(t.Rows), u(t.Stride)
	case Transpose:
		d.Src, d.Dst, d.D0, d.D1 = u(t.Src), u(t.Psum), u(t.Rows), u(t.Cols)
	case Conv:
		d.Src, d.Aux, d.Dst, d.D0, d.D1, d.D2 = u(t.Src), u(t.Weights), u(t.Psum), u(t.H), u(t.W), u(t.Tiles)
		vals := map[string]uint64{"kh": u(t.KH), "kw": u(t.KW), "stride": u(t.Stride), "pad_h": u(t.PadH), "pad_w": u(t.PadW),
			"oh": u(t.OH), "ow": u(t.OW), "acc": b2u(t.Acc)}
		if c.Sizes.Engines > 1 {
			vals[EngineField] = u(t.Unit)
		} else if t.Unit != 0 {
			return d, fmt.Errorf("ne.%s: engine %d named, the NPU has one", NE.OpName(d.Op), t.Unit)
		}
		d.Param, err = c.NE.Pack(vals)
	case PlanarTask:
		d.Param, err = c.encodePlanar(t.Task, &d)
	case SparseLoad, SparseStore, SparseClearTask, SparseConvTask:
		err = c.encodeSparse(t, &d)
	default:
		return d, fmt.Errorf("isa: unknown task type %T", t)
	}
	if err != nil {
		return d, fmt.Errorf("%s.%s: %w", d.Engine, d.Engine.OpName(d.Op), err)
	}
	if t, ok := t.(Nop); ok && int(t.On) >= NumEngines {
		return d, fmt.Errorf("isa: nop on unknown engine %d", t.On)
	}
	return d, nil
}

// encodePlanar validates t for the planar engine and spreads its fields
// over the descriptor's operands and param.
func (c *Codec) encodePlanar(t planar.Task, d *Descriptor) ([]uint64, error) {
	fields, err := t.Encode(c.Sizes.Planar)
	if err != nil {
		return nil, err
	}
	d.Src, d.Aux, d.Dst, d.D0, d.D1 = u(t.Src), u(t.Src2), u(t.Dst), u(t.H), u(t.W)
	vals := map[string]uint64{}
	for _, f := range fields {
		if PlanarFieldOperand(f.Name) == "param" {
			vals[f.Name] = f.Value
		}
	}
	return c.Planar.Pack(vals)
}

// Decode rebuilds the task of a descriptor. A descriptor naming an
// unknown engine or op is an error (the hardware flags it as malformed).
func (c *Codec) Decode(d Descriptor) (Task, error) {
	if int(d.Engine) >= NumEngines || d.Op >= 64 || d.Engine.OpMaskOf(c.Sizes.HasSparse())>>d.Op&1 == 0 {
		return nil, fmt.Errorf("isa: engine %s has no operation %d", d.Engine, d.Op)
	}
	i := func(v uint64) int { return int(v) }
	switch {
	case d.Op == OpNop:
		return Nop{On: d.Engine}, nil
	case d.Engine == DMAIn && d.Op == DMAInLoad:
		return Load{Ext: i(d.Src), State: i(d.Dst), Lines: i(d.D0), Rows: i(d.D1), Stride: i(d.D2)}, nil
	case d.Engine == DMAIn && d.Op == DMAInLoadWeights:
		return LoadWeights{Ext: i(d.Src), Row: i(d.Dst), Lines: i(d.D0), Rows: i(d.D1), Stride: i(d.D2)}, nil
	case d.Engine == DMAOut && d.Op == DMAOutStore:
		return Store{State: i(d.Src), Ext: i(d.Dst), Lines: i(d.D0), Rows: i(d.D1), Stride: i(d.D2)}, nil
	case d.Engine == NE && d.Op == NETranspose:
		return Transpose{Src: i(d.Src), Psum: i(d.Dst), Rows: i(d.D0), Cols: i(d.D1)}, nil
	case d.Engine == NE:
		p := c.NE.Unpack(d.Param)
		return Conv{GEMM: d.Op == NEGEMM, Src: i(d.Src), Weights: i(d.Aux), Psum: i(d.Dst), H: i(d.D0), W: i(d.D1), Tiles: i(d.D2),
			KH: i(p["kh"]), KW: i(p["kw"]), Stride: i(p["stride"]), PadH: i(p["pad_h"]), PadW: i(p["pad_w"]),
			OH: i(p["oh"]), OW: i(p["ow"]), Acc: p["acc"] == 1, Unit: i(p[EngineField])}, nil
	case d.Engine == Planar:
		return PlanarTask{c.decodePlanar(d)}, nil
	case d.Op == DMAInLoadSparse && d.Engine == DMAIn, d.Op == DMAOutStoreSparse && d.Engine == DMAOut, d.Engine == Sparse:
		return c.decodeSparse(d), nil
	}
	return nil, fmt.Errorf("isa: %s.%s has no decoder", d.Engine, d.Engine.OpName(d.Op))
}

// decodePlanar rebuilds the planar task from the descriptor's operands
// and the fields packed into param.
func (c *Codec) decodePlanar(d Descriptor) planar.Task {
	vals := c.Planar.Unpack(d.Param)
	operands := map[string]uint64{"op": uint64(d.Op), "src": d.Src, "aux": d.Aux, "dst": d.Dst, "d0": d.D0, "d1": d.D1}
	for field, operand := range planarOperands {
		vals[field] = operands[operand]
	}
	return planar.Decode(c.Sizes.Planar, vals)
}
