package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verify/simtest"
)

// xmReq is a request on an x_req port.
type xmReq struct {
	write bool
	addr  int
	data  *big.Int
}

// runExtMem drives the external-memory model with random host writes,
// host reads and NPU requests (held until accepted) for cycles cycles and
// checks every cycle: x_req_ready = !h_wr_valid, each read answered in
// exactly ext_latency cycles with the line as of its acceptance, no other
// response, h_rd_data one cycle after its address (old data when written
// in that cycle); at the end the whole memory.
func runExtMem(t *testing.T, dr *simtest.Driver, c Config, seed uint64, cycles int, pHost, pReq float64) (reads, writes, refused int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 17))
	xw, lw, L := c.ExtAddrWidth, c.LineWidth(), c.ExtLatency
	mem := make([]*big.Int, 1<<xw)
	for i := range mem {
		mem[i] = new(big.Int)
	}
	type resp struct {
		due  int
		data *big.Int
	}
	var inflight []resp
	var pend *xmReq
	var hrdWant *big.Int // h_rd_data due this cycle
	dr.Reset(dmaResetCycles)
	for cyc := 0; cyc < cycles || len(inflight) > 0; cyc++ {
		// Inputs. Narrow addresses now and then so host and NPU meet.
		addr := func() int {
			if r.IntN(3) == 0 {
				return r.IntN(4)
			}
			return r.IntN(1 << xw)
		}
		hostWr := cyc < cycles && dmaChance(r, pHost)
		hAddr, hData := addr(), dmaRandBits(r, lw)
		dr.PokeBool("h_wr_valid", hostWr)
		dr.Poke("h_wr_addr", uint64(hAddr))
		dr.PokeBig("h_wr_data", hData)
		hRd := addr()
		dr.Poke("h_rd_addr", uint64(hRd))
		if pend == nil && cyc < cycles && dmaChance(r, pReq) {
			pend = &xmReq{write: r.IntN(2) == 0, addr: addr(), data: dmaRandBits(r, lw)}
		}
		req := xmReq{write: r.IntN(2) == 0, addr: r.IntN(1 << xw), data: dmaRandBits(r, lw)}
		if pend != nil {
			req = *pend
		}
		dr.PokeBool("x_req_valid", pend != nil)
		dr.PokeBool("x_req_write", req.write)
		dr.Poke("x_req_addr", uint64(req.addr))
		dr.PokeBig("x_req_wdata", req.data)

		// Outputs.
		ready := dr.PeekBool("x_req_ready")
		if ready == hostWr {
			t.Fatalf("cycle %d: x_req_ready %v with h_wr_valid %v", cyc, ready, hostWr)
		}
		rv := dr.PeekBool("x_resp_valid")
		due := len(inflight) > 0 && inflight[0].due == cyc
		if rv != due {
			t.Fatalf("cycle %d: x_resp_valid %v, want %v (in flight %d)", cyc, rv, due, len(inflight))
		}
		if due {
			if got := dr.PeekBig("x_resp_data"); got.Cmp(inflight[0].data) != 0 {
				t.Fatalf("cycle %d: x_resp_data %#x, want %#x", cyc, got, inflight[0].data)
			}
			inflight = inflight[1:]
		}
		if hrdWant != nil {
			if got := dr.PeekBig("h_rd_data"); got.Cmp(hrdWant) != 0 {
				t.Fatalf("cycle %d: h_rd_data %#x, want %#x", cyc, got, hrdWant)
			}
		}

		// The edge: reads see the memory before this cycle's write.
		hrdWant = new(big.Int).Set(mem[hRd])
		if pend != nil && ready {
			if pend.write {
				mem[pend.addr] = pend.data
				writes++
			} else {
				inflight = append(inflight, resp{due: cyc + L, data: new(big.Int).Set(mem[pend.addr])})
				reads++
			}
			pend = nil
		} else if pend != nil {
			refused++
		}
		if hostWr {
			mem[hAddr] = hData
		}
		dr.Step(1)
	}
	for a, want := range mem {
		got := dr.MemRead("lines", a)
		if got.Cmp(want) != 0 {
			t.Fatalf("after the run: line %d holds %#x, want %#x", a, got, want)
		}
	}
	return reads, writes, refused
}

