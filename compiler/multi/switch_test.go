package multi

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// Task-switch points: a high-priority network submitted while a
// two-layer low-priority one runs takes over at the next task boundary
// by default, overtaking the running layer's tasks on the shared
// engines; when the low network holds within its layers
// (Program.HoldLayers) it starts on each engine only after the running
// layer's tasks there. Both runs stay bit-exact; the held run replays on
// Verilator (the build of TestConvEnginesVerilator).
func TestSwitchPoints(t *testing.T) {
	cfg := small(2)
	cfg.Queues = 2
	const release = 150
	rng := rand.New(rand.NewPCG(40, 2))
	q := golden.Requant{Scale: 1, Shift: 9, Relu: true}
	conv := compiler.Conv{PadH: 1, PadW: 1, Requant: q}
	hx, hw := sparseMap(rng, 4, 4, 4, 0.3, false), weights(rng, 4, 4, 3)
	lx, lw1, lw2 := sparseMap(rng, 4, 8, 6, 0.3, false), weights(rng, 8, 4, 3), weights(rng, 4, 8, 3)
	build := func(f func(g *compiler.Graph) *compiler.Value) (*compiler.Program, *golden.Tensor) {
		return compileSlice(t, cfg, f)
	}
	// overtaken lists the shared engines on which a high-priority task
	// started before a task of the low network's layer running at the
	// release.
	run := func(hold bool) (overtaken []string, res *host.Result) {
		hi, hiWant := build(func(g *compiler.Graph) *compiler.Value { return g.Conv2D(g.Input("x", hx), hw, conv) })
		lo, loWant := build(func(g *compiler.Graph) *compiler.Value {
			return g.Conv2D(g.Conv2D(g.Input("x", lx), lw1, conv), lw2, conv)
		})
		p, err := Networks(cfg, []*compiler.Program{hi, lo})
		if err != nil {
			t.Fatal(err)
		}
		if hold {
			p.HoldLayers(1)
		}
		if err := compiler.CheckDeps(p, nil); err != nil {
			t.Fatal(err)
		}
		res, err = host.Run(cfg, p, host.WithRelease(0, release))
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []*golden.Tensor{hiWant, loWant} {
			if k, ok := equal(want, res.Outputs[BandName("y", i)]); !ok {
				t.Fatalf("hold %v: network %d differs from the golden model at %d", hold, i, k)
			}
		}
		hiFirst, _ := queueSpan(p, res, 0)
		layer := -1 // the low network's layer running at the release
		for _, s := range res.Timeline {
			if tk := p.Tasks[s.ID]; tk.Queue == 1 && s.Start <= release {
				layer = max(layer, tk.Layer)
			}
		}
		firstHi, lastLo := map[string]int{}, map[string]int{}
		for _, s := range res.Timeline {
			switch tk := p.Tasks[s.ID]; {
			case tk.Queue == 0:
				if f, ok := firstHi[s.Engine]; !ok || s.Start < f {
					firstHi[s.Engine] = s.Start
				}
			case tk.Layer == layer:
				lastLo[s.Engine] = max(lastLo[s.Engine], s.Start)
			}
		}
		for _, e := range []string{"dma_in", "planar", "dma_out"} {
			if f, ok := firstHi[e]; ok && f < lastLo[e] {
				overtaken = append(overtaken, e)
			}
		}
		t.Logf("hold %v: released at %d, first high-priority task at %d (+%d); per engine, first high-priority start %v, last start of the low network's layer %d %v",
			hold, release, hiFirst, hiFirst-release, firstHi, layer, lastLo)
		return overtaken, res
	}
	if o, _ := run(false); len(o) == 0 {
		t.Errorf("without hold the high-priority network overtook the running layer on no engine: the test shows nothing")
	}
	o, res := run(true)
	if len(o) > 0 {
		t.Errorf("with hold the high-priority network overtook the running layer on %v", o)
	}
	tooltest.Need(t, "verilator")
	if _, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}}); err != nil {
		t.Fatal(err)
	}
}
