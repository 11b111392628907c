package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
)

// small is the 4×4 configuration the tests use: tiny buffers, so tiling,
// K-blocking, streaming and the psum halves are all exercised.
func small() npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth, c.ExtAddrWidth = 4, 4, 256, 64, 64, 10
	return c
}

// narrow has fewer PE columns than rows: results come back in tiles of
// Cols partitions.
func narrow() npu.Config {
	c := small()
	c.Rows, c.Cols, c.StateDepth, c.ExtAddrWidth = 8, 4, 512, 12
	return c
}

func randTensor(rng *rand.Rand, lo, hi int64, shape ...int) *golden.Tensor {
	t := golden.New(shape...)
	for i := range t.Data {
		t.Data[i] = lo + rng.Int64N(hi-lo+1)
	}
	return t
}

// verifyGraph compiles g, runs it on the interpreter in program order and
// in random legal orders, checks every output against the golden
// reference and the dependencies statically (declared and traced
// accesses).
func verifyGraph(t *testing.T, cfg npu.Config, g *Graph, orders int) *Program {
	t.Helper()
	p, err := Compile(cfg, g)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return verifyProgram(t, g, p, orders)
}

// verifyProgram is verifyGraph of a compiled program of g.
func verifyProgram(t *testing.T, g *Graph, p *Program, orders int) *Program {
	t.Helper()
	cfg := p.Config
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	got, _, err := Interpret(p)
	if err != nil {
		t.Fatalf("interpret: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("program order (-golden +interpreter):\n%s", d)
	}
	if err := CheckDeps(p, nil); err != nil {
		t.Fatalf("declared accesses: %v", err)
	}
	acc, err := TraceAccesses(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSpans(p, acc); err != nil {
		t.Fatal(err)
	}
	if err := CheckDeps(p, acc); err != nil {
		t.Fatalf("traced accesses: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, uint64(len(p.Tasks))))
	for i := 0; i < orders; i++ {
		order := RandomOrder(p, rng)
		got, _, err := InterpretOrder(p, order)
		if err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("random order %d (-golden +interpreter):\n%s", i, d)
		}
	}
	return p
}

func TestGEMM(t *testing.T) {
	cases := []struct {
		cfg     npu.Config
		m, k, n int
		q       golden.Requant
	}{
		{small(), 1, 1, 1, golden.Requant{}},
		{small(), 4, 4, 4, golden.Requant{}},
		{small(), 5, 7, 3, golden.Requant{Scale: 1, Shift: 4}},
		{small(), 9, 13, 11, golden.Requant{Scale: 3, Shift: 6, Rounding: golden.HalfEven, Relu: true}},
		{small(), 70, 6, 5, golden.Requant{Scale: 1, Shift: 5}},               // M > psum half: M blocks
		{small(), 33, 40, 9, golden.Requant{Scale: 1, Shift: 7}},              // K > weight half: K blocks
		{small(), 40, 20, 30, golden.Requant{Scale: 5, Bias: -100, Shift: 8}}, // streamed weights, many N tiles
		{narrow(), 10, 19, 9, golden.Requant{Scale: 1, Shift: 5}},
		{npu.DefaultConfig(), 24, 40, 20, golden.Requant{Scale: 1, Shift: 6}},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%dx%d/%dx%dx%d", tc.cfg.Rows, tc.cfg.Cols, tc.m, tc.k, tc.n)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.m), uint64(tc.k*tc.n)))
			g := NewGraph()
			a := g.Input("a", randTensor(rng, -128, 127, tc.m, tc.k))
			g.Output("c", g.GEMM(a, randTensor(rng, -128, 127, tc.k, tc.n), tc.q))
			p := verifyGraph(t, tc.cfg, g, 3)
			if want := int64(tc.m * tc.k * tc.n); p.MACs != want {
				t.Errorf("MACs %d, want %d", p.MACs, want)
			}
		})
	}
}

func TestConv2D(t *testing.T) {
	cases := []struct {
		cfg                  npu.Config
		ci, h, w, co, kh, kw int
		stride, padH, padW   int
		q                    golden.Requant
	}{
		{small(), 1, 3, 3, 1, 1, 1, 1, 0, 0, golden.Requant{}},
		{small(), 3, 5, 5, 2, 3, 3, 1, 0, 0, golden.Requant{Scale: 1, Shift: 6}},
		{small(), 3, 6, 7, 5, 3, 3, 1, 1, 1, golden.Requant{Scale: 1, Shift: 7, Relu: true}},
		{small(), 5, 9, 8, 6, 3, 3, 2, 1, 1, golden.Requant{Scale: 3, Shift: 9}},
		{small(), 2, 7, 7, 3, 2, 3, 2, 0, 1, golden.Requant{Scale: 1, Shift: 6}},
		{small(), 9, 6, 6, 4, 3, 3, 1, 1, 1, golden.Requant{Scale: 1, Shift: 8}},   // Cin > rows: channel tiles, weight groups
		{small(), 4, 12, 10, 4, 3, 3, 1, 1, 1, golden.Requant{Scale: 1, Shift: 7}}, // OH·OW > psum half: row blocks
		{small(), 2, 5, 5, 3, 5, 5, 1, 2, 2, golden.Requant{Scale: 1, Shift: 7}},   // kernel rows split over weight halves
		{small(), 2, 12, 6, 3, 5, 5, 1, 2, 2, golden.Requant{Scale: 1, Shift: 7}},  // ... and row blocks reaching into the bottom padding
		{small(), 3, 23, 6, 2, 3, 3, 2, 1, 1, golden.Requant{Scale: 1, Shift: 7}},  // stride 2 row blocks
		{narrow(), 11, 6, 5, 7, 3, 3, 1, 1, 1, golden.Requant{Scale: 1, Shift: 8}},
		{npu.DefaultConfig(), 20, 10, 10, 18, 3, 3, 1, 1, 1, golden.Requant{Scale: 1, Shift: 9}},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%dx%d/c%d_%dx%d_o%d_k%dx%d_s%d_p%d%d", tc.cfg.Rows, tc.cfg.Cols, tc.ci, tc.h, tc.w, tc.co, tc.kh, tc.kw, tc.stride, tc.padH, tc.padW)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.ci*tc.h), uint64(tc.co*tc.kw)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.ci, tc.h, tc.w))
			w := randTensor(rng, -128, 127, tc.co, tc.ci, tc.kh, tc.kw)
			g.Output("y", g.Conv2D(x, w, Conv{Stride: tc.stride, PadH: tc.padH, PadW: tc.padW, Requant: tc.q}))
			verifyGraph(t, tc.cfg, g, 3)
		})
	}
}

