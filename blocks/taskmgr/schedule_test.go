package taskmgr_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
)

// Random task graphs, hundreds of tasks, engines of random latency: every
// task runs exactly once, never before its dependencies complete, each
// engine in program order; the recording replays on Verilator.
func TestRandomGraphs(t *testing.T) {
	three := smallConfig()
	three.Queues, three.EngineSlots, three.Outstanding, three.MaxDeps = 3, 1, 1, 3
	cases := []struct {
		name     string
		cfg      taskmgr.Config
		programs []int   // tasks per queue
		maxLat   int     // latencies 1..maxLat; negative: 1..-maxLat with one task in 20 made 40 times longer
		depth    int     // engine model: 2 takes the next task while one runs, 1 only when idle
		stall    float64 // chance an engine drops ready in a cycle
		hostIdle float64
		seed     uint64
	}{
		{"two queues, pipelined engines", smallConfig(), []int{200, 200}, 12, 2, 0.1, 0.2, 1},
		{"one queue, latency 1 and 2", smallConfig(), []int{300}, 2, 2, 0, 0, 2},
		{"engines without pipeline slot, stalls", smallConfig(), []int{150, 150}, 6, 1, 0.3, 0.1, 3},
		{"three queues, one slot, one outstanding", three, []int{100, 100, 100}, 8, 2, 0.2, 0.3, 4},
		// Now and then a task 40x longer than the rest: the window of its
		// queue fills and issue must wait for the base to move.
		{"long tasks fill the window", smallConfig(), []int{200, 200}, -3, 2, 0, 0, 5},
		{"minimal config: one queue, window 4, 3-bit IDs, one dependency", minimalConfig(), []int{200}, 4, 2, 0.1, 0.1, 7},
		{"default config", taskmgr.DefaultConfig(), []int{300, 300}, -6, 2, 0.1, 0.1, 6},
		// Random params name array 0, 1 or any (2, 3).
		{"two NE arrays", twoArrays(), []int{150, 150}, 8, 2, 0.1, 0.1, 8},
		{"round-robin", roundRobin(), []int{150, 150}, 6, 2, 0.2, 0.1, 9},
		// Five engines: the sparse engine and its DMA ops are dispatched too.
		{"sparse engine", withSparse(), []int{150, 150}, 6, 2, 0.1, 0.1, 10},
		// A third of the tasks with deps make dep0 partial.
		{"partial dependencies", withPartial(), []int{200, 200}, 12, 2, 0.1, 0.1, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fullCycles := 0 // the "full" run's, for the queue_words bound
			bothWays(t, tc.cfg, func(t *testing.T, cfg taskmgr.Config) {
				if cfg == taskmgr.DefaultConfig() {
					tooltest.SkipHeavy(t, "the default-config Verilator build")
				}
				b := newBench(t, cfg, tc.seed)
				b.hostIdle = tc.hostIdle
				for _, m := range b.eng {
					m.depth, m.stall = tc.depth, tc.stall
				}
				var progs [][]*task
				total := 0
				for q, n := range tc.programs {
					prog := randomProgram(b.rng, b.lay, q, n, max(tc.maxLat, -tc.maxLat))
					if tc.maxLat < 0 {
						for _, tk := range prog {
							if b.rng.IntN(20) == 0 {
								tk.lat *= 40
							}
						}
					}
					progs = append(progs, prog)
					total += n
				}
				for _, tk := range interleave(b.rng, progs...) {
					b.add(tk)
				}
				b.run(100 * total)
				b.check()
				if got := b.dr.Peek("err_code"); got != 0 {
					t.Errorf("err_code = %d on a well-formed program", got)
				}
				if got := b.dr.Peek("skipped"); got != 0 {
					t.Errorf("skipped = %d on a well-formed program", got)
				}
				if tc.cfg.Partial && b.overlapped == 0 {
					t.Error("no task with a partial dependency started while that dependency ran")
				}
				t.Logf("%d tasks in %d cycles (%d started beside their partial dependency)", total, b.cycle, b.overlapped)
				if cfg.QueueWords > 1 {
					checkWordsCycles(t, cfg.QueueWords, tc.programs, b.cycle, fullCycles)
				} else if !cfg.Lean {
					fullCycles = b.cycle
				}
				b.crossCheck()
			})
		})
	}
}

