package npu

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verify/simtest"
)

// lineOf is the test memory's content: a line's data from its address.
func lineOf(a uint64) uint64 { return (a*2654435761 + 17) & 0xffffffff }

// TestExtReadMux drives the read mux alone with two clients (dma_in's
// port ar_*, the descriptor fetch's dr_*) that keep a refused request,
// and a memory that accepts at random and answers in order 1 to 6 cycles
// later. Every client receives exactly its own lines, in its request
// order (the reference is each client's list of requests); the request
// passed on keeps the hold rule; at most inflight reads are ever in
// flight; the recording replays on Verilator.
func TestExtReadMux(t *testing.T) {
	c := smallConfig()
	c.ExtLatency = 3 // 8 reads in flight at most
	dr := simtest.NewModule(t, extReadMux(c))
	rng := rand.New(rand.NewPCG(7, 8))
	type client struct {
		prefix   string
		showing  bool
		addr     uint64
		asked    []uint64 // accepted requests, in order
		received []uint64 // response lines
	}
	cls := []*client{{prefix: "ar"}, {prefix: "dr"}}
	type resp struct {
		due  int
		addr uint64
	}
	var pending []resp
	var heldAddr uint64
	held, maxInflight := false, 0
	dr.Reset(2)
	const cycles = 3000
	for cycle := 0; cycle < cycles+40; cycle++ {
		for _, cl := range cls {
			if !cl.showing && cycle < cycles && rng.IntN(3) > 0 {
				cl.showing, cl.addr = true, uint64(rng.IntN(1<<c.ExtAddrWidth))
			}
			dr.PokeBool(cl.prefix+"_valid", cl.showing)
			dr.Poke(cl.prefix+"_addr", cl.addr)
		}
		ready := rng.IntN(4) > 0
		dr.PokeBool("xr_ready", ready)
		rv := len(pending) > 0 && pending[0].due <= cycle
		dr.PokeBool("xr_rvalid", rv)
		if rv {
			dr.Poke("xr_rdata", lineOf(pending[0].addr))
		} else {
			dr.Poke("xr_rdata", rng.Uint64()&0xffffffff) // junk outside a response
		}
		// The request passed on keeps the hold rule.
		xv, xa := dr.PeekBool("xr_valid"), dr.Peek("xr_addr")
		if held && (!xv || xa != heldAddr) {
			t.Fatalf("cycle %d: a refused request for line %d was withdrawn (valid %v, line %d)", cycle, heldAddr, xv, xa)
		}
		held, heldAddr = xv && !ready, xa
		for _, cl := range cls {
			if dr.PeekBool(cl.prefix + "_rvalid") {
				cl.received = append(cl.received, dr.Peek(cl.prefix+"_rdata"))
			}
			if cl.showing && dr.PeekBool(cl.prefix+"_ready") {
				cl.asked = append(cl.asked, cl.addr)
				cl.showing = false
			}
		}
		if rv {
			pending = pending[1:]
		}
		if xv && ready {
			due := cycle + 1 + rng.IntN(6)
			if n := len(pending); n > 0 {
				due = max(due, pending[n-1].due)
			}
			pending = append(pending, resp{due, xa})
		}
		maxInflight = max(maxInflight, len(pending))
		dr.Step(1)
	}
	for _, cl := range cls {
		var want []uint64
		for _, a := range cl.asked {
			want = append(want, lineOf(a))
		}
		if d := cmp.Diff(want, cl.received); d != "" {
			t.Errorf("%s: responses (-its requests' lines +received):\n%s", cl.prefix, d)
		}
		if len(cl.asked) < 500 {
			t.Errorf("%s: only %d requests served in %d cycles", cl.prefix, len(cl.asked), cycles)
		}
	}
	if limit := 1 << log2(c.ExtLatency+2); maxInflight > limit {
		t.Errorf("%d reads in flight, the tag FIFO holds %d", maxInflight, limit)
	}
	t.Logf("%d and %d reads served, up to %d in flight", len(cls[0].asked), len(cls[1].asked), maxInflight)
	tooltest.Need(t, "verilator")
	dr.CrossCheck(verify.Options{Dir: t.TempDir()})
}
