package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify/simtest"
)

// dmaTaskSpec is one DMA task as its task port sees it.
type dmaTaskSpec struct {
	Op                   isa.Op
	Src, Dst, D0, D1, D2 int
}

func (t dmaTaskSpec) String() string {
	return fmt.Sprintf("op %d src %d dst %d d0 %d d1 %d d2 %d", t.Op, t.Src, t.Dst, t.D0, t.D1, t.D2)
}

// dmaMove is one line a DMA engine writes: dma_in's state-buffer write
// (Weights false) or weight-buffer write (Weights true), dma_out's
// external write. Data holds the elements, element 0 first.
type dmaMove struct {
	Weights bool
	Addr    int
	Data    []uint64
}

// goldenDMAIn is dma_in's reference: the external lines task reads, in
// order, and the on-chip writes it makes, in order, with ext the external
// memory (line → elements).
func goldenDMAIn(c Config, t dmaTaskSpec, ext [][]uint64) (reads []int, writes []dmaMove) {
	if t.Op != isa.DMAInLoad && t.Op != isa.DMAInLoadWeights {
		return nil, nil
	}
	for k := range t.D1 {
		for l := range t.D0 {
			x := (t.Src + k*t.D2 + l) % (1 << c.ExtAddrWidth)
			reads = append(reads, x)
			n := t.Dst + k*t.D0 + l
			if t.Op == isa.DMAInLoad {
				writes = append(writes, dmaMove{Addr: n % c.StateDepth, Data: append([]uint64(nil), ext[x]...)})
			} else {
				writes = append(writes, dmaMove{Weights: true, Addr: n % c.WeightDepth, Data: append([]uint64(nil), ext[x][:c.Cols]...)})
			}
		}
	}
	return reads, writes
}

// goldenDMAOut is dma_out's reference: the state addresses task reads and
// the external writes it makes, with state the state buffer (address →
// elements).
func goldenDMAOut(c Config, t dmaTaskSpec, state [][]uint64) (reads []int, writes []dmaMove) {
	if t.Op != isa.DMAOutStore {
		return nil, nil
	}
	for k := range t.D1 {
		for l := range t.D0 {
			a := (t.Src + k*t.D0 + l) % c.StateDepth
			reads = append(reads, a)
			writes = append(writes, dmaMove{Addr: (t.Dst + k*t.D2 + l) % (1 << c.ExtAddrWidth), Data: append([]uint64(nil), state[a]...)})
		}
	}
	return reads, writes
}

// dmaLines is n random lines of R elements.
func dmaLines(r *rand.Rand, c Config, n int) [][]uint64 {
	out := make([][]uint64, n)
	for i := range out {
		out[i] = make([]uint64, c.Rows)
		for p := range out[i] {
			out[i][p] = r.Uint64() & (1<<c.ElemWidth - 1)
		}
	}
	return out
}

// dmaLineBig packs elements into a line (element p at bits p·E).
func dmaLineBig(elems []uint64, e int) *big.Int {
	v := new(big.Int)
	for p := len(elems) - 1; p >= 0; p-- {
		v.Lsh(v, uint(e)).Or(v, new(big.Int).SetUint64(elems[p]))
	}
	return v
}

// dmaLineElems unpacks n elements of a line.
func dmaLineElems(v *big.Int, n, e int) []uint64 {
	out := make([]uint64, n)
	for p := range out {
		out[p] = dmaField(v, p*e, e)
	}
	return out
}

