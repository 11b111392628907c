package isa

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/isa/sparse"
)

// sparseParams is the sparse engine's param layout: the conv task's
// stride, as its log2, and the accumulator bank of a clear or conv.
var sparseParams = newParamLayout(ParamField{Name: "stride_log2", Width: 2}, ParamField{Name: "bank", Width: 1})

// sparseOperands are the descriptor operands carrying the fields of the
// sparse engine's task record (sparse.Sizes.Task) other than op; the
// unit is dst. The NPU's decoder and the encoder below both follow it.
var sparseOperands = map[string]string{"set": "src", "count": "d0", "tbase": "aux", "oh": "d1", "ow": "d2", "stride_log2": "param", "bank": "param"}

// SparseFieldOperand names the descriptor operand carrying a field of
// the sparse engine's task record ("op" for op: the record's op is the
// descriptor's).
func SparseFieldOperand(field string) string {
	if op, ok := sparseOperands[field]; ok {
		return op
	}
	return field
}

// encodeSparse spreads a sparse-engine task, or a DMA task that serves
// the engine, over the descriptor, checking every value against the
// sparse configuration.
func (c *Codec) encodeSparse(t Task, d *Descriptor) error {
	s := c.Sizes.Sparse
	if !c.Sizes.HasSparse() {
		return fmt.Errorf("the NPU has no sparse engine (sparse_units = 0)")
	}
	unit := func(u int) error {
		if u < 0 || u >= s.Units {
			return fmt.Errorf("unit %d: the sparse engine has units 0..%d", u, s.Units-1)
		}
		return nil
	}
	bank := func(b int) error {
		if b < 0 || b >= s.AccBanks {
			return fmt.Errorf("bank %d: the sparse engine's units have accumulator banks 0..%d", b, s.AccBanks-1)
		}
		return nil
	}
	pack := func(l sparse.Layout, vals ...int64) (uint64, error) {
		v, err := l.Pack(vals...)
		if err != nil {
			return 0, err
		}
		return v.Uint64(), nil
	}
	var err error
	switch t := t.(type) {
	case SparseLoad:
		if t.Kind < 0 || t.Kind >= sparse.NumKinds {
			return fmt.Errorf("kind %d: want entries, weights or table", t.Kind)
		}
		if t.Kind == sparse.KindEntries {
			if err := unit(t.Unit); err != nil {
				return err
			}
		}
		if t.Addr < 0 || t.Records < 0 || t.Addr+t.Records > s.Depth(t.Kind) {
			return fmt.Errorf("%s records %d..%d: the memory holds %d", t.Kind, t.Addr, t.Addr+t.Records-1, s.Depth(t.Kind))
		}
		d.Src, d.D0, d.D1, d.D2 = u(t.Ext), u(c.Sizes.SparseLoadLines(t.Kind, t.Records)), 1, u(t.Records)
		d.Dst, err = pack(s.LoadAddr(), int64(t.Addr), int64(t.Set), int64(t.Unit), int64(t.Kind))
	case SparseStore:
		if err := errors.Join(unit(t.Unit), bank(t.Bank)); err != nil {
			return err
		}
		if t.Addr < 0 || t.Entries < 0 || t.Addr+t.Entries > s.AccDepth {
			return fmt.Errorf("accumulator entries %d..%d: a unit has %d", t.Addr, t.Addr+t.Entries-1, s.AccDepth)
		}
		d.Dst, d.D0, d.D1 = u(t.Ext), u(t.Entries), 1
		d.Src, err = pack(s.ReadAddr(), int64(t.Addr), int64(t.Bank), int64(t.Unit))
	case SparseClearTask:
		if err := errors.Join(unit(t.Unit), bank(t.Bank)); err != nil {
			return err
		}
		d.Dst, d.D0 = u(t.Unit), u(t.Count)
		d.Param, err = c.Sparse.Pack(map[string]uint64{"bank": u(t.Bank)})
	case SparseConvTask:
		if err := errors.Join(unit(t.Unit), bank(t.Bank)); err != nil {
			return err
		}
		// The task record checks every field's range.
		if _, err := s.Task().Pack(sparse.OpConv, int64(t.Set), int64(t.Count), int64(t.TBase), int64(t.OH), int64(t.OW), int64(t.StrideLog2), int64(t.Bank)); err != nil {
			return err
		}
		d.Dst, d.Src, d.D0, d.Aux, d.D1, d.D2 = u(t.Unit), u(t.Set), u(t.Count), u(t.TBase), u(t.OH), u(t.OW)
		d.Param, err = c.Sparse.Pack(map[string]uint64{"stride_log2": u(t.StrideLog2), "bank": u(t.Bank)})
	}
	return err
}

