// Package multi compiles a convolution for an NPU with several neural
// engines (npu.Config.Engines = N > 1; blocks/npu/doc.go, "Several
// neural engines"; docs/sources.md §4). The input feature map is divided into N
// bands of output rows with compiler/partition (sparsity-balanced, or
// equal-area), each band with the input rows its outputs need (the
// halo), and each band is compiled as an ordinary single-engine
// convolution (compiler.Compile on a band-sized graph for the per-slice
// configuration, Config.Slice). Band i's program is then relocated into
// engine i's slice (state addresses + i·state_depth, weight rows +
// i·weight_depth, psum entries + i·psum_depth), into its own region of
// external memory, and its NE tasks name engine i. The band programs are
// merged into one program for task queue 0 (see "Merge, or a queue per
// band" below for why one queue); the host runs it unchanged (host.Run)
// and Program.Stitch puts the bands' outputs together
// (partition.Stitch). The result is bit-identical to the single-engine
// run: every output pixel is computed by one band from the same inputs,
// weights and requantization.
//
// # Merge, or a queue per band
//
// By default the bands are merged into one program for queue 0: the
// tasks of each band keep their order, and the next task comes from the
// band whose NE work emitted so far is the least (estimated NE cycles:
// passes × output pixels), so the NE tasks reach the task manager's ne
// slots in about the order the engines can run them. Dependencies are
// renumbered; one that ends up a scoreboard window or more back is
// dropped (it has always completed, as in a single program).
//
// With Options.QueuePerBand band i's program goes to task queue i
// unchanged (its own IDs; the NPU needs queues ≥ engines), pushed in the
// same interleaved order. The task manager keeps slots per engine and
// queue and lets a queue's ready task go while another waits, and the
// NPU's ne_free tells it which engines are free, so the bands run side by
// side; with queue_round_robin the shared engines (DMA, planar) take the
// bands in turn instead of by queue priority. BENCHMARKS.md ("A queue per
// band") compares the two.
//
// # Zero skipping and time
//
// The PE array's zero skipping is operand isolation (energy): a vector
// takes its cycle whether or not its elements are zero. An engine's time
// is therefore set by its band's area (output pixels and passes), not
// its non-zeros, and the sparsity-balanced partition (equal non-zero
// counts, hence unequal areas on a skewed map) is no faster than
// equal-area bands on this hardware; it equalises the MACs each engine
// really performs (Metrics), which is what a time-skipping array would
// be bound by. BENCHMARKS.md ("Several neural engines") has the figures.
package multi

