package taskmgr_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa"
)

// A malformed descriptor sets err_code and err_id, the machine never
// hangs: the bad descriptor and the rest of its queue are skipped (retired
// without running) until err_clear, tasks before it and the other queue
// run normally, and after err_clear the queue runs again.
func TestMalformedDescriptors(t *testing.T) {
	// smallConfig: window 16, 8-bit IDs, max_deps 2 (ndeps has 2 bits: 3 is malformed)
	const bad = 6 // position of the bad task in queue 0
	cases := []struct {
		name    string
		corrupt func(v map[string]uint64) // edits the raw fields of a well-formed task
		code    uint64
		errID   uint64
	}{
		{"unknown engine", func(v map[string]uint64) { v["engine"] = 5 }, taskmgr.ErrEngine, bad},
		{"unknown op", func(v map[string]uint64) { v["engine"], v["op"] = uint64(isa.NE), 9 }, taskmgr.ErrOp, bad},
		{"op of another engine", func(v map[string]uint64) { v["engine"], v["op"] = uint64(isa.DMAOut), 2 }, taskmgr.ErrOp, bad},
		// Without the sparse engine (Sparse false) its code and the DMA
		// ops that serve it are unknown.
		{"sparse engine absent", func(v map[string]uint64) { v["engine"], v["op"] = uint64(isa.Sparse), uint64(isa.SparseConv) }, taskmgr.ErrEngine, bad},
		{"load_sparse without the sparse engine", func(v map[string]uint64) { v["engine"], v["op"] = uint64(isa.DMAIn), uint64(isa.DMAInLoadSparse) }, taskmgr.ErrOp, bad},
		{"store_sparse without the sparse engine", func(v map[string]uint64) { v["engine"], v["op"] = uint64(isa.DMAOut), uint64(isa.DMAOutStoreSparse) }, taskmgr.ErrOp, bad},
		{"too many dependencies", func(v map[string]uint64) { v["ndeps"] = 3 }, taskmgr.ErrNDeps, bad},
		{"depends on itself", func(v map[string]uint64) { v["ndeps"], v["dep0"] = 1, bad }, taskmgr.ErrDepWindow, bad},
		{"depends on a later task", func(v map[string]uint64) { v["ndeps"], v["dep1"] = 2, bad+1 }, taskmgr.ErrDepWindow, bad},
		{"dependency a window back", func(v map[string]uint64) { v["ndeps"], v["dep0"] = 1, (bad-16)&0xff }, taskmgr.ErrDepWindow, bad},
		{"out-of-sequence ID", func(v map[string]uint64) { v["id"] = bad + 1 }, taskmgr.ErrID, bad + 1},
		{"several faults: the ID is reported first", func(v map[string]uint64) { v["id"], v["engine"] = 40, 7 }, taskmgr.ErrID, 40},
		// Controls: these look odd but are well-formed.
		{"unused dependency field holds garbage", func(v map[string]uint64) { v["ndeps"], v["dep0"], v["dep1"] = 1, bad-1, 200 }, taskmgr.ErrNone, 0},
		{"dependency window-1 back", func(v map[string]uint64) { v["ndeps"], v["dep0"] = 1, (bad-15)&0xff }, taskmgr.ErrNone, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bothWays(t, smallConfig(), func(t *testing.T, cfg taskmgr.Config) {
				b := newBench(t, cfg, uint64(100+i))
				b.hostIdle = 0.2
				for _, m := range b.eng {
					m.stall = 0.1
				}
				// Queue 0 runs 10 tasks, number 6 corrupted; queue 1 runs 12
				// untouched tasks alongside.
				p0 := randomProgram(b.rng, b.lay, 0, 10, 6)
				p1 := randomProgram(b.rng, b.lay, 1, 12, 6)
				malformed := tc.code != taskmgr.ErrNone
				vals := b.lay.Unpack(mustEncode(t, b, p0[bad]))
				tc.corrupt(vals)
				raw, err := b.lay.Pack(vals)
				if err != nil {
					t.Fatal(err)
				}
				p0[bad].raw = raw
				if malformed {
					for _, tk := range p0[bad:] {
						tk.skip = true
					}
				} else {
					p0[bad].deps = nil
					for j := 0; j < int(vals["ndeps"]); j++ {
						dep := bad - int((bad-vals[fmt.Sprintf("dep%d", j)])&0xff)
						if dep >= 0 {
							p0[bad].deps = append(p0[bad].deps, p0[dep])
						}
					}
				}
				for _, tk := range interleave(b.rng, p0, p1) {
					b.add(tk)
				}
				b.run(5000)
				b.check()
				got := status(b)
				want := map[string]uint64{"err_code": tc.code, "err_id": tc.errID, "err_queue": 0, "skipped": 0}
				if malformed {
					want["skipped"] = uint64(len(p0) - bad)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("status (-want +got):\n%s", diff)
				}

				// Acknowledge; the queue's IDs continue after the skipped
				// ones, and a task may depend on a skipped one (it counts as
				// completed).
				b.dr.Poke("err_clear", 1)
				b.step()
				b.dr.Poke("err_clear", 0)
				if got := b.dr.Peek("err_code"); got != 0 {
					t.Errorf("err_code = %d after err_clear", got)
				}
				more := randomProgram(b.rng, b.lay, 0, 15, 6)
				for j, tk := range more {
					tk.prog = len(p0) + j
					tk.name = fmt.Sprintf("q0.t%d", tk.prog)
					tk.desc.ID = uint64(tk.prog)
					for k := range tk.desc.Deps {
						tk.desc.Deps[k] += uint64(len(p0))
					}
					tk.raw = nil
				}
				more[0].desc.Deps = []uint64{uint64(len(p0) - 1)} // the last task before: skipped if malformed
				more[0].deps = []*task{p0[len(p0)-1]}
				if malformed {
					more[0].deps = nil
				}
				for _, tk := range more {
					b.add(tk)
				}
				b.run(5000)
				b.check()
				if got := b.dr.Peek("err_code"); got != 0 {
					t.Errorf("err_code = %d after a clean program", got)
				}
				b.crossCheck()
			})
		})
	}
}

