package compiler

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// Task is one descriptor of the program with what the compiler knows
// about it: a label for traces, and the addresses it reads and writes
// (from which its dependencies were derived).
type Task struct {
	Desc isa.Descriptor
	// Queue is the task queue the host pushes it to (0: the highest
	// priority). Each queue carries its own program: Desc.ID counts the
	// queue's tasks from 0 in the order they appear, and dependencies
	// name IDs of the same queue.
	Queue int
	// Layer is the graph operation that emitted the task (its index in
	// build order): a layer's tasks share it.
	Layer  int
	Label  string
	Reads  []isa.Span
	Writes []isa.Span
}

// QueueTasks lists, per queue, the indices of its tasks in order: task
// QueueTasks()[q][id] is the one of queue q with ID id.
func (p *Program) QueueTasks() [][]int {
	var out [][]int
	for i := range p.Tasks {
		q := p.Tasks[i].Queue
		for len(out) <= q {
			out = append(out, nil)
		}
		out[q] = append(out[q], i)
	}
	return out
}

// HoldLayers makes layer ends the only task-switch points of the given
// queues (all of them if none is given): every task whose queue's next
// task belongs to the same layer gets the hold flag, so another queue's
// task issues (and, on a shared engine, dispatches) only between layers,
// never inside one. The default, no hold, lets a higher-priority network
// take over at any task boundary. Call it on the final program: the
// steps that rewrite descriptors (batches, relocation) keep Layer, not
// the flag.
func (p *Program) HoldLayers(queues ...int) {
	for q, idx := range p.QueueTasks() {
		if len(queues) > 0 && !slices.Contains(queues, q) {
			continue
		}
		for k, i := range idx {
			t := &p.Tasks[i]
			t.Desc.Hold = k+1 < len(idx) && p.Tasks[idx[k+1]].Layer == t.Layer
		}
	}
}

// Engine is the engine that runs the task.
func (t *Task) Engine() isa.Engine { return t.Desc.Engine }

// OpName is the name of the task's operation ("ne.conv", "planar.act").
func (t *Task) OpName() string {
	e := t.Desc.Engine
	if int(e) < isa.NumEngines {
		for _, op := range isa.Engines[e].Ops {
			if op.Code == t.Desc.Op {
				return e.String() + "." + op.Name
			}
		}
	}
	return fmt.Sprintf("%s.op%d", e, t.Desc.Op)
}

// Binding places one user tensor in external memory. Line Base+l,
// element p holds the tensor element of flat (row-major) index
// Index[l*Rows+p], or 0 when that is -1 (padding partitions, padding
// channels and the zero rows of weight passes).
type Binding struct {
	Name  string
	Shape []int // the user's shape
	Base  int   // first external line
	Lines int
	Rows  int     // elements per line (Config.Rows)
	Index []int32 // Lines*Rows flat indices, -1 for zero
	// Digits > 0: the tensor is int32 (an Int32 conv or GEMM result),
	// each value cut into Digits planes of DigitWidth-bit digits, least
	// significant first. Plane k is the Lines/Digits lines from Base +
	// k·Lines/Digits, laid out as an element tensor's lines would be
	// (Index repeats for every plane); FromLines reassembles the values.
	Digits, DigitWidth int
	// Records, when set, says the tensor is held in records that span
	// several lines (the sparse engine's accumulator entries); Index and
	// Digits are unused then.
	Records *Records
}

// Records places a tensor in records of Lines lines each: record r is
// lines Base + r·Lines onwards, bits low first (element p of a line's
// ElemWidth bits at p·ElemWidth); value i is the signed Width-bit field
// at bit Bit[i] of record Rec[i].
type Records struct {
	Lines, Width, ElemWidth int
	Rec, Bit                []int32
}

// Size is the number of elements of the user tensor.
func (b *Binding) Size() int {
	n := 1
	for _, d := range b.Shape {
		n *= d
	}
	return n
}

