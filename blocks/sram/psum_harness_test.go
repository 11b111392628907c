package sram

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify/simtest"
)

// Psum clients of the harness.
const (
	psWr  = iota // PE-array write (overwrite or accumulate)
	psRd         // planar-engine read-out
	psClr        // clear-region command
	psClients
)

var psumClientNames = [psClients]string{"wr", "rd", "clr"}

// psReq is one psum request; which fields matter depends on the client.
type psReq struct {
	addr  int // wr, rd; clr: base
	acc   bool
	mask  uint64
	data  []uint64 // wr: A-bit patterns, one per partition
	count int      // clr
}

type psumSource func(r *rand.Rand, c, t int) (req psReq, ok bool)

type psumResult struct {
	drv        *simtest.Driver
	upCycles   int
	accepted   [psClients]int
	accWrites  int // accepted accumulating writes
	clearing   int // cycles the clear engine wrote zeros
	abandoned  int // reset cycles that cut a running clear short
	bankReads  int // lanes read (accumulate old values and read-outs)
	bankWrites int // lanes written (PE writes and zeros)
	maxWait    [psClients]int
	acceptedAt [psClients][]int // the cycles each client's requests were accepted
	responses  [][]uint64       // every read-out vector in order
}

// runPsum drives the psum buffer closed loop like runState, checking
// readies against the reference arbitration and clear engine, every
// read-out against the reference accumulators, and the arrays at the end.
func runPsum(t *testing.T, d *hdl.Design, cfg PsumConfig, cycles int, seed uint64, src psumSource, resets ...int) *psumResult {
	t.Helper()
	dr := simtest.New(t, d)
	r := rand.New(rand.NewPCG(seed, 11))
	model := newPsumModel(cfg)
	C, aMask := cfg.Partitions, lanesOf(cfg.AccWidth)
	res := &psumResult{drv: dr}
	var pend [psClients]*psReq
	var wait [psClients]int
	var expect []uint64 // read-out due this cycle
	wrAcc := false      // the value on wr_acc (it holds while wr is idle)
	up := false
	quiet := 0 // from this cycle on nothing is in flight
	for cyc := 0; ; cyc++ {
		rst := cyc < resetCycles
		for _, at := range resets {
			rst = rst || cyc >= at && cyc < at+resetCycles
		}
		if rst { // clients are reset with the buffer: they drop their requests
			pend, wait = [psClients]*psReq{}, [psClients]int{}
		}
		idle := model.left == 0 && cyc >= quiet
		for _, p := range pend {
			idle = idle && p == nil
		}
		if cyc >= cycles && idle {
			break
		}
		if cyc > cycles+4*cfg.Depth+100 {
			t.Fatalf("requests still pending %d cycles after traffic stopped", cyc-cycles)
		}
		dr.PokeBool("rst", rst)
		for c, name := range psumClientNames {
			if pend[c] == nil && !rst && cyc < cycles {
				if req, ok := src(r, c, cyc); ok {
					pend[c] = &req
				}
			}
			p := pend[c]
			dr.PokeBool(name+"_valid", p != nil)
			if p == nil {
				continue
			}
			switch c {
			case psWr:
				dr.Poke("wr_addr", uint64(p.addr))
				dr.PokeBool("wr_acc", p.acc)
				wrAcc = p.acc
				dr.Poke("wr_mask", p.mask)
				for k, v := range p.data {
					dr.Poke(fmt.Sprintf("wr_data_%d", k), v&aMask)
				}
			case psRd:
				dr.Poke("rd_addr", uint64(p.addr))
				dr.Poke("rd_mask", p.mask)
			case psClr:
				dr.Poke("clr_base", uint64(p.addr))
				dr.Poke("clr_count", uint64(p.count))
			}
		}

		// Reference acceptance.
		running := model.left > 0
		v := []bool{pend[psWr] != nil && pend[psWr].acc && !running, pend[psRd] != nil}
		masks := make([]uint64, 2)
		for i, c := range []int{psWr, psRd} {
			if pend[c] != nil {
				masks[i] = pend[c].mask
			}
		}
		if cfg.WritePriority && !cfg.ReadOutPort && v[0] && masks[0]&masks[1] != 0 {
			v[1] = false // the read-out yields to the accumulating write
		}
		g := make([]bool, 2)
		switch {
		case up && cfg.ReadOutPort: // a port each: both granted
			copy(g, v)
		case up:
			g = model.arb.grant(v, masks)
		}
		want := [psClients]bool{
			psWr:  up && !running && (!wrAcc || g[0] || cfg.ReadOutPort), // with its own port an accumulation could always go
			psRd:  g[1],
			psClr: up && !running,
		}
		var got, accepted [psClients]bool
		for c, name := range psumClientNames {
			got[c] = dr.Peek(name+"_ready") == 1
			if got[c] != want[c] {
				t.Fatalf("cycle %d: %s_ready = %v, reference says %v (clear running %v, read-port requests %v %x)", cyc, name, got[c], want[c], running, v, masks)
			}
			accepted[c] = got[c] && pend[c] != nil
		}
		if !cfg.ReadOutPort && accepted[psWr] && accepted[psRd] && pend[psWr].acc && pend[psWr].mask&pend[psRd].mask != 0 {
			t.Fatalf("cycle %d: accumulate and read-out share a bank read port", cyc)
		}

		// The read-out accepted in the previous cycle.
		rv := dr.Peek("rd_rvalid") == 1
		if rv != (expect != nil) {
			t.Fatalf("cycle %d: rd_rvalid = %v, want %v", cyc, rv, expect != nil)
		}
		for k := range C {
			var w uint64
			if expect != nil {
				w = expect[k]
			}
			if g := dr.Peek(fmt.Sprintf("rd_data_%d", k)) & aMask; g != w {
				t.Fatalf("cycle %d: rd_data_%d = %#x, reference %#x", cyc, k, g, w)
			}
		}
		if expect != nil {
			res.responses = append(res.responses, expect)
		}
		expect = nil
		if accepted[psRd] {
			expect = model.read(pend[psRd].addr, pend[psRd].mask) // sees writes accepted before this cycle
			res.bankReads += popcount(pend[psRd].mask)
		}
		switch {
		case running && rst:
			// The zero write entering the pipeline in a reset cycle is
			// dropped with it: a reset abandons a running clear.
			res.abandoned++
		case running:
			model.write(model.caddr, false, lanesOf(C), make([]uint64, C))
			model.caddr = (model.caddr + 1) % cfg.Depth
			model.left--
			res.clearing++
			res.bankWrites += C
		case accepted[psWr]:
			p := pend[psWr]
			model.write(p.addr, p.acc, p.mask, p.data)
			res.bankWrites += popcount(p.mask)
			if p.acc {
				res.accWrites++
				res.bankReads += popcount(p.mask)
			}
		}
		if running || accepted[psWr] || accepted[psRd] {
			quiet = cyc + 2 // the write commits, the read-out answers, in the next cycle
		}
		if accepted[psClr] {
			model.left, model.caddr = pend[psClr].count, pend[psClr].addr
		}
		if up {
			res.upCycles++
			if !cfg.ReadOutPort {
				model.arb.advance(v, g)
			}
		}
		for c := range psClients {
			switch {
			case accepted[c]:
				res.accepted[c]++
				res.acceptedAt[c] = append(res.acceptedAt[c], cyc)
				pend[c], wait[c] = nil, 0
			case pend[c] != nil && up && !running:
				// Waits behind a running clear are the clear's length;
				// only arbitration waits are bounded by round robin.
				wait[c]++
				res.maxWait[c] = max(res.maxWait[c], wait[c])
			default:
				wait[c] = 0
			}
		}
		if rst { // the edge resets the arbitration and the clear engine
			model.arb.ptr, model.left = 0, 0
		}
		up = !rst
		dr.Step(1)
	}
	for k := range C {
		for a := range cfg.Depth {
			if g, w := dr.MemRead(fmt.Sprintf("lane_%d.ram", k), a).Uint64()&aMask, model.mem[k][a]; g != w {
				t.Fatalf("after the run: partition %d entry %d holds %#x, reference %#x", k, a, g, w)
			}
		}
	}
	return res
}

