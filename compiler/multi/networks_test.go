package multi

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
)

// twoNetworks is a low-priority network (a long conv) and a
// high-priority one (a short conv) for cfg's two slices, with their
// golden outputs: networks[0] goes to queue 0 (the high priority).
type twoNetworks struct {
	progs []*compiler.Program
	want  []*golden.Tensor
}

func newTwoNetworks(t *testing.T, cfg npu.Config, rng *rand.Rand, low, high [4]int) twoNetworks {
	t.Helper()
	var n twoNetworks
	q := golden.Requant{Scale: 1, Shift: 9, Relu: true}
	for _, s := range [][4]int{high, low} { // C, H, W, Cout
		x := sparseMap(rng, s[0], s[1], s[2], 0.3, false)
		w := weights(rng, s[3], s[0], 3)
		p, want := compileSlice(t, cfg, func(g *compiler.Graph) *compiler.Value {
			return g.Conv2D(g.Input("x", x), w, compiler.Conv{PadH: 1, PadW: 1, Requant: q})
		})
		n.progs = append(n.progs, p)
		n.want = append(n.want, want)
	}
	return n
}

// compileSlice compiles the one-output graph f builds (output "y") for
// one engine's slice of cfg, with its golden output.
func compileSlice(t *testing.T, cfg npu.Config, f func(g *compiler.Graph) *compiler.Value) (*compiler.Program, *golden.Tensor) {
	t.Helper()
	g := compiler.NewGraph()
	g.Output("y", f(g))
	p, err := compiler.Compile(cfg.Slice(), g)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg.Slice())
	if err != nil {
		t.Fatal(err)
	}
	return p, ref["y"]
}

// check fails unless both networks' outputs equal their golden models.
func (n twoNetworks) check(t *testing.T, r *host.Result) {
	t.Helper()
	for i, want := range n.want {
		if k, ok := equal(want, r.Outputs[BandName("y", i)]); !ok {
			t.Fatalf("network %d differs from the golden model at %d", i, k)
		}
	}
}

// queueSpan is the first start and the last end of queue q's tasks.
func queueSpan(p *compiler.Program, r *host.Result, q int) (first, last int) {
	first = -1
	for _, s := range r.Timeline {
		if p.Tasks[s.ID].Queue != q {
			continue
		}
		if first < 0 || s.Start < first {
			first = s.Start
		}
		last = max(last, s.End)
	}
	return first, last
}

// A high-priority network submitted while a low-priority one runs: its
// tasks overtake the running network's at task boundaries on the shared
// engines (it starts within one task of the other network's, and ends
// first), and both results stay bit-exact.
func TestTwoNetworksTwoPriorities(t *testing.T) {
	cfg := small(2)
	rng := rand.New(rand.NewPCG(30, 1))
	n := newTwoNetworks(t, cfg, rng, [4]int{8, 16, 12, 8}, [4]int{4, 6, 6, 4})
	p, err := Networks(cfg, n.progs)
	if err != nil {
		t.Fatal(err)
	}
	if err := compiler.CheckDeps(p, nil); err != nil {
		t.Fatal(err)
	}
	const release = 300
	r, err := host.Run(cfg, p, host.WithRelease(0, release))
	if err != nil {
		t.Fatal(err)
	}
	n.check(t, r)
	hiFirst, hiLast := queueSpan(p, r, 0)
	_, loLast := queueSpan(p, r, 1)
	// The longest task of the low-priority network running on a shared
	// engine bounds the wait for a task boundary.
	longest := 0
	for _, s := range r.Timeline {
		if p.Tasks[s.ID].Queue == 1 && s.Engine != "ne" {
			longest = max(longest, s.End-s.Start+1)
		}
	}
	if hiFirst < release || hiFirst-release > longest {
		t.Errorf("the high-priority network starts at %d, released at %d (a low-priority task lasts up to %d)", hiFirst, release, longest)
	}
	if hiLast >= loLast {
		t.Errorf("the high-priority network ends at %d, the low-priority one at %d", hiLast, loLast)
	}
	t.Logf("released at %d, first task at %d (+%d), done at %d; low-priority network done at %d", release, hiFirst, hiFirst-release, hiLast, loLast)
}