func mustEncode(t *testing.T, b *bench, tk *task) *big.Int {
	t.Helper()
	r, err := b.lay.Encode(tk.desc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func status(b *bench) map[string]uint64 {
	out := map[string]uint64{}
	for _, p := range []string{"err_code", "err_id", "err_queue", "skipped"} {
		out[p] = b.dr.Peek(p)
	}
	return out
}

// Two malformed descriptors in two queues: the status keeps the first
// (queue 1's); each queue skips from its own bad descriptor on.
func TestFirstErrorKept(t *testing.T) { bothWays(t, smallConfig(), testFirstErrorKept) }

func testFirstErrorKept(t *testing.T, cfg taskmgr.Config) {
	b := newBench(t, cfg, 14)
	p1 := randomProgram(b.rng, b.lay, 1, 10, 4)
	p0 := randomProgram(b.rng, b.lay, 0, 12, 4)
	corrupt := func(tk *task, field string, v uint64) {
		vals := b.lay.Unpack(mustEncode(t, b, tk))
		vals[field] = v
		raw, err := b.lay.Pack(vals)
		if err != nil {
			t.Fatal(err)
		}
		tk.raw = raw
	}
	corrupt(p1[3], "engine", 6)
	corrupt(p0[8], "ndeps", 3)
	for _, tk := range append(p1[3:], p0[8:]...) {
		tk.skip = true
	}
	for _, tk := range append(p1, p0...) { // queue 1's program first: its error comes first
		b.add(tk)
	}
	b.run(5000)
	b.check()
	want := map[string]uint64{"err_code": taskmgr.ErrEngine, "err_id": 3, "err_queue": 1, "skipped": 7 + 4}
	if diff := cmp.Diff(want, status(b)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	b.crossCheck()
}
