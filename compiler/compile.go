package compiler

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// Compile maps the workload onto the NPU of cfg: it lays out external
// memory, the state, weight and psum buffers, tiles every operation into
// engine tasks and derives their dependencies. Every shape or capacity
// problem is an error naming the operation, the parameter, its value and
// the limit, before anything runs.
//
// A conv reading a graph input may run on the input's windows (see
// TapMapping); when the program that takes does not fit (its larger
// input in external memory), the direct convolution is compiled instead.
// Values operations read stay in the state buffer when they fit
// (residentOrSpilled); when an operation then finds too little room to
// stream, the graph is compiled again with only values of at most a
// quarter of the buffer resident, then with none.
func Compile(cfg npu.Config, g *Graph) (*Program, error) {
	return CompileWith(cfg, g, Options{})
}

// Options tune CompileWith.
type Options struct {
	// GrowExt widens the configuration's ext_addr_width to what the
	// program needs (ExtAddrWidthFor its external lines, up to the
	// NPU's limit of 24) instead of failing: Program.Config is then cfg
	// with that width, the configuration to build and run the NPU with
	// (host.Run accepts it for cfg).
	GrowExt bool
}

// MaxExtAddrWidth is the widest external address the NPU takes
// (npu.Config.Validate).
const MaxExtAddrWidth = 24

// ExtAddrWidthFor is the narrowest ext_addr_width (at least 4, the
// NPU's least) whose 2^width lines hold lines.
func ExtAddrWidthFor(lines int) int {
	w := 4
	for 1<<w < lines {
		w++
	}
	return w
}

// CompileWith is Compile with options.
func CompileWith(cfg npu.Config, g *Graph, opt Options) (*Program, error) {
	want := cfg
	if opt.GrowExt && cfg.ExtAddrWidth < MaxExtAddrWidth {
		cfg.ExtAddrWidth = MaxExtAddrWidth
	}
	var report error
	for _, resident := range []int{cfg.StateDepth, cfg.StateDepth / 4, 0} {
		for _, taps := range []bool{true, false} {
			p, err := compile(cfg, g, taps, resident)
			if err == nil {
				return p.narrowExt(want)
			}
			if _, ok := err.(*extError); ok && !taps {
				return nil, err // spilling more would take more lines still
			}
			if report == nil && !taps {
				report = err // the direct convolution's, as values fit best
			}
		}
	}
	return nil, report
}

// narrowExt gives a program compiled with the widest external addresses
// the configuration want, with its ext_addr_width grown to what the
// program needs.
func (p *Program) narrowExt(want npu.Config) (*Program, error) {
	if p.Config != want {
		want.ExtAddrWidth = max(want.ExtAddrWidth, ExtAddrWidthFor(p.ExtLines))
		layout, err := taskmgr.NewLayout(want.TaskMgr())
		if err != nil {
			return nil, fmt.Errorf("compiler: %w", err)
		}
		p.Config, p.Layout = want, layout
	}
	for i := range p.Tasks {
		if _, err := p.Layout.Encode(p.Tasks[i].Desc); err != nil {
			return nil, fmt.Errorf("compiler: %s: %w", p.Tasks[i].Label, err)
		}
	}
	return p, nil
}

// extError is a program that needs more external lines than
// ext_addr_width gives.
type extError struct{ lines, width int }

func (e *extError) Error() string {
	return fmt.Sprintf("compiler: the program needs %d external lines, ext_addr_width = %d allows %d", e.lines, e.width, 1<<e.width)
}