// decodeSparse rebuilds a sparse-engine task or a DMA task that serves
// the engine.
func (c *Codec) decodeSparse(d Descriptor) Task {
	s := c.Sizes.Sparse
	i := func(v uint64) int { return int(v) }
	unpack := func(l sparse.Layout, v uint64) []int64 { return l.Unpack(new(big.Int).SetUint64(v)) }
	switch {
	case d.Engine == DMAIn:
		f := unpack(s.LoadAddr(), d.Dst)
		k := sparse.Kind(f[3])
		return SparseLoad{Ext: i(d.Src), Records: i(d.D2), Kind: k,
			Unit: int(f[2]), Set: int(f[1]), Addr: int(f[0])}
	case d.Engine == DMAOut:
		f := unpack(s.ReadAddr(), d.Src)
		return SparseStore{Unit: int(f[2]), Bank: int(f[1]), Addr: int(f[0]), Entries: i(d.D0 * d.D1), Ext: i(d.Dst)}
	}
	p := c.Sparse.Unpack(d.Param)
	if d.Op == SparseClear {
		return SparseClearTask{Unit: i(d.Dst), Count: i(d.D0), Bank: i(p["bank"])}
	}
	return SparseConvTask{Unit: i(d.Dst), Set: i(d.Src), Count: i(d.D0), TBase: i(d.Aux), OH: i(d.D1), OW: i(d.D2),
		StrideLog2: i(p["stride_log2"]), Bank: i(p["bank"])}
}

// sparseAccess: the spans of the sparse memories (MemSparse*: entries
// at (unit·2 + set)·entries + address, accumulators at (unit·2 +
// bank)·acc_depth + entry). A conv task reads the whole weight memory and
// channel table (which records it meets depends on the data) and reads
// and writes its plane.
func (c *Codec) sparseAccess(t Task) (reads, writes []Span) {
	s := c.Sizes.Sparse
	acc := func(unit, bank, lo, n int) Span {
		b := (unit*2 + bank) * s.AccDepth
		return Span{MemSparseAcc, b + lo, b + lo + n}
	}
	switch t := t.(type) {
	case SparseLoad:
		n := c.Sizes.SparseLoadLines(t.Kind, t.Records)
		reads = []Span{{MemExt, t.Ext, t.Ext + n}}
		switch t.Kind {
		case sparse.KindEntries:
			b := (t.Unit*2 + t.Set) * s.Entries
			return reads, []Span{{MemSparseEntries, b + t.Addr, b + t.Addr + t.Records}}
		case sparse.KindWeights:
			return reads, []Span{{MemSparseWeights, t.Addr, t.Addr + t.Records}}
		}
		return reads, []Span{{MemSparseTable, t.Addr, t.Addr + t.Records}}
	case SparseStore:
		a := acc(t.Unit, t.Bank, t.Addr, t.Entries)
		return []Span{a}, []Span{a, {MemExt, t.Ext, t.Ext + t.Entries*c.Sizes.SparseAccLines()}}
	case SparseClearTask:
		return nil, []Span{acc(t.Unit, t.Bank, 0, t.Count)}
	case SparseConvTask:
		b := (t.Unit*2 + t.Set) * s.Entries
		a := acc(t.Unit, t.Bank, 0, t.OH*t.OW)
		return []Span{{MemSparseEntries, b, b + t.Count}, {MemSparseWeights, 0, s.WeightDepth}, {MemSparseTable, 0, s.TableDepth}, a}, []Span{a}
	}
	return nil, nil
}
