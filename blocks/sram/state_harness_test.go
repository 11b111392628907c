package sram

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify/simtest"
)

// stReq is one state-buffer request.
type stReq struct {
	addr int
	mask uint64
	data []uint64 // write clients only, one word per partition
}

// stateSource chooses client c's next request in cycle t (c indexes
// the config's ReadClients then StateWriteClients); ok=false leaves it idle.
type stateSource func(r *rand.Rand, c, t int) (req stReq, ok bool)

// stateResult summarises a run.
type stateResult struct {
	cfg        StateConfig
	drv        *simtest.Driver
	upCycles   int   // cycles in which the buffer could accept
	accepted   []int // requests accepted per client
	bankReads  int   // bank read-port operations (lanes of accepted reads)
	bankWrites int
	maxWait    []int        // longest run of consecutive refused cycles per client
	acceptedAt [][]int      // per client, the cycles its requests were accepted
	responses  [][][]uint64 // per read client, every response vector in order
}

func stateClientNames(cfg StateConfig) []string {
	return append(cfg.ReadClients(), StateWriteClients...)
}

// runState drives the state buffer closed loop for cycles cycles of
// traffic (then until every request is served) and checks, every cycle,
// each ready against the reference arbitration and each response against
// the reference memory; at the end it compares every bank with the model.
func runState(t *testing.T, d *hdl.Design, cfg StateConfig, cycles int, seed uint64, src stateSource, resets ...int) *stateResult {
	t.Helper()
	dr := simtest.New(t, d)
	r := rand.New(rand.NewPCG(seed, 7))
	model := newStateModel(cfg)
	names := stateClientNames(cfg)
	n, nr, P := len(names), len(cfg.ReadClients()), cfg.Partitions
	shared, own := readGroups(cfg)
	writes := make([]int, 0, n-nr)
	for c := nr; c < n; c++ {
		writes = append(writes, c)
	}
	res := &stateResult{cfg: cfg, drv: dr, accepted: make([]int, n), maxWait: make([]int, n),
		acceptedAt: make([][]int, n), responses: make([][][]uint64, nr)}
	pend := make([]*stReq, n)
	wait := make([]int, n)
	expect := make([][]uint64, nr) // response due this cycle, nil for none
	up := false
	quiet := 0 // from this cycle on no response is due
	for cyc := 0; ; cyc++ {
		rst := cyc < resetCycles
		for _, at := range resets {
			rst = rst || cyc >= at && cyc < at+resetCycles
		}
		if rst { // clients are reset with the buffer: they drop their requests
			pend, wait = make([]*stReq, n), make([]int, n)
		}
		busy := cyc < quiet
		for _, p := range pend {
			busy = busy || p != nil
		}
		if cyc >= cycles && !busy {
			break
		}
		if cyc > cycles+100*n {
			t.Fatalf("requests still pending %d cycles after traffic stopped", cyc-cycles)
		}
		dr.PokeBool("rst", rst)
		valid := make([]bool, n)
		mask := make([]uint64, n)
		for c, name := range names {
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
			valid[c], mask[c] = true, p.mask
			dr.Poke(name+"_addr", uint64(p.addr))
			dr.Poke(name+"_mask", p.mask)
			for i, v := range p.data {
				dr.Poke(fmt.Sprintf("%s_wdata_%d", name, i), v)
			}
		}

		// Acceptance: the reference arbitration, and the properties any
		// correct arbitration has.
		want := make([]bool, n)
		if up {
			scatter(want, shared, model.rarb.grant(gatherB(valid, shared), gatherU(mask, shared)))
			scatter(want, writes, model.warb.grant(gatherB(valid, writes), gatherU(mask, writes)))
			for _, c := range own { // a port of its own: granted at once
				want[c] = valid[c]
			}
		}
		got := make([]bool, n)
		for c, name := range names {
			got[c] = dr.Peek(name+"_ready") == 1
			if got[c] != want[c] {
				t.Fatalf("cycle %d: %s_ready = %v, reference arbitration says %v (valid %v, masks %x)", cyc, name, got[c], want[c], valid, mask)
			}
		}
		for _, grp := range [][]int{shared, writes} {
			var used uint64
			anyValid, anyGranted := false, false
			for _, c := range grp {
				anyValid = anyValid || valid[c]
				if got[c] {
					anyGranted = true
					if !valid[c] {
						t.Fatalf("cycle %d: %s ready without valid", cyc, names[c])
					}
					if used&mask[c] != 0 {
						t.Fatalf("cycle %d: %s granted a bank port already granted this cycle", cyc, names[c])
					}
					used |= mask[c]
				}
			}
			for _, c := range grp {
				if up && valid[c] && !got[c] && mask[c]&used == 0 {
					t.Fatalf("cycle %d: %s refused although its banks %x are free", cyc, names[c], mask[c])
				}
			}
			if up && anyValid && !anyGranted {
				t.Fatalf("cycle %d: clients %v valid, none granted", cyc, grp)
			}
		}

		// Responses to the reads accepted in the previous cycle.
		for i, name := range cfg.ReadClients() {
			rv := dr.Peek(name+"_rvalid") == 1
			if rv != (expect[i] != nil) {
				t.Fatalf("cycle %d: %s_rvalid = %v, want %v", cyc, name, rv, expect[i] != nil)
			}
			for p := range P {
				var w uint64
				if expect[i] != nil {
					w = expect[i][p]
				}
				if g := dr.Peek(fmt.Sprintf("%s_rdata_%d", name, p)); g != w {
					t.Fatalf("cycle %d: %s_rdata_%d = %#x, reference %#x", cyc, name, p, g, w)
				}
			}
		}
		for i := range nr {
			if expect[i] != nil {
				res.responses[i] = append(res.responses[i], expect[i])
			}
		}
		next := make([][]uint64, nr)
		for i := range nr {
			if got[i] {
				next[i] = model.read(pend[i].addr, pend[i].mask) // before this cycle's writes
			}
		}
		for c := nr; c < n; c++ {
			if got[c] {
				model.write(pend[c].addr, pend[c].mask, pend[c].data)
			}
		}
		if up {
			res.upCycles++
			model.rarb.advance(gatherB(valid, shared), gatherB(got, shared))
			model.warb.advance(gatherB(valid, writes), gatherB(got, writes))
		}
		for c := range n {
			switch {
			case got[c]:
				res.accepted[c]++
				res.acceptedAt[c] = append(res.acceptedAt[c], cyc)
				if c < nr {
					res.bankReads += popcount(mask[c])
				} else {
					res.bankWrites += popcount(mask[c])
				}
				pend[c], wait[c] = nil, 0
				quiet = cyc + 2
			case valid[c] && up:
				wait[c]++
				res.maxWait[c] = max(res.maxWait[c], wait[c])
			}
		}
		if rst { // the edge resets the arbitration
			model.rarb.ptr, model.warb.ptr = 0, 0
		}
		up = !rst
		expect = next
		dr.Step(1)
	}
	for p := range P {
		for a := range cfg.Depth {
			if g, w := dr.MemRead(fmt.Sprintf("bank_%d.ram", p), a).Uint64(), model.mem[p][a]; g != w {
				t.Fatalf("after the run: bank %d address %d holds %#x, reference %#x", p, a, g, w)
			}
		}
	}
	return res
}