func compile(cfg npu.Config, g *Graph, taps bool, residentMax int) (*Program, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	if err := g.Err(); err != nil {
		return nil, err
	}
	if cfg.Rows > planar.MaskLanes {
		return nil, fmt.Errorf("compiler: rows = %d is not supported: planar tasks name their lanes with a %d-bit mask (planar.Task.Mask), so the compiler handles at most %d rows", cfg.Rows, planar.MaskLanes, planar.MaskLanes)
	}
	if len(g.nodes) == 0 {
		return nil, errors.New("compiler: the graph has no operations")
	}
	layout, err := taskmgr.NewLayout(cfg.TaskMgr())
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	c := &ctx{
		cfg: cfg, R: cfg.Rows, C: cfg.Cols, pcfg: cfg.Planar().Sizes, isa: cfg.Codec(),
		em:     newEmitter(cfg),
		state:  newAlloc(cfg.StateDepth),
		prog:   &Program{Config: cfg, Layout: layout, LayerMACs: map[string]int64{}},
		loc:    map[*Value]*place{},
		live:   map[*Value]int{},
		taps:   map[*Value]*tapInput{},
		noTaps: !taps,
		fused:  map[*node]bool{},

		residentMax: residentMax,
		consts:      map[int64][2]int{},
		outCopies:   map[*Value]*place{},
		pre:         map[*Value]*node{},
		readers:     map[*Value][]*node{},
	}
	if err := c.run(g); err != nil {
		return nil, err
	}
	p := c.prog
	p.Tasks = c.em.tasks
	p.Joins = c.em.nops
	p.ExtLines = len(p.Image)
	if lim := 1 << cfg.ExtAddrWidth; p.ExtLines > lim {
		return nil, &extError{p.ExtLines, cfg.ExtAddrWidth}
	}
	rc := int64(cfg.Rows * cfg.Cols)
	p.Ideal = (p.MACs + rc - 1) / rc
	return p, nil
}

// ctx is one compilation.
type ctx struct {
	cfg    npu.Config
	R, C   int
	pcfg   planar.Sizes
	isa    *isa.Codec
	em     *emitter
	state  *alloc
	psum   int // next psum entry of the ring
	wring  int // next weight row of the ring
	prog   *Program
	loc    map[*Value]*place
	live   map[*Value]int       // remaining consumers of each stored value
	taps   map[*Value]*tapInput // graph inputs laid out as a conv's windows
	noTaps bool                 // every conv direct (the fallback)
	g      *Graph
	fused  map[*node]bool // pools emitted in bands with their conv (poolBands), eltwises on its output blocks (postElt)

	// The layout pass (layout.go): every value's channel layout, the
	// views (permutations) and their values, the shared storages of
	// concats and their parts, the concat parts copied in, and the
	// views of each value.
	lays      map[*Value]*layout
	viewOf    map[*Value]*Value
	stor      map[*Value]*storage
	copyParts map[*node][]int
	views     map[*Value][]*Value

	outCopies   map[*Value]*place  // outputs in a spilled storage: their own lines (allocStorage)
	pre         map[*Value]*node   // eltwise results computed on their conv's input bands (conv_pre.go)
	readers     map[*Value][]*node // the operations reading each value (by key)
	residentMax int                // the largest value kept in the state buffer (addresses)
	consts      map[int64][2]int   // constant regions of external memory: value → first line, lines
}

// place is where a stored value lives: in the state buffer (resident),
// or only in external memory (graph inputs, and results no operation
// reads, which go out block by block through staging).
type place struct {
	part     int // partitions per channel tile
	tiles    int
	f        int
	resident bool
	base     int  // state address of tile 0
	ext      int  // external line of tile 0, -1 if none
	out      bool // a resident value stored to ext for an output (storeResident)
}

// addr is the state address of (tile t, free index j).
func (p *place) addr(t, j int) int { return p.base + t*p.f + j }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// root follows reshape views to the value that owns the storage (the
// graph's view; the compiler's, with permutations, is ctx.root).
func root(v *Value) *Value {
	for v.alias != nil {
		v = v.alias
	}
	return v
}

func (c *ctx) partOf(v *Value) int {
	if v.cols {
		return c.C
	}
	return c.R
}