import (
	"errors"
	"fmt"
	"sort"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/partition"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// Options says how to partition.
type Options struct {
	// EqualArea cuts bands of equal height (within one row) instead of
	// balancing their non-zero counts.
	EqualArea bool
	// Threshold is the balance threshold (partition.Options.Threshold;
	// 0 means partition.DefaultThreshold).
	Threshold float64
	// QueuePerBand puts band i's program in task queue i (band-local IDs;
	// the NPU needs queues ≥ engines) instead of merging the bands into
	// one program for queue 0. The task manager lets a queue's ready task
	// go while a higher queue's head waits, so both run the bands side by
	// side.
	QueuePerBand bool
}

// Program is a convolution compiled for several engines.
type Program struct {
	// Program is the merged program for Config (N engines): run it with
	// host.Run. Its inputs and outputs are the bands' ("x@0", "y@1").
	*compiler.Program
	Plan *partition.Plan
	// Unbalanced is the partitioner's *partition.UnbalancedError when the
	// threshold could not be met (Plan is then the most balanced found).
	Unbalanced error
	Metrics    partition.Metrics
	// Bands are the band programs as compiled (for Config.Slice),
	// before relocation; Ext[i] is band i's first external line.
	Bands []*compiler.Program
	Ext   []int
	Cout  int
	Name  string // the output's name
}

// errLaneParams rejects per-channel requantization: the bands' planar
// tasks interleave on the one planar engine, so one band's loadparams
// could replace the lane registers another band's per-lane acts rely on
// (the registers have no span, so no dependency would order them).
var errLaneParams = errors.New("multi: per-channel requantization (loadparams) is not supported across engines: the bands share the planar engine's lane registers")

// errTable rejects lookups for the same reason: one band's loadtable
// could replace the table another band's lut tasks read.
var errTable = errors.New("multi: lookups (loadtable) are not supported across engines: the bands share the planar engine's lookup table")

// BandName is the name of band i's copy of a tensor in the merged program.
func BandName(name string, i int) string { return fmt.Sprintf("%s@%d", name, i) }

// Conv2D compiles y = conv(x, w) (x [C,H,W], w [Cout][C][KH][KW], batch 1)
// for the cfg.Engines engines of cfg, one band of output rows per engine.
// The output is named "y".
func Conv2D(cfg npu.Config, x, w *golden.Tensor, conv compiler.Conv, opt Options) (*Program, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}
	if x == nil || len(x.Shape) != 3 {
		return nil, errors.New("multi: the input must be [C,H,W]")
	}
	if w == nil || len(w.Shape) != 4 || w.Shape[1] != x.Shape[0] {
		return nil, errors.New("multi: the weights must be [Cout][C][KH][KW] with C the input's channels")
	}
	if conv.PerChannel != nil {
		return nil, errLaneParams
	}
	C, H, W := x.Shape[0], x.Shape[1], x.Shape[2]
	cout, kh, kw := w.Shape[0], w.Shape[2], w.Shape[3]
	if conv.Stride == 0 {
		conv.Stride = 1
	}
	N := cfg.Engines
	m, err := partition.FromValues(C, H, W, x.Data)
	if err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}
	po := partition.Options{Rows: N, Threshold: opt.Threshold,
		Conv: partition.Conv{KH: kh, KW: kw, Stride: conv.Stride, PadH: conv.PadH, PadW: conv.PadW}}
	part := partition.Partition
	if opt.EqualArea {
		part = partition.EqualArea
	}
	plan, err := part(m, po)
	var unbalanced error
	if errors.Is(err, partition.ErrUnbalanced) && plan != nil {
		unbalanced, err = err, nil
	}
	if err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}
	metrics, err := plan.Metrics(m, cout)
	if err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}

	// Each band: its input rows, the zero rows beyond the map's edges
	// made explicit (the band's convolution has no row padding), the
	// column padding left to the NE.
	slice := cfg.Slice()
	var bands []*compiler.Program
	for i, pt := range plan.Parts {
		rs := pt.Rows
		hb := rs.PadLo + rs.In.Len() + rs.PadHi
		xb := golden.New(C, hb, W)
		for c := range C {
			for y := rs.In.Lo; y < rs.In.Hi; y++ {
				copy(xb.Data[(c*hb+y-rs.In.Lo+rs.PadLo)*W:][:W], x.Data[(c*H+y)*W:][:W])
			}
		}
		g := compiler.NewGraph()
		g.Output("y", g.Conv2D(g.Input("x", xb), w, compiler.Conv{Stride: conv.Stride, PadW: conv.PadW, Requant: conv.Requant}))
		bp, err := compiler.Compile(slice, g)
		if err != nil {
			return nil, fmt.Errorf("multi: band %d (output rows %v): %w", i, rs.Out, err)
		}
		if b, _ := bp.Output("y"); b == nil || b.Shape[len(b.Shape)-2] != rs.Out.Len() {
			return nil, fmt.Errorf("multi: band %d computes the wrong rows", i)
		}
		bands = append(bands, bp)
	}
	prog, ext, err := merge(cfg, bands, opt.QueuePerBand)
	if err != nil {
		return nil, err
	}
	return &Program{Program: prog, Plan: plan, Unbalanced: unbalanced, Metrics: metrics, Bands: bands, Ext: ext, Cout: cout, Name: "y"}, nil
}

// Stitch assembles the whole output from the bands' outputs (the
// host's Result.Outputs of the merged program).
func (p *Program) Stitch(outs map[string]*golden.Tensor) (*golden.Tensor, error) {
	parts := make([][]int64, len(p.Plan.Parts))
	for i := range parts {
		t, ok := outs[BandName(p.Name, i)]
		if !ok {
			return nil, fmt.Errorf("multi: no output %s", BandName(p.Name, i))
		}
		parts[i] = t.Data
	}
	data, err := partition.Stitch(p.Plan, p.Cout, parts)
	if err != nil {
		return nil, err
	}
	return &golden.Tensor{Shape: []int{p.Cout, p.Plan.OH, p.Plan.OW}, Data: data}, nil
}