// Random traffic at several latencies (1, the small configuration's 3,
// 5 and 16) and line widths: exact latency, host priority, host read port.
func TestExtMemRandom(t *testing.T) {
	cycles := 3000
	if testing.Short() {
		cycles = 800
	}
	for i, cc := range []struct {
		lat  int
		wide bool
	}{{1, false}, {3, false}, {5, true}, {16, false}, {2, true}} {
		c := dmaSmallConfig()
		if cc.wide {
			c = dmaWideConfig()
		}
		c.ExtLatency = cc.lat
		t.Run(fmt.Sprintf("latency %d line %d", cc.lat, c.LineWidth()), func(t *testing.T) {
			reads, writes, refused := runExtMem(t, simtest.NewModule(t, extMem(c)), c, uint64(400+i), cycles, 0.25, 0.8)
			if reads < cycles/5 || writes < cycles/5 || refused < cycles/20 {
				t.Errorf("weak run: %d reads, %d writes, %d refused requests", reads, writes, refused)
			}
		})
	}
}

// Directed: what the host write takes from the NPU, read-after-write
// order, the host read port.
func TestExtMemDirected(t *testing.T) {
	c := dmaSmallConfig() // latency 3
	type step struct {
		host  int // host write of line host (value 1000+host) when ≥ 0
		req   *xmReq
		hRead int
	}
	type obs struct {
		Ready     bool
		RespValid bool
		Resp      int64 // x_resp_data when valid
		HRd       int64 // h_rd_data
	}
	wr := func(a int, v int64) *xmReq { return &xmReq{write: true, addr: a, data: big.NewInt(v)} }
	rd := func(a int) *xmReq { return &xmReq{addr: a, data: new(big.Int)} }
	tests := []struct {
		name  string
		steps []step
		want  []obs
	}{
		{"a host write refuses the NPU's write to the same line, which lands next cycle",
			[]step{{5, wr(5, 7), 5}, {-1, wr(5, 7), 5}, {-1, rd(5), 5}, {-1, nil, 0}, {-1, nil, 0}, {-1, nil, 0}},
			[]obs{{Ready: false}, {Ready: true, HRd: 0}, {Ready: true, HRd: 1005}, {Ready: true, HRd: 7},
				{Ready: true}, {Ready: true, RespValid: true, Resp: 7}}},
		{"a read accepted the cycle after a write sees it; a read in the write's cycle (host port) does not",
			[]step{{-1, wr(9, 99), 9}, {-1, rd(9), 9}, {-1, rd(8), 0}, {-1, nil, 0}, {-1, nil, 0}, {-1, nil, 0}},
			[]obs{{Ready: true}, {Ready: true, HRd: 0}, {Ready: true, HRd: 99}, {Ready: true},
				{Ready: true, RespValid: true, Resp: 99}, {Ready: true, RespValid: true, Resp: 0}}},
		{"a read refused by the host write is answered latency cycles after its acceptance",
			[]step{{1, rd(1), 0}, {2, rd(1), 0}, {-1, rd(1), 0}, {-1, nil, 0}, {-1, nil, 0}, {-1, nil, 0}},
			[]obs{{}, {}, {Ready: true}, {Ready: true}, {Ready: true}, {Ready: true, RespValid: true, Resp: 1001}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dr := simtest.NewModule(t, extMem(c))
			dr.Reset(dmaResetCycles)
			var got []obs
			for _, s := range tt.steps {
				dr.PokeBool("h_wr_valid", s.host >= 0)
				dr.Poke("h_wr_addr", uint64(max(s.host, 0)))
				dr.PokeBig("h_wr_data", big.NewInt(int64(1000+s.host)))
				dr.Poke("h_rd_addr", uint64(s.hRead))
				dr.PokeBool("x_req_valid", s.req != nil)
				if s.req != nil {
					dr.PokeBool("x_req_write", s.req.write)
					dr.Poke("x_req_addr", uint64(s.req.addr))
					dr.PokeBig("x_req_wdata", s.req.data)
				}
				o := obs{Ready: dr.PeekBool("x_req_ready"), RespValid: dr.PeekBool("x_resp_valid"), HRd: int64(dr.Peek("h_rd_data"))}
				if o.RespValid {
					o.Resp = int64(dr.Peek("x_resp_data"))
				}
				got = append(got, o)
				dr.Step(1)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cycle by cycle (-want +got):\n%s", diff)
			}
		})
	}
}