func (c *ctx) run(g *Graph) error {
	c.g = g
	c.layoutPass(g)
	// Consumers per stored value (per storage, for the values a storage
	// holds); a value nothing reads that is an output is staged out
	// block by block instead of kept on chip.
	for _, n := range g.nodes {
		if isView(n) {
			continue
		}
		for _, v := range n.in {
			c.live[c.key(v)]++
			c.readers[c.key(v)] = append(c.readers[c.key(v)], n)
		}
	}
	for _, v := range g.values {
		if v.isInt32 && len(v.outputs) == 0 {
			return fmt.Errorf("%s: its int32 result is not a graph output; an int32 result can only be one", v.producer.label)
		}
	}
	// External placement of the graph inputs, in creation order.
	for _, v := range g.values {
		if v.name == "" || v.invalid {
			continue
		}
		if !v.formSet || v.uses == 0 {
			return fmt.Errorf("input %s: no operation uses it", v.name)
		}
		pl := &place{part: c.partOf(v), f: v.f, ext: -1}
		pl.tiles = ceilDiv(c.lay(v).slots, pl.part)
		b := c.binding(v.name, v, pl)
		if t := c.tapMapping(v, consumer(g, v)); t != nil {
			pl.f, pl.tiles = t.oh*t.ow, ceilDiv(t.rows, pl.part)
			b = c.tapBinding(v.name, v, pl, t)
			c.taps[v] = t
		}
		pl.ext = c.bindInput(b, v.data)
		c.loc[v] = pl
	}
	for i, n := range g.nodes {
		first := len(c.em.tasks)
		if err := c.lower(n); err != nil {
			return err
		}
		if op := c.outCopies[n.out]; op != nil {
			if err := c.copyTiles(n.label+" output", c.loc[n.out], op); err != nil {
				return err
			}
		}
		for k := first; k < len(c.em.tasks); k++ {
			c.em.tasks[k].Layer = i
		}
		if isView(n) {
			continue
		}
		for _, v := range n.in {
			k := c.key(v)
			c.live[k]--
			if c.live[k] == 0 {
				c.release(k)
			}
		}
		// A result nobody reads frees its state at once.
		if k := c.key(n.out); c.live[k] == 0 && len(c.views[c.root(n.out)]) == 0 {
			c.release(k)
		}
	}
	return nil
}

// isView: the node's result shares its operand's storage (a reshape,
// the transpose of a GEMM result, a channel permutation).
func isView(n *node) bool { return n.kind == opView || n.kind == opPermute }

// release frees the state of the value or storage k stands for.
func (c *ctx) release(k *Value) {
	pl := c.loc[k]
	if s := c.stor[k]; s != nil {
		pl = s.pl
	}
	if pl != nil && pl.resident {
		c.state.free(pl.base)
	}
}

// outPlace places the result of node n: resident when something reads it
// (or a view of it), else staged to external memory if it is an output;
// a value a storage holds gets its part of the storage (allocated by
// its first producer).
func (c *ctx) outPlace(n *node, what string) (*place, error) {
	v := n.out
	if st := c.stor[v]; st != nil {
		if err := c.allocStorage(st, n.label); err != nil {
			return nil, err
		}
		return c.loc[v], nil
	}
	pl := &place{part: c.partOf(v), f: v.f, ext: -1}
	pl.tiles = ceilDiv(c.lay(v).slots, pl.part)
	views := c.views[v]
	switch {
	case c.live[v] > 0 && c.preferSpill(v, pl):
		c.spill(pl, v.isInt32)
	case c.live[v] > 0 || len(views) > 0:
		c.residentOrSpilled(pl, v.isInt32)
	}
	c.bindOutputs(v, pl)
	c.loc[v] = pl
	return pl, nil
}

