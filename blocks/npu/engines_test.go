package npu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
	"github.com/hwgen/hwgen/internal/emittest"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/verify"
)

func engineConfig(n int) Config {
	c := smallConfig()
	c.Engines = n
	return c
}

// engines is validated 1..8 by name, the shared blocks' address spaces
// must hold every slice, and the derived task-manager fields carry the
// slice bits and N+1 outstanding NE tasks.
func TestEnginesConfig(t *testing.T) {
	for _, n := range []int{0, 9, -1} {
		c := DefaultConfig()
		c.Engines = n
		err := c.Validate()
		var fe *check.FieldError
		if !errors.As(err, &fe) || fe.Field != "engines" || !strings.Contains(err.Error(), "1") {
			t.Errorf("engines %d: %v", n, err)
		}
	}
	c := DefaultConfig()
	c.StateDepth, c.Engines = 32768, 4 // 131072 state addresses > the planar engine's 65536
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "engines") {
		t.Errorf("state_depth 32768 × 4 engines: %v", err)
	}
	for n := 1; n <= MaxEngines; n++ {
		c := DefaultConfig()
		c.Engines = n
		if err := c.Validate(); err != nil {
			t.Fatalf("engines %d: %v", n, err)
		}
		tc := c.TaskMgr()
		wantOut := 2
		if n > 1 {
			wantOut = min(n+1, 8)
		}
		if tc.Outstanding != wantOut {
			t.Errorf("engines %d: outstanding %d, want %d", n, tc.Outstanding, wantOut)
		}
		if need := log2(c.StateDepth) + c.SliceBits() + 1; tc.AddrBits < need {
			t.Errorf("engines %d: addr_bits %d < %d", n, tc.AddrBits, need)
		}
		l := c.NEParams()
		last := l.Fields[len(l.Fields)-1]
		if (last.Name == isa.EngineField) != (n > 1) || (n > 1 && 1<<uint(last.Width) < n+1) {
			t.Errorf("engines %d: NE params end with %+v", n, last)
		}
		if p := c.Planar(); p.StateDepth != c.StateDepth<<uint(c.SliceBits()) {
			t.Errorf("engines %d: planar state depth %d", n, p.StateDepth)
		}
	}
	if got := DefaultConfig().Name(); strings.Contains(got, "_n") {
		t.Errorf("one engine keeps its name: %s", got)
	}
}

// cycleLog records, per cycle, the dispatch and completion ports of the
// NE engines while the host waits for idle.
type cycleLog struct {
	start, done map[string][]int // port prefix (ne, ne0, ne1, ...) → cycles
}

func (h *host) waitLog(limit int, prefixes ...string) cycleLog {
	h.t.Helper()
	l := cycleLog{start: map[string][]int{}, done: map[string][]int{}}
	for n := 0; ; n++ {
		cyc := int(h.s.Sim.Cycle())
		for _, p := range prefixes {
			if h.s.Peek(p+"_start") != 0 {
				l.start[p] = append(l.start[p], cyc)
			}
			if h.s.Peek(p+"_done") != 0 {
				l.done[p] = append(l.done[p], cyc)
			}
		}
		if h.s.Peek("idle") != 0 {
			return l
		}
		if n > limit {
			h.t.Fatalf("not idle after %d cycles", limit)
		}
		h.s.Step(1)
	}
}

// gemmGolden is the saturated int8 product A·B (act with scale 1).
func gemmGolden(A, B [][]int64) [][]int64 {
	out := make([][]int64, len(A))
	for m := range A {
		out[m] = make([]int64, len(B[0]))
		for n := range B[0] {
			var s int64
			for k := range B {
				s += A[m][k] * B[k][n]
			}
			out[m][n] = max(-128, min(127, s))
		}
	}
	return out
}

func randMat(rng *rand.Rand, r, c int) [][]int64 {
	m := make([][]int64, r)
	for i := range m {
		m[i] = make([]int64, c)
		for j := range m[i] {
			m[i][j] = int64(rng.IntN(15) - 7)
		}
	}
	return m
}

// loadGEMM writes A (M×K, K a multiple of R) at external line at as the
// on-chip layout (channel tile t: lines at + t·M + m) and B (K×N) as K
// weight lines at wat.
func (h *host) loadGEMM(A, B [][]int64, at, wat int) {
	R, M := h.c.Rows, len(A)
	for t := 0; t < len(A[0])/R; t++ {
		for m := range M {
			h.writeLine(at+t*M+m, A[m][t*R:t*R+R])
		}
	}
	for k := range B {
		h.writeLine(wat+k, B[k])
	}
}

