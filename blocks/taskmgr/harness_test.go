package taskmgr_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verify/simtest"
)

// smallConfig keeps unit-test designs small (one Verilator build serves
// most tests): a 16-task window, 8-bit IDs (so long programs wrap), shallow
// queues (so back-pressure happens).
func smallConfig() taskmgr.Config {
	return taskmgr.Config{Queues: 2, QueueDepth: 4, Window: 16, MaxDeps: 2, EngineSlots: 2, Outstanding: 2,
		IDBits: 8, AddrBits: 12, DimBits: 6, ParamBits: 5, FlagBits: 2, NETargets: 1}
}

// minimalConfig is the smallest legal configuration: every width at its
// lower bound, IDs that wrap every 8 tasks.
func minimalConfig() taskmgr.Config {
	return taskmgr.Config{Queues: 1, QueueDepth: 2, Window: 4, MaxDeps: 1, EngineSlots: 1, Outstanding: 1,
		IDBits: 3, AddrBits: 1, DimBits: 1, ParamBits: 1, FlagBits: 1, NETargets: 1}
}

// lean is cfg with the lean task manager (Config.Lean).
func lean(cfg taskmgr.Config) taskmgr.Config {
	cfg.Lean = true
	return cfg
}

// inWords is cfg with its queued descriptors stored as 4 memory words
// each (Config.QueueWords).
func inWords(cfg taskmgr.Config) taskmgr.Config {
	cfg.QueueWords = 4
	return cfg
}

// bothWays runs f as three subtests, "full" on cfg, "lean" on lean(cfg)
// and "words4" on inWords(cfg): every scenario must hold for each.
func bothWays(t *testing.T, cfg taskmgr.Config, f func(t *testing.T, cfg taskmgr.Config)) {
	t.Helper()
	for _, c := range []taskmgr.Config{cfg, lean(cfg), inWords(cfg)} {
		name := "full"
		switch {
		case c.Lean:
			name = "lean"
		case c.QueueWords > 1:
			name = "words4"
		}
		t.Run(name, func(t *testing.T) { f(t, c) })
	}
}

// task is one descriptor of a test program.
type task struct {
	name  string
	queue int
	desc  isa.Descriptor // what the engine must receive (for a well-formed task)
	raw   *big.Int       // the bits pushed; Encode(desc) unless the test builds a malformed one
	lat   int            // cycles the engine model spends on it
	skip  bool           // the task manager must not dispatch it (malformed, or after an error)
	prog  int            // index in its queue's program
	deps  []*task

	pushed, dispatch, start, done int // cycles; dispatch -1 until dispatched
	seen                          map[string]uint64
}

type key struct{ queue, id int }

// engineModel is an engine of random latency. With depth 2 it accepts its
// next task while one runs (its ready stays high with one task inside), so
// back-to-back tasks leave no gap; stall is the chance that it drops ready
// for a cycle anyway.
type engineModel struct {
	depth  int
	stall  float64
	inside []*task // accepted, not yet done, in order
	// finishing is the index in inside of the task completing this
	// cycle (-1: none).
	finishing int
	lastDone  int
	order     []*task // dispatch order
	ready     bool
	// offers: per target (array; 0 for a plain engine), the task offered
	// and not taken, which must stay on the port until taken.
	offers map[int]key
	// arrays, for an NE with several targets (Config.NETargets > 1): the
	// last cycle of each array's task. An array takes a task only when
	// idle; done pulses still come in dispatch order.
	arrays []int
}

// bench drives the task manager on the Go simulator closed-loop, through a
// stim.Recorder, so the run replays on Verilator afterwards.
type bench struct {
	t     *testing.T
	cfg   taskmgr.Config
	lay   *taskmgr.Layout
	dr    *simtest.Driver
	rng   *rand.Rand
	cycle int

	tasks      []*task         // push order
	next       int             // next task to present on the command port
	showing    bool            // cmd_valid is high with tasks[next]
	hostIdle   float64         // chance the host leaves a cycle without a new push
	byKey      map[key][]*task // IDs wrap: every task with that queue and ID, in program order
	blocked    int             // cycles with cmd_valid high and cmd_ready low
	overlapped int             // tasks dispatched while their partial dependency still ran
	eng        []*engineModel  // per engine of cfg.Engines()
	errors     int
	maxErrors  int
}