// dmaRandomTasks is n random tasks: every op code (weighted by opW), sizes
// including zero and runs longer than the on-chip depth (so addresses
// wrap), row strides smaller than, equal to and larger than a row, and
// 16-bit strides that wrap external memory.
func dmaRandomTasks(r *rand.Rand, c Config, n int, srcW, dstW int, opW []int) []dmaTaskSpec {
	total := 0
	for _, w := range opW {
		total += w
	}
	var ts []dmaTaskSpec
	for range n {
		t := dmaTaskSpec{Src: r.IntN(1 << srcW), Dst: r.IntN(1 << dstW)}
		for x := r.IntN(total); x >= opW[t.Op]; t.Op++ {
			x -= opW[t.Op]
		}
		switch k := r.IntN(20); {
		case k == 0:
			t.D0, t.D1 = 0, r.IntN(4)
		case k == 1:
			t.D0, t.D1 = 1+r.IntN(4), 0
		case k == 2: // one long row: wraps the on-chip side
			t.D0, t.D1 = c.StateDepth+r.IntN(c.StateDepth), 1
		default:
			t.D0, t.D1 = 1+r.IntN(6), 1+r.IntN(4)
		}
		switch k := r.IntN(6); {
		case k == 0:
			t.D2 = r.IntN(1 << 16)
		case k == 1:
			t.D2 = r.IntN(max(t.D0, 1))
		default:
			t.D2 = t.D0 + r.IntN(5)
		}
		ts = append(ts, t)
	}
	return ts
}

// dmaBenchOpts set the environment of a run.
type dmaBenchOpts struct {
	ready          float64 // probability each ready input is high in a cycle
	minLat, maxLat int     // dma_in: external read latency range (responses in order)
	gap            float64 // probability of an idle cycle before offering the next task
}

// dmaTaskStats is the timing of one task.
type dmaTaskStats struct {
	Accept, FirstReq, LastReq, Done int // cycles (FirstReq, LastReq −1 when nothing was requested)
	Reqs                            int // requests accepted (reads)
	Stalls                          int // cycles with stall high while the task ran
}

// dmaTaskChecker drives a DMA engine's task port and checks t_ready, busy
// and done against the task sequence: busy from the cycle after a
// transfer's acceptance until the cycle its done pulses, done exactly in
// the cycle after the last write's acceptance (after acceptance for an
// empty task), t_ready = !busy.
type dmaTaskChecker struct {
	t          testing.TB
	dr         *simtest.Driver
	prefix     string // of the task port's names
	r          *rand.Rand
	tasks      []dmaTaskSpec
	srcW, dstW int
	gap        float64

	next       int  // index of the next task to offer
	presenting bool // t_valid is high with tasks[next]
	busy       bool // expected busy
	doneAt     int  // expected done cycle, −1 none
	remaining  int  // writes of the running task not yet accepted
	stats      []dmaTaskStats
}

func newDMATaskChecker(t testing.TB, dr *simtest.Driver, r *rand.Rand, tasks []dmaTaskSpec, srcW, dstW int, gap float64) *dmaTaskChecker {
	return &dmaTaskChecker{t: t, dr: dr, r: r, tasks: tasks, srcW: srcW, dstW: dstW, gap: gap, doneAt: -1}
}

// finished: every task was accepted and its done has pulsed.
func (tc *dmaTaskChecker) finished() bool {
	return tc.next == len(tc.tasks) && tc.doneAt < 0 && !tc.busy
}

// drive pokes the task port for this cycle (random fields while t_valid
// is low: they must be ignored).
func (tc *dmaTaskChecker) drive() {
	if !tc.presenting && tc.next < len(tc.tasks) && !dmaChance(tc.r, tc.gap) {
		tc.presenting = true
	}
	t := dmaTaskSpec{Op: isa.Op(tc.r.IntN(2)), // junk op codes every op port holds
		Src: tc.r.IntN(1 << tc.srcW), Dst: tc.r.IntN(1 << tc.dstW),
		D0: tc.r.IntN(1 << 16), D1: tc.r.IntN(1 << 16), D2: tc.r.IntN(1 << 16)}
	if tc.presenting {
		t = tc.tasks[tc.next]
	}
	dr := tc.dr
	dr.PokeBool(tc.prefix+"t_valid", tc.presenting)
	dr.Poke(tc.prefix+"t_op", uint64(t.Op))
	dr.Poke(tc.prefix+"t_src", uint64(t.Src))
	dr.Poke(tc.prefix+"t_dst", uint64(t.Dst))
	dr.Poke(tc.prefix+"t_d0", uint64(t.D0))
	dr.Poke(tc.prefix+"t_d1", uint64(t.D1))
	dr.Poke(tc.prefix+"t_d2", uint64(t.D2))
}

