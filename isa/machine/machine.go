package machine

import (
	"fmt"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// Machine is the NPU's memories as Go arrays and every engine's tasks
// with exactly the semantics of blocks/npu's documentation, one task at
// a time (Exec).
type Machine struct {
	Sizes  isa.Sizes
	Ext    [][]int64 // lines; nil means all zero
	State  [][]int64 // [partition][address]
	Weight [][]int64 // [row][column]
	Psum   [][]int64 // [partition][entry]
	Stats  Stats
	// NetBases are the networks' base pointers: a memory-relative
	// operand is made absolute with them, as the NPU does.
	NetBases []uint64
	// OnTouch, when set, is told every address a task reads or writes
	// (mem, address, write), as the task touches it; a trace of the
	// accesses the tasks really make.
	OnTouch func(mem isa.Mem, a int, write bool)

	codec  *isa.Codec
	planar PlanarMemories // the state and psum buffers and the planar engine's per-lane parameters
	sparse *sparseMem     // the sparse engine's memories (nil without one)
	elem   golden.Int
	acc    golden.Int
}

// Stats counts what the engines did.
type Stats struct {
	Tasks        [isa.NumEngines]int
	NEVectors    int   // input vectors streamed into the PE array (one per cycle)
	NEReads      int   // of those, state-buffer vector reads (the rest are padding zeros)
	NEMACs       int64 // multiply-accumulates the array performs (vectors × rows × cols)
	DMAInLines   int
	DMAOutLines  int
	PlanarReads  int // planar vector reads (state or psum)
	PlanarWrites int
	SparseMults  []int64 // per sparse unit: multiplications performed
}

// New is a machine of the sizes s with all memories zero.
func New(s isa.Sizes) (*Machine, error) {
	if err := check(s); err != nil {
		return nil, err
	}
	m := &Machine{Sizes: s, codec: isa.NewCodec(s), elem: golden.S(s.ElemWidth), acc: golden.S(s.AccWidth)}
	m.Ext = make([][]int64, 1<<s.ExtAddrWidth)
	m.State = grid(s.Rows, s.StateDepth)
	m.Weight = grid(s.WeightDepth, s.Cols)
	m.Psum = grid(s.Cols, s.PsumDepth)
	m.planar = PlanarMemories{State: m.State, Psum: m.Psum, Scale: make([]int64, s.Rows), Bias: make([]int64, s.Rows)}
	if s.HasSparse() {
		m.sparse = newSparseMem(s.Sparse)
	}
	return m, nil
}

// check refuses sizes the machine cannot hold (the NPU configuration's
// validation checks far more).
func check(s isa.Sizes) error {
	for _, v := range []struct {
		name string
		v    int
	}{{"rows", s.Rows}, {"cols", s.Cols}, {"state_depth", s.StateDepth}, {"psum_depth", s.PsumDepth},
		{"weight_depth", s.WeightDepth}, {"elem_width", s.ElemWidth}, {"acc_width", s.AccWidth}} {
		if v.v < 1 {
			return fmt.Errorf("machine: %s %d, want at least 1", v.name, v.v)
		}
	}
	if s.ExtAddrWidth < 1 || s.ExtAddrWidth > 30 {
		return fmt.Errorf("machine: ext_addr_width %d outside 1..30", s.ExtAddrWidth)
	}
	if s.Planar.Lanes != s.Rows {
		return fmt.Errorf("machine: %d planar lanes, want one per row (%d)", s.Planar.Lanes, s.Rows)
	}
	return nil
}

func grid(a, b int) [][]int64 {
	out := make([][]int64, a)
	for i := range out {
		out[i] = make([]int64, b)
	}
	return out
}

// LoadImage copies an external-memory image from line 0.
func (m *Machine) LoadImage(img [][]int64) error {
	if len(img) > len(m.Ext) {
		return fmt.Errorf("interp: image of %d lines, external memory has %d", len(img), len(m.Ext))
	}
	for a, line := range img {
		m.Ext[a] = append([]int64(nil), line...)
	}
	return nil
}

// Line returns external line a.
func (m *Machine) Line(a int) ([]int64, error) {
	if a < 0 || a >= len(m.Ext) {
		return nil, fmt.Errorf("interp: external line %d outside 0..%d", a, len(m.Ext)-1)
	}
	if m.Ext[a] == nil {
		return make([]int64, m.Sizes.Rows), nil
	}
	return m.Ext[a], nil
}

// Exec runs one descriptor.
func (m *Machine) Exec(d isa.Descriptor) error {
	t, err := m.codec.Decode(d.Based(m.NetBases))
	if err != nil {
		return err
	}
	m.Stats.Tasks[d.Engine]++
	switch t := t.(type) {
	case isa.Nop:
		return nil
	case isa.Load:
		return m.transfer(t.Ext, t.State, t.Lines, t.Rows, t.Stride, isa.MemState)
	case isa.LoadWeights:
		return m.transfer(t.Ext, t.Row, t.Lines, t.Rows, t.Stride, isa.MemWeight)
	case isa.Store:
		return m.store(t)
	case isa.Transpose:
		return m.transpose(t)
	case isa.Conv:
		return m.conv(t)
	case isa.PlanarTask:
		return m.planarTask(t.Task)
	case isa.SparseLoad, isa.SparseStore, isa.SparseClearTask, isa.SparseConvTask:
		return m.sparseTask(t)
	}
	return fmt.Errorf("interp: no model of %T", t)
}

// extLine is external line a, made if it was never written.
func (m *Machine) extLine(a int) ([]int64, error) {
	if a < 0 || a >= len(m.Ext) {
		return nil, fmt.Errorf("external line %d outside 0..%d", a, len(m.Ext)-1)
	}
	if m.Ext[a] == nil {
		m.Ext[a] = make([]int64, m.Sizes.Rows)
	}
	return m.Ext[a], nil
}

// touch tells OnTouch of an access.
func (m *Machine) touch(mem isa.Mem, a int, write bool) {
	if m.OnTouch != nil {
		m.OnTouch(mem, a, write)
	}
}

// pcfg is the planar engine's sizes.
func (m *Machine) pcfg() planar.Sizes { return m.Sizes.Planar }
