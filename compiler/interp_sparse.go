package compiler

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/sparse"
)

// sparseMem is the sparse engine's memories in the reference machine:
// records as the hardware holds them, accumulators as Lanes sums.
type sparseMem struct {
	cfg     sparse.Sizes
	entries [][2][]*big.Int // [unit][set][address]
	weights []*big.Int
	table   []*big.Int
	acc     [][][][]int64 // [unit][bank][entry][lane]
	sum     golden.Int
}

func newSparseMem(c sparse.Sizes) *sparseMem {
	s := &sparseMem{cfg: c, weights: make([]*big.Int, c.WeightDepth), table: make([]*big.Int, c.TableDepth), sum: golden.S(c.AccWidth)}
	for range c.Units {
		s.entries = append(s.entries, [2][]*big.Int{make([]*big.Int, c.Entries), make([]*big.Int, c.Entries)})
		s.acc = append(s.acc, [][][]int64{grid(c.AccDepth, c.Lanes), grid(c.AccDepth, c.Lanes)})
	}
	return s
}

// accAddr is accumulator entry a of a unit's bank in the MemSparseAcc
// address space (isa's sparse spans).
func (s *sparseMem) accAddr(unit, bank, a int) int { return (unit*2+bank)*s.cfg.AccDepth + a }

// record is the record at a of mem (zero if never written).
func record(mem []*big.Int, a int) *big.Int {
	if mem[a] == nil {
		return new(big.Int)
	}
	return mem[a]
}

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

func (m *Machine) sparseLoad(t isa.SparseLoad) error {
	s := m.sparse
	n := m.codec.Sizes.SparseLoadLines(t.Kind, t.Records)
	var mem []*big.Int
	var space isa.Mem
	base := 0
	switch t.Kind {
	case sparse.KindEntries:
		mem, space, base = s.entries[t.Unit][t.Set], isa.MemSparseEntries, (t.Unit*2+t.Set)*s.cfg.Entries
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
	for r, rec := range sparse.LinesToRecords(lines, t.Records, s.cfg.Record(t.Kind).Width, m.Cfg.ElemWidth) {
		a := t.Addr + r
		if a >= len(mem) {
			return fmt.Errorf("dma_in load_sparse: %s record %d outside 0..%d", t.Kind, a, len(mem)-1)
		}
		mem[a] = rec
		m.touch(space, base+a, true)
	}
	return nil
}

func (m *Machine) sparseStore(t isa.SparseStore) error {
	s := m.sparse
	n := m.codec.Sizes.SparseAccLines()
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
		for j, l := range sparse.ToLines(word, n, m.Cfg.Rows, m.Cfg.ElemWidth) {
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

// sparseConv scatters: every entry meets every record of its channel's
// weight list; lane j's product lands at (row − ky, col − kx), kept on
// the stride's grid inside the OH×OW plane.
func (m *Machine) sparseConv(t isa.SparseConvTask) error {
	s := m.sparse
	el, wl, tl := s.cfg.Entry(), s.cfg.Weight(), s.cfg.Table()
	stride := 1 << uint(t.StrideLog2)
	if t.Count > s.cfg.Entries {
		return fmt.Errorf("sparse conv: %d entries, a buffer set holds %d", t.Count, s.cfg.Entries)
	}
	if t.OH*t.OW > s.cfg.AccDepth {
		return fmt.Errorf("sparse conv: plane %dx%d exceeds acc_depth %d", t.OH, t.OW, s.cfg.AccDepth)
	}
	for i := range t.Count {
		m.touch(isa.MemSparseEntries, (t.Unit*2+t.Set)*s.cfg.Entries+i, false)
		f := el.Unpack(record(s.entries[t.Unit][t.Set], i)) // value, channel, row, col
		ta := t.TBase + int(f[1])
		if ta >= s.cfg.TableDepth {
			return fmt.Errorf("sparse conv: channel-table entry %d outside 0..%d", ta, s.cfg.TableDepth-1)
		}
		m.touch(isa.MemSparseTable, ta, false)
		tab := tl.Unpack(record(s.table, ta)) // start, count
		for k := tab[0]; k < tab[0]+tab[1]; k++ {
			if int(k) >= s.cfg.WeightDepth {
				return fmt.Errorf("sparse conv: weight record %d outside 0..%d", k, s.cfg.WeightDepth-1)
			}
			m.touch(isa.MemSparseWeights, int(k), false)
			wr := wl.Unpack(record(s.weights, int(k))) // ky, kx, w0..
			for j := range s.cfg.Lanes {
				if f[0] != 0 && wr[2+j] != 0 {
					m.Stats.SparseMults[t.Unit]++
				}
			}
			ty, tx := int(f[2]-wr[0]), int(f[3]-wr[1])
			if ty < 0 || tx < 0 || ty%stride != 0 || tx%stride != 0 || ty/stride >= t.OH || tx/stride >= t.OW {
				continue
			}
			a := ty/stride*t.OW + tx/stride
			m.touch(isa.MemSparseAcc, s.accAddr(t.Unit, t.Bank, a), false)
			m.touch(isa.MemSparseAcc, s.accAddr(t.Unit, t.Bank, a), true)
			px := s.acc[t.Unit][t.Bank][a]
			for j := range s.cfg.Lanes {
				px[j] = s.sum.Wrap(px[j] + f[0]*wr[2+j])
			}
		}
	}
	return nil
}