// Networks runs independent programs side by side: program i (compiled
// for cfg.Slice()) is relocated into engine i's slice and its own
// external-memory region, as a band is, and goes to task queue i with
// its own IDs (queue 0 has the highest priority unless the NPU serves
// its queues round-robin). Its inputs and outputs are named
// BandName(name, i). The NPU needs engines and queues ≥ len(progs).
func Networks(cfg npu.Config, progs []*compiler.Program) (*compiler.Program, error) {
	p, _, err := merge(cfg, progs, true)
	return p, err
}

// merge relocates band program i (compiled for cfg.Slice()) into engine
// i's slice and its own external-memory region and merges the bands
// into one program for cfg (package documentation); with perQueue band i
// keeps its IDs and goes to queue i, in the same push order. It returns
// the program and each band's first external line.
func merge(cfg npu.Config, bands []*compiler.Program, perQueue bool) (*compiler.Program, []int, error) {
	if len(bands) > cfg.Engines {
		return nil, nil, fmt.Errorf("multi: %d bands for %d engines", len(bands), cfg.Engines)
	}
	if perQueue && len(bands) > cfg.Queues {
		return nil, nil, fmt.Errorf("multi: a queue per band needs %d queues, the NPU has %d (npu config field queues)", len(bands), cfg.Queues)
	}
	if len(bands) > 1 {
		for _, b := range bands {
			for k := range b.Tasks {
				switch b.Tasks[k].OpName() {
				case "planar.loadparams":
					return nil, nil, errLaneParams
				case "planar.loadtable":
					return nil, nil, errTable
				}
			}
		}
	}
	layout, err := taskmgr.NewLayout(cfg.TaskMgr())
	if err != nil {
		return nil, nil, fmt.Errorf("multi: %w", err)
	}
	out := &compiler.Program{Config: cfg, Layout: layout}
	// Independent networks on an NPU with a base pointer each are moved
	// in external memory by their base pointers, not by rewriting.
	hw := perQueue && cfg.Networks >= len(bands)
	ext := make([]int, len(bands))
	reloc := make([][]compiler.Task, len(bands))
	for i, b := range bands {
		if i > 0 {
			ext[i] = ext[i-1] + len(bands[i-1].Image)
		}
		if reloc[i], err = relocate(cfg, b, i, ext[i], hw); err != nil {
			return nil, nil, err
		}
		if hw {
			out.NetBases = append(out.NetBases, uint64(ext[i]))
		}
		out.Image = append(out.Image, b.Image...)
		for _, bs := range []struct {
			from []*compiler.Binding
			to   *[]*compiler.Binding
		}{{b.Inputs, &out.Inputs}, {b.Outputs, &out.Outputs}} {
			for _, bd := range bs.from {
				c := *bd
				c.Name, c.Base = BandName(bd.Name, i), bd.Base+ext[i]
				*bs.to = append(*bs.to, &c)
			}
		}
		out.MACs += b.MACs
		out.Joins += b.Joins
	}
	out.ExtLines = len(out.Image)
	if lim := 1 << cfg.ExtAddrWidth; out.ExtLines > lim {
		return nil, nil, fmt.Errorf("multi: the bands need %d external lines, ext_addr_width = %d allows %d", out.ExtLines, cfg.ExtAddrWidth, lim)
	}
	rc := int64(cfg.Rows * cfg.Cols * cfg.Engines)
	out.Ideal = (out.MACs + rc - 1) / rc

	// Interleave: next from the band with the least NE work emitted.
	ids := make([][]int, len(bands))
	next := make([]int, len(bands))
	work := make([]int64, len(bands))
	slice := cfg.Slice()
	for {
		bi := -1
		for i := range bands {
			if next[i] < len(reloc[i]) && (bi < 0 || work[i] < work[bi]) {
				bi = i
			}
		}
		if bi < 0 {
			break
		}
		t := reloc[bi][next[bi]]
		id := len(out.Tasks)
		ids[bi] = append(ids[bi], id)
		next[bi]++
		if perQueue {
			t.Queue = bi
			t.Label = fmt.Sprintf("e%d %s", bi, t.Label)
			out.Tasks = append(out.Tasks, t)
			work[bi] += neCycles(slice, bands[bi].Tasks[next[bi]-1].Desc)
			continue
		}
		var deps []uint64
		for _, d := range t.Desc.Deps {
			nd := ids[bi][d]
			if id-nd < cfg.Window {
				deps = append(deps, uint64(nd))
			}
		}
		sort.Slice(deps, func(a, b int) bool { return deps[a] < deps[b] })
		t.Desc.ID, t.Desc.Deps = uint64(id), deps
		t.Label = fmt.Sprintf("e%d %s", bi, t.Label)
		out.Tasks = append(out.Tasks, t)
		work[bi] += neCycles(slice, bands[bi].Tasks[next[bi]-1].Desc)
	}
	for i := range out.Tasks {
		if _, err := layout.Encode(out.Tasks[i].Desc); err != nil {
			return nil, nil, fmt.Errorf("multi: %s: %w", out.Tasks[i].Label, err)
		}
	}
	return out, ext, nil
}

