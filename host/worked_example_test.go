package host

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// roomy is the small NPU with room for the worked example: a weight
// buffer where C3's weights load while C2 still computes, configuration
// queues six deep, and the buffers' extra read ports (so this one
// Verilator build also serves TestOwnReadPorts).
func roomy() npu.Config {
	c := small()
	c.WeightDepth, c.EngineSlots, c.DMAReadPort, c.PsumReadPort = 256, 6, true, true
	return c
}

// workedExampleNet is the network of the task-order worked example
// (docs/sources.md §3) as a real workload: conv C1, pool P1, then two
// branches on P1's output: C2 → P2 → P3 → P4 → P5, and the long C3 (20
// output channels: five channel tiles of the 4-column array, its five
// sub-tasks) → C4. Program order is graph order, so C3 is listed after
// P5; the layer names map onto the example's task names.
func workedExampleNet(rng *rand.Rand) (*compiler.Graph, map[string]string) {
	q := golden.Requant{Scale: 1, Shift: 5}
	g := compiler.NewGraph()
	conv := func(in *compiler.Value, cin, cout int) *compiler.Value {
		return g.Conv2D(in, randTensor(rng, cout, cin, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: q})
	}
	pool := func(in *compiler.Value) *compiler.Value {
		return g.Pool2D(in, compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, PadH: 1, PadW: 1})
	}
	p1 := g.Pool2D(conv(g.Input("x", randTensor(rng, 4, 8, 8)), 4, 4), compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	g.Output("p5", pool(pool(pool(pool(conv(p1, 4, 4))))))
	g.Output("c4", conv(conv(p1, 4, 20), 20, 4))
	names := map[string]string{"conv2d0": "TC1", "pool0": "TP1", "conv2d1": "TC2", "pool1": "TP2",
		"pool2": "TP3", "pool3": "TP4", "pool4": "TP5", "conv2d2": "TC3", "conv2d3": "TC4"}
	return g, names
}

// exampleTask is one task of the worked example on the real engines: all
// the NE conv (or planar pool) tasks of one layer.
type exampleTask struct {
	name       string
	first      int // program index of its first task
	start, end int
	parts      map[string]bool // the layer's output channel tiles (n0, n1, ...)
}

// exampleTasks gathers the layer tasks from a run's timeline.
func exampleTasks(t *testing.T, p *compiler.Program, res *Result, names map[string]string) map[string]*exampleTask {
	t.Helper()
	byName := map[string]*exampleTask{}
	for i, s := range res.Timeline {
		layer, rest, _ := strings.Cut(s.Label, " ")
		name, ok := names[layer]
		if !ok || s.Op != "ne.conv" && s.Op != "planar.pool" {
			continue
		}
		if p.Tasks[i].Label != s.Label {
			t.Fatalf("timeline span %d is %q, program task %d is %q", i, s.Label, i, p.Tasks[i].Label)
		}
		et := byName[name]
		if et == nil {
			et = &exampleTask{name: name, first: i, start: s.Start, end: s.End, parts: map[string]bool{}}
			byName[name] = et
		}
		et.start, et.end = min(et.start, s.Start), max(et.end, s.End)
		for _, f := range strings.Fields(rest) {
			if len(f) > 1 && f[0] == 'n' {
				et.parts[f] = true
			}
		}
	}
	if len(byName) != len(names) {
		t.Fatalf("found %d of the example's %d tasks in the timeline", len(byName), len(names))
	}
	return byName
}

func startOrderOf(tasks map[string]*exampleTask) []string {
	var ts []*exampleTask
	for _, et := range tasks {
		ts = append(ts, et)
	}
	slices.SortFunc(ts, func(a, b *exampleTask) int { return a.start - b.start })
	var out []string
	for _, et := range ts {
		out = append(out, et.name)
	}
	return out
}

// The task-order worked example on the real engines (not the engine
// models of the task manager's own test): C1..C4 on the PE array, P1..P5
// on the planar engine, each layer's conv passes and write-backs as the
// compiler emits them. With configuration queues six tasks deep, the
// issue reaches C3 (listed after P5) while C2's write-back still holds
// the planar engine, so the start order is TC1, TP1, TC2, TC3, TP2,
// TP3, TP4, TP5, TC4 and TP2..TP4 run while C3's five sub-tasks do.
// With the default two the issue stops behind the planar tasks and C3
// starts only after TP2: the contrast shows what the order comes from.
func TestWorkedExampleOnNPU(t *testing.T) {
	run := func(t *testing.T, slots int) (*Result, map[string]*exampleTask) {
		cfg := roomy()
		cfg.EngineSlots = slots
		g, names := workedExampleNet(rand.New(rand.NewPCG(8, 8)))
		want, err := g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compiler.Compile(cfg, g)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Fatalf("(-golden +simulator):\n%s", d)
		}
		tasks := exampleTasks(t, p, res, names)
		for _, n := range []string{"TC1", "TP1", "TC2", "TC3", "TP2", "TP3", "TP4", "TP5", "TC4"} {
			et := tasks[n]
			t.Logf("engine_slots %d: %s listed %2d, ran %4d..%4d", slots, n, et.first, et.start, et.end)
		}
		return res, tasks
	}

	t.Run("engine_slots 6", func(t *testing.T) {
		res, tasks := run(t, 6)
		want := []string{"TC1", "TP1", "TC2", "TC3", "TP2", "TP3", "TP4", "TP5", "TC4"}
		if d := cmp.Diff(want, startOrderOf(tasks)); d != "" {
			t.Errorf("start order (-want +got):\n%s", d)
		}
		tc3 := tasks["TC3"]
		if tc3.first < tasks["TP5"].first {
			t.Errorf("C3 is listed at %d, before P5 (%d): the example needs it listed after", tc3.first, tasks["TP5"].first)
		}
		if got := len(tc3.parts); got != 5 {
			t.Errorf("C3 has %d channel-tile sub-tasks (%v), want 5", got, tc3.parts)
		}
		for _, n := range []string{"TP2", "TP3", "TP4"} {
			if tp := tasks[n]; tp.start < tc3.start || tp.end > tc3.end {
				t.Errorf("%s ran %d..%d, not while C3 ran %d..%d", n, tp.start, tp.end, tc3.start, tc3.end)
			}
		}
		tooltest.Need(t, "verilator")
		cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Verilator identical on %d outputs × %d cycles", cr.Outputs, cr.Cycles)
	})
	t.Run("engine_slots 2", func(t *testing.T) {
		_, tasks := run(t, npu.DefaultConfig().EngineSlots)
		if tc3, tp2 := tasks["TC3"], tasks["TP2"]; tc3.start < tp2.start {
			t.Errorf("with two slots C3 started at %d, before P2 (%d): the contrast no longer shows", tc3.start, tp2.start)
		}
	})
}