// randomPsum is mixed traffic on a few hot entries (so accumulations,
// overwrites and read-outs of one entry meet back to back) with full,
// partial and empty lane masks, values across the whole A-bit range (so
// sums wrap), and now and then a clear of a short or long region.
func randomPsum(cfg PsumConfig, rate float64) psumSource {
	hot := []int{0, 1, cfg.Depth - 1}
	full := lanesOf(cfg.Partitions)
	mask := func(r *rand.Rand) uint64 {
		switch k := r.IntN(10); {
		case k < 6:
			return full
		case k == 6:
			return 0
		default:
			return r.Uint64() & full
		}
	}
	addr := func(r *rand.Rand) int {
		if r.IntN(10) < 8 {
			return hot[r.IntN(len(hot))]
		}
		return r.IntN(cfg.Depth)
	}
	return func(r *rand.Rand, c, t int) (psReq, bool) {
		switch c {
		case psWr, psRd:
			if r.Float64() >= rate {
				return psReq{}, false
			}
			req := psReq{addr: addr(r), acc: r.IntN(4) != 0, mask: mask(r)}
			if c == psWr {
				for range cfg.Partitions {
					req.data = append(req.data, randAcc(r, cfg.AccWidth))
				}
			}
			return req, true
		default:
			if r.IntN(200) != 0 {
				return psReq{}, false
			}
			// Mostly short regions; a quarter up to twice the depth (the
			// most clr_count holds) at small depths, up to 64 entries at
			// large ones, so clears do not swamp the traffic.
			n := r.IntN(5)
			if r.IntN(4) == 0 {
				n = r.IntN(min(2*cfg.Depth, 64))
			}
			return psReq{addr: r.IntN(cfg.Depth), count: n}, true
		}
	}
}

// randAcc draws an A-bit pattern: small positive and negative values
// (typical partial sums) and arbitrary ones (which make sums wrap).
func randAcc(r *rand.Rand, width int) uint64 {
	m := lanesOf(width)
	switch r.IntN(4) {
	case 0:
		return uint64(r.IntN(256)) & m
	case 1:
		return uint64(-int64(r.IntN(256))) & m
	case 2:
		return m // -1
	}
	return r.Uint64() & m
}

func psumDesign(t testing.TB, cfg PsumConfig, macros bool) *hdl.Design {
	t.Helper()
	m, err := PsumBuffer(cfg, macros)
	return elaborate(t, m, err)
}

// timed is a request a script makes valid no earlier than cycle at.
type timed struct {
	at  int
	req psReq
}

// psumScript feeds each client its requests in order, each as soon as the
// client is idle and the request's cycle has come.
func psumScript(queues [psClients][]timed) psumSource {
	return func(_ *rand.Rand, c, t int) (psReq, bool) {
		q := queues[c]
		if len(q) == 0 || t < q[0].at {
			return psReq{}, false
		}
		queues[c] = q[1:]
		return q[0].req, true
	}
}