// TestTwoPrioritiesTable measures the BENCHMARKS.md table "Two networks
// at two priorities" on the default NPU with two engines: a 16×16×16
// conv (high priority, queue 0, engine 0) submitted while a 32×48×48
// conv (low priority, queue 1, engine 1) runs.
//
//	QUEUE_BENCH=1 go test ./compiler/multi -run TestTwoPrioritiesTable -v
func TestTwoPrioritiesTable(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "QUEUE_BENCH", "run the two-priority table")
	for _, own := range []bool{false, true} {
		cfg := npu.DefaultConfig()
		cfg.Engines = 2
		cfg.DMAReadPort, cfg.PsumReadPort = own, own
		rng := rand.New(rand.NewPCG(31, 1))
		n := newTwoNetworks(t, cfg, rng, [4]int{32, 48, 48, 32}, [4]int{16, 16, 16, 16})
		alone := make([]int, 2)
		for i, p := range n.progs {
			r, err := host.Run(cfg.Slice(), p)
			if err != nil {
				t.Fatal(err)
			}
			alone[i] = r.Cycles
		}
		p, err := Networks(cfg, n.progs)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("\nread ports of their own %v. high priority: conv 16×16×16 → 16 alone %d cycles; low priority: conv 32×48×48 → 32 alone %d cycles\n\n", own, alone[0], alone[1])
		fmt.Println("| high-priority network submitted at | its first task starts | latency | it completes after | low-priority network completes at |")
		fmt.Println("|---:|---:|---:|---:|---:|")
		for _, release := range []int{0, 5000, 20000, 40000} {
			r, err := host.Run(cfg, p, host.WithRelease(0, release))
			if err != nil {
				t.Fatal(err)
			}
			n.check(t, r)
			hiFirst, hiLast := queueSpan(p, r, 0)
			_, loLast := queueSpan(p, r, 1)
			fmt.Printf("| %d | %d | %d | %d (alone %d) | %d (alone %d) |\n", release, hiFirst, hiFirst-release, hiLast-release+1, alone[0], loLast+1, alone[1])
		}
	}
}