// allocStorage places storage st (once, for its first producer):
// resident when something reads one of its values, else staged to
// external memory; every value it holds gets its place, and those that
// are outputs their bindings.
func (c *ctx) allocStorage(st *storage, label string) error {
	if st.pl != nil {
		return nil
	}
	pl := &place{part: st.part, tiles: st.tiles, f: st.f, ext: -1}
	switch {
	case c.live[st.key] > 0 && c.preferSpill(st.key, pl):
		c.spill(pl, false)
	case c.live[st.key] > 0:
		c.residentOrSpilled(pl, false)
	}
	if !pl.resident && pl.ext < 0 {
		pl.ext = c.extAlloc(pl.tiles * pl.f)
	}
	st.pl = pl
	// Members in a fixed order: the bindings' order does not depend on
	// map iteration.
	ms := make([]*Value, 0, len(st.members))
	for m := range st.members {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b *Value) int { return a.id - b.id })
	for _, m := range ms {
		t := st.members[m]
		mp := &place{part: st.part, tiles: ceilDiv(c.lay(m).slots, st.part), f: st.f, resident: pl.resident, base: pl.base + t*st.f, ext: -1}
		if pl.ext >= 0 {
			mp.ext = pl.ext + t*st.f
		}
		c.loc[m] = mp
		if !pl.resident && c.isOutput(m) {
			// An output in a spilled storage gets lines of its own, copied
			// when it is complete: the storage's lines are read and written
			// around it, and a batch gives each image its own output lines
			// (Batch moves whole bindings, which must not nest). An output
			// in a resident storage gets its own lines from bindOutputs.
			op := &place{part: st.part, tiles: mp.tiles, f: st.f, ext: -1}
			c.bindOutputs(m, op)
			c.outCopies[m] = op
			continue
		}
		c.bindOutputs(m, mp)
	}
	return nil
}

// residentOrSpilled places a value that operations read: in the state
// buffer when it is small enough (residentMax) and leaves room for the
// streaming and staging slots of the operations around it
// (stateReserve), else in external memory (spilled: its producer stages
// it out block by block and its consumers stream it back in, as they do
// graph inputs).
func (c *ctx) residentOrSpilled(pl *place, int32 bool) {
	if c.tryResident(pl) {
		return
	}
	c.spill(pl, int32)
}

// spill places pl in external memory.
func (c *ctx) spill(pl *place, int32 bool) {
	n := pl.tiles * pl.f
	if int32 {
		n *= c.digits()
	}
	pl.ext = c.extAlloc(n)
}

// preferSpill reports a value (or storage, by its key) in place pl
// better kept in external memory: it takes over a quarter of the state
// buffer, every operation reading it is a planar one (they stream it at
// no loss), and one of them is an eltwise that runs on a conv's input
// bands when its operand streams (conv_pre.go). Resident, the value
// would take the state buffer that conv needs to hold its whole input
// (DenseNet's concatenations at 7×7: the conv's input in bands of one
// row reloads every weight for each).
func (c *ctx) preferSpill(k *Value, pl *place) bool {
	if pl.tiles*pl.f <= c.cfg.StateDepth/4 {
		return false
	}
	pre := false
	for _, n := range c.readers[k] {
		switch {
		case n.kind == opEltwise && len(n.in) == 1 && c.preCandidate(n):
			pre = true
		case n.kind == opEltwise || n.kind == opPool || n.kind == opReduce || n.kind == opConcat:
			// (A concat's parts are in place or copied by DMA.)
		default:
			return false
		}
	}
	return pre
}

// tryResident places pl in the state buffer if it takes at most
// residentMax addresses and fits there with stateReserve to spare.
func (c *ctx) tryResident(pl *place) bool {
	if pl.tiles*pl.f > c.residentMax {
		return false
	}
	base, err := c.state.alloc(pl.tiles * pl.f)
	if err != nil {
		return false
	}
	if c.state.largest() < c.stateReserve() {
		c.state.free(base)
		return false
	}
	pl.resident, pl.base = true, base
	return true
}

// stateReserve is the state a resident value leaves free at the least:
// a sixteenth of the buffer, for the slots that stream other values.
func (c *ctx) stateReserve() int { return c.cfg.StateDepth / 16 }

// isOutput reports whether v or a view of it is a graph output.
func (c *ctx) isOutput(v *Value) bool {
	if len(v.outputs) > 0 {
		return true
	}
	for _, w := range c.views[v] {
		if len(w.outputs) > 0 {
			return true
		}
	}
	return false
}