// check compares the task port's outputs with the expectation and
// returns the task accepted this cycle, if any. stall is this cycle's
// stall output.
func (tc *dmaTaskChecker) check(cyc int, stall bool) (dmaTaskSpec, bool) {
	t, dr := tc.t, tc.dr
	t.Helper()
	ready, busy, done := dr.PeekBool(tc.prefix+"t_ready"), dr.PeekBool(tc.prefix+"busy"), dr.PeekBool(tc.prefix+"done")
	if busy != tc.busy || ready == busy {
		t.Fatalf("cycle %d: %sbusy %v t_ready %v, want busy %v (task %d)", cyc, tc.prefix, busy, ready, tc.busy, len(tc.stats)-1)
	}
	if done != (cyc == tc.doneAt) {
		t.Fatalf("cycle %d: %sdone %v, expected done in cycle %d (task %d)", cyc, tc.prefix, done, tc.doneAt, len(tc.stats)-1)
	}
	if done {
		tc.stats[len(tc.stats)-1].Done = cyc
		tc.doneAt = -1
	}
	if stall && len(tc.stats) > 0 {
		tc.stats[len(tc.stats)-1].Stalls++
	}
	if !tc.presenting || !ready {
		return dmaTaskSpec{}, false
	}
	task := tc.tasks[tc.next]
	tc.next++
	tc.presenting = false
	tc.stats = append(tc.stats, dmaTaskStats{Accept: cyc, FirstReq: -1, LastReq: -1, Done: -1})
	return task, true
}

// started tells the checker how many writes the accepted task makes.
func (tc *dmaTaskChecker) started(cyc, writes int) {
	if writes == 0 {
		tc.doneAt = cyc + 1
		return
	}
	tc.busy, tc.remaining = true, writes
}

// requested records an accepted request (a read) of the running task.
func (tc *dmaTaskChecker) requested(cyc int) {
	s := &tc.stats[len(tc.stats)-1]
	if s.FirstReq < 0 {
		s.FirstReq = cyc
	}
	s.LastReq = cyc
	s.Reqs++
}

// wrote records an accepted write of the running task.
func (tc *dmaTaskChecker) wrote(cyc int) {
	tc.remaining--
	if tc.remaining == 0 {
		tc.doneAt, tc.busy = cyc+1, false
	}
}

// dmaHold checks the hold rule of one request port: a request presented
// and refused in the previous cycle is presented again, unchanged.
type dmaHold struct {
	name string
	held bool
	req  string
}

func (h *dmaHold) check(t *testing.T, cyc int, valid, ready bool, req string) {
	t.Helper()
	if h.held && (!valid || req != h.req) {
		t.Fatalf("cycle %d: %s request %q was refused last cycle and is now valid %v %q", cyc, h.name, h.req, valid, req)
	}
	h.held, h.req = valid && !ready, req
}

// dmaWant pops the expected next write and compares it with got.
func dmaWant(t *testing.T, cyc int, what string, queue *[]dmaMove, got dmaMove) {
	t.Helper()
	if len(*queue) == 0 {
		t.Fatalf("cycle %d: unexpected %s %+v", cyc, what, got)
	}
	if diff := cmp.Diff((*queue)[0], got); diff != "" {
		t.Fatalf("cycle %d: %s (-want +got):\n%s", cyc, what, diff)
	}
	*queue = (*queue)[1:]
}

// dmaCycleLimit bounds a run: generous for back-pressure and long latencies.
func dmaCycleLimit(tasks []dmaTaskSpec, o dmaBenchOpts) int {
	n := 100
	for _, t := range tasks {
		n += 20 + t.D0*t.D1
	}
	return int(float64(n) * float64(4+o.maxLat) / max(o.ready*o.ready, 0.05))
}