// checkWordsCycles bounds a run with the queues in k words
// (Config.QueueWords): a queue issues at most one descriptor every k
// cycles, so the run takes at least k cycles per task of its longest
// program; and each task waits at most k-1 cycles more for its issue
// than with one word, so it takes at most (k-1) cycles per task more than
// the full run (when that ran first: 0 skips the upper bound).
func checkWordsCycles(t *testing.T, k int, programs []int, cycles, full int) {
	t.Helper()
	longest, total := 0, 0
	for _, n := range programs {
		longest, total = max(longest, n), total+n
	}
	if cycles < k*longest {
		t.Errorf("%d cycles with the queues in %d words, want at least %d (one issue every %d cycles, %d tasks in one queue)", cycles, k, k*longest, k, longest)
	}
	if full > 0 && cycles > full+(k-1)*total {
		t.Errorf("%d cycles with the queues in %d words, want at most %d (the full run's %d + %d per task)", cycles, k, full+(k-1)*total, full, k-1)
	}
	if full > 0 {
		t.Logf("queue_words %d: %d cycles against %d with one word (%+.0f%%)", k, cycles, full, 100*float64(cycles-full)/float64(full))
	}
}

// roundRobin is smallConfig with the queues served in turn.
func roundRobin() taskmgr.Config {
	c := smallConfig()
	c.RoundRobin = true
	return c
}

// withSparse is smallConfig with the sparse engine, and the room port
// (checked against cmd_ready every cycle).
func withSparse() taskmgr.Config {
	c := smallConfig()
	c.Sparse, c.RoomPort = true, true
	return c
}

// withPartial is smallConfig with partial dependencies.
func withPartial() taskmgr.Config {
	c := smallConfig()
	c.Partial = true
	return c
}

// twoArrays is smallConfig with two PE arrays behind the "ne" engine,
// named by param bits 1:0, and room for 6 NE tasks in flight (their done
// pulses come in dispatch order, so a long task holds the later ones
// outstanding).
func twoArrays() taskmgr.Config {
	c := smallConfig()
	c.NETargets, c.Outstanding = 2, 6
	return c
}

// With two PE arrays behind the ne engine, queue 0's task for a busy
// array does not hold back queue 1's tasks for the idle one: they all run
// on array 1 while array 0 works through queue 0's long task.
func TestBusyArrayLetsOtherQueueGo(t *testing.T) {
	bothWays(t, twoArrays(), testBusyArray)
}

func testBusyArray(t *testing.T, cfg taskmgr.Config) {
	b := newBench(t, cfg, 21)
	mk := func(q, target int, lats ...int) []*task {
		prog := chain(len(lats), func(i int) int { return lats[i] }, func(int) isa.Engine { return isa.NE }, false)
		for _, tk := range prog {
			tk.queue, tk.name = q, fmt.Sprintf("q%d.%s", q, tk.name)
			tk.desc.Param = []uint64{uint64(target)}
		}
		return prog
	}
	for _, tk := range append(mk(0, 0, 40, 3, 3), mk(1, 1, 3, 3, 3, 3)...) {
		b.add(tk)
	}
	b.run(1000)
	b.check()
	var got []string
	for _, tk := range b.eng[isa.NE].order {
		got = append(got, tk.name)
	}
	want := []string{"q0.t0", "q1.t0", "q1.t1", "q1.t2", "q1.t3", "q0.t1", "q0.t2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NE dispatch order (-want +got):\n%s", diff)
	}
	if long := b.tasks[0]; b.tasks[6].dispatch > long.done {
		t.Errorf("q1's last task dispatched at %d, after q0's long task ended at %d", b.tasks[6].dispatch, long.done)
	}
	b.crossCheck()
}

// workedExample is the network of docs/sources.md §3: convolutions on the
// neural engine, poolings on the planar engine, in the compiler's list
// order. TC3 (five sub-tasks' worth) is long; TC4 follows TC3 and is
// listed before TP2..TP5, which only depend on TC2 and on each other.
func workedExample() []*task {
	conv, pool := isa.NEConv, isa.PlanarPool
	mk := func(name string, e isa.Engine, op isa.Op, lat int, deps ...*task) *task {
		return &task{name: name, desc: isa.Descriptor{Engine: e, Op: op}, lat: lat, deps: deps}
	}
	tc1 := mk("TC1", isa.NE, conv, 10)
	tp1 := mk("TP1", isa.Planar, pool, 6, tc1)
	tc2 := mk("TC2", isa.NE, conv, 10, tp1)
	tc3 := mk("TC3", isa.NE, conv, 60, tp1)
	tc4 := mk("TC4", isa.NE, conv, 10, tc3)
	tp2 := mk("TP2", isa.Planar, pool, 8, tc2)
	tp3 := mk("TP3", isa.Planar, pool, 8, tp2)
	tp4 := mk("TP4", isa.Planar, pool, 8, tp3)
	tp5 := mk("TP5", isa.Planar, pool, 8, tp4)
	prog := []*task{tc1, tp1, tc2, tc3, tc4, tp2, tp3, tp4, tp5}
	for i, tk := range prog {
		tk.prog, tk.desc.ID = i, uint64(i)
		for _, d := range tk.deps {
			tk.desc.Deps = append(tk.desc.Deps, d.desc.ID)
		}
	}
	return prog
}

