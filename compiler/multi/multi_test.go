package multi

import (
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

func small(engines int) npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth, c.ExtAddrWidth = 4, 4, 256, 64, 64, 12
	c.Engines = engines
	return c
}

// sparseMap is a [C,H,W] int8 map with the given share of zeros; with
// skew the zeros thin out towards the bottom rows (density 0.1 at the
// top, 0.9 at the bottom).
func sparseMap(rng *rand.Rand, c, h, w int, zeros float64, skew bool) *golden.Tensor {
	t := golden.New(c, h, w)
	for ch := range c {
		for y := range h {
			d := 1 - zeros
			if skew {
				d = 0.1 + 0.8*float64(y)/float64(max(h-1, 1))
			}
			for x := range w {
				if rng.Float64() < d {
					t.Data[(ch*h+y)*w+x] = int64(rng.IntN(255) - 127)
				}
			}
		}
	}
	return t
}

func weights(rng *rand.Rand, co, ci, k int) *golden.Tensor {
	t := golden.New(co, ci, k, k)
	for i := range t.Data {
		t.Data[i] = int64(rng.IntN(255) - 127)
	}
	return t
}

func equal(a, b *golden.Tensor) (int, bool) {
	if len(a.Data) != len(b.Data) {
		return -1, false
	}
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			return i, false
		}
	}
	return 0, true
}

// A conv split among 2 and 3 engines (balanced and equal-area, uniform
// and skewed zeros, stride 1 and 2, one merged program or a queue per
// band) runs on the multi-engine NPU and, stitched, is bit-identical to
// the single-engine run and the golden model; every engine does work and
// skips MACs.
func TestConvEngines(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	q := golden.Requant{Scale: 1, Shift: 8, Relu: true}
	for _, tc := range []struct {
		name      string
		engines   int
		c, h, w   int
		cout, k   int
		conv      compiler.Conv
		skew      bool
		equalArea bool
		perQueue  bool
	}{
		{"2 engines balanced skewed", 2, 8, 12, 8, 8, 3, compiler.Conv{PadH: 1, PadW: 1, Requant: q}, true, false, false},
		{"2 engines equal-area skewed", 2, 8, 12, 8, 8, 3, compiler.Conv{PadH: 1, PadW: 1, Requant: q}, true, true, false},
		{"3 engines uniform stride 2", 3, 4, 15, 7, 4, 3, compiler.Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q}, false, false, false},
		{"3 engines, a queue per band", 3, 8, 12, 8, 8, 3, compiler.Conv{PadH: 1, PadW: 1, Requant: q}, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := sparseMap(rng, tc.c, tc.h, tc.w, 0.5, tc.skew)
			w := weights(rng, tc.cout, tc.c, tc.k)
			cfg := small(tc.engines)
			cfg.Queues = max(cfg.Queues, tc.engines)
			mp, err := Conv2D(cfg, x, w, tc.conv, Options{EqualArea: tc.equalArea, QueuePerBand: tc.perQueue})
			if err != nil {
				t.Fatal(err)
			}
			if err := compiler.CheckDeps(mp.Program, nil); err != nil {
				t.Fatal(err)
			}
			res, err := host.Run(cfg, mp.Program)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mp.Stitch(res.Outputs)
			if err != nil {
				t.Fatal(err)
			}
			g := compiler.NewGraph()
			g.Output("y", g.Conv2D(g.Input("x", x), w, tc.conv))
			want, err := g.Reference(cfg.Slice())
			if err != nil {
				t.Fatal(err)
			}
			if i, ok := equal(want["y"], got); !ok {
				t.Fatalf("output differs from the golden model at %d", i)
			}
			one, err := compiler.Compile(cfg.Slice(), g)
			if err != nil {
				t.Fatal(err)
			}
			r1, err := host.Run(cfg.Slice(), one)
			if err != nil {
				t.Fatal(err)
			}
			if i, ok := equal(r1.Outputs["y"], got); !ok {
				t.Fatalf("output differs from the single-engine run at %d", i)
			}
			if len(res.NEs) != tc.engines {
				t.Fatalf("%d per-engine stats", len(res.NEs))
			}
			var macs, skips uint64
			for i, e := range res.NEs {
				if e.MACs == 0 || e.Skipped == 0 || e.Busy == 0 {
					t.Errorf("engine %d: %+v", i, e)
				}
				macs, skips = macs+e.MACs, skips+e.Skipped
			}
			if macs != res.MACs || skips != res.Skipped {
				t.Errorf("per-engine MACs %d, skipped %d; totals %d, %d", macs, skips, res.MACs, res.Skipped)
			}
			t.Logf("%d engines: %d cycles (one engine %d, ×%.2f); bands %v; imbalance %.1f%%; NE busy %v",
				tc.engines, res.Cycles, r1.Cycles, float64(r1.Cycles)/float64(res.Cycles), bandRows(mp), 100*mp.Metrics.Imbalance, busy(res))
		})
	}
}