// ToLines converts a tensor of the binding's shape to its external lines
// (Lines lines of Rows elements, from line Base).
func (b *Binding) ToLines(t *golden.Tensor) ([][]int64, error) {
	if t == nil || !slices.Equal(t.Shape, b.Shape) {
		var got []int
		if t != nil {
			got = t.Shape
		}
		return nil, fmt.Errorf("compiler: tensor %s has shape %v, the program was compiled for %v", b.Name, got, b.Shape)
	}
	lines := make([][]int64, b.Lines)
	for l := range lines {
		line := make([]int64, b.Rows)
		for p := range line {
			if i := b.Index[l*b.Rows+p]; i >= 0 {
				line[p] = t.Data[i]
			}
		}
		lines[l] = line
	}
	return lines, nil
}

// FromLines gathers the tensor from external memory: line(a) returns
// line a (Rows elements, signed element values). It is the one reader
// of program outputs (Program.Results): an int32 tensor (Digits > 0) is
// put together here from its digit planes.
func (b *Binding) FromLines(line func(addr int) ([]int64, error)) (*golden.Tensor, error) {
	if b.Records != nil {
		return b.fromRecords(line)
	}
	t := golden.New(b.Shape...)
	per := b.Lines
	if b.Digits > 0 {
		per = b.Lines / b.Digits
	}
	digit := golden.U(b.DigitWidth)
	for l := 0; l < b.Lines; l++ {
		v, err := line(b.Base + l)
		if err != nil {
			return nil, err
		}
		k := l / per // the digit plane
		for p := 0; p < b.Rows && p < len(v); p++ {
			i := b.Index[l*b.Rows+p]
			switch {
			case i < 0:
			case b.Digits == 0:
				t.Data[i] = v[p]
			default:
				t.Data[i] |= digit.Wrap(v[p]) << uint(k*b.DigitWidth)
			}
		}
	}
	if b.Digits > 0 {
		// Bit 31 is the sign (two's complement); digits above it (an
		// element width that does not divide 32) are dropped.
		for i, x := range t.Data {
			t.Data[i] = Int32.Wrap(x)
		}
	}
	return t, nil
}

// Int32 is the type of the Int32 conv and GEMM results.
var Int32 = golden.S(32)

// Program is a compiled workload: the external-memory image, where every
// input and output tensor lives in it, and the descriptors for queue 0.
type Program struct {
	Config npu.Config
	Layout *taskmgr.Layout
	Tasks  []Task
	// Image is the initial external memory from line 0: Image[a] holds
	// line a (Rows signed elements; nil: zeros, a line the program
	// writes before it reads it). Lines past its end are not used
	// before they are written.
	Image    [][]int64
	Inputs   []*Binding // activations and weights, already in Image
	Outputs  []*Binding // results, read back after the run
	MACs     int64      // useful multiply-accumulates of the workload (GEMM, conv, FC)
	Ideal    int64      // ideal cycles: MACs / (Rows·Cols), rounded up
	ExtLines int        // external lines used (inputs, weights and outputs)
	Joins    int        // nop tasks inserted because a task needed more than max_deps dependencies
	// NetBases are the base pointers of the program's networks (npu
	// config networks > 0): network n's memory-relative operands are
	// lines relative to NetBases[n] (missing: 0). The host writes them
	// before the run; the reference machine adds them the same way.
	NetBases []uint64
	// LayerMACs splits MACs by conv/GEMM/FC layer, keyed by the graph
	// node's label ("conv2d0", "gemm1"), the first word of the labels of
	// its tasks (nil in a program Compile did not make).
	LayerMACs map[string]int64
}

// Descriptors returns the descriptors in program order.
func (p *Program) Descriptors() []isa.Descriptor {
	out := make([]isa.Descriptor, len(p.Tasks))
	for i := range p.Tasks {
		out[i] = p.Tasks[i].Desc
	}
	return out
}

