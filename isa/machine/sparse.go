package machine

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/sparse"
)

// sparseMem is the sparse engine's memories: records as the hardware
// holds them, accumulators as Lanes sums.
type sparseMem struct {
	cfg     sparse.Sizes
	entries [][2][]*big.Int // [unit][set][address]
	weights []*big.Int
	table   []*big.Int
	acc     [][][][]int64 // [unit][bank][entry][lane]
}

func newSparseMem(c sparse.Sizes) *sparseMem {
	s := &sparseMem{cfg: c, weights: make([]*big.Int, c.WeightDepth), table: make([]*big.Int, c.TableDepth)}
	for range c.Units {
		s.entries = append(s.entries, [2][]*big.Int{make([]*big.Int, c.Entries), make([]*big.Int, c.Entries)})
		s.acc = append(s.acc, [][][]int64{grid(c.AccDepth, c.Lanes), grid(c.AccDepth, c.Lanes)})
	}
	return s
}

// entryAddr is entry a of a unit's buffer set in the MemSparseEntries
// address space, accAddr accumulator entry a of a unit's bank in the
// MemSparseAcc one (isa's sparse spans).
func (s *sparseMem) entryAddr(unit, set, a int) int { return (unit*2+set)*s.cfg.Entries + a }
func (s *sparseMem) accAddr(unit, bank, a int) int  { return (unit*2+bank)*s.cfg.AccDepth + a }

// sparseTask runs a sparse-engine task or a DMA task that serves it,
// with the semantics of blocks/sparse (doc.go) and blocks/npu's DMA.
func (m *Machine) sparseTask(t isa.Task) error {
	s := m.sparse
	if s == nil {
		return fmt.Errorf("interp: %T on an NPU without the sparse engine", t)
	}
	if m.Stats.SparseMults == nil {
		m.Stats.SparseMults = make([]int64, s.cfg.Units)
	}
	switch t := t.(type) {
	case isa.SparseLoad:
		return m.sparseLoad(t)
	case isa.SparseStore:
		return m.sparseStore(t)
	case isa.SparseClearTask:
		for a := range t.Count {
			clear(s.acc[t.Unit][t.Bank][a])
			m.touch(isa.MemSparseAcc, s.accAddr(t.Unit, t.Bank, a), true)
		}
		return nil
	case isa.SparseConvTask:
		return m.sparseConv(t)
	}
	return fmt.Errorf("interp: no model of %T", t)
}

// sparseLoad is dma_in's load_sparse: records from external lines into
// a unit's buffer set, the weight list or the channel table.
func (m *Machine) sparseLoad(t isa.SparseLoad) error {
	s := m.sparse
	n := m.Sizes.SparseLoadLines(t.Kind, t.Records)
	var mem []*big.Int
	var space isa.Mem
	base := 0
	switch t.Kind {
	case sparse.KindEntries:
		mem, space, base = s.entries[t.Unit][t.Set], isa.MemSparseEntries, s.entryAddr(t.Unit, t.Set, 0)
	case sparse.KindWeights:
		mem, space = s.weights, isa.MemSparseWeights
	default:
		mem, space = s.table, isa.MemSparseTable
	}
	lines := make([][]int64, n)
	for j := range lines {
		a := t.Ext + j
		l, err := m.extLine(a)
		if err != nil {
			return err
		}
		m.touch(isa.MemExt, a, false)
		lines[j] = l
		m.Stats.DMAInLines++
	}
	if t.Records == 0 {
		return nil
	}
	for r, rec := range sparse.LinesToRecords(lines, t.Records, s.cfg.Record(t.Kind).Width, m.Sizes.ElemWidth) {
		a := t.Addr + r
		if a >= len(mem) {
			return fmt.Errorf("dma_in load_sparse: %s record %d outside 0..%d", t.Kind, a, len(mem)-1)
		}
		mem[a] = rec
		m.touch(space, base+a, true)
	}
	return nil
}

// sparseStore is dma_out's store_sparse: accumulator entries, each
// packed into a word of Lanes sums and cleared by the read, out to
// external lines.
func (m *Machine) sparseStore(t isa.SparseStore) error {
	s := m.sparse
	n := m.Sizes.SparseAccLines()
	aw := s.cfg.AccWidth
	for e := range t.Entries {
		a := t.Addr + e
		if a >= s.cfg.AccDepth {
			return fmt.Errorf("dma_out store_sparse: accumulator entry %d outside 0..%d", a, s.cfg.AccDepth-1)
		}
		word := new(big.Int)
		for j, v := range s.acc[t.Unit][t.Bank][a] {
			f := new(big.Int).And(big.NewInt(v), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(aw)), big.NewInt(1)))
			word.Or(word, f.Lsh(f, uint(j*aw)))
		}
		clear(s.acc[t.Unit][t.Bank][a]) // the read clears
		m.touch(isa.MemSparseAcc, s.accAddr(t.Unit, t.Bank, a), false)
		m.touch(isa.MemSparseAcc, s.accAddr(t.Unit, t.Bank, a), true)
		for j, l := range sparse.ToLines(word, n, m.Sizes.Rows, m.Sizes.ElemWidth) {
			x := t.Ext + e*n + j
			dst, err := m.extLine(x)
			if err != nil {
				return err
			}
			copy(dst, l)
			m.touch(isa.MemExt, x, true)
			m.Stats.DMAOutLines++
		}
	}
	return nil
}

// sparseConv is the sparse engine's conv: Scatter of the first Count
// entries of a unit's buffer set into one bank's accumulators.
func (m *Machine) sparseConv(t isa.SparseConvTask) error {
	s := m.sparse
	if t.Count > s.cfg.Entries {
		return fmt.Errorf("sparse conv: %d entries, a buffer set holds %d", t.Count, s.cfg.Entries)
	}
	if t.OH*t.OW > s.cfg.AccDepth {
		return fmt.Errorf("sparse conv: plane %dx%d exceeds acc_depth %d", t.OH, t.OW, s.cfg.AccDepth)
	}
	var touch func(isa.Mem, int, bool)
	if m.OnTouch != nil {
		touch = func(mem isa.Mem, a int, write bool) {
			switch mem {
			case isa.MemSparseEntries:
				a = s.entryAddr(t.Unit, t.Set, a)
			case isa.MemSparseAcc:
				a = s.accAddr(t.Unit, t.Bank, a)
			}
			m.touch(mem, a, write)
		}
	}
	r := SparseRecords{Entries: s.entries[t.Unit][t.Set][:t.Count], Weights: s.weights, Table: s.table}
	p := ScatterPass{OH: t.OH, OW: t.OW, Stride: 1 << uint(t.StrideLog2), TBase: t.TBase}
	mults, err := Scatter(s.cfg, r, p, s.acc[t.Unit][t.Bank], touch)
	m.Stats.SparseMults[t.Unit] += mults
	return err
}