var designCache = map[taskmgr.Config]*hdl.Design{}

func design(t *testing.T, cfg taskmgr.Config) *hdl.Design {
	t.Helper()
	if d := designCache[cfg]; d != nil {
		return d
	}
	m, err := taskmgr.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := simtest.Elaborate(t, m)
	designCache[cfg] = d
	return d
}

func newBench(t *testing.T, cfg taskmgr.Config, seed uint64) *bench {
	t.Helper()
	lay, err := taskmgr.NewLayout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{t: t, cfg: cfg, lay: lay, dr: simtest.New(t, design(t, cfg)), rng: rand.New(rand.NewPCG(seed, 7)),
		byKey: map[key][]*task{}, maxErrors: 10}
	for range cfg.Engines() {
		b.eng = append(b.eng, &engineModel{depth: 2, lastDone: -1})
	}
	if cfg.NETargets > 1 {
		m := b.eng[isa.NE]
		m.depth = cfg.Outstanding
		for range cfg.NETargets {
			m.arrays = append(m.arrays, -1)
		}
	}
	b.dr.Reset(2)
	b.cycle = 2
	return b
}

func (b *bench) errorf(format string, args ...any) {
	b.t.Helper()
	b.errors++
	if b.errors <= b.maxErrors {
		b.t.Errorf("cycle %d: "+format, append([]any{b.cycle}, args...)...)
	}
}

// add appends a well-formed task to the push order.
func (b *bench) add(tk *task) {
	b.t.Helper()
	if tk.raw == nil {
		raw, err := b.lay.Encode(tk.desc)
		if err != nil {
			b.t.Fatal(err)
		}
		tk.raw = raw
	}
	tk.dispatch = -1
	if !tk.skip {
		k := key{tk.queue, int(tk.desc.ID)}
		b.byKey[k] = append(b.byKey[k], tk)
	}
	b.tasks = append(b.tasks, tk)
}

// step runs one cycle: host and engines drive their inputs (done before
// ready and valid are sampled, as the hardware sees them), handshakes are
// observed, the clock ticks.
func (b *bench) step() {
	// host
	if !b.showing && b.next < len(b.tasks) && b.rng.Float64() >= b.hostIdle {
		tk := b.tasks[b.next]
		b.showing = true
		port := tk.queue
		// Queue numbers past the last queue mean the last queue.
		if qb := hdl.ClogWidth(b.cfg.Queues); tk.queue == b.cfg.Queues-1 && 1<<qb > b.cfg.Queues && b.rng.IntN(2) == 0 {
			port = b.cfg.Queues + b.rng.IntN(1<<qb-b.cfg.Queues)
		}
		b.dr.Poke("cmd_queue", uint64(port))
		b.dr.PokeBig("cmd_desc", tk.raw)
	}
	b.dr.PokeBool("cmd_valid", b.showing)
	// engines
	for e, m := range b.eng {
		name := isa.Engines[e].Name
		// An engine completes its oldest task; the sparse engine any of
		// its tasks that is finished, naming it.
		m.finishing = -1
		for k, tk := range m.inside {
			if tk.done <= b.cycle {
				m.finishing = k
				break
			}
			if isa.Engine(e) != isa.Sparse {
				break
			}
		}
		done := m.finishing >= 0
		if done {
			tk := m.inside[m.finishing]
			tk.done = b.cycle // when the task manager learns of it
			if isa.Engine(e) == isa.Sparse {
				b.dr.Poke(name+"_done_queue", uint64(tk.queue))
				b.dr.Poke(name+"_done_id", tk.desc.ID)
			}
		}
		b.dr.PokeBool(name+"_done", done)
		m.ready = len(m.inside) < m.depth && b.rng.Float64() >= m.stall
		if m.arrays != nil && b.arrayFor(m) < 0 {
			m.ready = false
		}
		b.dr.PokeBool(name+"_ready", m.ready)
	}
	// handshakes
	if b.showing {
		if b.cfg.RoomPort {
			// cmd_room names the same room cmd_ready answers for.
			q := b.tasks[b.next].queue
			if room := b.dr.Peek("cmd_room") >> q & 1; room != b.dr.Peek("cmd_ready") {
				b.errorf("cycle %d: cmd_room bit %d = %d, cmd_ready = %d", b.cycle, q, room, b.dr.Peek("cmd_ready"))
			}
		}
		if b.dr.Peek("cmd_ready") == 1 {
			b.tasks[b.next].pushed = b.cycle
			b.showing = false
			b.next++
		} else {
			b.blocked++
		}
	}
	for e, m := range b.eng {
		name := isa.Engines[e].Name
		if b.dr.Peek(name+"_valid") == 0 {
			continue
		}
		b.checkOffer(isa.Engine(e), m)
		if m.ready {
			b.dispatched(isa.Engine(e), m)
		}
	}
	b.dr.Step(1)
	for _, m := range b.eng {
		if m.finishing >= 0 {
			m.inside = append(m.inside[:m.finishing:m.finishing], m.inside[m.finishing+1:]...)
		}
	}
	b.cycle++
}