// runDMAIn runs tasks on dma_in closed loop against an external-memory
// model (random readiness, in-order responses with latencies in
// [minLat, maxLat]) and a state buffer that accepts at random, checking
// every read, every write, the hold rule on every request port, the
// credit bound, stall, busy, t_ready and done every cycle.
func runDMAIn(t *testing.T, dr *simtest.Driver, c Config, seed uint64, tasks []dmaTaskSpec, o dmaBenchOpts) []dmaTaskStats {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	xw, lw := c.ExtAddrWidth, c.LineWidth()
	ext := dmaLines(r, c, 1<<xw)
	tc := newDMATaskChecker(t, dr, r, tasks, xw, max(log2(c.StateDepth), log2(c.WeightDepth)), o.gap)
	type resp struct {
		due  int
		line []uint64
	}
	var reads []int
	var writes []dmaMove
	var inflight []resp
	lastDue, outstanding := -1, 0
	xrHold, swHold := &dmaHold{name: "xr"}, &dmaHold{name: "sw"}
	full := uint64(1)<<c.Rows - 1
	limit := dmaCycleLimit(tasks, o)
	dr.Reset(dmaResetCycles)
	for cyc := 0; !tc.finished(); cyc++ {
		if cyc > limit {
			t.Fatalf("cycle %d: %d of %d tasks accepted, %d writes outstanding; stuck", cyc, tc.next, len(tasks), tc.remaining)
		}
		tc.drive()
		xrReady, swReady := dmaChance(r, o.ready), dmaChance(r, o.ready)
		dr.PokeBool("xr_ready", xrReady)
		dr.PokeBool("sw_ready", swReady)
		if len(inflight) > 0 && inflight[0].due == cyc {
			dr.Poke("xr_rvalid", 1)
			dr.PokeBig("xr_rdata", dmaLineBig(inflight[0].line, c.ElemWidth))
			inflight = inflight[1:]
		} else {
			dr.Poke("xr_rvalid", 0)
			dr.PokeBig("xr_rdata", dmaRandBits(r, lw))
		}

		xrValid, swValid, wwValid := dr.PeekBool("xr_valid"), dr.PeekBool("sw_valid"), dr.PeekBool("ww_valid")
		xrAddr := int(dr.Peek("xr_addr"))
		sw := dmaMove{Addr: int(dr.Peek("sw_addr")), Data: make([]uint64, c.Rows)}
		for p := range c.Rows {
			sw.Data[p] = dr.Peek(fmt.Sprintf("sw_wdata_%d", p))
		}
		ww := dmaMove{Weights: true, Addr: int(dr.Peek("ww_addr")), Data: dmaLineElems(dr.PeekBig("ww_data"), c.Cols, c.ElemWidth)}
		stall := dr.PeekBool("stall")
		if want := xrValid && !xrReady || swValid && !swReady; stall != want {
			t.Fatalf("cycle %d: stall %v, want %v (xr valid %v ready %v, sw valid %v ready %v)", cyc, stall, want, xrValid, xrReady, swValid, swReady)
		}
		if m := dr.Peek("sw_mask"); m != full {
			t.Fatalf("cycle %d: sw_mask %#x", cyc, m)
		}
		if swValid && wwValid {
			t.Fatalf("cycle %d: state and weight writes at once", cyc)
		}
		xrHold.check(t, cyc, xrValid, xrReady, fmt.Sprint(xrAddr))
		swHold.check(t, cyc, swValid, swReady, fmt.Sprint(sw))

		if task, ok := tc.check(cyc, stall); ok {
			rs, ws := goldenDMAIn(c, task, ext)
			reads, writes = append(reads, rs...), append(writes, ws...)
			tc.started(cyc, len(ws))
		}
		if xrValid && xrReady {
			if len(reads) == 0 || reads[0] != xrAddr {
				t.Fatalf("cycle %d: read of line %d, expected reads %v", cyc, xrAddr, reads[:min(len(reads), 4)])
			}
			reads = reads[1:]
			lastDue = max(cyc+o.minLat+r.IntN(o.maxLat-o.minLat+1), lastDue+1)
			inflight = append(inflight, resp{due: lastDue, line: ext[xrAddr]})
			tc.requested(cyc)
			outstanding++
			if outstanding > dmaInFIFODepth(c) {
				t.Fatalf("cycle %d: %d lines outstanding, the FIFO holds %d", cyc, outstanding, dmaInFIFODepth(c))
			}
		}
		if swValid && swReady || wwValid {
			got := sw
			if wwValid {
				got = ww
			}
			dmaWant(t, cyc, "on-chip write", &writes, got)
			tc.wrote(cyc)
			outstanding--
		}
		dr.Step(1)
	}
	if len(reads)+len(writes)+len(inflight) != 0 {
		t.Fatalf("after the run: %d reads, %d writes expected, %d responses pending", len(reads), len(writes), len(inflight))
	}
	return tc.stats
}