func (h *host) gemmDesc(engine uint64, src, aux, dst, M, K int, deps ...uint64) isa.Descriptor {
	return isa.Descriptor{Engine: isa.NE, Op: isa.NEGEMM, Src: uint64(src), Aux: uint64(aux), Dst: uint64(dst),
		D0: uint64(M), D1: 1, D2: uint64(K / h.c.Rows), Deps: deps,
		Param: h.neParams(map[string]uint64{"kh": 1, "kw": 1, "stride": 1, "oh": uint64(M), "ow": 1, isa.EngineField: engine})}
}

func (h *host) readMat(at, M, N int) [][]int64 {
	out := make([][]int64, M)
	for m := range out {
		out[m] = h.readLine(at + m)[:N]
	}
	return out
}

// Two engines, descriptors by hand: DMA loads into both slices (state
// and weights), a long GEMM named to engine 0, a short one named to
// engine 1, one for any engine (its operands only in slice 1: it must
// land on engine 1, the one free while engine 0 still runs), planar acts
// from both psum slices (one writing the other state slice) and DMA out
// from both. The results equal the golden products; the two named tasks
// overlap in time; the task manager sees the three done pulses in
// dispatch order although engine 1 finishes first.
func TestEnginesGEMMByHand(t *testing.T) {
	c := engineConfig(2)
	h, _ := newHost(t, c)
	rng := rand.New(rand.NewPCG(10, 2))
	S, P, WD := c.StateDepth, c.PsumDepth, c.WeightDepth
	A0, B0 := randMat(rng, 60, 8), randMat(rng, 8, 4) // long: 2 passes × 60 pixels
	A1, B1 := randMat(rng, 8, 4), randMat(rng, 4, 4)
	A2, B2 := randMat(rng, 8, 4), randMat(rng, 4, 4)
	h.loadGEMM(A0, B0, 0, 500)
	h.loadGEMM(A1, B1, 200, 510)
	h.loadGEMM(A2, B2, 220, 520)

	d := func(e isa.Engine, op isa.Op, src, dst, n int, deps ...uint64) isa.Descriptor {
		return isa.Descriptor{Engine: e, Op: op, Src: uint64(src), Dst: uint64(dst), D0: uint64(n), D1: 1, Deps: deps}
	}
	lw0 := h.push(d(isa.DMAIn, isa.DMAInLoadWeights, 500, 0, 8))    // B0 → weight rows 0..7 of slice 0
	la0 := h.push(d(isa.DMAIn, isa.DMAInLoad, 0, 0, 120))           // A0 → state 0.. of slice 0
	la1 := h.push(d(isa.DMAIn, isa.DMAInLoad, 200, S, 8))           // A1 → slice 1 address 0
	lw1 := h.push(d(isa.DMAIn, isa.DMAInLoadWeights, 510, WD, 4))   // B1 → slice 1 weight row 0
	la2 := h.push(d(isa.DMAIn, isa.DMAInLoad, 220, S+200, 8))       // A2 → slice 1 address 200
	lw2 := h.push(d(isa.DMAIn, isa.DMAInLoadWeights, 520, WD+8, 4)) // B2 → slice 1 weight row 8
	g0 := h.push(h.gemmDesc(0, 0, 0, 0, 60, 8, la0, lw0))           // engine 0
	g1 := h.push(h.gemmDesc(1, 0, 0, 0, 8, 4, la1, lw1))            // engine 1
	g2 := h.push(h.gemmDesc(c.AnyEngine(), 200, 8, 32, 8, 4, la2, lw2))
	act := func(src, dst, n int, dep uint64) uint64 {
		return h.push(h.planarDesc(planar.Task{Op: planar.OpAct, Mask: 0xf, Src: src, Dst: dst, H: 1, W: n, Scale: 1}, dep))
	}
	p0 := act(0, 100, 60, g0)
	p1 := act(P, S+100, 8, g1)
	p2 := act(P+32, 180, 8, g2) // psum slice 1 → state slice 0
	h.push(d(isa.DMAOut, 1, 100, 600, 60, p0))
	h.push(d(isa.DMAOut, 1, S+100, 700, 8, p1))
	h.push(d(isa.DMAOut, 1, 180, 720, 8, p2))
	l := h.waitLog(20000, "ne", "ne0", "ne1")
	t.Logf("dispatch %v, done %v", l.start, l.done)

	for _, r := range []struct {
		name string
		got  [][]int64
		want [][]int64
	}{
		{"engine 0", h.readMat(600, 60, 4), gemmGolden(A0, B0)},
		{"engine 1", h.readMat(700, 8, 4), gemmGolden(A1, B1)},
		{"any", h.readMat(720, 8, 4), gemmGolden(A2, B2)},
	} {
		if diff := cmp.Diff(r.want, r.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", r.name, diff)
		}
	}
	for _, p := range []string{"psum_overrun", "err_code", "planar_err_code"} {
		if v := h.s.Peek(p); v != 0 {
			t.Errorf("%s = %d", p, v)
		}
	}
	// Dispatch: engine 0 once, engine 1 twice (the named task, then the
	// any task); every task dispatched to the task manager's ne engine.
	if len(l.start["ne0"]) != 1 || len(l.start["ne1"]) != 2 || len(l.start["ne"]) != 3 {
		t.Fatalf("starts %v", l.start)
	}
	if len(l.done["ne0"]) != 1 || len(l.done["ne1"]) != 2 || len(l.done["ne"]) != 3 {
		t.Fatalf("dones %v", l.done)
	}
	// Overlap: engine 1 starts both its tasks, and finishes them, while
	// engine 0 runs.
	s0, e0 := l.start["ne0"][0], l.done["ne0"][0]
	for i, s := range l.start["ne1"] {
		if s <= s0 || l.done["ne1"][i] >= e0 {
			t.Errorf("engine 1 task %d ran %d..%d, not inside engine 0's %d..%d", i, s, l.done["ne1"][i], s0, e0)
		}
	}
	// In-order completion: the first done the task manager sees is engine
	// 0's, the two held ones follow, one per cycle.
	if got := l.done["ne"]; got[0] != e0 || got[1] != e0+1 || got[2] != e0+2 {
		t.Errorf("task manager's done pulses %v, want %d, %d, %d", got, e0, e0+1, e0+2)
	}
	if g0 != 6 || g1 != 7 || g2 != 8 {
		t.Fatalf("ids %d %d %d", g0, g1, g2)
	}
	// Counters: per engine and the totals.
	RC := uint64(c.Rows * c.Cols)
	m0, m1 := h.s.Peek("ne0_mac_count"), h.s.Peek("ne1_mac_count")
	if m0 != 120*RC || m1 != 16*RC || h.s.Peek("mac_count") != m0+m1 {
		t.Errorf("mac counts %d + %d = %d, want %d + %d", m0, m1, h.s.Peek("mac_count"), 120*RC, 16*RC)
	}
	if s := h.s.Peek("ne0_skip_count") + h.s.Peek("ne1_skip_count"); s != h.s.Peek("skip_count") {
		t.Errorf("skip counts do not add up: %d vs %d", s, h.s.Peek("skip_count"))
	}
	b0, b1 := h.s.Peek("ne0_busy_cycles"), h.s.Peek("ne1_busy_cycles")
	if b0 < 120 || b1 < 16 || b1 >= b0 {
		t.Errorf("busy cycles %d, %d", b0, b1)
	}
}