// randomState is mixed traffic: every client asks with probability rate
// per idle cycle, mostly at a few hot addresses (so reads and writes of
// the same word meet), with full-vector, one-partition, random and empty
// lane masks; the PE-array row read always reads a full vector.
func randomState(cfg StateConfig, rate float64) stateSource {
	hot := []int{0, 1, cfg.Depth / 2, cfg.Depth - 1}
	full := lanesOf(cfg.Partitions)
	nr := len(cfg.ReadClients())
	return func(r *rand.Rand, c, t int) (stReq, bool) {
		if r.Float64() >= rate {
			return stReq{}, false
		}
		req := stReq{addr: r.IntN(cfg.Depth)}
		if r.IntN(10) < 7 {
			req.addr = hot[r.IntN(len(hot))]
		}
		switch k := r.IntN(20); {
		case c == 0 || k < 7:
			req.mask = full
		case k == 7:
			req.mask = 0
		case k < 14:
			req.mask = 1 << r.IntN(cfg.Partitions)
		default:
			req.mask = r.Uint64() & full
		}
		if c >= nr {
			for range cfg.Partitions {
				req.data = append(req.data, r.Uint64()&lanesOf(cfg.ElemWidth))
			}
		}
		return req, true
	}
}

func elaborate(t testing.TB, m *hdl.Module, err error) *hdl.Design {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// stTimed is a request a script makes valid no earlier than cycle at.
type stTimed struct {
	at  int
	req stReq
}

// stateScript feeds each client (reads then writes) its requests in
// order, each as soon as the client is idle and the request's cycle has
// come.
func stateScript(queues map[int][]stTimed) stateSource {
	return func(_ *rand.Rand, c, t int) (stReq, bool) {
		q := queues[c]
		if len(q) == 0 || t < q[0].at {
			return stReq{}, false
		}
		queues[c] = q[1:]
		return q[0].req, true
	}
}

// readGroups are the indices (into stateClientNames) of the read clients
// sharing the arbitrated port and of those with a port of their own.
func readGroups(cfg StateConfig) (shared, own []int) {
	sh, ow := cfg.readPorts()
	for i, name := range cfg.ReadClients() {
		if slices.Contains(ow, name) {
			own = append(own, i)
		} else if slices.Contains(sh, name) {
			shared = append(shared, i)
		}
	}
	return shared, own
}

func gatherB(xs []bool, idx []int) []bool {
	out := make([]bool, len(idx))
	for k, i := range idx {
		out[k] = xs[i]
	}
	return out
}

func gatherU(xs []uint64, idx []int) []uint64 {
	out := make([]uint64, len(idx))
	for k, i := range idx {
		out[k] = xs[i]
	}
	return out
}

func scatter(dst []bool, idx []int, src []bool) {
	for k, i := range idx {
		dst[i] = src[k]
	}
}