func TestTranspose(t *testing.T) {
	cases := []struct {
		cfg  npu.Config
		m, n int
	}{
		{small(), 1, 1}, {small(), 4, 4}, {small(), 3, 7}, {small(), 9, 5}, {small(), 17, 23},
		{narrow(), 13, 10}, {npu.DefaultConfig(), 40, 33},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dx%d/%dx%d", tc.cfg.Rows, tc.cfg.Cols, tc.m, tc.n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.m), uint64(tc.n)))
			g := NewGraph()
			a := g.Input("a", randTensor(rng, -128, 127, tc.m, tc.n))
			g.Output("at", g.Transpose(a))
			verifyGraph(t, tc.cfg, g, 3)
		})
	}
	// On chip twice: transpose of a transpose is the input again, through
	// a resident intermediate.
	rng := rand.New(rand.NewPCG(1, 2))
	g := NewGraph()
	in := randTensor(rng, -128, 127, 6, 9)
	a := g.Input("a", in)
	g.Output("a2", g.Transpose(g.Transpose(a)))
	p := verifyGraph(t, small(), g, 2)
	got, _, _ := Interpret(p)
	if d := cmp.Diff(in, got["a2"]); d != "" {
		t.Errorf("transposing twice (-in +out):\n%s", d)
	}
}