// Three engines (not a power of two): a GEMM on each engine's slice at
// once; a load into the absent fourth slice is accepted and dropped, a
// store from it writes zeros, and nothing hangs.
func TestEnginesThree(t *testing.T) {
	c := engineConfig(3)
	h, _ := newHost(t, c)
	rng := rand.New(rand.NewPCG(10, 3))
	S, P, WD := c.StateDepth, c.PsumDepth, c.WeightDepth
	var As, Bs [][][]int64
	for e := range 3 {
		As, Bs = append(As, randMat(rng, 24, 4)), append(Bs, randMat(rng, 4, 4))
		h.loadGEMM(As[e], Bs[e], 32*e, 100+4*e)
	}
	h.writeLine(120, []int64{1, 2, 3, 4})
	d := func(e isa.Engine, op isa.Op, src, dst, n int, deps ...uint64) isa.Descriptor {
		return isa.Descriptor{Engine: e, Op: op, Src: uint64(src), Dst: uint64(dst), D0: uint64(n), D1: 1, Deps: deps}
	}
	// Every GEMM waits for all loads, so the three start together.
	var loads []uint64
	for e := range 3 {
		loads = append(loads, h.push(d(isa.DMAIn, isa.DMAInLoad, 32*e, e*S, 24)), h.push(d(isa.DMAIn, isa.DMAInLoadWeights, 100+4*e, e*WD, 4)))
	}
	var outs []uint64
	for e := range 3 {
		g := h.push(h.gemmDesc(uint64(e), 0, 0, 0, 24, 4, loads[2*e], loads[2*e+1], loads[5]))
		p := h.push(h.planarDesc(planar.Task{Op: planar.OpAct, Mask: 0xf, Src: e * P, Dst: e*S + 100, H: 1, W: 24, Scale: 1}, g))
		outs = append(outs, p)
	}
	for e := range 3 {
		h.push(d(isa.DMAOut, 1, e*S+100, 400+32*e, 24, outs[e]))
	}
	ghost := h.push(d(isa.DMAIn, isa.DMAInLoad, 120, 3*S+5, 1))
	h.push(d(isa.DMAOut, 1, 3*S+5, 500, 1, ghost))
	l := h.waitLog(20000, "ne0", "ne1", "ne2")
	for e := range 3 {
		if diff := cmp.Diff(gemmGolden(As[e], Bs[e]), h.readMat(400+32*e, 24, 4)); diff != "" {
			t.Errorf("engine %d (-want +got):\n%s", e, diff)
		}
		if len(l.start[ne(e)]) != 1 {
			t.Errorf("engine %d started %v", e, l.start[ne(e)])
		}
	}
	if got := h.readLine(500); !cmp.Equal(got, []int64{0, 0, 0, 0}) {
		t.Errorf("store from the absent slice: %v", got)
	}
	// All three run at once at some point.
	last := max(l.start["ne0"][0], l.start["ne1"][0], l.start["ne2"][0])
	first := min(l.done["ne0"][0], l.done["ne1"][0], l.done["ne2"][0])
	if last >= first {
		t.Errorf("the three engines never ran together: starts %v, dones %v", l.start, l.done)
	}
}

