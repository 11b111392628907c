package compiler

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/machine"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// Machine is the reference interpreter: the NPU's memories as Go arrays
// and every engine operation with exactly the semantics of blocks/npu's
// documentation, one task at a time. It is the compiler's oracle: a
// program is right when the machine's results equal the golden models,
// in program order and in any other legal order.
type Machine struct {
	Cfg    npu.Config
	Ext    [][]int64 // lines; nil means all zero
	State  [][]int64 // [partition][address]
	Weight [][]int64 // [row][column]
	Psum   [][]int64 // [partition][entry]
	Stats  Stats
	// NetBases are the networks' base pointers (Program.NetBases): a
	// memory-relative operand is made absolute with them, as the NPU does.
	NetBases []uint64

	codec  *isa.Codec
	pcfg   planar.Sizes
	planar machine.PlanarMemories // the state and psum buffers and the planar engine's per-lane parameters
	trace  *tracer
	sparse *sparseMem // the sparse engine's memories (nil without one)
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

// NewMachine is a machine with all memories zero.
func NewMachine(cfg npu.Config) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Machine{Cfg: cfg, codec: cfg.Codec(), pcfg: cfg.Planar().Sizes, elem: golden.S(cfg.ElemWidth), acc: golden.S(cfg.AccWidth)}
	m.Ext = make([][]int64, 1<<cfg.ExtAddrWidth)
	m.State = grid(cfg.Rows, cfg.StateDepth)
	m.Weight = grid(cfg.WeightDepth, cfg.Cols)
	m.Psum = grid(cfg.Cols, cfg.PsumDepth)
	m.planar = machine.PlanarMemories{State: m.State, Psum: m.Psum, Scale: make([]int64, cfg.Rows), Bias: make([]int64, cfg.Rows)}
	if cfg.SparseUnits > 0 {
		m.sparse = newSparseMem(cfg.Sparse().Sizes)
	}
	return m, nil
}

func grid(a, b int) [][]int64 {
	out := make([][]int64, a)
	for i := range out {
		out[i] = make([]int64, b)
	}
	return out
}

// LoadImage copies a program's external-memory image.
func (m *Machine) LoadImage(img [][]int64) error {
	if len(img) > len(m.Ext) {
		return fmt.Errorf("interp: image of %d lines, external memory has %d", len(img), len(m.Ext))
	}
	for a, line := range img {
		m.Ext[a] = append([]int64(nil), line...)
	}
	return nil
}

// Line returns external line a (for Binding.FromLines).
func (m *Machine) Line(a int) ([]int64, error) {
	if a < 0 || a >= len(m.Ext) {
		return nil, fmt.Errorf("interp: external line %d outside 0..%d", a, len(m.Ext)-1)
	}
	if m.Ext[a] == nil {
		return make([]int64, m.Cfg.Rows), nil
	}
	return m.Ext[a], nil
}

// Interpret runs p in program order on a fresh machine and returns the
// outputs.
func Interpret(p *Program) (map[string]*golden.Tensor, *Machine, error) {
	order := make([]int, len(p.Tasks))
	for i := range order {
		order[i] = i
	}
	return InterpretOrder(p, order)
}