// xmArbModel is the reference of extArbiter's choice: a refused request
// stays chosen; otherwise the writer wins when it asks alone or has the
// turn, and the turn passes to the other client with every accepted
// request.
type xmArbModel struct{ locked, lockedWr, prioWr bool }

func (a *xmArbModel) choose(xr, xw bool) (wr bool) {
	if a.locked {
		return a.lockedWr
	}
	return xw && (!xr || a.prioWr)
}

func (a *xmArbModel) edge(xr, xw, ready bool) {
	wr := a.choose(xr, xw)
	valid := xr && !wr || xw && wr
	a.locked, a.lockedWr = valid && !ready, wr
	if valid && ready {
		a.prioWr = !wr
	}
}

// runExtArb drives the arbiter with a reader and a writer that hold their
// requests until accepted, a random x_req_ready and random responses, and
// checks the grant against the model, the properties any fair arbiter
// has, the hold rule on x_req and the response forwarding.
func runExtArb(t *testing.T, dr *simtest.Driver, c Config, seed uint64, cycles int, pReq, pReady float64) (served [2]int, maxWait int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 19))
	xw, lw := c.ExtAddrWidth, c.LineWidth()
	var model xmArbModel
	var pend [2]*xmReq // 0 reader, 1 writer
	var wait [2]int    // accepted requests of the other client while this one waited
	hold := &dmaHold{name: "x_req"}
	dr.Reset(dmaResetCycles)
	for cyc := range cycles {
		for i := range pend {
			if pend[i] == nil && dmaChance(r, pReq) {
				pend[i] = &xmReq{write: i == 1, addr: r.IntN(1 << xw), data: dmaRandBits(r, lw)}
			}
		}
		in := func(i int) xmReq {
			if pend[i] != nil {
				return *pend[i]
			}
			return xmReq{addr: r.IntN(1 << xw), data: dmaRandBits(r, lw)}
		}
		rq, wq := in(0), in(1)
		dr.PokeBool("xr_valid", pend[0] != nil)
		dr.Poke("xr_addr", uint64(rq.addr))
		dr.PokeBool("xw_valid", pend[1] != nil)
		dr.Poke("xw_addr", uint64(wq.addr))
		dr.PokeBig("xw_data", wq.data)
		ready := dmaChance(r, pReady)
		dr.PokeBool("x_req_ready", ready)
		respV, respD := r.IntN(2) == 0, dmaRandBits(r, lw)
		dr.PokeBool("x_resp_valid", respV)
		dr.PokeBig("x_resp_data", respD)

		if dr.PeekBool("xr_rvalid") != respV || dr.PeekBig("xr_rdata").Cmp(respD) != 0 {
			t.Fatalf("cycle %d: response not forwarded", cyc)
		}
		xr, xwv := pend[0] != nil, pend[1] != nil
		wantWr := model.choose(xr, xwv)
		wantValid := xr && !wantWr || xwv && wantWr
		valid, write := dr.PeekBool("x_req_valid"), dr.PeekBool("x_req_write")
		addr, data := int(dr.Peek("x_req_addr")), dr.PeekBig("x_req_wdata")
		rReady, wReady := dr.PeekBool("xr_ready"), dr.PeekBool("xw_ready")
		if valid != wantValid || valid && write != wantWr {
			t.Fatalf("cycle %d: x_req valid %v write %v, model %v %v (xr %v xw %v, %+v)", cyc, valid, write, wantValid, wantWr, xr, xwv, model)
		}
		if valid != (xr || xwv) {
			t.Fatalf("cycle %d: x_req_valid %v with xr_valid %v xw_valid %v", cyc, valid, xr, xwv)
		}
		if rReady != (valid && !write && ready) || wReady != (valid && write && ready) {
			t.Fatalf("cycle %d: xr_ready %v xw_ready %v, x_req valid %v write %v ready %v", cyc, rReady, wReady, valid, write, ready)
		}
		sel := rq
		if write {
			sel = wq
		}
		if valid && (addr != sel.addr || write && data.Cmp(sel.data) != 0) {
			t.Fatalf("cycle %d: x_req addr %d data %#x, client's %d %#x", cyc, addr, data, sel.addr, sel.data)
		}
		req := fmt.Sprint(write, addr)
		if write {
			req += fmt.Sprintf(" %#x", data)
		}
		hold.check(t, cyc, valid, ready, req)
		model.edge(xr, xwv, ready)
		for i, g := range []bool{rReady, wReady} {
			if g {
				served[i]++
				pend[i], wait[i] = nil, 0
				if pend[1-i] != nil {
					wait[1-i]++
					maxWait = max(maxWait, wait[1-i])
				}
			}
		}
		dr.Step(1)
	}
	return served, maxWait
}

