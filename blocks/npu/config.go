package npu

import (
	"fmt"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	isasparse "github.com/hwgen/hwgen/isa/sparse"

	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Config is the one configuration of the NPU: every block's widths,
// depths and counts are derived from it (Systolic, SRAM, Planar, TaskMgr).
// The state buffer has one partition per PE row; the psum buffer one per
// PE column.
type Config struct {
	Rows        int  `json:"rows"`         // R: PE rows = state-buffer partitions = planar lanes
	Cols        int  `json:"cols"`         // C: PE columns = psum partitions (≤ rows)
	ElemWidth   int  `json:"elem_width"`   // bits of a signed element (inputs, weights, activations)
	AccWidth    int  `json:"acc_width"`    // bits of a signed accumulator
	StateDepth  int  `json:"state_depth"`  // elements per state-buffer partition (power of two)
	PsumDepth   int  `json:"psum_depth"`   // accumulators per psum partition (power of two)
	WeightDepth int  `json:"weight_depth"` // rows of the weight buffer (power of two); a row is C weights
	ZeroSkip    bool `json:"zero_skip"`    // PE operand isolation and the skipped-MAC counter
	Macros      bool `json:"macros"`       // buffers as black-box SRAM macros plus models
	// DMAReadPort gives the DMA's store reads a state-buffer read port of
	// their own in every bank, so stores no longer take read cycles from
	// the PE array's input stream (a second read port per bank: see
	// sram.StateConfig).
	DMAReadPort bool `json:"dma_read_port"`
	// PsumReadPort gives the planar engine's psum read-outs a read port of
	// their own in every psum partition, so an act no longer waits while
	// the PE array accumulates (a second read port per partition: see
	// sram.PsumConfig).
	PsumReadPort bool `json:"psum_read_port"`
	// PlanarReadPort gives the planar engine a second state-buffer read
	// port of its own in every bank, so a two-tensor eltwise (a residual
	// Add) reads both operands in one cycle: half its read cycles (a
	// second read port per bank: see sram.StateConfig and planar.Config's
	// Src2Port). One engine only.
	PlanarReadPort bool `json:"planar_read_port"`
	// PartialGating lets a task start on the part of its input already
	// written: a descriptor's partial flag makes its dep0 satisfied once
	// dep0 has started, and the NE's and dma_out's state reads then wait
	// for dep0's writes to pass their addresses (gating.go). One engine
	// only.
	PartialGating bool `json:"partial_gating"`
	// Networks gives each task a network ID and the DMA engines a base
	// pointer per network (0: none): a DMA operand marked
	// memory-relative (src_mem, dst_mem) is an external line relative to
	// its network's base pointer, which the host writes through the
	// bp_* port, so one program runs from any place in memory
	// (networks.go).
	Networks int `json:"networks"`
	// NoDatapathReset leaves the PE array's and the planar lanes' data
	// registers without a reset (ASIC area; see systolic.Config).
	NoDatapathReset bool `json:"no_datapath_reset"`
	// MulStage registers each PE's product before its accumulate: the
	// multiplier and the adder in separate cycles (a faster clock on
	// FPGAs) for one more cycle of array latency (see systolic.Config).
	MulStage bool `json:"mul_stage"`
	// PlanarDeepPipeline gives the planar lanes more pipeline registers
	// for a faster clock, at a few cycles per task (see planar.Config).
	PlanarDeepPipeline bool `json:"planar_deep_pipeline"`
	// PlanarLUT gives the planar engine its lookup table: 2^elem_width
	// entries, loaded by loadtable, that a task's results can go through
	// (sigmoid, tanh, exp as int8 → int8 tables; see planar.Config).
	// elem_width at most 10.
	PlanarLUT bool `json:"planar_lut"`
	// PlanarLanes is the number of the planar engine's post units (its
	// lanes' datapaths): a divisor of rows, or 0 for the default, the
	// largest divisor of rows up to DefaultPlanarLanes (PostUnits). With
	// fewer than rows a planar task makes rows/planar_lanes passes over
	// its plane, each serving planar_lanes partitions (see planar.Config,
	// "passes"): less logic, more cycles per planar task; rows gives one
	// post unit per PE row.
	PlanarLanes int `json:"planar_lanes"`
	// PlanarPoolAvg, PlanarPoolMin, PlanarEltwise, PlanarEltwiseMul,
	// PlanarReduce and PlanarPostFn keep the planar engine's optional
	// post features (isa/planar.Features): average pooling, min pooling,
	// the eltwise op, eltwise mul, the reductions, and the reductions'
	// sqrt and recip. Left out (false) they save their logic in every
	// post unit; a task using one is then malformed (ErrFn) and the
	// compiler refuses a graph that needs it. Max pooling, act and
	// writeback are always built.
	PlanarPoolAvg    bool `json:"planar_pool_avg"`
	PlanarPoolMin    bool `json:"planar_pool_min"`
	PlanarEltwise    bool `json:"planar_eltwise"`
	PlanarEltwiseMul bool `json:"planar_eltwise_mul"`
	PlanarReduce     bool `json:"planar_reduce"`
	PlanarPostFn     bool `json:"planar_postfn"`
	// PlanarChecks keeps the planar engine's checks of its tasks' fields
	// (planar_err_code). Left out (false), a planar task runs as its
	// fields say and planar_err_code stays 0: for programs from the
	// compiler, which emits only well-formed tasks; cycles are the same.
	PlanarChecks bool `json:"planar_checks"`

	ScaleWidth int `json:"scale_width"` // planar post-processor scale bits
	MaxKernel  int `json:"max_kernel"`  // largest pooling window and stride (planar) and conv kernel (NE)
	LineDepth  int `json:"line_depth"`  // planar line buffer: the widest pooling output row

	Queues     int `json:"queues"`      // task queues (queue 0 has the highest priority)
	QueueDepth int `json:"queue_depth"` // descriptors per queue
	Window     int `json:"window"`      // scoreboard window: how far a dependency may reach back
	MaxDeps    int `json:"max_deps"`    // dependency fields per descriptor
	// EngineSlots is the depth of each engine's configuration queue (per
	// task queue): how many issued tasks wait, decoded, in front of an
	// engine. Tasks issue in program order, so a deeper one lets the
	// issue run further ahead of a busy engine and reach the tasks of
	// the others.
	EngineSlots int `json:"engine_slots"`
	// QueueRoundRobin serves the queues in turn instead of by priority
	// (for the parts of one network in several queues).
	QueueRoundRobin bool `json:"queue_round_robin"`
	// LeanTaskMgr builds the lean task manager (taskmgr Config.Lean) for
	// small NPUs: each engine's slots hold only the operands its
	// operations read; queues of 2 are registers, deeper ones memories
	// without the bypass register (a descriptor pushed into an empty
	// queue issues one cycle later).
	LeanTaskMgr bool `json:"lean_taskmgr"`
	// QueueWords stores each queued descriptor as this many memory
	// words (taskmgr Config.QueueWords): the queues' memories get that
	// many times deeper and narrower, so they fill block RAMs (narrow
	// and deep) instead of wasting most of their rows; each queue then
	// takes and issues one descriptor every queue_words cycles. 0 or 1:
	// one word.
	QueueWords int `json:"queue_words"`

	// DescRingBits turns the task queues into records over descriptor
	// rings of 2^desc_ring_bits descriptors in external memory, read by
	// the descriptor-fetch DMA (blocks/descfetch) through a single-entry
	// fetch queue; the host writes descriptors into memory and queue
	// records (base, tail) through the qr_* port instead of pushing on
	// cmd_*. 0: no rings, the command port.
	DescRingBits int `json:"desc_ring_bits"`

	ExtAddrWidth int `json:"ext_addr_width"` // external memory: 2^ext_addr_width lines of rows×elem_width bits
	ExtLatency   int `json:"ext_latency"`    // cycles from an accepted external read to its data (simulation memory model)
	CounterWidth int `json:"counter_width"`  // bits of every performance counter
	// PerfCounters keeps the performance counters and their ports:
	// <e>_busy_cycles, <e>_stall_cycles, <e>_completed, mac_count,
	// skip_count (and ne<i>_busy_cycles, ne<i>_stall_cycles,
	// ne<i>_mac_count, ne<i>_skip_count with several engines). Left out
	// (false) they go, and the host reports 0 for them; the status
	// (skipped, the error codes) and the timeline ports (<e>_start,
	// <e>_done) stay, so a run still checks every task completes.
	PerfCounters bool `json:"perf_counters"`

	Engines int `json:"engines"` // neural engines (PE arrays), each with its own state, psum and weight buffer slice

	// The sparse engine (blocks/sparse), present when SparseUnits > 0:
	// units with SparseLanes multipliers each, fed by dma_in
	// (load_sparse) and read out by dma_out (store_sparse). Its values
	// and weights are elements, its sums accumulators.
	SparseUnits       int `json:"sparse_units"`        // compute units, each with its own memory unit (0: no sparse engine)
	SparseLanes       int `json:"sparse_lanes"`        // multipliers per unit = output channels per pass
	SparseEntries     int `json:"sparse_entries"`      // non-zero entries per buffer set of a memory unit
	SparseChannels    int `json:"sparse_channels"`     // input channels an entry can name
	SparseIndexWidth  int `json:"sparse_index_width"`  // bits of an entry's row and column
	SparseWeightDepth int `json:"sparse_weight_depth"` // weight records per unit
	SparseTableDepth  int `json:"sparse_table_depth"`  // channel-table records per unit
	SparseAccDepth    int `json:"sparse_acc_depth"`    // accumulator entries (output pixels of a pass) per unit and bank
	SparseAccBanks    int `json:"sparse_acc_banks"`    // accumulator banks per unit: 2 lets a plane be stored while the next pass computes
}

// DefaultPlanarLanes bounds the post units planar_lanes 0 gives. Four
// of sixteen rows keep the planar engine under a fifth of the default
// NPU's logic, the PE array the largest part (docs/notes/planar.md,
// "Choosing the default", has the sweep and what it costs in cycles).
const DefaultPlanarLanes = 4

// PostUnits is the planar engine's number of post units: planar_lanes,
// or for 0 the largest divisor of rows up to DefaultPlanarLanes (so
// every row count has a default: 4 of 16, 3 of 6, 1 of 5).
func (c Config) PostUnits() int {
	if c.PlanarLanes != 0 {
		return c.PlanarLanes
	}
	return defaultPostUnits(c.Rows)
}

func defaultPostUnits(rows int) int {
	for u := min(DefaultPlanarLanes, rows); u > 1; u-- {
		if rows%u == 0 {
			return u
		}
	}
	return 1
}

// MaxEngines bounds Config.Engines.
const MaxEngines = 8

// DefaultConfig is the default NPU: a 16×16 int8×int8→int32 array, a
// 16 × 4096 state buffer, a 16 × 512 psum buffer, a 1024-row weight
// buffer and 2 task queues; a planar engine with 4 post units
// (PostUnits) whose act read-outs have a psum read port of their own;
// a 1 MiB external memory with 4 cycles of read latency.
func DefaultConfig() Config {
	sd := sparse.DefaultConfig() // the sparse engine's sizes, should one be added
	return Config{
		Rows: 16, Cols: 16, ElemWidth: 8, AccWidth: 32,
		StateDepth: 4096, PsumDepth: 512, WeightDepth: 1024, ZeroSkip: true,
		ScaleWidth: 16, MaxKernel: 8, LineDepth: 64, PlanarLUT: true, PlanarChecks: true,
		PlanarPoolAvg: true, PlanarPoolMin: true, PlanarEltwise: true, PlanarEltwiseMul: true, PlanarReduce: true, PlanarPostFn: true,
		Queues: 2, QueueDepth: 16, Window: 64, MaxDeps: 4, EngineSlots: 2,
		ExtAddrWidth: 16, ExtLatency: 4, CounterWidth: 48, PerfCounters: true, Engines: 1, PsumReadPort: true,
		SparseLanes: sd.Lanes, SparseEntries: sd.Entries, SparseChannels: sd.Channels, SparseIndexWidth: sd.IndexWidth,
		SparseWeightDepth: sd.WeightDepth, SparseTableDepth: sd.TableDepth, SparseAccDepth: sd.AccDepth, SparseAccBanks: sd.AccBanks,
	}
}

// Validate reports every bad field by its JSON name, its value and what
// is allowed; the derived block configurations are checked too.
func (c Config) Validate() error {
	var s check.Set
	for _, err := range []error{
		check.Range("rows", c.Rows, 1, systolic.MaxDim),
		check.Range("cols", c.Cols, 1, systolic.MaxDim),
		check.Range("elem_width", c.ElemWidth, 2, 32),
		check.PowerOfTwo("state_depth", c.StateDepth, 16, sram.MaxStateDepth, "addresses are log2(depth) bits"),
		check.PowerOfTwo("psum_depth", c.PsumDepth, 16, sram.MaxPsumDepth, "entries are log2(depth) bits"),
		check.PowerOfTwo("weight_depth", c.WeightDepth, 2, 1<<20, "weight rows are log2(depth) bits"),
		check.Range("scale_width", c.ScaleWidth, 2, planar.MaxScaleWidth),
		check.Range("max_kernel", c.MaxKernel, 2, 15),
		check.Range("line_depth", c.LineDepth, 1, planar.MaxLineDepth),
		check.Range("queues", c.Queues, 1, 8),
		check.PowerOfTwo("queue_depth", c.QueueDepth, 2, 1024, "queue pointers wrap by bit width"),
		check.PowerOfTwo("window", c.Window, 4, 1024, "the scoreboard is indexed by the low bits of a task ID"),
		check.Range("max_deps", c.MaxDeps, 1, 8),
		check.Range("engine_slots", c.EngineSlots, 1, 8),
		check.Range("ext_addr_width", c.ExtAddrWidth, 4, 24),
		check.Range("ext_latency", c.ExtLatency, 1, 16),
		check.Range("counter_width", c.CounterWidth, 16, 64),
		check.Range("engines", c.Engines, 1, MaxEngines),
		check.Range("sparse_units", c.SparseUnits, 0, sparse.MaxUnits),
		check.Range("desc_ring_bits", c.DescRingBits, 0, 16),
		check.Range("networks", c.Networks, 0, 16),
	} {
		s.Add(err)
	}
	if s.OK("rows", "cols") && c.Cols > c.Rows {
		s.Add(&check.FieldError{Field: "cols", Value: c.Cols,
			Allowed: fmt.Sprintf("must be at most rows (%d): a weight row and a psum write-back fit one state-buffer vector", c.Rows)})
	}
	if s.OK("rows", "weight_depth") && c.WeightDepth < c.Rows {
		s.Add(&check.FieldError{Field: "weight_depth", Value: c.WeightDepth,
			Allowed: fmt.Sprintf("must be at least rows (%d): one pass of the array loads rows weight rows", c.Rows)})
	}
	if s.OK("state_depth", "line_depth") && c.LineDepth > c.StateDepth {
		s.Add(&check.FieldError{Field: "line_depth", Value: c.LineDepth,
			Allowed: fmt.Sprintf("must be at most state_depth (%d): a pooling output row lies in one partition", c.StateDepth)})
	}
	if s.OK("engines") && c.Engines > 1 {
		// The shared blocks address every slice: the depths grow by the slice bits.
		for _, d := range []struct {
			field      string
			depth, max int
		}{{"state_depth", c.StateDepth, planar.MaxDepth}, {"psum_depth", c.PsumDepth, planar.MaxDepth}, {"weight_depth", c.WeightDepth, 1 << 20}} {
			if d.depth<<uint(c.SliceBits()) > d.max {
				s.Add(&check.FieldError{Field: "engines", Value: c.Engines,
					Allowed: fmt.Sprintf("%s %d × 2^%d slice bits exceeds %d, the shared blocks' address space: use fewer engines or a smaller %s", d.field, d.depth, c.SliceBits(), d.max, d.field)})
			}
		}
	}
	if s.OK("engines") && c.PartialGating && c.Engines > 1 {
		s.Add(&check.FieldError{Field: "partial_gating", Value: c.PartialGating,
			Allowed: fmt.Sprintf("needs engines = 1 (engines = %d): the read gates are built for one NE", c.Engines)})
	}
	if c.QueueWords != 0 {
		s.Add(check.PowerOfTwo("queue_words", c.QueueWords, 1, 16,
			"0 or 1: one word per descriptor; a descriptor's words sit at entry*K+i and its word counters wrap"))
	}
	if s.OK("queue_depth", "queue_words") && c.QueueWords > 1 && c.LeanTaskMgr && c.QueueDepth == 2 {
		s.Add(&check.FieldError{Field: "queue_words", Value: c.QueueWords,
			Allowed: "must be 0 or 1 with lean_taskmgr and queue_depth 2 (those queues are registers, no memory to store in words)"})
	}
	s.Add(c.checkPlanarReadPort(s.OK("engines")))
	if s.OK("elem_width") {
		s.Add(check.Range("acc_width", c.AccWidth, max(2*c.ElemWidth, 8), 64))
	}
	if s.OK("elem_width") && c.PlanarLUT {
		s.Add(c.Planar().CheckLUT("planar_lut"))
	}
	if s.OK("rows") {
		s.Add(planar.CheckUnits("planar_lanes", c.PlanarLanes, c.Rows, "rows",
			fmt.Sprintf("the default (%d post units: the largest divisor of rows up to %d)", defaultPostUnits(c.Rows), DefaultPlanarLanes)))
	}
	if err := s.Err(); err != nil {
		return err
	}
	errs := []error{c.Systolic().Check("systolic"), c.SRAM().Validate(), c.Planar().Check("planar"), c.TaskMgr().Check("taskmgr")}
	errs = append(errs, c.checkSparse())
	return check.All(errs...)
}

// checkPlanarReadPort refuses the planar engine's second read port
// where it cannot be built or serves nothing: with several engines (it
// is wired to one state buffer, not through the routers), without the
// eltwise, and as a third read port of an SRAM macro beside
// dma_read_port's.
func (c Config) checkPlanarReadPort(enginesOK bool) error {
	if !c.PlanarReadPort {
		return nil
	}
	bad := func(why string) error {
		return &check.FieldError{Field: "planar_read_port", Value: true, Allowed: why}
	}
	switch {
	case enginesOK && c.Engines > 1:
		return bad(fmt.Sprintf("needs engines = 1 (engines = %d): the second read port is wired to one state buffer, not through the routers", c.Engines))
	case !c.PlanarEltwise:
		return bad("serves only the two-tensor eltwise: it needs planar_eltwise = true")
	case c.Macros && c.DMAReadPort:
		return bad("with dma_read_port and macros a bank would need three read ports, and an SRAM macro has at most two: leave one of them out")
	}
	return nil
}

// Sparse is the sparse engine's configuration (Units 0: none).
func (c Config) Sparse() sparse.Config {
	return sparse.Config{Sizes: isasparse.Sizes{Units: c.SparseUnits, Lanes: c.SparseLanes, ValueWidth: c.ElemWidth, WeightWidth: c.ElemWidth,
		AccWidth: c.AccWidth, Entries: c.SparseEntries, Channels: c.SparseChannels, IndexWidth: c.SparseIndexWidth,
		MaxKernel: c.MaxKernel, WeightDepth: c.SparseWeightDepth, TableDepth: c.SparseTableDepth, AccDepth: c.SparseAccDepth, AccBanks: c.SparseAccBanks},
		CounterWidth: c.CounterWidth, Macros: c.Macros}
}

// checkSparse checks the sparse engine's fields under their NPU names,
// whether the engine is present or not (they hold its sizes should
// sparse_units be raised); with the engine, the derived engine
// configuration is checked last.
func (c Config) checkSparse() error {
	var s check.Set
	for _, err := range []error{
		check.Range("sparse_lanes", c.SparseLanes, 1, sparse.MaxLanes),
		check.Range("sparse_entries", c.SparseEntries, 1, sparse.MaxMemoryDepth),
		check.Range("sparse_channels", c.SparseChannels, 1, sparse.MaxMemoryDepth),
		check.Range("sparse_index_width", c.SparseIndexWidth, 1, sparse.MaxIndexWidth),
		check.Range("sparse_weight_depth", c.SparseWeightDepth, 1, sparse.MaxMemoryDepth),
		check.Range("sparse_table_depth", c.SparseTableDepth, 1, sparse.MaxMemoryDepth),
		check.Range("sparse_acc_depth", c.SparseAccDepth, 1, sparse.MaxMemoryDepth),
		check.Range("sparse_acc_banks", c.SparseAccBanks, 1, 2),
	} {
		s.Add(err)
	}
	if s.OK("sparse_lanes") && c.SparseLanes*c.AccWidth > hdl.MaxWidth {
		s.Add(&check.FieldError{Field: "sparse_lanes", Value: c.SparseLanes,
			Allowed: fmt.Sprintf("sparse_lanes × acc_width must be at most %d", hdl.MaxWidth)})
	}
	if err := s.Err(); err != nil || c.SparseUnits == 0 {
		return err
	}
	return c.Sparse().Check("sparse")
}

// Systolic is the PE array's configuration.
func (c Config) Systolic() systolic.Config {
	return systolic.Config{Rows: c.Rows, Cols: c.Cols, InputWidth: c.ElemWidth, InputSigned: true,
		WeightWidth: c.ElemWidth, WeightSigned: true, PsumWidth: c.AccWidth, EntryWidth: log2(c.PsumDepth),
		CounterWidth: c.CounterWidth, ZeroSkip: c.ZeroSkip, NoDatapathReset: c.NoDatapathReset,
		MulStage: c.MulStage}
}

// SRAM is the state and psum buffers' configuration: one engine's slice
// (there are Engines of each). Accumulating PE
// writes have priority over read-outs: the array cannot stall.
func (c Config) SRAM() sram.Config {
	return sram.Config{
		State: sram.StateConfig{Partitions: c.Rows, Depth: c.StateDepth, ElemWidth: c.ElemWidth, DMAReadPort: c.DMAReadPort,
			PlanarReadPort: c.PlanarReadPort},
		Psum:   sram.PsumConfig{Partitions: c.Cols, Depth: c.PsumDepth, AccWidth: c.AccWidth, WritePriority: true, ReadOutPort: c.PsumReadPort},
		Macros: c.Macros,
	}
}

// Planar is the planar engine's configuration. The planar engine is
// shared by every engine's slice: its addresses span all slices
// (StateDepth·2^SliceBits state addresses, PsumDepth·2^SliceBits psum
// entries).
func (c Config) Planar() planar.Config {
	s := uint(c.SliceBits())
	return planar.Config{Sizes: isaplanar.Sizes{Lanes: c.Rows, PsumLanes: c.Cols, ElemWidth: c.ElemWidth, ElemSigned: true,
		AccWidth: c.AccWidth, ScaleWidth: c.ScaleWidth, StateDepth: c.StateDepth << s, PsumDepth: c.PsumDepth << s,
		MaxKernel: c.MaxKernel, LineDepth: c.LineDepth, LUT: c.PlanarLUT, PostLanes: c.PostUnits(),
		NoPoolAvg: !c.PlanarPoolAvg, NoPoolMin: !c.PlanarPoolMin, NoEltwise: !c.PlanarEltwise, NoEltwiseMul: !c.PlanarEltwiseMul,
		NoReduce: !c.PlanarReduce, NoPostFn: !c.PlanarPostFn}, NoDatapathReset: c.NoDatapathReset, DeepPipeline: c.PlanarDeepPipeline,
		NoChecks: !c.PlanarChecks, Src2Port: c.PlanarReadPort}
}

// TaskMgr is the task manager's configuration: the operand widths are
// derived so every engine's fields fit the descriptor.
//
// With several engines the addresses carry the slice bits, and the "ne"
// engine may hold up to engines+1 tasks (at most 8, the task manager's
// bound) so every engine can run at once and one more task can be taken
// while an engine drains.
func (c Config) TaskMgr() taskmgr.Config {
	s := c.SliceBits()
	addr := max(c.ExtAddrWidth, log2(c.StateDepth)+s, log2(c.PsumDepth)+s, log2(c.WeightDepth)+s) + 1
	outstanding := 2
	if c.Engines > 1 {
		outstanding = min(c.Engines+1, 8)
	}
	if c.SparseUnits > 0 {
		// The sparse DMA operands, and room for a task on every unit at
		// once (plus the next one) in the outstanding FIFO.
		s := c.Sparse()
		addr = max(addr, s.LoadAddr().Width, s.ReadAddr().Width)
		outstanding = max(outstanding, min(c.SparseUnits+1, 8))
	}
	return taskmgr.Config{Queues: c.Queues, QueueDepth: c.QueueDepth, Window: c.Window, MaxDeps: c.MaxDeps,
		EngineSlots: c.EngineSlots, Outstanding: outstanding, IDBits: 16, AddrBits: addr, DimBits: 16,
		ParamBits: c.paramBits(), FlagBits: 4, RoundRobin: c.QueueRoundRobin, NETargets: c.Engines, NETargetOffset: c.neTargetOffset(),
		Sparse: c.SparseUnits > 0, RoomPort: c.DescRingBits > 0, Partial: c.PartialGating, NetBits: c.NetBits(),
		Lean: c.LeanTaskMgr, QueueWords: c.QueueWords}
}

// SliceBits is the number of high address bits that name an engine's
// slice: clog2(engines), 0 for one engine. A state address is
// e·state_depth + a, a psum entry e·psum_depth + a, a weight row
// e·weight_depth + a (doc.go, "Several neural engines").
func (c Config) SliceBits() int { return log2(max(c.Engines, 1)) }

// Slice is the configuration one engine's compiled work sees: c with a
// single engine (its state, psum and weight buffer slice).
func (c Config) Slice() Config {
	s := c
	s.Engines = 1
	return s
}

// LineWidth is the width of an external-memory line: one element per
// state-buffer partition.
func (c Config) LineWidth() int { return c.Rows * c.ElemWidth }

// Name is the top module's name: every parameter that changes it.
func (c Config) Name() string {
	parts := []any{fmt.Sprintf("%dx%d", c.Rows, c.Cols), fmt.Sprintf("e%da%d", c.ElemWidth, c.AccWidth),
		fmt.Sprintf("s%dp%dw%d", c.StateDepth, c.PsumDepth, c.WeightDepth)}
	if c.Engines > 1 {
		parts = append(parts, fmt.Sprintf("n%d", c.Engines))
	}
	if c.NoDatapathReset {
		parts = append(parts, "nr")
	}
	if c.DMAReadPort {
		parts = append(parts, "dr")
	}
	if c.PsumReadPort {
		parts = append(parts, "pr")
	}
	if c.PlanarReadPort {
		parts = append(parts, "er") // the eltwise's second read
	}
	if c.SparseUnits > 0 {
		parts = append(parts, fmt.Sprintf("sp%dx%d", c.SparseUnits, c.SparseLanes))
	}
	if c.DescRingBits > 0 {
		parts = append(parts, fmt.Sprintf("r%d", c.DescRingBits))
	}
	if c.PartialGating {
		parts = append(parts, "pg")
	}
	if c.Networks > 0 {
		parts = append(parts, fmt.Sprintf("nw%d", c.Networks))
	}
	if c.Planar().Passes() > 1 {
		parts = append(parts, fmt.Sprintf("pl%d", c.PostUnits()))
	}
	if c.LeanTaskMgr {
		parts = append(parts, "lt")
	}
	if c.QueueWords > 1 {
		parts = append(parts, fmt.Sprintf("qw%d", c.QueueWords))
	}
	return hdl.Name("npu", parts...)
}

// log2 of a power of two (the ceiling otherwise).
func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}