func TestPool(t *testing.T) {
	cases := []struct {
		cfg     npu.Config
		c, h, w int
		p       Pool
	}{
		{small(), 3, 4, 4, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}},
		{small(), 5, 7, 6, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}},
		{small(), 2, 6, 5, Pool{Kind: golden.PoolAvg, KH: 3, KW: 2, Stride: 1, PadH: 1, Requant: AvgRequant(6)}},
		{small(), 6, 5, 9, Pool{Kind: golden.PoolMax, KH: 2, KW: 3, Stride: 1, PadW: 1, Padding: golden.PadEdge}},
		{small(), 4, 6, 7, Pool{Kind: golden.PoolMin, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}},
		{narrow(), 9, 5, 6, Pool{Kind: golden.PoolMin, KH: 2, KW: 3, Stride: 2, PadW: 1, Padding: golden.PadEdge}},
		{narrow(), 11, 5, 5, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)}},
		{small(), 4, 7, 6, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore}},
		{narrow(), 7, 5, 6, Pool{Kind: golden.PoolMin, KH: 2, KW: 3, Stride: 1, PadH: 1, PadW: 2, Padding: golden.PadIgnore}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dx%d/%dx%dx%d_%v", tc.cfg.Rows, tc.cfg.Cols, tc.c, tc.h, tc.w, tc.p.KH), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.c), uint64(tc.h*tc.w)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.c, tc.h, tc.w))
			g.Output("y", g.Pool2D(x, tc.p))
			verifyGraph(t, tc.cfg, g, 3)
		})
	}
}

// Max pooling that ignores its padding (ONNX MaxPool) keeps a negative
// plane negative at the borders, where zero padding would give 0.
func TestPoolIgnoresPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, -1, 5, 6, 7))
	g.Output("y", g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Padding: golden.PadIgnore}))
	got, _, err := Interpret(verifyGraph(t, small(), g, 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got["y"].Data {
		if v >= 0 {
			t.Fatalf("y[%d] = %d: the padding won", i, v)
		}
	}
}

func TestEltwise(t *testing.T) {
	for _, fn := range []golden.EltOp{golden.EltAdd, golden.EltSub, golden.EltMul, golden.EltMax, golden.EltMin} {
		for _, shape := range [][]int{{3, 5}, {9, 4, 3}, {1, 60}} {
			t.Run(fmt.Sprintf("%v/%v", fn, shape), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(fn), uint64(len(shape))))
				g := NewGraph()
				a := g.Input("a", randTensor(rng, -128, 127, shape...))
				b := g.Input("b", randTensor(rng, -128, 127, shape...))
				q := golden.Requant{Scale: 1, Shift: 1}
				if fn == golden.EltMul {
					q.Shift = 6
				}
				g.Output("y", g.Eltwise(fn, a, b, q))
				g.Output("s", g.EltwiseScalar(fn, a, -3, golden.Requant{}))
				verifyGraph(t, small(), g, 2)
			})
		}
	}
}

func TestRequantAndReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := NewGraph()
	x := g.Input("x", randTensor(rng, -128, 127, 6, 4, 5))
	r := g.Requant(x, golden.Requant{Scale: 3, Shift: 2, Relu: true})
	g.Output("relu", r)
	g.Output("sum", g.Reduce(r, golden.ReduceSum, golden.Requant{Scale: 1, Shift: 4}))
	g.Output("max", g.Reduce(x, golden.ReduceMax, golden.Requant{}))
	verifyGraph(t, small(), g, 3)
}

// TestNetwork chains conv → ReLU (the act's requant) → max pool → conv →
// fully connected; the intermediates stay in the state buffer.
func TestNetwork(t *testing.T) {
	for _, cfg := range []npu.Config{small(), narrow()} {
		t.Run(fmt.Sprintf("%dx%d", cfg.Rows, cfg.Cols), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, 3, 8, 8))
			y := g.Conv2D(x, randTensor(rng, -128, 127, 6, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
			y = g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
			y = g.Conv2D(y, randTensor(rng, -128, 127, 5, 6, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
			g.Output("fc", g.GEMM(g.Flatten(y), randTensor(rng, -128, 127, 5*4*4, 10), golden.Requant{Scale: 1, Shift: 9}))
			p := verifyGraph(t, cfg, g, 4)
			// No DMA round trip: the only stores are the final result's,
			// the only loads the input and the weights.
			for _, task := range p.Tasks {
				if task.Desc.Engine == 3 && !strings.HasPrefix(task.Label, "gemm0") {
					t.Errorf("intermediate stored to external memory: %s", task.Label)
				}
				if task.Desc.Engine == isa.DMAIn && task.Desc.Op == isa.DMAInLoad && !strings.HasPrefix(task.Label, "conv2d0 load input") {
					t.Errorf("intermediate loaded from external memory: %s", task.Label)
				}
			}
			t.Logf("%s", p.Summary())
		})
	}
}

// TestGEMMChains: the transpose of a GEMM result is free, a plain matrix
// as a GEMM operand is transposed on chip, results are read back while
// another op still uses them.
func TestGEMMChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := NewGraph()
	a := g.Input("a", randTensor(rng, -128, 127, 7, 6))
	c := g.GEMM(a, randTensor(rng, -128, 127, 6, 9), golden.Requant{Scale: 1, Shift: 6})
	g.Output("c", c)
	ct := g.Transpose(c) // [9][7], a view
	g.Output("ct", ct)
	d := g.Eltwise(golden.EltAdd, ct, ct, golden.Requant{}) // plain [9][7]
	e := g.GEMM(d, randTensor(rng, -128, 127, 7, 5), golden.Requant{Scale: 1, Shift: 7})
	g.Output("e", e)
	verifyGraph(t, small(), g, 3)
}

