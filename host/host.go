// Package host runs a compiled program (compiler.Program) on the NPU's
// simulation top (npu.BuildSim) through its ports only, exactly as a host
// would: it loads the external-memory image line by line through the
// host memory port (h_wr_valid, h_wr_addr, h_wr_data), pushes the
// descriptors through the command port (cmd_valid, cmd_queue, cmd_desc,
// waiting for cmd_ready), waits until the NPU is idle, and reads the
// outputs back (h_rd_addr → h_rd_data one cycle later).
//
// A program may use several task queues (compiler.Task.Queue): each cycle
// the host offers the earliest task, in program order, of a queue that
// has room, so a full queue does not hold back the others; WithRelease
// submits a queue's tasks from a later cycle (a second network arriving
// while the first runs).
//
// With descriptor rings (npu config desc_ring_bits > 0) the host writes
// the descriptors into rings in external memory, after the program's
// lines, and rings each queue's doorbell instead (rings.go).
//
// The Go simulator is driven through a stim.Recorder, so every run is a
// recorded stimulus: verify.CrossCheck(res.Design, res.Stimulus, opt)
// replays it on Verilator, and equal outputs in every cycle mean equal
// results and equal cycle counts.
//
//	res, err := host.Run(cfg, prog, host.WithVCD("run.vcd"))
//	res.Outputs["y"]            // *golden.Tensor
//	res.Cycles                  // first descriptor push to idle
//	res.WriteTrace(f)           // Chrome trace-event JSON (Perfetto)
//
// Cycle counts: Cycles runs from the cycle the first descriptor is
// offered to the first cycle in which every descriptor has been accepted
// and the NPU is idle. Engine busy and stall cycles, completed counts
// and the MAC counters are the differences of the NPU's counters over
// that interval. The timeline comes from <e>_start (the engine takes a
// task; <e>_start_id and <e>_start_queue say which) and <e>_done (its oldest unfinished task
// completes: engines complete in order): a task spans [start, done].
package host

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/host/trace"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
)

// design caches the elaborated simulation top per configuration.
var design struct {
	sync.Mutex
	m map[npu.Config]*hdl.Design
}