func TestExtArbiter(t *testing.T) {
	cycles := 3000
	if testing.Short() {
		cycles = 800
	}
	for i, tt := range []struct {
		name          string
		c             Config
		pReq, pReady  float64
		alternate     bool // both always ask and are always served: strict alternation
		wantMaxWaitLE int
	}{
		{"saturated", dmaSmallConfig(), 1, 1, true, 1},
		{"saturated, back-pressure", dmaSmallConfig(), 1, 0.5, false, 1},
		{"random", dmaSmallConfig(), 0.5, 0.7, false, 1},
		{"random, wide", dmaWideConfig(), 0.3, 0.4, false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			served, maxWait := runExtArb(t, simtest.NewModule(t, extArbiter(tt.c)), tt.c, uint64(500+i), cycles, tt.pReq, tt.pReady)
			if maxWait > tt.wantMaxWaitLE {
				t.Errorf("a waiting client saw %d requests of the other one served", maxWait)
			}
			if tt.alternate && (served[0] != cycles/2 || served[1] != cycles/2) {
				t.Errorf("served %v in %d cycles, want strict alternation", served, cycles)
			}
			if served[0] < cycles/10 || served[1] < cycles/10 {
				t.Errorf("weak run: served %v", served)
			}
		})
	}
}

// dmaSystem joins the four modules as the NPU does (the arbiter between
// the engines and the memory model). The on-chip ports and the task ports
// stay ports, prefixed in_ (dma_in) and out_ (dma_out); the memory's host
// port keeps its names; every output of the engines and of the arbiter is
// visible.
func dmaSystem(c Config) *hdl.Module {
	m := hdl.NewModule(hdl.Name("npu_dma_system_test", c.Rows, c.ExtAddrWidth))
	di := m.Instance("dma_in", dmaIn(c))
	do := m.Instance("dma_out", dmaOut(c))
	xa := m.Instance("xarb", extArbiter(c))
	xm := m.Instance("xmem", extMem(c))
	join := func(from *hdl.Instance, to *hdl.Instance, ports ...string) {
		for _, p := range ports {
			to.Connect(p, from.Out(p))
		}
	}
	join(di, xa, "xr_valid", "xr_addr")
	join(do, xa, "xw_valid", "xw_addr", "xw_data")
	join(xa, di, "xr_ready", "xr_rvalid", "xr_rdata")
	join(xa, do, "xw_ready")
	join(xa, xm, "x_req_valid", "x_req_write", "x_req_addr", "x_req_wdata")
	join(xm, xa, "x_req_ready", "x_resp_valid", "x_resp_data")
	for _, in := range []struct {
		inst   *hdl.Instance
		prefix string
	}{{di, "in_"}, {do, "out_"}, {xa, "arb_"}, {xm, ""}} {
		for _, p := range in.inst.Module.Ports {
			switch {
			case p.Kind == hdl.Output:
				m.Output(in.prefix+p.Name, p.Type).Set(in.inst.Out(p.Name))
			case in.inst.Inputs[p.Name] == nil:
				in.inst.Connect(p.Name, m.Input(in.prefix+p.Name, p.Type))
			}
		}
	}
	return m
}