// TestJoinsAndWindow: max_deps 1 forces join nops, a window of 4 drops
// the dependencies it implies; results and the static check still hold.
func TestJoinsAndWindow(t *testing.T) {
	for _, lim := range []struct{ deps, window int }{{1, 4}, {2, 4}, {1, 64}, {8, 1024}} {
		cfg := small()
		cfg.MaxDeps, cfg.Window = lim.deps, lim.window
		rng := rand.New(rand.NewPCG(13, 14))
		g := NewGraph()
		x := g.Input("x", randTensor(rng, -128, 127, 3, 6, 6))
		y := g.Conv2D(x, randTensor(rng, -128, 127, 5, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
		a := g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
		b := g.Pool2D(y, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: AvgRequant(4)})
		s := g.Eltwise(golden.EltAdd, a, b, golden.Requant{})
		g.Output("fc", g.GEMM(g.Flatten(s), randTensor(rng, -128, 127, 5*3*3, 6), golden.Requant{Scale: 1, Shift: 9}))
		p := verifyGraph(t, cfg, g, 4)
		t.Logf("max_deps %d window %d: %s", lim.deps, lim.window, p.Summary())
		if lim.deps == 1 && p.Joins == 0 {
			t.Errorf("max_deps 1: no joins")
		}
	}
}

// TestRandomShapes compiles random convolutions, GEMMs and pools on
// random small configurations and checks them like the fixed cases.
func TestRandomShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := 0; i < n; i++ {
		cfg := small()
		cfg.Rows = []int{2, 4, 8}[rng.IntN(3)]
		cfg.Cols = []int{1, 2, 4, 8}[rng.IntN(4)]
		cfg.Cols = min(cfg.Cols, cfg.Rows)
		cfg.StateDepth = []int{256, 512}[rng.IntN(2)]
		cfg.PsumDepth = []int{16, 32, 64}[rng.IntN(3)]
		cfg.WeightDepth = []int{32, 64, 128}[rng.IntN(3)]
		cfg.MaxDeps = 1 + rng.IntN(4)
		cfg.Window = []int{4, 8, 64}[rng.IntN(3)]
		cfg.ExtAddrWidth = 14
		g := NewGraph()
		var desc string
		switch rng.IntN(3) {
		case 0:
			ci, co := 1+rng.IntN(10), 1+rng.IntN(10)
			kh, kw := 1+rng.IntN(5), 1+rng.IntN(5)
			s := 1 + rng.IntN(3)
			ph, pw := rng.IntN(kh), rng.IntN(kw)
			h, w := max(1, kh-2*ph)+rng.IntN(9), max(1, kw-2*pw)+rng.IntN(9)
			desc = fmt.Sprintf("conv c%d %dx%d o%d k%dx%d s%d p%d,%d", ci, h, w, co, kh, kw, s, ph, pw)
			x := g.Input("x", randTensor(rng, -128, 127, ci, h, w))
			y := g.Conv2D(x, randTensor(rng, -128, 127, co, ci, kh, kw), Conv{Stride: s, PadH: ph, PadW: pw, Requant: golden.Requant{Scale: 1, Shift: 8}})
			if rng.IntN(2) == 0 {
				y = g.Requant(y, golden.Requant{Scale: 1, Relu: true})
			}
			g.Output("y", y)
		case 1:
			m, k, nn := 1+rng.IntN(40), 1+rng.IntN(40), 1+rng.IntN(20)
			desc = fmt.Sprintf("gemm %dx%dx%d", m, k, nn)
			a := g.Input("a", randTensor(rng, -128, 127, m, k))
			g.Output("c", g.GEMM(a, randTensor(rng, -128, 127, k, nn), golden.Requant{Scale: 1, Shift: 8}))
		case 2:
			kh, kw := 1+rng.IntN(4), 1+rng.IntN(4)
			ph, pw := rng.IntN(kh), rng.IntN(kw)
			c, h, w := 1+rng.IntN(10), kh+rng.IntN(8), kw+rng.IntN(8)
			p := Pool{Kind: golden.PoolKind(rng.IntN(2)), KH: kh, KW: kw, Stride: 1 + rng.IntN(3), PadH: ph, PadW: pw, Padding: golden.Padding(rng.IntN(2))}
			if p.Kind == golden.PoolAvg {
				p.Requant = AvgRequant(kh * kw)
			}
			desc = fmt.Sprintf("pool c%d %dx%d %+v", c, h, w, p)
			x := g.Input("x", randTensor(rng, -128, 127, c, h, w))
			g.Output("y", g.Pool2D(x, p))
		}
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			p, err := Compile(cfg, g)
			if err != nil {
				t.Logf("%s on %dx%d s%d p%d w%d: %v", desc, cfg.Rows, cfg.Cols, cfg.StateDepth, cfg.PsumDepth, cfg.WeightDepth, err)
				return // a capacity error is fine; wrong results are not
			}
			_ = p
			verifyGraph(t, cfg, g, 2)
		})
	}
}