// runDMAOut runs tasks on dma_out closed loop against a state buffer
// that accepts reads at random and answers exactly one cycle later, and
// an external memory that accepts writes at random.
func runDMAOut(t *testing.T, dr *simtest.Driver, c Config, seed uint64, tasks []dmaTaskSpec, o dmaBenchOpts) []dmaTaskStats {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 13))
	aw, xw, lw := log2(c.StateDepth), c.ExtAddrWidth, c.LineWidth()
	state := dmaLines(r, c, c.StateDepth)
	tc := newDMATaskChecker(t, dr, r, tasks, aw, xw, o.gap)
	var reads []int
	var writes []dmaMove
	answer := -1 // state address read last cycle, −1 none
	outstanding := 0
	srHold, xwHold := &dmaHold{name: "sr"}, &dmaHold{name: "xw"}
	full := uint64(1)<<c.Rows - 1
	limit := dmaCycleLimit(tasks, o)
	dr.Reset(dmaResetCycles)
	for cyc := 0; !tc.finished(); cyc++ {
		if cyc > limit {
			t.Fatalf("cycle %d: %d of %d tasks accepted, %d writes outstanding; stuck", cyc, tc.next, len(tasks), tc.remaining)
		}
		tc.drive()
		srReady, xwReady := dmaChance(r, o.ready), dmaChance(r, o.ready)
		dr.PokeBool("sr_ready", srReady)
		dr.PokeBool("xw_ready", xwReady)
		dr.PokeBool("sr_rvalid", answer >= 0)
		for p := range c.Rows {
			v := r.Uint64() & (1<<c.ElemWidth - 1)
			if answer >= 0 {
				v = state[answer][p]
			}
			dr.Poke(fmt.Sprintf("sr_rdata_%d", p), v)
		}

		srValid, xwValid := dr.PeekBool("sr_valid"), dr.PeekBool("xw_valid")
		srAddr := int(dr.Peek("sr_addr"))
		xwr := dmaMove{Addr: int(dr.Peek("xw_addr")), Data: dmaLineElems(dr.PeekBig("xw_data"), c.Rows, c.ElemWidth)}
		if v := dr.PeekBig("xw_data"); v.BitLen() > lw {
			t.Fatalf("cycle %d: xw_data wider than a line", cyc)
		}
		stall := dr.PeekBool("stall")
		if want := srValid && !srReady || xwValid && !xwReady; stall != want {
			t.Fatalf("cycle %d: stall %v, want %v (sr valid %v ready %v, xw valid %v ready %v)", cyc, stall, want, srValid, srReady, xwValid, xwReady)
		}
		if m := dr.Peek("sr_mask"); m != full {
			t.Fatalf("cycle %d: sr_mask %#x", cyc, m)
		}
		srHold.check(t, cyc, srValid, srReady, fmt.Sprint(srAddr))
		xwHold.check(t, cyc, xwValid, xwReady, fmt.Sprint(xwr))

		if task, ok := tc.check(cyc, stall); ok {
			rs, ws := goldenDMAOut(c, task, state)
			reads, writes = append(reads, rs...), append(writes, ws...)
			tc.started(cyc, len(ws))
		}
		answer = -1
		if srValid && srReady {
			if len(reads) == 0 || reads[0] != srAddr {
				t.Fatalf("cycle %d: read of state address %d, expected reads %v", cyc, srAddr, reads[:min(len(reads), 4)])
			}
			reads = reads[1:]
			answer = srAddr
			tc.requested(cyc)
			outstanding++
			if outstanding > dmaOutFIFODepth {
				t.Fatalf("cycle %d: %d lines outstanding, the FIFO holds %d", cyc, outstanding, dmaOutFIFODepth)
			}
		}
		if xwValid && xwReady {
			dmaWant(t, cyc, "external write", &writes, xwr)
			tc.wrote(cyc)
			outstanding--
		}
		dr.Step(1)
	}
	if len(reads)+len(writes) != 0 {
		t.Fatalf("after the run: %d reads, %d writes expected", len(reads), len(writes))
	}
	return tc.stats
}