// bindOutputs gives v (and any view of it that is an output) output
// bindings, at pl.ext or in an external region allocated now.
func (c *ctx) bindOutputs(v *Value, pl *place) {
	type named struct {
		name string
		w    *Value
	}
	var vs []named
	for _, name := range v.outputs {
		vs = append(vs, named{name, v})
	}
	for _, w := range c.views[v] {
		for _, name := range w.outputs {
			vs = append(vs, named{name, w})
		}
	}
	if len(vs) == 0 {
		return
	}
	if pl.ext < 0 {
		lines := pl.tiles * pl.f
		if v.isInt32 {
			lines *= c.digits()
		}
		pl.ext = c.extAlloc(lines)
	}
	pl.out = true
	for _, x := range vs {
		b := c.binding(x.name, x.w, pl)
		b.Base = pl.ext
		c.prog.Outputs = append(c.prog.Outputs, b)
	}
}

// binding maps v's user tensor onto the lines of its placement (an
// int32 value: onto each of its digit planes, one after another).
func (c *ctx) binding(name string, v *Value, pl *place) *Binding {
	lines := pl.tiles * pl.f
	b := &Binding{Name: name, Shape: v.Shape(), Lines: lines, Rows: c.R, Index: make([]int32, lines*c.R)}
	if v.isInt32 {
		b.Digits, b.DigitWidth = c.digits(), c.cfg.ElemWidth
		defer func() {
			b.Index = slices.Repeat(b.Index, b.Digits)
			b.Lines *= b.Digits
		}()
	}
	for i := range b.Index {
		b.Index[i] = -1
	}
	l := c.lay(v)
	for i := 0; i < v.p; i++ {
		s := l.slotOf(i)
		t, p := s/pl.part, s%pl.part
		for j := 0; j < v.f; j++ {
			idx := i*v.f + j
			if v.trans {
				idx = j*v.p + i
			}
			b.Index[(t*pl.f+j)*c.R+p] = int32(idx)
		}
	}
	return b
}

// bindInput allocates the external lines of input binding b and writes
// its data into the image.
func (c *ctx) bindInput(b *Binding, data *golden.Tensor) int {
	b.Base = c.extAlloc(b.Lines)
	c.prog.Inputs = append(c.prog.Inputs, b)
	lines, _ := b.ToLines(data)
	copy(c.prog.Image[b.Base:], lines)
	return b.Base
}

// extAlloc appends n zero lines to the image (nil lines: a region the
// program writes before it reads it takes no memory in the image).
func (c *ctx) extAlloc(n int) int {
	img := c.prog.Image
	base := len(img)
	if base+n > cap(img) {
		// Doubling: a large program appends a million lines in
		// thousands of steps.
		grown := make([][]int64, base, max(2*cap(img), base+n))
		copy(grown, img)
		img = grown
	}
	c.prog.Image = img[:base+n]
	return base
}

// psumAlloc takes n entries of the psum ring (n ≤ psum_depth/2, so two
// consecutive blocks never share an entry: the act of one overlaps the
// NE of the next).
func (c *ctx) psumAlloc(n int) int {
	if c.psum+n > c.cfg.PsumDepth {
		c.psum = 0
	}
	a := c.psum
	c.psum += n
	return a
}

// --- state-buffer allocator ---

type alloc struct {
	depth int
	used  map[int]int // base -> size
}

func newAlloc(depth int) *alloc { return &alloc{depth: depth, used: map[int]int{}} }

// holes lists the free ranges in address order.
func (a *alloc) holes() [][2]int {
	bases := make([]int, 0, len(a.used))
	for b := range a.used {
		bases = append(bases, b)
	}
	sort.Ints(bases)
	var out [][2]int
	at := 0
	for _, b := range bases {
		if b > at {
			out = append(out, [2]int{at, b})
		}
		at = b + a.used[b]
	}
	if at < a.depth {
		out = append(out, [2]int{at, a.depth})
	}
	return out
}

// largest is the size of the largest free range.
func (a *alloc) largest() int {
	m := 0
	for _, h := range a.holes() {
		m = max(m, h[1]-h[0])
	}
	return m
}

// alloc takes n addresses, first fit.
func (a *alloc) alloc(n int) (int, error) {
	if n < 1 {
		n = 1
	}
	for _, h := range a.holes() {
		if h[1]-h[0] >= n {
			a.used[h[0]] = n
			return h[0], nil
		}
	}
	return 0, fmt.Errorf("the state buffer has at most %d free consecutive addresses (state_depth %d)", a.largest(), a.depth)
}