// Design returns the elaborated simulation top of cfg, built once per
// configuration.
func Design(cfg npu.Config) (*hdl.Design, error) {
	design.Lock()
	defer design.Unlock()
	if d, ok := design.m[cfg]; ok {
		return d, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := npu.BuildSim(cfg)
	if err != nil {
		return nil, err
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		return nil, err
	}
	if design.m == nil {
		design.m = map[npu.Config]*hdl.Design{}
	}
	design.m[cfg] = d
	return d, nil
}

// Progress is reported now and then during a run.
type Progress struct {
	Phase     string // "load", "run", "read"
	Cycle     int    // cycles of this phase so far
	Completed int    // tasks completed (run)
	Total     int    // tasks (run) or lines (load, read)
}

// Options tune a run.
type Options struct {
	VCD       string                  // write a VCD waveform of the whole run here
	VCDFilter *sim.VCDFilter          // trace part of the hierarchy only (nil: all of it)
	VCDTraced func(signals, bits int) // told how much the waveform traces, before the run
	Progress  func(Progress)          // called every ProgressEvery cycles
	Every     int                     // progress interval in cycles (default 10000)
	MaxCycles int                     // give up after this many run cycles (default: a bound from the program)
	Context   context.Context         // a run stops with its error when it is cancelled (checked every 1024 cycles)
	PowerOn   *uint64                 // seed of random power-on values of the registers without reset (nil: zeros)
	// Release holds back a queue's descriptors: queue q's are offered
	// from run cycle Release[q] on (a network submitted while another
	// runs). Queues it does not name start at cycle 0.
	Release map[int]int
	// NoStimulus records no stimulus (Result.Stimulus and
	// Session.Stimulus are nil): for long runs nobody replays.
	NoStimulus bool
}

// Option sets an Options field.
type Option func(*Options)

// WithoutStimulus records no stimulus, for long runs nobody replays on
// Verilator (a recording keeps a row per cycle).
func WithoutStimulus() Option { return func(o *Options) { o.NoStimulus = true } }

// WithVCD writes the run's waveform to path.
func WithVCD(path string) Option { return func(o *Options) { o.VCD = path } }

// WithVCDFilter traces part of the hierarchy only (see sim.VCDFilter).
func WithVCDFilter(f sim.VCDFilter) Option { return func(o *Options) { o.VCDFilter = &f } }

// WithVCDTraced tells f, before the run, how many signals and bits the
// waveform traces.
func WithVCDTraced(f func(signals, bits int)) Option { return func(o *Options) { o.VCDTraced = f } }

// WithProgress reports progress every n cycles (0: 10000).
func WithProgress(n int, f func(Progress)) Option {
	return func(o *Options) { o.Progress, o.Every = f, n }
}

// WithContext stops a run when ctx is cancelled (Ctrl-C).
func WithContext(ctx context.Context) Option { return func(o *Options) { o.Context = ctx } }

// WithPowerOn gives the registers without a reset (Config.NoDatapathReset)
// random power-on values drawn from seed instead of zeros, to show that no
// result depends on them. Verilator starts them at zero, so such a run's
// recording replays on Verilator only with the same zeros: leave this out
// for a cross-check.
func WithPowerOn(seed uint64) Option { return func(o *Options) { o.PowerOn = &seed } }

// WithRelease offers queue q's descriptors only from run cycle cycle on.
func WithRelease(q, cycle int) Option {
	return func(o *Options) {
		if o.Release == nil {
			o.Release = map[int]int{}
		}
		o.Release[q] = cycle
	}
}

// EngineStats is one engine's share of the run.
type EngineStats struct {
	Name      string
	Busy      uint64 // cycles with dispatched, unfinished tasks
	Stall     uint64 // cycles waiting for a buffer or memory port
	Completed uint64 // tasks completed
}

// Span is one task on the timeline: it ran on Engine from cycle Start to
// cycle End (relative to the first push; End is the cycle of its done
// pulse).
type Span struct {
	ID     int
	Engine string
	Label  string
	Op     string
	Start  int
	End    int
	// ExtRead and ExtWritten are the bytes of external (device) memory
	// the task reads and writes, from its declared spans.
	ExtRead, ExtWritten int
}

// Result is what a run produced.
type Result struct {
	Outputs    map[string]*golden.Tensor
	Cycles     int           // first descriptor push to idle
	LoadCycles int           // loading the image through the host port
	ReadCycles int           // reading the outputs back
	Engines    []EngineStats // the NPU's engines, indexed by engine code
	MACs       uint64        // the PE array's mac_count over the run (rows·cols per vector)
	Skipped    uint64        // skip_count: MACs with a zero operand
	NEs        []NEStats     // per neural engine, with several engines (npu.Config.Engines > 1)
	// SparseUnits is per sparse unit, on an NPU with the sparse engine.
	SparseUnits []SparseUnitStats
	// DescFetched and DescReplaced count, with descriptor rings
	// (desc_ring_bits > 0), the descriptors the fetch front end committed
	// and the fetches it abandoned for a higher-priority queue's arrival.
	DescFetched, DescReplaced uint64

	Timeline []Span
	Ideal    int64 // the program's ideal cycles (useful MACs / (rows·cols))
	Wall     time.Duration

	Design   *hdl.Design
	Stimulus *stim.Stimulus // every cycle's inputs: replay with verify.CrossCheck
}

// Utilization is the ideal cycle count over the measured one.
func (r *Result) Utilization() float64 {
	if r.Cycles == 0 {
		return 0
	}
	return float64(r.Ideal) / float64(r.Cycles)
}

type runner struct {
	cfg  npu.Config
	rec  *stim.Recorder
	opt  Options
	prog *compiler.Program
}

func (h *runner) poke(p string, v uint64) error { return h.rec.Poke(p, v) }

func (h *runner) peek(p string) (uint64, error) { return h.rec.Peek(p) }

// line packs elements into an external line (two's complement fields).
func line(cfg npu.Config, elems []int64) *big.Int {
	v := new(big.Int)
	E := uint(cfg.ElemWidth)
	mask := int64(1)<<E - 1
	for p, e := range elems {
		v.Or(v, new(big.Int).Lsh(big.NewInt(e&mask), uint(p)*E))
	}
	return v
}

func unline(cfg npu.Config, v *big.Int) []int64 {
	E := uint(cfg.ElemWidth)
	out := make([]int64, cfg.Rows)
	mask := new(big.Int).SetUint64(1<<E - 1)
	for p := range out {
		e := new(big.Int).And(new(big.Int).Rsh(v, uint(p)*E), mask).Int64()
		if e >= 1<<(E-1) {
			e -= 1 << E
		}
		out[p] = e
	}
	return out
}

// Run executes prog on the Go simulator of cfg's simulation top. When the
// run itself fails (a hang, an error status), the partial Result comes
// with the error: its Timeline and Stimulus show what happened.
func Run(cfg npu.Config, prog *compiler.Program, opts ...Option) (*Result, error) {
	t0 := time.Now()
	s, err := NewSession(cfg, prog, opts...)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(nil)
	if res != nil {
		res.LoadCycles = s.loadCycles
		res.Wall = time.Since(t0)
	}
	if cerr := s.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return res, err
}

func (h *runner) reset() error {
	if h.opt.PowerOn != nil {
		h.rec.Sim.RandomizeUnreset(*h.opt.PowerOn)
	}
	for _, p := range []struct {
		n string
		v uint64
	}{{"rst", 1}, {h.cmdPort(), 0}, {"h_wr_valid", 0}, {"err_clear", 0}} {
		if err := h.poke(p.n, p.v); err != nil {
			return err
		}
	}
	if h.cfg.Networks > 0 {
		if err := h.poke("bp_valid", 0); err != nil {
			return err
		}
	}
	h.rec.Step(2)
	return h.poke("rst", 0)
}

// writeBases writes the program's network base pointers (bp_*), one per
// cycle, before the image; they stay for the whole session.
func (h *runner) writeBases() error {
	p, c := h.prog, h.cfg
	if c.Networks == 0 {
		if len(p.NetBases) > 0 {
			return fmt.Errorf("host: the program has %d network base pointers, the NPU none (npu config field networks = 0)", len(p.NetBases))
		}
		return nil
	}
	if len(p.NetBases) > c.Networks {
		return fmt.Errorf("host: the program has %d networks, the NPU %d (npu config field networks)", len(p.NetBases), c.Networks)
	}
	for i := range p.Tasks {
		if n := p.Tasks[i].Desc.Net; n >= uint64(c.Networks) {
			return fmt.Errorf("host: task %d (%s) belongs to network %d, the NPU has %d (npu config field networks)", i, p.Tasks[i].Label, n, c.Networks)
		}
	}
	for n, b := range p.NetBases {
		for _, pk := range []struct {
			n string
			v uint64
		}{{"bp_valid", 1}, {"bp_net", uint64(n)}, {"bp_addr", b}} {
			if err := h.poke(pk.n, pk.v); err != nil {
				return err
			}
		}
		h.rec.Step(1)
	}
	return h.poke("bp_valid", 0)
}

// load writes the image, one line per cycle.
func (h *runner) load() (int, error) {
	img := h.prog.Image
	if len(img) > 1<<h.cfg.ExtAddrWidth {
		return 0, fmt.Errorf("host: image of %d lines, external memory has %d", len(img), 1<<h.cfg.ExtAddrWidth)
	}
	n := 0
	for a, l := range img {
		if !anyNonZero(l) {
			continue // the memory starts at zero
		}
		if err := h.writeLine(a, l); err != nil {
			return 0, err
		}
		n++
		if h.opt.Progress != nil && n%h.opt.Every == 0 {
			h.opt.Progress(Progress{Phase: "load", Cycle: n, Total: len(img)})
		}
	}
	return n, h.poke("h_wr_valid", 0)
}

// extBytes is the external memory t reads and writes, in bytes: its
// declared external spans, lines of Rows elements.
func (h *runner) extBytes(t *compiler.Task) (read, written int) {
	line := (h.cfg.Rows*h.cfg.ElemWidth + 7) / 8
	count := func(spans []isa.Span) int {
		n := 0
		for _, s := range spans {
			if s.Mem == isa.MemExt {
				n += (s.Hi - s.Lo) * line
			}
		}
		return n
	}
	return count(t.Reads), count(t.Writes)
}

// writeLine writes one external line through the host port (one cycle).
func (h *runner) writeLine(addr int, l []int64) error {
	if err := h.writeBits(addr, line(h.cfg, l)); err != nil {
		return err
	}
	h.rec.Step(1)
	return nil
}

func anyNonZero(l []int64) bool {
	for _, v := range l {
		if v != 0 {
			return true
		}
	}
	return false
}

// cmdPort is the input that submits work: cmd_valid, or with descriptor
// rings the queue-record write qr_valid.
func (h *runner) cmdPort() string {
	if h.cfg.DescRingBits > 0 {
		return "qr_valid"
	}
	return "cmd_valid"
}

// counters reads every performance counter.
func (h *runner) counters() (map[string]uint64, error) {
	out := map[string]uint64{}
	var names []string
	if h.cfg.PerfCounters { // else the NPU has none: the statistics say 0
		names = append(names, "mac_count", "skip_count")
		for _, e := range h.cfg.EngineNames() {
			names = append(names, e+"_busy_cycles", e+"_stall_cycles", e+"_completed")
		}
		names = append(names, h.neCounterNames()...)
	}
	names = append(names, h.sparseCounterNames()...)
	if h.cfg.DescRingBits > 0 {
		names = append(names, "desc_fetched", "desc_replaced")
	}
	for _, n := range names {
		v, err := h.peek(n)
		if err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, nil
}

// stuck describes where a run that does not finish hangs: per engine,
// the tasks started and not done, or the next pushed task not started.
func (h *runner) stuck(started []int, inflight [isa.NumEngines][]int, qt [][]int, pushed []int) string {
	var parts []string
	for e, name := range h.cfg.EngineNames() {
		if len(inflight[e]) > 0 {
			parts = append(parts, fmt.Sprintf("%s running %v", name, inflight[e]))
			continue
		}
		for q, tasks := range qt {
			for _, id := range tasks[:pushed[q]] {
				if int(h.prog.Tasks[id].Desc.Engine) == e && started[id] < 0 {
					parts = append(parts, fmt.Sprintf("%s waits to start %d (deps %v)", name, id, h.prog.Tasks[id].Desc.Deps))
					break
				}
			}
		}
	}
	return strings.Join(parts, ", ")
}

// read gathers the outputs through the host read port, one line per
// cycle.
func (h *runner) read(res *Result) error {
	lines := map[int][]int64{}
	var addrs []int
	for _, b := range h.prog.Outputs {
		for l := 0; l < b.Lines; l++ {
			if _, ok := lines[b.Base+l]; !ok {
				lines[b.Base+l] = nil
				addrs = append(addrs, b.Base+l)
			}
		}
	}
	sort.Ints(addrs)
	for i, a := range addrs {
		if err := h.poke("h_rd_addr", uint64(a)); err != nil {
			return err
		}
		h.rec.Step(1)
		v, err := h.rec.Sim.PeekBig("h_rd_data")
		if err != nil {
			return err
		}
		lines[a] = unline(h.cfg, v)
		if h.opt.Progress != nil && (i+1)%h.opt.Every == 0 {
			h.opt.Progress(Progress{Phase: "read", Cycle: i + 1, Total: len(addrs)})
		}
	}
	res.ReadCycles = len(addrs)
	out, err := h.prog.Results(func(a int) ([]int64, error) {
		l, ok := lines[a]
		if !ok {
			return nil, fmt.Errorf("host: line %d was not read", a)
		}
		return l, nil
	})
	res.Outputs = out
	return err
}

// WriteTrace writes the timeline as Chrome trace-event JSON (open it in
// Perfetto or chrome://tracing): one track per engine, one complete
// event per task, 1 µs per cycle.
func (r *Result) WriteTrace(w io.Writer) error {
	var f trace.File
	r.AddTrace(f.Process("npu"), 0, 1)
	f.OtherData = map[string]any{"cycles": r.Cycles, "ideal_cycles": r.Ideal}
	return f.Write(w)
}

// AddTrace adds the timeline to p, one track per engine, with cycle c at
// at + c·usPerCycle microseconds. Adding several runs to the same process
// at different offsets lines them up on the same engine tracks: a host
// pipeline places each packet's run at the start of its exec stage, with
// usPerCycle either a nominal clock period or the exec span over the run's
// cycles.
func (r *Result) AddTrace(p trace.Process, at, usPerCycle float64) {
	tracks := map[string]trace.Track{}
	for _, e := range r.Engines {
		if e.Name != "" { // every engine of the NPU, in order, even an idle one
			tracks[e.Name] = p.Track(e.Name)
		}
	}
	for _, s := range r.Timeline {
		if _, ok := tracks[s.Engine]; !ok { // a result put together by hand
			tracks[s.Engine] = p.Track(s.Engine)
		}
		dur := max(1, s.End-s.Start+1)
		tracks[s.Engine].Slice(s.Label, s.Op, at+float64(s.Start)*usPerCycle, float64(dur)*usPerCycle,
			map[string]any{"id": s.ID, "start_cycle": s.Start, "done_cycle": s.End, "ext_bytes_read": s.ExtRead, "ext_bytes_written": s.ExtWritten})
	}
}

// Summary is a short report of the run.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%d cycles (ideal %d, %.1f%%), load %d, read %d; mac_count %d, skipped %d",
		r.Cycles, r.Ideal, 100*r.Utilization(), r.LoadCycles, r.ReadCycles, r.MACs, r.Skipped)
	for _, e := range r.Engines {
		s += fmt.Sprintf("; %s busy %d stall %d done %d", e.Name, e.Busy, e.Stall, e.Completed)
	}
	return s
}