// TestTwoNetworksRings: the two networks submitted through descriptor
// rings, the high-priority one's doorbell rung at several cycles while
// the low-priority one's descriptors are being fetched. A fetch for the
// low queue in flight at the doorbell is abandoned for the high queue's
// (desc_replaced), with no side effect: every run stays bit-exact and
// every descriptor is committed exactly once.
//
// The NPU also keeps a base pointer per network, so the networks are
// moved in external memory by their base pointers; one run, with
// replacements, is replayed on Verilator.
func TestTwoNetworksRings(t *testing.T) {
	cfg := ringsAndNetworks()
	rng := rand.New(rand.NewPCG(30, 1))
	n := newTwoNetworks(t, cfg, rng, [4]int{8, 16, 12, 8}, [4]int{4, 6, 6, 4})
	p, err := Networks(cfg, n.progs)
	if err != nil {
		t.Fatal(err)
	}
	replaced := 0
	var replay *host.Result
	for release := 40; release < 400; release += 23 {
		opts := []host.Option{host.WithRelease(0, release)}
		if replay != nil {
			opts = append(opts, host.WithoutStimulus())
		}
		r, err := host.Run(cfg, p, opts...)
		if err != nil {
			t.Fatalf("released at %d: %v", release, err)
		}
		n.check(t, r)
		if r.DescFetched != uint64(len(p.Tasks)) {
			t.Errorf("released at %d: desc_fetched = %d, want %d", release, r.DescFetched, len(p.Tasks))
		}
		hiFirst, _ := queueSpan(p, r, 0)
		if hiFirst < release {
			t.Errorf("the high-priority network starts at %d, before its doorbell at %d", hiFirst, release)
		}
		replaced += int(r.DescReplaced)
		if replay == nil && r.DescReplaced > 0 {
			replay = r
		}
		t.Logf("doorbell at %d: first high-priority task at %d (+%d), %d fetches replaced, %d cycles", release, hiFirst, hiFirst-release, r.DescReplaced, r.Cycles)
	}
	if replaced == 0 {
		t.Fatal("no fetch was ever replaced by the high-priority arrival")
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(replay.Design, replay.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles", cr.Outputs, cr.Cycles)
}

// ringsAndNetworks is the two-engine NPU with descriptor rings of 8,
// task manager queues of 2 and two networks' base pointers (one
// Verilator build serves the tests that use it).
func ringsAndNetworks() npu.Config {
	cfg := small(2)
	cfg.DescRingBits, cfg.QueueDepth, cfg.Networks = 3, 2, 2
	return cfg
}

// TestNetworksBasePointers: two instances of one network (the same
// graph, other data) on an NPU with a base pointer per network. Their
// DMA descriptors are the same bits apart from the network ID: each
// instance's external lines are relative to its base pointer, which the
// host writes; the spans (what the tasks touch) differ by the second
// instance's offset. Both results equal the golden model on the
// NPU, replayed on Verilator.
func TestNetworksBasePointers(t *testing.T) {
	cfg := ringsAndNetworks()
	rng := rand.New(rand.NewPCG(33, 1))
	q := golden.Requant{Scale: 1, Shift: 9, Relu: true}
	w := weights(rng, 4, 4, 3)
	var progs []*compiler.Program
	var want []*golden.Tensor
	for range 2 {
		x := sparseMap(rng, 4, 6, 6, 0.3, false)
		p, y := compileSlice(t, cfg, func(g *compiler.Graph) *compiler.Value {
			return g.Conv2D(g.Input("x", x), w, compiler.Conv{PadH: 1, PadW: 1, Requant: q})
		})
		progs, want = append(progs, p), append(want, y)
	}
	p, err := Networks(cfg, progs)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.NetBases) != 2 || p.NetBases[0] != 0 || p.NetBases[1] != uint64(len(progs[0].Image)) {
		t.Fatalf("base pointers %v, want [0 %d]", p.NetBases, len(progs[0].Image))
	}
	qt := p.QueueTasks()
	for k := range qt[0] {
		a, b := p.Tasks[qt[0][k]], p.Tasks[qt[1][k]]
		if a.Desc.Engine != isa.DMAIn && a.Desc.Engine != isa.DMAOut {
			continue
		}
		if !a.Desc.SrcMem && !a.Desc.DstMem || a.Desc.Net != 0 || b.Desc.Net != 1 {
			t.Errorf("%s: src_mem %v dst_mem %v, networks %d and %d", a.Label, a.Desc.SrcMem, a.Desc.DstMem, a.Desc.Net, b.Desc.Net)
		}
		// The external lines (dma_in's src, dma_out's dst) are the same;
		// the state addresses differ by the slice.
		if ea, eb := extLine(a.Desc), extLine(b.Desc); ea != eb {
			t.Errorf("%s: the instances' external lines differ: %d and %d", a.Label, ea, eb)
		}
	}
	r, err := host.Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if k, ok := equal(want[i], r.Outputs[BandName("y", i)]); !ok {
			t.Fatalf("network %d differs from the golden model at %d", i, k)
		}
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(r.Design, r.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles", cr.Outputs, cr.Cycles)
}

// extLine is a DMA descriptor's external operand.
func extLine(d isa.Descriptor) uint64 {
	if d.Engine == isa.DMAIn {
		return d.Src
	}
	return d.Dst
}

// Networks refuses programs with lookups: the networks share the one
// planar table, and one's loadtable could replace the other's.
func TestNetworksRefuseTables(t *testing.T) {
	cfg := small(2)
	table := make([]int64, 1<<uint(cfg.ElemWidth))
	for k := range table {
		table[k] = int64(k/2 - 64)
	}
	var progs []*compiler.Program
	for range 2 {
		p, _ := compileSlice(t, cfg, func(g *compiler.Graph) *compiler.Value {
			return g.Lookup(g.Input("x", golden.New(4, 3, 3)), table, golden.Requant{})
		})
		progs = append(progs, p)
	}
	if _, err := Networks(cfg, progs); err != errTable {
		t.Errorf("error %v, want %v", err, errTable)
	}
}