func bandRows(p *Program) []int {
	var r []int
	for _, pt := range p.Plan.Parts {
		r = append(r, pt.Rows.Out.Len())
	}
	return r
}

func busy(r *host.Result) []uint64 {
	var b []uint64
	for _, e := range r.NEs {
		b = append(b, e.Busy)
	}
	return b
}

// The compiled two-engine conv, as one merged program and with a queue
// per band, and two networks at two priorities (the same hardware, one
// Verilator build), replay identically on Verilator.
func TestConvEnginesVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	rng := rand.New(rand.NewPCG(10, 11))
	x := sparseMap(rng, 4, 8, 6, 0.5, false)
	w := weights(rng, 4, 4, 3)
	cfg := small(2)
	for _, perQueue := range []bool{false, true} {
		mp, err := Conv2D(cfg, x, w, compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 7}}, Options{QueuePerBand: perQueue})
		if err != nil {
			t.Fatal(err)
		}
		res, err := host.Run(cfg, mp.Program)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("queue per band %v: Verilator agrees on %d outputs over %d cycles", perQueue, cr.Outputs, cr.Cycles)
	}
	// Two networks at two priorities, the high one submitted mid-run.
	n := newTwoNetworks(t, cfg, rng, [4]int{4, 8, 6, 4}, [4]int{4, 4, 4, 4})
	p, err := Networks(cfg, n.progs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := host.Run(cfg, p, host.WithRelease(0, 150))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("two networks: Verilator agrees on %d outputs over %d cycles", cr.Outputs, cr.Cycles)
}

// Relocation: band i's DMA, NE and planar operands land in slice i and
// its external region, its NE tasks name engine i, and the merged
// program keeps every band's order and dependencies.
func TestMergeRelocates(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 12))
	x := sparseMap(rng, 4, 10, 6, 0.5, false)
	w := weights(rng, 4, 4, 3)
	cfg := small(2)
	mp, err := Conv2D(cfg, x, w, compiler.Conv{PadH: 1, PadW: 1}, Options{EqualArea: true})
	if err != nil {
		t.Fatal(err)
	}
	if mp.Ext[1] != len(mp.Bands[0].Image) {
		t.Fatalf("band 1 at line %d, band 0 has %d", mp.Ext[1], len(mp.Bands[0].Image))
	}
	seen := map[string]int{}
	for _, tk := range mp.Tasks {
		band := int(tk.Label[1] - '0')
		seen[tk.Label]++
		for _, s := range append(append([]isa.Span{}, tk.Reads...), tk.Writes...) {
			var lo, hi int
			switch s.Mem {
			case isa.MemState:
				lo, hi = band*cfg.StateDepth, (band+1)*cfg.StateDepth
			case isa.MemPsum:
				lo, hi = band*cfg.PsumDepth, (band+1)*cfg.PsumDepth
			case isa.MemWeight:
				lo, hi = band*cfg.WeightDepth, (band+1)*cfg.WeightDepth
			case isa.MemExt:
				lo, hi = mp.Ext[band], mp.Ext[band]+len(mp.Bands[band].Image)
			}
			if s.Lo < lo || s.Hi > hi {
				t.Errorf("%s: %v outside band %d's [%d,%d)", tk.Label, s, band, lo, hi)
			}
		}
		if tk.Desc.Engine == 1 {
			if e := cfg.NEParams().Unpack(tk.Desc.Param)[isa.EngineField]; int(e) != band {
				t.Errorf("%s names engine %d", tk.Label, e)
			}
		}
		for _, d := range tk.Desc.Deps {
			if d >= tk.Desc.ID || int(mp.Tasks[d].Label[1]-'0') != band {
				t.Errorf("%s depends on %d (%s)", tk.Label, d, mp.Tasks[d].Label)
			}
		}
	}
	if n := len(mp.Bands[0].Tasks) + len(mp.Bands[1].Tasks); n != len(mp.Tasks) {
		t.Errorf("%d tasks merged from %d", len(mp.Tasks), n)
	}
}