func (a *alloc) free(base int) { delete(a.used, base) }

// --- task emission ---

// task encodes an isa task and emits it with the spans the instruction
// set declares for it.
//
// A planar task using a feature the engine was built without
// (isa/planar.Features: npu planar_pool_avg, planar_pool_min,
// planar_eltwise, planar_eltwise_mul, planar_reduce, planar_postfn) is
// refused here, naming the feature and the field.
func (c *ctx) task(label string, t isa.Task) error {
	if pt, ok := t.(isa.PlanarTask); ok {
		if f := c.pcfg.MissingFeature(pt.Task); f != nil {
			return fmt.Errorf("%s: %w", label, planar.FeatureError(f))
		}
	}
	return c.em.emitTask(c.isa, label, t)
}

// mustTask emits a task whose operands the compiler computed itself and
// whose failure to encode is a compiler bug.
func (c *ctx) mustTask(label string, t isa.Task) {
	if err := c.task(label, t); err != nil {
		panic("compiler: " + err.Error())
	}
}

// load emits a dma_in load: for k < d1, l < d0: line src+k·d2+l → state
// dst+k·d0+l.
func (c *ctx) load(label string, src, dst, d0, d1, d2 int) {
	c.mustTask(label, isa.Load{Ext: src, State: dst, Lines: d0, Rows: d1, Stride: d2})
}

// loadWeights emits a dma_in load_weights of n lines into weight rows.
func (c *ctx) loadWeights(label string, src, dst, n int) {
	c.mustTask(label, isa.LoadWeights{Ext: src, Row: dst, Lines: n, Rows: 1, Stride: n})
}

// store emits a dma_out store: for k < d1, l < d0: state src+k·d0+l →
// line dst+k·d2+l.
func (c *ctx) store(label string, src, dst, d0, d1, d2 int) {
	c.mustTask(label, isa.Store{State: src, Ext: dst, Lines: d0, Rows: d1, Stride: d2})
}

// planarTask validates and emits a planar-engine task.
func (c *ctx) planarTask(label string, t planar.Task) error {
	return c.task(label, isa.PlanarTask{Task: t})
}

// post copies a requantization into a planar task.
func post(t *planar.Task, q golden.Requant) {
	t.Scale, t.Bias, t.Shift = q.Scale, q.Bias, q.Shift
	t.RoundEven = q.Rounding == golden.HalfEven
	t.Relu, t.Clamp, t.Lo, t.Hi = q.Relu, q.Clamp, q.Lo, q.Hi
	t.Wrap = q.Wrap
}

// laneMask is the mask of lanes 0..n-1.
func laneMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// digits is the number of element-wide digits that hold an int32.
func (c *ctx) digits() int { return ceilDiv(32, c.cfg.ElemWidth) }

// checkInt32 reports a configuration that cannot give layer label an
// int32 result: accumulators wider than 32 bits (the int32 would drop
// their top bits), or digits the post-processor cannot shift to.
func (c *ctx) checkInt32(label string) error {
	if c.cfg.AccWidth > 32 {
		return fmt.Errorf("%s: an int32 result needs acc_width ≤ 32 (its accumulators must fit an int32), acc_width = %d", label, c.cfg.AccWidth)
	}
	if top := (c.digits() - 1) * c.cfg.ElemWidth; top > c.pcfg.MaxShift() {
		return fmt.Errorf("%s: an int32 result takes its top digit with shift %d, the post-processor shifts at most %d", label, top, c.pcfg.MaxShift())
	}
	return nil
}

// checkRequant reports a requantization the post-processor cannot do.
func (c *ctx) checkRequant(op string, q golden.Requant) error {
	t := planar.Task{Op: planar.OpEltwise, Mask: 1, H: 1, W: 1, Src: 0, Dst: 0, ScalarOperand: true}
	post(&t, q)
	s := c.pcfg
	s.NoEltwise = false // the post-processor's check: a missing eltwise op is refused where one is emitted
	if err := t.Validate(s); err != nil {
		return fmt.Errorf("%s: requantization: %w", op, err)
	}
	return nil
}