// The worked example of docs/sources.md §3: while the long TC3 runs, TP2..TP4
// (independent of it) run on the planar engine, and the start order is
// TC1, TP1, TC2, TC3, TP2, TP3, TP4, TP5, TC4, although TC4 is listed
// before TP2.
func TestWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   taskmgr.Config
		heavy bool // the Verilator replay is skipped with -short
	}{
		{"small config", smallConfig(), false},
		{"default config", taskmgr.DefaultConfig(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothWays(t, tc.cfg, func(t *testing.T, cfg taskmgr.Config) {
				b := newBench(t, cfg, 9)
				prog := workedExample()
				for _, tk := range prog {
					b.add(tk)
				}
				b.run(1000)
				b.check()
				byName := map[string]*task{}
				for _, tk := range prog {
					byName[tk.name] = tk
				}
				// Start order: the cycle an engine began the task; two tasks
				// starting in the same cycle on different engines are ordered
				// by dispatch.
				got := startOrder(prog)
				want := []string{"TC1", "TP1", "TC2", "TC3", "TP2", "TP3", "TP4", "TP5", "TC4"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("start order (-want +got):\n%s", diff)
				}
				tc3 := byName["TC3"]
				for _, n := range []string{"TP2", "TP3", "TP4"} {
					if tp := byName[n]; tp.start < tc3.start || tp.done > tc3.done {
						t.Errorf("%s ran %d..%d, not while TC3 ran %d..%d", n, tp.start, tp.done, tc3.start, tc3.done)
					}
				}
				for _, tk := range prog {
					t.Logf("%s dispatched %3d, ran %3d..%3d", tk.name, tk.dispatch, tk.start, tk.done)
				}
				if tc.heavy {
					tooltest.SkipHeavy(t, "the default-config Verilator replay")
				}
				b.crossCheck()
			})
		})
	}
}

func startOrder(prog []*task) []string {
	sorted := append([]*task(nil), prog...)
	for i := range sorted { // insertion sort by (start, dispatch)
		for j := i; j > 0; j-- {
			a, b := sorted[j-1], sorted[j]
			if a.start < b.start || a.start == b.start && a.dispatch <= b.dispatch {
				break
			}
			sorted[j-1], sorted[j] = b, a
		}
	}
	names := make([]string, len(sorted))
	for i, tk := range sorted {
		names[i] = tk.name
	}
	return names
}

// A host pushing faster than the engines drain: the command port must
// drop ready (the queues fill), and still every task runs exactly once.
func TestBackPressure(t *testing.T) { bothWays(t, smallConfig(), testBackPressure) }

func testBackPressure(t *testing.T, cfg taskmgr.Config) {
	b := newBench(t, cfg, 5)
	b.hostIdle = 0
	for _, m := range b.eng {
		m.stall = 0.2
	}
	p0 := randomProgram(b.rng, b.lay, 0, 120, 40)
	p1 := randomProgram(b.rng, b.lay, 1, 120, 40)
	for _, tk := range interleave(b.rng, p0, p1) {
		b.add(tk)
	}
	b.run(100 * 240)
	b.check()
	if b.blocked == 0 {
		t.Errorf("the command port never pushed back; the test does not exercise back-pressure")
	}
	t.Logf("command port held off %d of %d cycles", b.blocked, b.cycle)
	b.crossCheck()
}

// Random descriptors encoded in Go, pushed through the hardware: the
// fields decoded on each engine's dispatch port equal the encoded ones
// (check compares every engine field of every task).
func TestDecoder(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  taskmgr.Config
	}{{"small config", smallConfig()}, {"default config", taskmgr.DefaultConfig()}} {
		t.Run(tc.name, func(t *testing.T) {
			bothWays(t, tc.cfg, func(t *testing.T, cfg taskmgr.Config) {
				b := newBench(t, cfg, 6)
				b.hostIdle = 0.3
				prog := randomProgram(b.rng, b.lay, 0, 150, 3)
				for _, tk := range prog {
					tk.deps, tk.desc.Deps = nil, nil
					raw, err := b.lay.Encode(tk.desc)
					if err != nil {
						t.Fatal(err)
					}
					tk.raw = raw
					if back := b.lay.Decode(raw); !cmp.Equal(back, tk.desc, cmpopts.EquateEmpty()) {
						t.Fatalf("Go decode of %s: %s", tk.name, cmp.Diff(tk.desc, back))
					}
					b.add(tk)
				}
				b.run(10000)
				b.check()
				if tc.cfg == smallConfig() {
					b.crossCheck()
				}
			})
		})
	}
}

// The window: while task 0 (long) is incomplete, tasks 1..window-1 of its
// queue may be issued and run, task window may not (its scoreboard slot is
// task 0's). Task 1 waits for task 0 all along; an issue that ignored the
// window would let task 16's completion pose as task 0's and release it.
func TestWindowFull(t *testing.T) { bothWays(t, smallConfig(), testWindowFull) }