// dmaSystemTasks are random tasks of one engine that stay inside the
// external lines [xlo, xlo+xn) and the state addresses [slo, slo+sn)
// (the two engines work on disjoint regions, so each has its own
// golden model while they contend for external memory).
func dmaSystemTasks(r *rand.Rand, c Config, n int, out bool, xlo, xn, slo, sn int) []dmaTaskSpec {
	var ts []dmaTaskSpec
	for len(ts) < n {
		t := dmaTaskSpec{Op: isa.DMAInLoad, D0: 1 + r.IntN(4), D1: 1 + r.IntN(3)}
		if !out && r.IntN(3) == 0 {
			t.Op = isa.DMAInLoadWeights
		}
		if r.IntN(15) == 0 {
			t.Op = isa.DMAInNop
		}
		t.D2 = t.D0 + r.IntN(3)
		ext := (t.D1-1)*t.D2 + t.D0 // lines spanned
		lines := t.D0 * t.D1
		on := sn
		if t.Op == isa.DMAInLoadWeights {
			on = c.WeightDepth
		}
		if ext > xn || lines > on {
			continue
		}
		x, s := xlo+r.IntN(xn-ext+1), r.IntN(on-lines+1)
		if t.Op != isa.DMAInLoadWeights {
			s += slo
		}
		if out {
			t.Src, t.Dst = s, x
		} else {
			t.Src, t.Dst = x, s
		}
		ts = append(ts, t)
	}
	return ts
}

// runDMASystem loads external memory through the host port, runs tasks on
// both engines at once (dma_in from the lower half of external memory
// into the lower half of the state buffer and the weight buffer, dma_out
// from the upper half of the state buffer into the upper half of external
// memory) with random on-chip back-pressure, checks every on-chip write
// and every external write, and reads external memory back through the
// host port. It returns the cycles in which both engines wanted the
// external port.
func runDMASystem(t *testing.T, dr *simtest.Driver, c Config, seed uint64, nTasks int, pReady float64) (contended int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 23))
	X, S := 1<<c.ExtAddrWidth, c.StateDepth
	ext := dmaLines(r, c, X)
	state := dmaLines(r, c, S)
	dr.Reset(dmaResetCycles)
	dr.Poke("h_wr_valid", 1)
	for a := range X {
		dr.Poke("h_wr_addr", uint64(a))
		dr.PokeBig("h_wr_data", dmaLineBig(ext[a], c.ElemWidth))
		dr.Step(1)
	}
	dr.Poke("h_wr_valid", 0)

	tin := newDMATaskChecker(t, dr, r, dmaSystemTasks(r, c, nTasks, false, 0, X/2, 0, S/2), c.ExtAddrWidth, max(log2(S), log2(c.WeightDepth)), 0.2)
	tin.prefix = "in_"
	tout := newDMATaskChecker(t, dr, r, dmaSystemTasks(r, c, nTasks, true, X/2, X/2, S/2, S/2), log2(S), c.ExtAddrWidth, 0.2)
	tout.prefix = "out_"
	var inWrites, outWrites []dmaMove
	var inReads, outReads []int
	wantExt := make([][]uint64, X)
	copy(wantExt, ext)
	answer := -1
	limit := dmaCycleLimit(append(append([]dmaTaskSpec(nil), tin.tasks...), tout.tasks...), dmaBenchOpts{ready: pReady, maxLat: c.ExtLatency})
	for cyc := 0; !tin.finished() || !tout.finished(); cyc++ {
		if cyc > limit {
			t.Fatalf("cycle %d: stuck (dma_in task %d of %d, dma_out task %d of %d)", cyc, tin.next, len(tin.tasks), tout.next, len(tout.tasks))
		}
		tin.drive()
		tout.drive()
		swReady, srReady := dmaChance(r, pReady), dmaChance(r, pReady)
		dr.PokeBool("in_sw_ready", swReady)
		dr.PokeBool("out_sr_ready", srReady)
		dr.PokeBool("out_sr_rvalid", answer >= 0)
		for p := range c.Rows {
			v := uint64(0)
			if answer >= 0 {
				v = state[answer][p]
			}
			dr.Poke(fmt.Sprintf("out_sr_rdata_%d", p), v)
		}
		dr.Poke("h_rd_addr", uint64(r.IntN(X)))

		xrValid, xwValid := dr.PeekBool("in_xr_valid"), dr.PeekBool("out_xw_valid")
		if xrValid && xwValid {
			contended++
		}
		if task, ok := tin.check(cyc, dr.PeekBool("in_stall")); ok {
			rs, ws := goldenDMAIn(c, task, ext)
			inReads, inWrites = append(inReads, rs...), append(inWrites, ws...)
			tin.started(cyc, len(ws))
		}
		if task, ok := tout.check(cyc, dr.PeekBool("out_stall")); ok {
			rs, ws := goldenDMAOut(c, task, state)
			outReads, outWrites = append(outReads, rs...), append(outWrites, ws...)
			tout.started(cyc, len(ws))
		}
		if xrValid && dr.PeekBool("arb_xr_ready") {
			if a := int(dr.Peek("in_xr_addr")); len(inReads) == 0 || inReads[0] != a {
				t.Fatalf("cycle %d: dma_in reads line %d, expected %v", cyc, a, inReads[:min(4, len(inReads))])
			}
			inReads = inReads[1:]
			tin.requested(cyc)
		}
		if dr.PeekBool("in_sw_valid") && swReady {
			got := dmaMove{Addr: int(dr.Peek("in_sw_addr"))}
			for p := range c.Rows {
				got.Data = append(got.Data, dr.Peek(fmt.Sprintf("in_sw_wdata_%d", p)))
			}
			dmaWant(t, cyc, "dma_in state write", &inWrites, got)
			tin.wrote(cyc)
		}
		if dr.PeekBool("in_ww_valid") {
			got := dmaMove{Weights: true, Addr: int(dr.Peek("in_ww_addr")), Data: dmaLineElems(dr.PeekBig("in_ww_data"), c.Cols, c.ElemWidth)}
			dmaWant(t, cyc, "dma_in weight write", &inWrites, got)
			tin.wrote(cyc)
		}
		answer = -1
		if dr.PeekBool("out_sr_valid") && srReady {
			a := int(dr.Peek("out_sr_addr"))
			if len(outReads) == 0 || outReads[0] != a {
				t.Fatalf("cycle %d: dma_out reads state address %d, expected %v", cyc, a, outReads[:min(4, len(outReads))])
			}
			outReads, answer = outReads[1:], a
			tout.requested(cyc)
		}
		if xwValid && dr.PeekBool("arb_xw_ready") {
			got := dmaMove{Addr: int(dr.Peek("out_xw_addr")), Data: dmaLineElems(dr.PeekBig("out_xw_data"), c.Rows, c.ElemWidth)}
			dmaWant(t, cyc, "dma_out external write", &outWrites, got)
			wantExt[got.Addr] = got.Data
			tout.wrote(cyc)
		}
		dr.Step(1)
	}
	// Read external memory back through the host port.
	for a := 0; a <= X; a++ {
		dr.Poke("h_rd_addr", uint64(a%X))
		if a > 0 {
			if got, want := dr.PeekBig("h_rd_data"), dmaLineBig(wantExt[a-1], c.ElemWidth); got.Cmp(want) != 0 {
				t.Fatalf("after the run: external line %d holds %#x, want %#x", a-1, got, want)
			}
		}
		dr.Step(1)
	}
	return contended
}

