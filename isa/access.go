package isa

import "github.com/hwgen/hwgen/isa/planar"

// Access returns the address ranges t reads and writes, in the addresses
// its operands name (an NE task's are its engine's own slice). The
// dependency analysis orders tasks by them; the reference machine checks
// that its real accesses fall inside them.
func (c *Codec) Access(t Task) (reads, writes []Span) {
	switch t := t.(type) {
	case Load:
		return extSpans(t.Ext, t.Lines, t.Rows, t.Stride), []Span{{MemState, t.State, t.State + t.Lines*t.Rows}}
	case LoadWeights:
		return extSpans(t.Ext, t.Lines, t.Rows, t.Stride), []Span{{MemWeight, t.Row, t.Row + t.Lines*t.Rows}}
	case Store:
		return []Span{{MemState, t.State, t.State + t.Lines*t.Rows}}, extSpans(t.Ext, t.Lines, t.Rows, t.Stride)
	case Transpose:
		return []Span{{MemState, t.Src, t.Src + t.Cols}}, []Span{{MemPsum, t.Psum, t.Psum + t.Rows}}
	case Conv:
		return c.convAccess(t)
	case PlanarTask:
		return c.planarAccess(t.Task)
	case SparseLoad, SparseStore, SparseClearTask, SparseConvTask:
		return c.sparseAccess(t)
	}
	return nil, nil
}

// convAccess: the weight rows of every pass; in every channel tile, the
// input rows any pass reaches (the last one is row (OH-1)·Stride + KH-1 -
// PadH; rows below it are never read); the output psums, read too when
// the first pass accumulates.
func (c *Codec) convAccess(t Conv) (reads, writes []Span) {
	reads = []Span{{MemWeight, t.Weights, t.Weights + t.Passes()*c.Sizes.Rows}}
	rows := max(0, min(t.H, (t.OH-1)*t.Stride+t.KH-t.PadH))
	for k := 0; k < t.Tiles; k++ {
		a := t.Src + k*t.H*t.W
		reads = append(reads, Span{MemState, a, a + rows*t.W})
	}
	writes = []Span{{MemPsum, t.Psum, t.Psum + t.OH*t.OW}}
	if t.Acc {
		reads = append(reads, writes[0])
	}
	return reads, writes
}

func (c *Codec) planarAccess(t planar.Task) (reads, writes []Span) {
	n := t.H * t.W
	switch t.Op {
	case planar.OpAct, planar.OpWriteBack:
		reads = []Span{{MemPsum, t.Src, t.Src + n}}
	case planar.OpEltwise:
		reads = []Span{{MemState, t.Src, t.Src + n}}
		if n2 := t.Src2Elements(); n2 > 0 {
			reads = append(reads, Span{MemState, t.Src2, t.Src2 + n2})
		}
	case planar.OpPool, planar.OpReduce:
		reads = []Span{{MemState, t.Src, t.Src + n}}
	case planar.OpLoadParams, planar.OpLoadTable:
		reads = []Span{{MemState, t.Src, t.Src + t.Reads(c.Sizes.Planar)}}
	}
	if w := t.Writes(); w > 0 {
		writes = []Span{{MemState, t.Dst, t.Dst + w}}
	}
	return reads, writes
}

func extSpans(base, lines, rows, stride int) []Span {
	out := make([]Span, 0, rows)
	for k := 0; k < rows; k++ {
		out = append(out, Span{MemExt, base + k*stride, base + k*stride + lines})
	}
	return out
}

// Relocate moves t's addresses by o (address in memory m + o[m]). NE
// tasks address their engine's own slice and keep their addresses: a
// program moves onto another engine by its Unit.
func Relocate(t Task, o Offsets) Task {
	switch t := t.(type) {
	case Load:
		t.Ext += o[MemExt]
		t.State += o[MemState]
		return t
	case LoadWeights:
		t.Ext += o[MemExt]
		t.Row += o[MemWeight]
		return t
	case Store:
		t.State += o[MemState]
		t.Ext += o[MemExt]
		return t
	case SparseLoad:
		t.Ext += o[MemExt]
		return t
	case SparseStore:
		t.Ext += o[MemExt]
		return t
	case PlanarTask:
		switch t.Task.Op {
		case planar.OpAct, planar.OpWriteBack:
			t.Src += o[MemPsum]
		case planar.OpNop:
			return t
		default:
			t.Src += o[MemState]
		}
		if t.ReadsSrc2() {
			t.Src2 += o[MemState]
		}
		if t.Task.Op != planar.OpLoadParams && t.Task.Op != planar.OpLoadTable {
			t.Dst += o[MemState]
		}
		return t
	}
	return t
}
