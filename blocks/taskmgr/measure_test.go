package taskmgr_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa"
)

// measurement is one row of BENCHMARKS.md.
type measurement struct {
	scenario      string
	tasks, cycles int
	overhead, gap []int // dispatch overhead per dependent task; idle cycles between consecutive tasks of one engine
	latency       []int // command handshake to dispatch
}

// measureScenario runs prog (one queue) on cfg and measures, on the
// simulated hardware:
//   - dispatch overhead: the cycle a task is handed to its engine minus
//     the cycle its last dependency's done pulse came (0: same cycle);
//   - gap: idle engine cycles between one task's last cycle and the next
//     task's first cycle on the same engine;
//   - latency: the cycle a descriptor is dispatched minus the cycle it was
//     accepted on the command port.
func measureScenario(t *testing.T, cfg taskmgr.Config, name string, prog []*task, depth int) measurement {
	b := newBench(t, cfg, 11)
	for _, m := range b.eng {
		m.depth = depth
	}
	for _, tk := range prog {
		b.add(tk)
	}
	b.run(100 * len(prog))
	b.check()
	r := measurement{scenario: name, tasks: len(prog), cycles: b.cycle}
	for _, tk := range prog {
		r.latency = append(r.latency, tk.dispatch-tk.pushed)
		if len(tk.deps) > 0 {
			last := tk.deps[0].done
			for _, d := range tk.deps {
				last = max(last, d.done)
			}
			r.overhead = append(r.overhead, tk.dispatch-last)
		}
	}
	for _, m := range b.eng {
		for i := 1; i < len(m.order); i++ {
			r.gap = append(r.gap, m.order[i].start-m.order[i-1].done-1)
		}
	}
	return r
}

// chain builds n tasks; engineOf picks each task's engine, dep says whether
// it depends on the task before it.
func chain(n int, lat func(i int) int, engineOf func(i int) isa.Engine, dep bool) []*task {
	var prog []*task
	for i := 0; i < n; i++ {
		tk := &task{name: fmt.Sprintf("t%d", i), prog: i, lat: lat(i),
			desc: isa.Descriptor{ID: uint64(i), Engine: engineOf(i), Src: uint64(i)}}
		if dep && i > 0 {
			tk.deps = []*task{prog[i-1]}
			tk.desc.Deps = []uint64{uint64(i - 1)}
		}
		prog = append(prog, tk)
	}
	return prog
}