func (b *bench) dispatched(e isa.Engine, m *engineModel) {
	name := e.String()
	k := key{int(b.dr.Peek(name + "_queue")), int(b.dr.Peek(name + "_id"))}
	var tk *task // the oldest task with this ID not yet dispatched
	for _, c := range b.byKey[k] {
		if c.dispatch < 0 {
			tk = c
			break
		}
	}
	switch {
	case len(b.byKey[k]) == 0:
		b.errorf("%s dispatched unknown task %v", name, k)
		return
	case tk == nil:
		b.errorf("%s dispatched task %v a second time", name, k)
		return
	case tk.desc.Engine != e:
		b.errorf("task %v (%s) for %s dispatched to %s", k, tk.name, tk.desc.Engine, name)
	}
	tk.dispatch = b.cycle
	tk.seen = map[string]uint64{}
	for _, f := range b.lay.EngineFieldsOf(e) {
		tk.seen[f.Name] = b.dr.Peek(name + "_" + f.Name)
	}
	for i, dep := range tk.deps {
		if i == 0 && tk.desc.Partial {
			// A partial dependency must have been dispatched in an
			// earlier cycle; it may still run.
			if dep.dispatch < 0 || dep.dispatch >= b.cycle {
				b.errorf("task %v (%s) dispatched before its partial dependency %s started", k, tk.name, dep.name)
			}
			if dep.done >= b.cycle {
				b.overlapped++
			}
			l := log2(b.cfg.Window) + 1
			if got, want := b.dr.Peek(name+"_pdep"), dep.desc.ID&(1<<l-1); got != want {
				b.errorf("task %v (%s): %s_pdep = %d, want %d", k, tk.name, name, got, want)
			}
			continue
		}
		if dep.dispatch < 0 || dep.done > b.cycle {
			b.errorf("task %v (%s) dispatched before its dependency %s completed", k, tk.name, dep.name)
		}
	}
	if m.arrays != nil {
		a := b.arrayFor(m)
		tk.start = b.cycle + 1
		tk.done = tk.start + tk.lat - 1
		m.arrays[a] = tk.done
	} else if e == isa.Sparse {
		// The units run their tasks at once and finish in any order.
		tk.start = b.cycle + 1
		tk.done = tk.start + tk.lat - 1
	} else {
		tk.start = max(b.cycle+1, m.lastDone+1)
		tk.done = tk.start + tk.lat - 1
		m.lastDone = tk.done
	}
	m.inside = append(m.inside, tk)
	m.order = append(m.order, tk)
}