// Encoded returns the descriptor bits in program order, for cmd_desc.
func (p *Program) Encoded() ([]*big.Int, error) {
	out := make([]*big.Int, len(p.Tasks))
	for i := range p.Tasks {
		b, err := p.Layout.Encode(p.Tasks[i].Desc)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// Labels lists the task labels by ID, for the timeline.
func (p *Program) Labels() []string {
	out := make([]string, len(p.Tasks))
	for i := range p.Tasks {
		out[i] = p.Tasks[i].Label
	}
	return out
}

// Output returns the binding of the named output.
func (p *Program) Output(name string) (*Binding, bool) {
	for _, b := range p.Outputs {
		if b.Name == name {
			return b, true
		}
	}
	return nil, false
}

// Input returns the binding of the named input.
func (p *Program) Input(name string) (*Binding, bool) {
	for _, b := range p.Inputs {
		if b.Name == name {
			return b, true
		}
	}
	return nil, false
}

// SetInput replaces the data of an input (activation or weight tensor) in
// the image, so one compiled program runs on new data.
func (p *Program) SetInput(name string, t *golden.Tensor) error {
	b, ok := p.Input(name)
	if !ok {
		return fmt.Errorf("compiler: program has no input %q", name)
	}
	lines, err := b.ToLines(t)
	if err != nil {
		return err
	}
	for l, line := range lines {
		p.Image[b.Base+l] = line
	}
	return nil
}

// Results gathers every output from external memory.
func (p *Program) Results(line func(addr int) ([]int64, error)) (map[string]*golden.Tensor, error) {
	out := map[string]*golden.Tensor{}
	for _, b := range p.Outputs {
		t, err := b.FromLines(line)
		if err != nil {
			return nil, err
		}
		out[b.Name] = t
	}
	return out, nil
}

// Summary is a short human-readable description: tasks per engine,
// external lines, MACs and the ideal cycle count.
func (p *Program) Summary() string {
	var n [isa.NumEngines]int
	deps := 0
	for i := range p.Tasks {
		n[p.Tasks[i].Desc.Engine]++
		deps += len(p.Tasks[i].Desc.Deps)
	}
	var parts []string
	engines := isa.DenseEngines
	if p.Config.SparseUnits > 0 {
		engines = isa.NumEngines
	}
	for e := 0; e < engines; e++ {
		parts = append(parts, fmt.Sprintf("%s %d", isa.Engine(e), n[e]))
	}
	return fmt.Sprintf("%d tasks (%s; %d joins), %d dependencies, %d external lines, %d MACs, ideal %d cycles",
		len(p.Tasks), strings.Join(parts, ", "), p.Joins, deps, p.ExtLines, p.MACs, p.Ideal)
}

// At returns p moved to external line base on an NPU with network base
// pointers (npu config networks > 0): the image, the bindings and the
// tasks' declared external spans move, the descriptors do not — their
// external lines are relative to the network's base pointer, which
// becomes base (NetBases[0]; a single-network program). So one compiled
// program can run from any place in external memory.
func (p *Program) At(base int) (*Program, error) {
	if p.Config.Networks == 0 {
		return nil, fmt.Errorf("compiler: moving a program needs base pointers (npu config field networks = 0)")
	}
	if len(p.NetBases) > 1 {
		return nil, fmt.Errorf("compiler: a program of %d networks moves by its base pointers, not as a whole", len(p.NetBases))
	}
	if lim := 1 << p.Config.ExtAddrWidth; base < 0 || base+p.ExtLines > lim {
		return nil, fmt.Errorf("compiler: the program's %d external lines from line %d end past the %d lines of ext_addr_width = %d", p.ExtLines, base, lim, p.Config.ExtAddrWidth)
	}
	q := *p
	q.Image = append(make([][]int64, base), p.Image...)
	for i := range q.Image[:base] {
		q.Image[i] = make([]int64, p.Config.Rows)
	}
	q.ExtLines = p.ExtLines + base
	q.NetBases = []uint64{uint64(base)}
	move := func(bs []*Binding) []*Binding {
		out := make([]*Binding, len(bs))
		for i, b := range bs {
			c := *b
			c.Base += base
			out[i] = &c
		}
		return out
	}
	q.Inputs, q.Outputs = move(p.Inputs), move(p.Outputs)
	spans := func(in []isa.Span) []isa.Span {
		out := make([]isa.Span, len(in))
		for k, s := range in {
			out[k] = s
			if s.Mem == isa.MemExt {
				out[k].Lo, out[k].Hi = s.Lo+base, s.Hi+base
			}
		}
		return out
	}
	q.Tasks = make([]Task, len(p.Tasks))
	for i, t := range p.Tasks {
		t.Reads, t.Writes = spans(t.Reads), spans(t.Writes)
		q.Tasks[i] = t
	}
	return &q, nil
}