// Both engines at once through the arbiter and the memory model, with
// on-chip back-pressure: every move checked, external memory read back
// through the host port.
func TestDMASystem(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	for i, c := range []Config{dmaSmallConfig(), dmaWideConfig()} {
		t.Run(fmt.Sprintf("%dx%d latency %d", c.Rows, c.ElemWidth, c.ExtLatency), func(t *testing.T) {
			for j, pReady := range []float64{1, 0.6} {
				contended := runDMASystem(t, simtest.NewModule(t, dmaSystem(c)), c, uint64(600+2*i+j), n, pReady)
				if contended < n/2 {
					t.Errorf("ready %v: the engines contended for the external port in only %d cycles", pReady, contended)
				}
			}
		})
	}
}

// Short recorded runs of the arbiter, the memory model and the joined
// system, replayed on Verilator.
func TestExtCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := dmaSmallConfig()
	t.Run("ext_arb", func(t *testing.T) {
		dr := simtest.NewModule(t, extArbiter(c))
		runExtArb(t, dr, c, 700, 300, 0.6, 0.6)
		dr.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
	})
	t.Run("ext_mem", func(t *testing.T) {
		dr := simtest.NewModule(t, extMem(c))
		runExtMem(t, dr, c, 701, 300, 0.25, 0.8)
		dr.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
	})
	t.Run("system", func(t *testing.T) {
		dr := simtest.NewModule(t, dmaSystem(c))
		runDMASystem(t, dr, c, 702, 12, 0.7)
		dr.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
	})
}