// checkOffer asserts the dispatch port's contract: a task offered to an
// engine (with several NE arrays: to the array it names) and not taken
// stays offered, unchanged, until that engine takes it.
func (b *bench) checkOffer(e isa.Engine, m *engineModel) {
	name := e.String()
	k := key{int(b.dr.Peek(name + "_queue")), int(b.dr.Peek(name + "_id"))}
	t := 0
	if m.arrays != nil {
		tw := hdl.ClogWidth(b.cfg.NETargets + 1)
		if t = int(b.dr.Peek("ne_param") >> b.cfg.NETargetOffset & (1<<tw - 1)); t >= b.cfg.NETargets {
			return // any array: offered only to a free one
		}
	}
	if m.offers == nil {
		m.offers = map[int]key{}
	}
	if was, ok := m.offers[t]; ok && was != k {
		b.errorf("%s (target %d) was offered task %v, now %v before taking it", name, t, was, k)
	}
	if m.ready {
		delete(m.offers, t)
	} else {
		m.offers[t] = k
	}
}

// arrayFor is the array that takes the NE task offered now (the one its
// param's target field names, or for a target of NETargets or more the
// first idle one), -1 if that array is busy. It also drives ne_free,
// which the task manager reads before it offers.
func (b *bench) arrayFor(m *engineModel) int {
	c := b.cfg
	free := uint64(0)
	first := -1
	for i, last := range m.arrays {
		if last < b.cycle {
			free |= 1 << i
			if first < 0 {
				first = i
			}
		}
	}
	b.dr.Poke("ne_free", free)
	tw := hdl.ClogWidth(c.NETargets + 1)
	target := int(b.dr.Peek("ne_param") >> c.NETargetOffset & (1<<tw - 1))
	if target >= c.NETargets {
		return first
	}
	if free>>target&1 == 0 {
		return -1
	}
	return target
}

// run steps until every task has been pushed and completed and the task
// manager reports idle, failing if that takes more than limit cycles.
func (b *bench) run(limit int) {
	b.t.Helper()
	for start := b.cycle; ; {
		if b.next == len(b.tasks) && b.allDone() && b.dr.Peek("idle") == 1 {
			return
		}
		if b.cycle-start > limit {
			b.t.Fatalf("no progress: after %d cycles %d of %d tasks pushed, idle=%d, pending: %s",
				limit, b.next, len(b.tasks), b.dr.Peek("idle"), b.pending())
		}
		b.step()
	}
}

func (b *bench) allDone() bool {
	for _, m := range b.eng {
		if len(m.inside) > 0 {
			return false
		}
	}
	for _, tk := range b.tasks[:b.next] {
		if !tk.skip && tk.dispatch < 0 {
			return false
		}
	}
	return true
}

func (b *bench) pending() string {
	s := ""
	for _, tk := range b.tasks {
		if !tk.skip && tk.dispatch < 0 {
			s += fmt.Sprintf(" %s(q%d id%d)", tk.name, tk.queue, tk.desc.ID)
			if len(s) > 200 {
				return s + " ..."
			}
		}
	}
	return s
}