func testWindowFull(t *testing.T, cfg taskmgr.Config) {
	b := newBench(t, cfg, 12)
	prog := chain(3*cfg.Window, func(i int) int { return 2 }, func(i int) isa.Engine {
		return []isa.Engine{isa.DMAIn, isa.DMAOut}[i%2]
	}, false)
	prog[0].desc.Engine, prog[0].lat = isa.NE, 300
	prog[1].desc.Engine, prog[1].deps, prog[1].desc.Deps = isa.Planar, prog[:1], []uint64{0}
	for _, tk := range prog {
		b.add(tk)
	}
	b.run(2000)
	b.check()
	w := cfg.Window
	if last := prog[w-1]; last.done >= prog[0].done {
		t.Errorf("task %d (inside the window) completed at %d, not while task 0 ran (until %d)", w-1, last.done, prog[0].done)
	}
	if first := prog[w]; first.dispatch <= prog[0].done {
		t.Errorf("task %d (outside the window) dispatched at %d, before task 0 completed at %d", w, first.dispatch, prog[0].done)
	}
	b.crossCheck()
}

// Arbitration: when tasks of both queues are ready, queue 0 (the higher
// priority) wins, except over a task already offered to the engine (an
// offer stands until taken: q1.t0, offered while the engines refused work
// and before queue 0 had tasks); when queue 0's tasks wait for a
// dependency (and, with three of them, its head waits for a full engine
// slot as well), queue 1's ready tasks go past them.
func TestPriority(t *testing.T) {
	held := func(prog []*task, idx ...int) []*task {
		for _, i := range idx {
			prog[i].desc.Hold = true
		}
		return prog
	}
	named := func(q int, prog []*task) []*task {
		for _, tk := range prog {
			tk.queue, tk.name = q, fmt.Sprintf("q%d.%s", q, tk.name)
		}
		return prog
	}
	independent := func(q int) []*task {
		return named(q, chain(4, func(int) int { return 3 }, func(int) isa.Engine { return isa.NE }, false))
	}
	// q0: a long load, three NE tasks that need it, a store after them.
	waiting := func() []*task {
		prog := chain(5, func(i int) int { return []int{30, 3, 3, 3, 2}[i] },
			func(i int) isa.Engine { return []isa.Engine{isa.DMAIn, isa.NE, isa.NE, isa.NE, isa.DMAOut}[i] }, false)
		for i := 1; i < 5; i++ {
			dep := prog[0]
			if i == 4 {
				dep = prog[3]
			}
			prog[i].deps, prog[i].desc.Deps = []*task{dep}, []uint64{dep.desc.ID}
		}
		return named(0, prog)
	}
	cases := []struct {
		name  string
		cfg   taskmgr.Config
		stall bool // engines refuse work until every task is pushed
		push  []*task
		want  []string // NE dispatch order
	}{
		{"both ready: priority wins", smallConfig(), true, append(independent(1), independent(0)...),
			[]string{"q1.t0", "q0.t0", "q0.t1", "q0.t2", "q0.t3", "q1.t1", "q1.t2", "q1.t3"}},
		{"a waiting queue lets the lower one go", smallConfig(), false, append(waiting(), independent(1)...),
			[]string{"q1.t0", "q1.t1", "q1.t2", "q1.t3", "q0.t1", "q0.t2", "q0.t3"}},
		{"round-robin: the queues take turns", roundRobin(), true, append(independent(1), independent(0)...),
			[]string{"q1.t0", "q0.t0", "q1.t1", "q0.t1", "q1.t2", "q0.t2", "q1.t3", "q0.t3"}},
		// q1's t0 and t1 carry the hold flag: its next switch point is
		// after t2, so q0 overtakes there instead of after t0.
		{"hold: the lower queue runs to its switch point", smallConfig(), true, append(held(independent(1), 0, 1), independent(0)...),
			[]string{"q1.t0", "q1.t1", "q1.t2", "q0.t0", "q0.t1", "q0.t2", "q0.t3", "q1.t3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bothWays(t, tc.cfg, func(t *testing.T, cfg taskmgr.Config) {
				b := newBench(t, cfg, 13)
				for _, m := range b.eng {
					m.stall = map[bool]float64{true: 1}[tc.stall]
				}
				for _, tk := range tc.push {
					b.add(tk)
				}
				for b.next < len(b.tasks) {
					b.step()
				}
				b.step()
				for _, m := range b.eng {
					m.stall = 0
				}
				b.run(1000)
				b.check()
				var got []string
				for _, tk := range b.eng[isa.NE].order {
					got = append(got, tk.name)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("NE dispatch order (-want +got):\n%s", diff)
				}
				b.crossCheck()
			})
		})
	}
}