func span(xs []int) string {
	if len(xs) == 0 {
		return "–"
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

func within(xs []int, lo, hi int) bool {
	for _, x := range xs {
		if x < lo || x > hi {
			return false
		}
	}
	return true
}

// TestMeasure measures dispatch overhead and back-to-back gaps on the
// simulated hardware and fails if they exceed the design's figures, on
// the default configuration, on its lean variant (the same figures but
// one cycle more from the command port to an idle engine: its queue has
// no bypass register) and with its queues in 4 words (one issue every 4
// cycles per queue). HWGEN_MEASURE=1 prints the Markdown tables of
// BENCHMARKS.md and docs/notes/task-manager.md.
func TestMeasure(t *testing.T) { bothWays(t, taskmgr.DefaultConfig(), measure) }

func measure(t *testing.T, cfg taskmgr.Config) {
	varied := func(i int) int { return 1 + (i*7)%8 } // 1..8 cycles, fixed so the table is reproducible
	one := func(int) int { return 1 }
	ne := func(int) isa.Engine { return isa.NE }
	round := func(i int) isa.Engine { return isa.Engine(i % isa.DenseEngines) }
	rows := []measurement{
		measureScenario(t, cfg, "chain across engines (each task waits for the previous, on another engine)", chain(64, varied, round, true), 2),
		measureScenario(t, cfg, "chain on one engine (each NE task waits for the previous)", chain(64, varied, ne, true), 2),
		measureScenario(t, cfg, "independent tasks on one engine, latency 1..8", chain(64, varied, ne, false), 2),
		measureScenario(t, cfg, "independent tasks on one engine, latency 1", chain(64, one, ne, false), 2),
		measureScenario(t, cfg, "chain on one engine, latency 1", chain(64, one, ne, true), 2),
		measureScenario(t, cfg, "engine without a pipeline slot (ready only when idle), independent tasks", chain(64, varied, ne, false), 1),
	}
	// With the queues in k words (Config.QueueWords) a queue issues one
	// descriptor every k cycles, so a dependent task may wait up to k-1
	// cycles for its descriptor and an engine up to k-1 cycles for its
	// next task; an idle machine takes k+2 cycles from the command port.
	k := max(cfg.QueueWords, 1)
	want := []struct{ overhead, gapLo, gapHi int }{{0, -1, 1 << 30}, {0, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, {0, 0, 0}, {-1, 1, 1}}
	for i := range want {
		want[i].gapHi += k - 1
	}
	for i, r := range rows {
		w := want[i]
		if w.overhead >= 0 && !within(r.overhead, w.overhead, w.overhead+k-1) {
			t.Errorf("%s: dispatch overhead %s cycles, want %d..%d", r.scenario, span(r.overhead), w.overhead, w.overhead+k-1)
		}
		if w.gapLo >= 0 && !within(r.gap, w.gapLo, w.gapHi) {
			t.Errorf("%s: back-to-back gap %s cycles, want %d..%d", r.scenario, span(r.gap), w.gapLo, w.gapHi)
		}
	}
	// A lone task on an idle machine: command port to engine port.
	wantLat, label := 2, "default config"
	switch {
	case cfg.Lean:
		wantLat, label = 3, "default config, lean"
	case k > 1:
		wantLat, label = k+2, fmt.Sprintf("default config, queue_words %d", k)
	}
	if lat := rows[2].latency[0]; lat != wantLat {
		t.Errorf("command-to-dispatch latency on an idle machine = %d cycles, want %d", lat, wantLat)
	}
	// Independent one-cycle tasks run at the queue's issue rate, one
	// every k cycles after the first's latency; 4 more cycles are the last
	// task's run and the bench's drain.
	if r, want := rows[3], k*(rows[3].tasks-1)+wantLat+4; r.cycles != want {
		t.Errorf("%s: %d cycles, want %d (one task every %d cycles)", r.scenario, r.cycles, want, k)
	}
	var md strings.Builder
	md.WriteString("| scenario (" + label + ", Go simulator) | tasks | cycles | dispatch overhead (cycles) | back-to-back gap (idle cycles) |\n|---|---|---|---|---|\n")
	for i, r := range rows {
		gap := span(r.gap)
		if want[i].gapLo < 0 {
			gap = "– (engines wait for each other)"
		}
		fmt.Fprintf(&md, "| %s | %d | %d | %s | %s |\n", r.scenario, r.tasks, r.cycles, span(r.overhead), gap)
	}
	fmt.Fprintf(&md, "\nCommand port to engine port on an idle machine: %d cycles.\n", rows[2].latency[0])

	// The task-order worked example (docs/sources.md §3), against running its tasks
	// one at a time.
	b := newBench(t, cfg, 9)
	prog := workedExample()
	serial := 0
	for _, tk := range prog {
		b.add(tk)
		serial += tk.lat
	}
	b.run(1000)
	first, last := prog[0].start, 0
	for _, tk := range prog {
		first, last = min(first, tk.start), max(last, tk.done)
	}
	makespan := last - first + 1
	if makespan >= serial {
		t.Errorf("worked example takes %d cycles, no faster than one task at a time (%d)", makespan, serial)
	}
	fmt.Fprintf(&md, "Task-order worked example (docs/sources.md §3): %d cycles from TC1's start to the last task's end; the same tasks one at a time: %d cycles.\n", makespan, serial)
	if os.Getenv("HWGEN_MEASURE") != "" {
		fmt.Print(md.String())
	} else {
		t.Log("\n" + md.String())
	}
}