// check asserts the schedule: every live task ran exactly once with the
// fields it was encoded with, never before its dependencies completed,
// each engine in program order per queue; skipped tasks never ran; the
// status counters agree.
func (b *bench) check() {
	b.t.Helper()
	perEngine := make([]int, len(b.eng))
	for _, tk := range b.tasks {
		if tk.skip {
			continue
		}
		if tk.dispatch < 0 {
			b.errorf("task %s (q%d id%d) never dispatched", tk.name, tk.queue, tk.desc.ID)
			continue
		}
		perEngine[tk.desc.Engine]++
		want := map[string]uint64{}
		vals := b.lay.Unpack(tk.raw)
		for _, f := range b.lay.EngineFieldsOf(tk.desc.Engine) {
			want[f.Name] = vals[f.Name]
		}
		if diff := cmp.Diff(want, tk.seen); diff != "" {
			b.errorf("task %s fields on the %s port (-encoded +seen):\n%s", tk.name, tk.desc.Engine, diff)
		}
	}
	for e, m := range b.eng {
		for q := 0; q < b.cfg.Queues; q++ {
			var got, want []int
			for _, tk := range m.order {
				if tk.queue == q {
					got = append(got, tk.prog)
				}
			}
			for _, tk := range b.tasks {
				if tk.queue == q && !tk.skip && int(tk.desc.Engine) == e {
					want = append(want, tk.prog)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				b.errorf("engine %s queue %d: program positions in dispatch order differ from program order (-want +got):\n%s", isa.Engine(e), q, diff)
			}
		}
		if got := b.dr.Peek(isa.Engine(e).String() + "_completed"); got != uint64(perEngine[e]) {
			b.errorf("%s_completed = %d, want %d", isa.Engine(e), got, perEngine[e])
		}
	}
}

// crossCheck replays the recorded run on Verilator. Of the lean
// configurations only lean(smallConfig()) is replayed, of those in words
// only inWords(smallConfig()) (one Verilator build serves every scenario
// on each); the others run on the Go simulator alone, checked against the
// scenario's expectations.
func (b *bench) crossCheck() {
	b.t.Helper()
	if b.cfg.Lean && b.cfg != lean(smallConfig()) {
		b.t.Log("lean: the Verilator replay is of the small configuration's scenarios")
		return
	}
	if b.cfg.QueueWords > 1 && b.cfg != inWords(smallConfig()) {
		b.t.Log("words: the Verilator replay is of the small configuration's scenarios")
		return
	}
	b.dr.CrossCheck(verify.Options{Dir: b.t.TempDir()})
}

// randomOperands fills the engine operands with random values of their
// widths (the decoder test's payload).
func randomOperands(rng *rand.Rand, lay *taskmgr.Layout, d *isa.Descriptor) {
	r := func(name string) uint64 {
		f, _ := lay.Field(name)
		if f.Width >= 64 {
			return rng.Uint64()
		}
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return 1<<f.Width - 1 // all ones: catches a field cut one bit short
		}
		return rng.Uint64N(1 << f.Width)
	}
	d.Flags, d.Src, d.Aux, d.Dst = r("flags"), r("src"), r("aux"), r("dst")
	d.D0, d.D1, d.D2 = r("d0"), r("d1"), r("d2")
	if p := r("param"); p != 0 {
		d.Param = []uint64{p}
	}
}

// randomProgram is a random task graph for one queue: n tasks on random
// engines and operations, each depending on up to max_deps of the
// window-1 tasks before it.
func randomProgram(rng *rand.Rand, lay *taskmgr.Layout, queue, n, maxLat int) []*task {
	cfg := lay.Config
	var prog []*task
	for i := 0; i < n; i++ {
		e := isa.Engine(rng.IntN(len(cfg.Engines())))
		var ops []isa.OpDef // the ops this task manager accepts
		for _, op := range isa.Engines[e].Ops {
			if cfg.Sparse || !op.Sparse {
				ops = append(ops, op)
			}
		}
		tk := &task{name: fmt.Sprintf("q%d.t%d", queue, i), queue: queue, prog: i, lat: 1 + rng.IntN(maxLat)}
		tk.desc = isa.Descriptor{ID: uint64(i) % (1 << cfg.IDBits), Engine: e, Op: ops[rng.IntN(len(ops))].Code}
		if i > 0 {
			for j := rng.IntN(cfg.MaxDeps + 1); j > 0; j-- {
				back := 1 + rng.IntN(min(cfg.Window-1, i))
				tk.deps = append(tk.deps, prog[i-back])
				tk.desc.Deps = append(tk.desc.Deps, prog[i-back].desc.ID)
			}
			tk.desc.Partial = cfg.Partial && len(tk.deps) > 0 && rng.IntN(3) == 0
		}
		randomOperands(rng, lay, &tk.desc)
		prog = append(prog, tk)
	}
	return prog
}

// interleave merges programs into one push order, keeping each program's
// order.
func interleave(rng *rand.Rand, progs ...[]*task) []*task {
	var out []*task
	idx := make([]int, len(progs))
	for {
		var live []int
		for p := range progs {
			if idx[p] < len(progs[p]) {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return out
		}
		p := live[rng.IntN(len(live))]
		out = append(out, progs[p][idx[p]])
		idx[p]++
	}
}

// log2 of a power of two.
func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}