// InterpretOrder runs p's tasks in the given order (a permutation of the
// IDs) on a fresh machine and returns the outputs.
func InterpretOrder(p *Program, order []int) (map[string]*golden.Tensor, *Machine, error) {
	m, err := NewMachine(p.Config)
	if err != nil {
		return nil, nil, err
	}
	if err := m.LoadImage(p.Image); err != nil {
		return nil, nil, err
	}
	m.NetBases = p.NetBases
	for _, id := range order {
		bits, err := p.Layout.Encode(p.Tasks[id].Desc)
		if err != nil {
			return nil, m, err
		}
		if err := m.Exec(p.Layout.Decode(bits)); err != nil {
			return nil, m, fmt.Errorf("task %d (%s): %w", id, p.Tasks[id].Label, err)
		}
	}
	res, err := p.Results(m.Line)
	return res, m, err
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

func (m *Machine) extLine(a int) ([]int64, error) {
	if a < 0 || a >= len(m.Ext) {
		return nil, fmt.Errorf("external line %d outside 0..%d", a, len(m.Ext)-1)
	}
	if m.Ext[a] == nil {
		m.Ext[a] = make([]int64, m.Cfg.Rows)
	}
	return m.Ext[a], nil
}

// transfer is dma_in: for k < rows, l < lines: external line
// ext+k·stride+l → address dst+k·lines+l of the state or weight buffer.
func (m *Machine) transfer(ext, dst, lines, rows, stride int, to isa.Mem) error {
	for k := 0; k < rows; k++ {
		for l := 0; l < lines; l++ {
			line, err := m.extLine(ext + k*stride + l)
			if err != nil {
				return err
			}
			a := dst + k*lines + l
			m.Stats.DMAInLines++
			m.touch(isa.MemExt, ext+k*stride+l, false)
			m.touch(to, a, true)
			if to == isa.MemState {
				if a >= m.Cfg.StateDepth {
					return fmt.Errorf("dma_in load: state address %d outside 0..%d", a, m.Cfg.StateDepth-1)
				}
				for p := 0; p < m.Cfg.Rows; p++ {
					m.State[p][a] = m.elem.Wrap(line[p])
				}
				continue
			}
			if a >= m.Cfg.WeightDepth {
				return fmt.Errorf("dma_in load_weights: weight row %d outside 0..%d", a, m.Cfg.WeightDepth-1)
			}
			for c := 0; c < m.Cfg.Cols; c++ {
				m.Weight[a][c] = m.elem.Wrap(line[c])
			}
		}
	}
	return nil
}

func (m *Machine) store(t isa.Store) error {
	for k := 0; k < t.Rows; k++ {
		for l := 0; l < t.Lines; l++ {
			a := t.State + k*t.Lines + l
			if a >= m.Cfg.StateDepth {
				return fmt.Errorf("dma_out store: state address %d outside 0..%d", a, m.Cfg.StateDepth-1)
			}
			x := t.Ext + k*t.Stride + l
			line, err := m.extLine(x)
			if err != nil {
				return err
			}
			for p := 0; p < m.Cfg.Rows; p++ {
				line[p] = m.State[p][a]
			}
			m.Stats.DMAOutLines++
			m.touch(isa.MemState, a, false)
			m.touch(isa.MemExt, x, true)
		}
	}
	return nil
}

func (m *Machine) transpose(t isa.Transpose) error {
	R, C := m.Cfg.Rows, m.Cfg.Cols
	if t.Rows < 1 || t.Rows > R || t.Cols < 1 || t.Cols > C {
		return fmt.Errorf("ne transpose of %dx%d: rows must be 1..%d, columns 1..%d", t.Rows, t.Cols, R, C)
	}
	if t.Src+t.Cols > m.Cfg.StateDepth || t.Psum+t.Rows > m.Cfg.PsumDepth {
		return fmt.Errorf("ne transpose: src %d + %d or dst %d + %d outside the buffers", t.Src, t.Cols, t.Psum, t.Rows)
	}
	for i := 0; i < t.Rows; i++ {
		m.touch(isa.MemPsum, t.Psum+i, true)
		for j := 0; j < t.Cols; j++ {
			m.touch(isa.MemState, t.Src+j, false)
		}
		for j := 0; j < C; j++ {
			v := int64(0)
			if j < t.Cols {
				v = m.State[i][t.Src+j]
			}
			m.Psum[j][t.Psum+i] = v
		}
	}
	m.Stats.NEVectors += t.Rows
	return nil
}

func (m *Machine) conv(t isa.Conv) error {
	R := m.Cfg.Rows
	kh, kw, s, oh, ow := t.KH, t.KW, t.Stride, t.OH, t.OW
	h, w, ct := t.H, t.W, t.Tiles
	if kh < 1 || kw < 1 || s < 1 || oh < 1 || ow < 1 || h < 1 || w < 1 || ct < 1 {
		return fmt.Errorf("ne conv: kh %d kw %d stride %d oh %d ow %d h %d w %d tiles %d: all must be at least 1", kh, kw, s, oh, ow, h, w, ct)
	}
	src, aux, dst := t.Src, t.Weights, t.Psum
	if dst+oh*ow > m.Cfg.PsumDepth {
		return fmt.Errorf("ne conv: psum entries %d..%d outside 0..%d", dst, dst+oh*ow-1, m.Cfg.PsumDepth-1)
	}
	if aux+ct*kh*kw*R > m.Cfg.WeightDepth {
		return fmt.Errorf("ne conv: weight rows %d..%d outside 0..%d", aux, aux+ct*kh*kw*R-1, m.Cfg.WeightDepth-1)
	}
	p := 0
	for tile := 0; tile < ct; tile++ {
		for ky := 0; ky < kh; ky++ {
			for kx := 0; kx < kw; kx++ {
				acc := p > 0 || t.Acc
				if err := m.convPass(src+tile*h*w, aux+p*R, t, ky, kx, acc); err != nil {
					return err
				}
				p++
			}
		}
	}
	return nil
}

// convPass streams one kernel offset's input vectors (zeros for padding)
// through the weights at row wrow into the output psums.
func (m *Machine) convPass(plane, wrow int, t isa.Conv, ky, kx int, acc bool) error {
	R, C := m.Cfg.Rows, m.Cfg.Cols
	x := make([]int64, R)
	sum := make([]int64, C)
	for r := 0; r < R; r++ {
		m.touch(isa.MemWeight, wrow+r, false)
	}
	for oy := 0; oy < t.OH; oy++ {
		for ox := 0; ox < t.OW; ox++ {
			iy, ix := oy*t.Stride+ky-t.PadH, ox*t.Stride+kx-t.PadW
			m.Stats.NEVectors++
			m.Stats.NEMACs += int64(R * C)
			if iy >= 0 && iy < t.H && ix >= 0 && ix < t.W {
				a := plane + iy*t.W + ix
				if a >= m.Cfg.StateDepth {
					return fmt.Errorf("ne conv: state address %d outside 0..%d", a, m.Cfg.StateDepth-1)
				}
				for r := 0; r < R; r++ {
					x[r] = m.State[r][a]
				}
				m.Stats.NEReads++
				m.touch(isa.MemState, a, false)
			} else {
				clear(x)
			}
			for c := 0; c < C; c++ {
				var v int64
				for r := 0; r < R; r++ {
					v += x[r] * m.Weight[wrow+r][c]
				}
				sum[c] = v
			}
			e := t.Psum + oy*t.OW + ox
			m.touch(isa.MemPsum, e, true)
			if acc {
				m.touch(isa.MemPsum, e, false)
			}
			for c := 0; c < C; c++ {
				if acc {
					m.Psum[c][e] = m.acc.Wrap(m.Psum[c][e] + sum[c])
				} else {
					m.Psum[c][e] = m.acc.Wrap(sum[c])
				}
			}
		}
	}
	return nil
}

func (m *Machine) planarTask(t planar.Task) error {
	if t.Op == planar.OpNop {
		return nil
	}
	if err := t.Validate(m.pcfg); err != nil {
		return err
	}
	if m.trace != nil {
		m.touchPlanar(t)
	}
	if err := machine.RunPlanar(m.pcfg, t, &m.planar); err != nil {
		return err
	}
	m.Stats.PlanarWrites += t.Writes() * bits.OnesCount64(t.Mask)
	m.Stats.PlanarReads += t.Reads(m.pcfg)
	return nil
}

// touchPlanar records the addresses a planar task touches.
func (m *Machine) touchPlanar(t planar.Task) {
	n, srcMem := t.H*t.W, isa.MemState
	switch t.Op {
	case planar.OpAct, planar.OpWriteBack:
		srcMem = isa.MemPsum
	case planar.OpLoadParams:
		n = m.pcfg.ParamWords()
	}
	for i := 0; i < n; i++ {
		m.touch(srcMem, t.Src+i, false)
	}
	// The second operand: a tensor, one element per lane (broadcast), or
	// nothing (a scalar, abs); the task knows which.
	for i := 0; i < t.Src2Elements(); i++ {
		m.touch(isa.MemState, t.Src2+i, false)
	}
	for i := 0; i < t.Writes(); i++ {
		m.touch(isa.MemState, t.Dst+i, true)
	}
}

// RandomOrder is a random legal execution order of p: every task after
// the previous task of its lane (laneOf) in its queue, after its dependencies,
// and after every task of its queue window or more IDs before it (the
// scoreboard window). Any such order must give the same results if the
// dependencies are right.
func RandomOrder(p *Program, rng *rand.Rand) []int {
	n := len(p.Tasks)
	qt := p.QueueTasks()
	done := make([]bool, n)
	type lane struct{ q, e int }
	var lanes []lane
	heads := map[lane][]int{}
	for i := range p.Tasks {
		l := lane{p.Tasks[i].Queue, laneOf(&p.Tasks[i].Desc)}
		if heads[l] == nil {
			lanes = append(lanes, l)
		}
		heads[l] = append(heads[l], i)
	}
	oldest := make([]int, len(qt)) // per queue: lowest ID not done
	order := make([]int, 0, n)
	win := p.Config.Window
	for len(order) < n {
		var ready []lane
		for _, l := range lanes {
			if len(heads[l]) == 0 {
				continue
			}
			t := heads[l][0]
			ok := int(p.Tasks[t].Desc.ID) < oldest[l.q]+win
			for _, d := range p.Tasks[t].Desc.Deps {
				ok = ok && done[qt[l.q][d]]
			}
			if ok {
				ready = append(ready, l)
			}
		}
		if len(ready) == 0 {
			panic("compiler: RandomOrder: no task is ready (dependency on a later task?)")
		}
		l := ready[rng.IntN(len(ready))]
		t := heads[l][0]
		heads[l] = heads[l][1:]
		done[t] = true
		order = append(order, t)
		for q := l.q; oldest[q] < len(qt[q]) && done[qt[q][oldest[q]]]; {
			oldest[q]++
		}
	}
	return order
}

// CheckDeps verifies p's dependencies statically: IDs in sequence per
// queue, every dependency an earlier task of its queue within the
// window, at most max_deps, and every pair of tasks that touch the same
// address (one of them writing) ordered by dependencies, engine order in
// one queue or the window. Tasks of different queues are ordered by
// nothing, so they must not share an address that one of them writes.
func CheckDeps(p *Program, acc []Access) error {
	if acc == nil {
		acc = make([]Access, len(p.Tasks))
		for i := range p.Tasks {
			acc[i] = Access{p.Tasks[i].Reads, p.Tasks[i].Writes}
		}
	}
	n := len(p.Tasks)
	qt := p.QueueTasks()
	win := p.Config.Window
	words := (n + 63) / 64
	anc := make([][]uint64, n)
	type lane struct{ q, e int }
	last := map[lane]int{}
	pos := make([]int, len(qt)) // per queue: the next ID
	for t := range p.Tasks {
		d := &p.Tasks[t].Desc
		q := p.Tasks[t].Queue
		id := pos[q]
		pos[q]++
		if d.ID != uint64(id) {
			return fmt.Errorf("task %d (queue %d) has ID %d, want %d", t, q, d.ID, id)
		}
		if len(d.Deps) > p.Config.MaxDeps {
			return fmt.Errorf("task %d has %d dependencies, max_deps %d", t, len(d.Deps), p.Config.MaxDeps)
		}
		a := make([]uint64, words)
		var preds []int
		for _, u := range idsOf(d.Deps) {
			if u >= id || id-u >= win {
				return fmt.Errorf("task %d depends on task %d of queue %d: not one of the %d before it", t, u, q, win-1)
			}
			preds = append(preds, qt[q][u])
		}
		if l, ok := last[lane{q, laneOf(d)}]; ok {
			preds = append(preds, l)
		}
		for _, u := range preds {
			a[u/64] |= 1 << uint(u%64)
			for i := range a {
				a[i] |= anc[u][i]
			}
		}
		for u := 0; u <= id-win; u++ { // all tasks of the queue up to id-win have completed
			g := qt[q][u]
			a[g/64] |= 1 << uint(g%64)
		}
		anc[t] = a
		last[lane{q, laneOf(d)}] = t
	}
	for t := range p.Tasks {
		for u := 0; u < t; u++ {
			same := p.Tasks[u].Queue == p.Tasks[t].Queue && p.Tasks[u].Desc.Engine == p.Tasks[t].Desc.Engine
			if same || anc[t][u/64]>>uint(u%64)&1 == 1 {
				continue
			}
			x, y := &acc[t], &acc[u]
			if spansMeet(x.Writes, y.Reads) || spansMeet(x.Writes, y.Writes) || spansMeet(x.Reads, y.Writes) {
				return fmt.Errorf("tasks %d (%s) and %d (%s) touch the same addresses but are not ordered", u, p.Tasks[u].Label, t, p.Tasks[t].Label)
			}
		}
	}
	return nil
}

// tracer records the addresses one task touches.
type tracer struct {
	reads, writes [isa.NumMems]map[int]bool
}

func (m *Machine) touch(mem isa.Mem, a int, write bool) {
	if m.trace == nil {
		return
	}
	set := &m.trace.reads[mem]
	if write {
		set = &m.trace.writes[mem]
	}
	if *set == nil {
		*set = map[int]bool{}
	}
	(*set)[a] = true
}

func spansOf(sets [isa.NumMems]map[int]bool) []isa.Span {
	var out []isa.Span
	for mem, set := range sets {
		addrs := make([]int, 0, len(set))
		for a := range set {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		for i := 0; i < len(addrs); {
			j := i
			for j+1 < len(addrs) && addrs[j+1] == addrs[j]+1 {
				j++
			}
			out = append(out, isa.Span{Mem: isa.Mem(mem), Lo: addrs[i], Hi: addrs[j] + 1})
			i = j + 1
		}
	}
	return out
}

// Access is what one task actually read and wrote, as the interpreter saw it.
type Access struct {
	Reads, Writes []isa.Span
}

// TraceAccesses runs p in program order and records the addresses every
// task really touches (independently of the spans the compiler declared),
// for CheckDeps.
func TraceAccesses(p *Program) ([]Access, error) {
	m, err := NewMachine(p.Config)
	if err != nil {
		return nil, err
	}
	if err := m.LoadImage(p.Image); err != nil {
		return nil, err
	}
	out := make([]Access, len(p.Tasks))
	for id := range p.Tasks {
		m.trace = &tracer{}
		if err := m.Exec(p.Tasks[id].Desc); err != nil {
			return nil, fmt.Errorf("task %d (%s): %w", id, p.Tasks[id].Label, err)
		}
		out[id] = Access{Reads: spansOf(m.trace.reads), Writes: spansOf(m.trace.writes)}
	}
	return out, nil
}

// CheckSpans verifies that every address a task really touched (acc,
// from TraceAccesses) lies in the spans the compiler declared for it, so
// the dependency derivation saw every access.
func CheckSpans(p *Program, acc []Access) error {
	within := func(s isa.Span, decl []isa.Span) bool {
		for a := s.Lo; a < s.Hi; a++ {
			ok := false
			for _, d := range decl {
				if d.Mem == s.Mem && a >= d.Lo && a < d.Hi {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}
	for id := range acc {
		t := &p.Tasks[id]
		for _, s := range acc[id].Reads {
			if !within(s, t.Reads) && !within(s, t.Writes) {
				return fmt.Errorf("task %d (%s) reads %v, declared reads %v", id, t.Label, s, t.Reads)
			}
		}
		for _, s := range acc[id].Writes {
			if !within(s, t.Writes) {
				return fmt.Errorf("task %d (%s) writes %v, declared writes %v", id, t.Label, s, t.Writes)
			}
		}
	}
	return nil
}