// TestRandomChains builds random chains of feature-map operations ending
// in a fully-connected layer, with intermediate outputs read back.
func TestRandomChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 60
	if testing.Short() {
		n = 15
	}
	for i := 0; i < n; i++ {
		cfg := small()
		cfg.Rows = []int{4, 8}[rng.IntN(2)]
		cfg.Cols = min(cfg.Rows, []int{2, 4, 8}[rng.IntN(3)])
		cfg.StateDepth, cfg.WeightDepth, cfg.ExtAddrWidth = 1024, 128, 14
		cfg.MaxDeps, cfg.Window = 1+rng.IntN(3), []int{4, 16, 64}[rng.IntN(3)]
		g := NewGraph()
		c, h, w := 1+rng.IntN(6), 4+rng.IntN(6), 4+rng.IntN(6)
		x := g.Input("x", randTensor(rng, -128, 127, c, h, w))
		var ops []string
		q := golden.Requant{Scale: 1, Shift: 7, Relu: rng.IntN(2) == 0}
		for k := 0; k < 2+rng.IntN(4); k++ {
			if k > 0 && len(ops) == 0 {
				break
			}
			switch rng.IntN(5) {
			case 0, 1:
				co := 1 + rng.IntN(9)
				kk := 1 + 2*rng.IntN(2)
				x = g.Conv2D(x, randTensor(rng, -128, 127, co, c, kk, kk), Conv{PadH: kk / 2, PadW: kk / 2, Requant: q})
				c = co
				ops = append(ops, fmt.Sprintf("conv%d", co))
			case 2:
				if h >= 2 && w >= 2 {
					x = g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
					h, w = h/2, w/2
					ops = append(ops, "pool")
				}
			case 3:
				x = g.Eltwise(golden.EltAdd, x, x, golden.Requant{Scale: 1, Shift: 1})
				ops = append(ops, "add")
			case 4:
				if k > 0 {
					g.Output(fmt.Sprintf("mid%d", k), x)
				}
				x = g.Requant(x, golden.Requant{Scale: 3, Shift: 2})
				ops = append(ops, "out+requant")
			}
		}
		g.Output("fc", g.GEMM(g.Flatten(x), randTensor(rng, -128, 127, c*h*w, 1+rng.IntN(12)), golden.Requant{Scale: 1, Shift: 9}))
		t.Run(fmt.Sprintf("%d_%v", i, ops), func(t *testing.T) {
			if _, err := Compile(cfg, g); err != nil {
				t.Logf("%v", err)
				return
			}
			verifyGraph(t, cfg, g, 2)
		})
	}
}