// neCycles estimates an NE task's cycles (0 for other engines): passes ×
// output pixels, a pass no shorter than its weight load.
func neCycles(c npu.Config, d isa.Descriptor) int64 {
	t, err := c.Codec().Decode(d)
	conv, ok := t.(isa.Conv)
	if err != nil || !ok {
		return 0
	}
	return int64(max(conv.Passes(), 1))*int64(max(conv.OH*conv.OW, c.Rows+2)) + 20
}

// relocate moves band program b into slice i and external lines from
// ext: every task through the instruction set (isa.Relocate; the NE
// tasks name engine i) and every span by its memory's offset.
//
// With hw (an NPU with a base pointer per network) the descriptors keep
// their external lines, relative to network i's base pointer (ext, the
// caller's NetBases[i]), and name network i; the spans still move.
func relocate(cfg npu.Config, b *compiler.Program, i, ext int, hw bool) ([]compiler.Task, error) {
	from, to := b.Config.Codec(), cfg.Codec()
	off := isa.Offsets{isa.MemExt: ext, isa.MemState: i * cfg.StateDepth, isa.MemWeight: i * cfg.WeightDepth, isa.MemPsum: i * cfg.PsumDepth}
	descOff := off
	if hw {
		descOff[isa.MemExt] = 0
	}
	spans := func(in []isa.Span) []isa.Span {
		out := make([]isa.Span, len(in))
		for k, s := range in {
			out[k] = isa.Span{Mem: s.Mem, Lo: s.Lo + off[s.Mem], Hi: s.Hi + off[s.Mem]}
		}
		return out
	}
	out := make([]compiler.Task, len(b.Tasks))
	for k, t := range b.Tasks {
		task, err := from.Decode(t.Desc)
		if err != nil {
			return nil, fmt.Errorf("multi: band %d: %s: %w", i, t.Label, err)
		}
		task = isa.Relocate(task, descOff)
		if conv, ok := task.(isa.Conv); ok {
			conv.Unit = i
			task = conv
		}
		d, err := to.Encode(task)
		if err != nil {
			return nil, fmt.Errorf("multi: band %d: %s: %w", i, t.Label, err)
		}
		d.Deps = append([]uint64(nil), t.Desc.Deps...)
		d.ID, d.Flags, d.Hold, d.Partial = t.Desc.ID, t.Desc.Flags, t.Desc.Hold, t.Desc.Partial
		d.Net, d.SrcMem, d.DstMem = t.Desc.Net, t.Desc.SrcMem, t.Desc.DstMem
		if hw {
			d.Net = uint64(i)
		}
		out[k] = compiler.Task{Desc: d, Label: t.Label, Layer: t.Layer, Reads: spans(t.Reads), Writes: spans(t.Writes)}
	}
	return out, nil
}