func ne(e int) string { return "ne" + string(rune('0'+e)) }

// convGolden is the saturated int8 convolution of x[ci][y][x] with
// w[co][ci][ky][kx] (stride 1, padding pad): out[y][x][co].
func convGolden(x [][][]int64, w [][][][]int64, pad int) [][][]int64 {
	CI, H, W := len(x), len(x[0]), len(x[0][0])
	CO, K := len(w), len(w[0][0])
	OH, OW := H+2*pad-K+1, W+2*pad-K+1
	out := make([][][]int64, OH)
	for y := range OH {
		out[y] = make([][]int64, OW)
		for xx := range OW {
			out[y][xx] = make([]int64, CO)
			for co := range CO {
				var s int64
				for ci := range CI {
					for ky := range K {
						for kx := range K {
							iy, ix := y+ky-pad, xx+kx-pad
							if iy >= 0 && iy < H && ix >= 0 && ix < W {
								s += x[ci][iy][ix] * w[co][ci][ky][kx]
							}
						}
					}
				}
				out[y][xx][co] = max(-128, min(127, s))
			}
		}
	}
	return out
}

// convRun is a 3×3, pad 1 convolution of an H×W map with R input and C
// output channels on c's NPU, by hand: with one engine the whole map,
// with two the output rows split in two bands, each band's input rows
// (with the one-row halo) in its engine's slice. It returns the output
// (pixel-major lines) and the cycles from the first descriptor to idle.
func convRun(t *testing.T, c Config, x [][][]int64, w [][][][]int64) ([][][]int64, int, *host, *hdl.Design) {
	h, d := newHost(t, c)
	R, C := c.Rows, c.Cols
	H, W := len(x[0]), len(x[0][0])
	const K = 3
	// Input: line y·W + x holds x[·][y][x] (channel = partition).
	for y := range H {
		for xx := range W {
			v := make([]int64, R)
			for ci := range R {
				v[ci] = x[ci][y][xx]
			}
			h.writeLine(y*W+xx, v)
		}
	}
	// Weights: row (ky·3 + kx)·R + ci, element co.
	const wat = 400
	for ky := range K {
		for kx := range K {
			for ci := range R {
				v := make([]int64, R)
				for co := range C {
					v[co] = w[co][ci][ky][kx]
				}
				h.writeLine(wat+(ky*K+kx)*R+ci, v)
			}
		}
	}
	type band struct{ y0, y1, in0, in1 int } // output rows y0..y1-1 from input rows in0..in1-1
	bands := []band{{0, H, 0, H}}
	if c.Engines == 2 {
		bands = []band{{0, H / 2, 0, H/2 + 1}, {H / 2, H, H/2 - 1, H}}
	}
	S, P, WD := c.StateDepth, c.PsumDepth, c.WeightDepth
	if c.Engines == 1 {
		S, P, WD = 0, 0, 0
	}
	const out = 600
	start := h.s.Sim.Cycle()
	for e, b := range bands {
		rows := b.in1 - b.in0
		padTop := uint64(1)
		if b.y0 > 0 {
			padTop = 0
		}
		la := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoad, Src: uint64(b.in0 * W), Dst: uint64(e * S), D0: uint64(rows * W), D1: 1})
		lw := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoadWeights, Src: wat, Dst: uint64(e * WD), D0: K * K * uint64(R), D1: 1})
		params := map[string]uint64{"kh": K, "kw": K, "stride": 1, "pad_h": padTop, "pad_w": 1, "oh": uint64(b.y1 - b.y0), "ow": uint64(W)}
		if c.Engines > 1 {
			params[isa.EngineField] = uint64(e)
		}
		g := h.push(isa.Descriptor{Engine: isa.NE, Op: isa.NEConv, Src: 0, Aux: 0, Dst: 0, D0: uint64(rows), D1: uint64(W), D2: 1,
			Deps: []uint64{la, lw}, Param: h.neParams(params)})
		n := (b.y1 - b.y0) * W
		p := h.push(h.planarDesc(planar.Task{Op: planar.OpAct, Mask: 0xf, Src: e * P, Dst: e*S + 100, H: 1, W: n, Scale: 1}, g))
		h.push(isa.Descriptor{Engine: isa.DMAOut, Op: isa.DMAOutStore, Src: uint64(e*S + 100), Dst: uint64(out + b.y0*W), D0: uint64(n), D1: 1, Deps: []uint64{p}})
	}
	h.wait(20000)
	cycles := int(h.s.Sim.Cycle() - start)
	res := make([][][]int64, H)
	for y := range H {
		res[y] = make([][]int64, W)
		for xx := range W {
			res[y][xx] = h.readLine(out + y*W + xx)[:C]
		}
	}
	for _, p := range []string{"psum_overrun", "err_code", "planar_err_code"} {
		if v := h.s.Peek(p); v != 0 {
			t.Errorf("%s = %d", p, v)
		}
	}
	return res, cycles, h, d
}

// A 3×3 convolution of an 8×6 map split in two row bands with a one-row
// halo, each band on its own engine and slice, equals the golden
// convolution and the one-engine run of the whole map; the two-engine
// run is cross-checked on Verilator.
func TestEnginesConvBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 4))
	const H, W = 8, 6
	c2 := engineConfig(2)
	x := make([][][]int64, c2.Rows)
	for ci := range x {
		x[ci] = randMat(rng, H, W)
		for y := range H { // about half zeros: the skipped MACs show up
			for xx := range W {
				if rng.IntN(2) == 0 {
					x[ci][y][xx] = 0
				}
			}
		}
	}
	w := make([][][][]int64, c2.Cols)
	for co := range w {
		w[co] = make([][][]int64, c2.Rows)
		for ci := range w[co] {
			w[co][ci] = randMat(rng, 3, 3)
		}
	}
	want := convGolden(x, w, 1)
	one, cyc1, _, _ := convRun(t, engineConfig(1), x, w)
	two, cyc2, h, _ := convRun(t, c2, x, w)
	if diff := cmp.Diff(want, one); diff != "" {
		t.Errorf("one engine (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(one, two); diff != "" {
		t.Errorf("two engines vs one (-one +two):\n%s", diff)
	}
	m0, m1 := h.s.Peek("ne0_mac_count"), h.s.Peek("ne1_mac_count")
	s0, s1 := h.s.Peek("ne0_skip_count"), h.s.Peek("ne1_skip_count")
	t.Logf("one engine %d cycles, two engines %d cycles; MACs %d + %d, skipped %d + %d", cyc1, cyc2, m0, m1, s0, s1)
	if m0 == 0 || m1 == 0 || s0 == 0 || s1 == 0 {
		t.Errorf("per-engine counters: macs %d %d, skips %d %d", m0, m1, s0, s1)
	}
	h.s.Step(2)

	tooltest.Need(t, "verilator")
	h.s.CrossCheck(verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
}

// The two- and three-engine NPUs lint clean with verilator -Wall, and
// the two-engine NPU synthesizes with Yosys with both engines' blocks.
func TestLintEngines(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d engines", n), func(t *testing.T) { emittest.Lint(t, mustBuild(t, BuildSim, engineConfig(n))) })
	}
}

func TestSynthEngines(t *testing.T) {
	c := engineConfig(2)
	c.StateDepth, c.PsumDepth, c.WeightDepth, c.LineDepth = 16, 16, 8, 8
	stat := emittest.Synth(t, mustBuild(t, Build, c))
	for _, mod := range []string{"npu_ne", "npu_dma_in", "npu_dma_out", "planar", "taskmgr", "state_buffer", "psum_buffer"} {
		if !strings.Contains(stat, mod) {
			t.Errorf("no %s module in the synthesis report", mod)
		}
	}
}
