package host

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/isa"
)

// run pushes the descriptors, the IDs of queue q starting at base[q],
// and steps until everything is accepted and the NPU is idle, recording
// the timeline. Each cycle it offers the earliest task (in program order)
// not yet pushed among the queues with room, so a queue that waits does
// not hold back the others' descriptors.
func (h *runner) run(res *Result, base []uint64) error {
	r := &hostRun{h: h, p: h.prog, res: res, base: base}
	if err := r.encode(); err != nil {
		return err
	}
	before, err := h.counters()
	if err != nil {
		return err
	}
	r.setup()
	if h.cfg.DescRingBits > 0 {
		if r.ring, err = h.newRingFeeder(r.bits, r.qt, base); err != nil {
			return err
		}
		if err := r.ring.preload(); err != nil {
			return err
		}
	}
	if err := r.loop(); err != nil {
		return err
	}
	return r.finish(before)
}

// hostRun is one run's progress: what is pushed, which tasks each
// engine runs, and the timeline so far (in res).
type hostRun struct {
	h    *runner
	p    *compiler.Program
	res  *Result
	base []uint64 // per queue: the hardware ID of its first task

	mask   uint64     // task IDs count modulo mask+1
	qt     [][]int    // per queue: its tasks in program order
	bits   []*big.Int // per task: its encoded descriptor
	limit  int        // cycles before the run counts as hung
	labels []string
	// the engines' status ports, named once: the loop peeks them every cycle
	ports [isa.NumEngines]struct{ start, startID, startQueue, done string }

	started   []int // per task: its start cycle (-1: not started)
	inflight  [isa.NumEngines][]int
	completed int
	pushed    int
	nextOf    []int // per queue: its next task to push
	cycle     int
	ring      *ringFeeder // nil without descriptor rings
}

// encode checks the program's queues against the NPU's and encodes the
// descriptors with this run's task IDs.
func (r *hostRun) encode() error {
	p := r.p
	r.mask = uint64(1)<<p.Layout.Config.IDBits - 1
	r.qt = p.QueueTasks()
	if q := len(r.qt) - 1; q >= p.Config.Queues {
		return fmt.Errorf("host: the program pushes to queue %d, the NPU has %d queues (npu config field queues)", q, p.Config.Queues)
	}
	r.bits = make([]*big.Int, len(p.Tasks))
	for i := range p.Tasks {
		d := p.Tasks[i].Desc
		b0 := r.base[p.Tasks[i].Queue]
		d.ID = (d.ID + b0) & r.mask
		d.Deps = append([]uint64(nil), d.Deps...)
		for k := range d.Deps {
			d.Deps[k] = (d.Deps[k] + b0) & r.mask
		}
		b, err := p.Layout.Encode(d)
		if err != nil {
			return err
		}
		r.bits[i] = b
	}
	return nil
}

func (r *hostRun) setup() {
	h, p := r.h, r.p
	r.limit = h.opt.MaxCycles
	if r.limit <= 0 {
		r.limit = 100000 + 200*len(p.Tasks) + int(64*p.Ideal)
	}
	r.labels = p.Labels()
	for e, name := range h.cfg.EngineNames() {
		r.ports[e].start, r.ports[e].startID, r.ports[e].startQueue, r.ports[e].done = name+"_start", name+"_start_id", name+"_start_queue", name+"_done"
	}
	r.started = make([]int, len(p.Tasks))
	for i := range r.started {
		r.started[i] = -1
	}
	r.nextOf = make([]int, len(r.qt))
}

// task is the program's task the hardware's queue q and task ID name.
func (r *hostRun) task(q, hwid uint64) (int, error) {
	if int(q) >= len(r.qt) {
		return 0, fmt.Errorf("a task of queue %d, the program uses %d queues", q, len(r.qt))
	}
	// IDs wrap modulo 2^id_bits: the task is the latest pushed one with
	// that ID (the hardware holds far fewer than 2^id_bits at a time).
	local := int((hwid - r.base[q]) & r.mask)
	pushed := r.nextOf[q]
	if local >= pushed || local >= len(r.qt[q]) {
		return 0, fmt.Errorf("task %d of queue %d, the program has pushed %d of its %d there", local, q, pushed, len(r.qt[q]))
	}
	period := int(r.mask) + 1
	local += (pushed - 1 - local) / period * period
	return r.qt[q][local], nil
}

// loop steps until every descriptor is accepted and the NPU is idle.
func (r *hostRun) loop() error {
	h := r.h
	for ; ; r.cycle++ {
		if ctx := h.opt.Context; ctx != nil && r.cycle%1024 == 0 && ctx.Err() != nil {
			return fmt.Errorf("host: run stopped after %d cycles: %w", r.cycle, ctx.Err())
		}
		if r.cycle > r.limit {
			return fmt.Errorf("host: not idle after %d cycles (%d of %d descriptors pushed, %d tasks completed; %s)",
				r.limit, r.pushed, len(r.p.Tasks), r.completed, h.stuck(r.started, r.inflight, r.qt, r.nextOf))
		}
		offered, err := r.offer()
		if err != nil {
			return err
		}
		// Sample this cycle's outputs (settled) before the edge.
		for e, name := range h.cfg.EngineNames() {
			if err := r.sampleStart(e, name); err != nil {
				return err
			}
			if err := r.sampleDone(e, name); err != nil {
				return err
			}
		}
		if r.pushed == len(r.bits) {
			idle, err := h.peek("idle")
			if err != nil {
				return err
			}
			if idle == 1 {
				r.res.Cycles = r.cycle
				return nil
			}
		}
		if offered >= 0 {
			ready, err := h.peek("cmd_ready")
			if err != nil {
				return err
			}
			if ready == 1 {
				r.nextOf[r.p.Tasks[offered].Queue]++
				r.pushed++
			}
		}
		h.rec.Step(1)
		if h.opt.Progress != nil && r.cycle%h.opt.Every == 0 && r.cycle > 0 {
			h.opt.Progress(Progress{Phase: "run", Cycle: r.cycle, Completed: r.completed, Total: len(r.p.Tasks)})
		}
	}
}

// offer puts the earliest unpushed task of a queue with room on the
// command port and returns it (-1: none, cmd_valid low). cmd_ready
// answers for the queue on cmd_queue, so each candidate is tried in
// turn; the last poke is what the cycle keeps. With descriptor rings it
// feeds the rings instead and offers nothing on the command port.
func (r *hostRun) offer() (int, error) {
	h, p := r.h, r.p
	if r.ring != nil {
		// Doorbells rung before this cycle: this cycle's takes effect
		// at its edge, so idle may not count it yet.
		r.pushed, r.nextOf = r.ring.submitted(), append(r.nextOf[:0], r.ring.rung...)
		return -1, r.ring.cycle(r.cycle)
	}
	var cands []int
	for q, n := range r.nextOf {
		if n < len(r.qt[q]) && r.cycle >= h.opt.Release[q] {
			cands = append(cands, r.qt[q][n])
		}
	}
	sort.Ints(cands)
	for k, t := range cands {
		if err := h.poke("cmd_valid", 1); err != nil {
			return -1, err
		}
		if err := h.poke("cmd_queue", uint64(p.Tasks[t].Queue)); err != nil {
			return -1, err
		}
		if err := h.rec.PokeBig("cmd_desc", r.bits[t]); err != nil {
			return -1, err
		}
		if k == len(cands)-1 {
			return t, nil
		}
		ready, err := h.peek("cmd_ready")
		if err != nil {
			return -1, err
		}
		if ready == 1 {
			return t, nil
		}
	}
	return -1, h.poke("cmd_valid", 0)
}

// sampleStart records the task engine e (called name) takes this cycle.
func (r *hostRun) sampleStart(e int, name string) error {
	h := r.h
	st, err := h.peek(r.ports[e].start)
	if err != nil {
		return err
	}
	if st != 1 {
		return nil
	}
	hwid, err := h.peek(r.ports[e].startID)
	if err != nil {
		return err
	}
	q, err := h.peek(r.ports[e].startQueue)
	if err != nil {
		return err
	}
	id, err := r.task(q, hwid)
	if err != nil {
		return fmt.Errorf("host: %s started %w", name, err)
	}
	r.started[id] = r.cycle
	r.inflight[e] = append(r.inflight[e], int(id))
	return nil
}

// sampleDone records the task engine e (called name) completes this
// cycle on the timeline.
func (r *hostRun) sampleDone(e int, name string) error {
	h := r.h
	dn, err := h.peek(r.ports[e].done)
	if err != nil {
		return err
	}
	if dn != 1 {
		return nil
	}
	if len(r.inflight[e]) == 0 {
		return fmt.Errorf("host: %s done pulse in cycle %d without a started task", name, r.cycle)
	}
	k, err := h.completedTask(isa.Engine(e), r.inflight[e], r.task)
	if err != nil {
		return fmt.Errorf("host: %s done pulse in cycle %d: %w", name, r.cycle, err)
	}
	id := r.inflight[e][k]
	r.inflight[e] = append(r.inflight[e][:k:k], r.inflight[e][k+1:]...)
	t := &r.p.Tasks[id]
	rd, wr := h.extBytes(t)
	r.res.Timeline = append(r.res.Timeline, Span{ID: id, Engine: name, Label: r.labels[id], Op: t.OpName(), Start: r.started[id], End: r.cycle,
		ExtRead: rd, ExtWritten: wr})
	r.completed++
	return nil
}

// finish releases the command port and fills in the statistics from the
// counters' differences over the run (before: their values at its
// start). A malformed descriptor, a planar task error, a psum overrun
// or a task not completed fails the run.
func (r *hostRun) finish(before map[string]uint64) error {
	h, res := r.h, r.res
	if err := h.poke(h.cmdPort(), 0); err != nil {
		return err
	}
	if r.ring != nil {
		if err := h.poke("h_wr_valid", 0); err != nil {
			return err
		}
	}
	after, err := h.counters()
	if err != nil {
		return err
	}
	names := h.cfg.EngineNames()
	res.Engines = make([]EngineStats, len(names))
	for e, name := range names {
		res.Engines[e] = EngineStats{Name: name,
			Busy:      after[name+"_busy_cycles"] - before[name+"_busy_cycles"],
			Stall:     after[name+"_stall_cycles"] - before[name+"_stall_cycles"],
			Completed: after[name+"_completed"] - before[name+"_completed"]}
	}
	res.MACs = after["mac_count"] - before["mac_count"]
	res.Skipped = after["skip_count"] - before["skip_count"]
	h.neStats(res, before, after)
	sort.Slice(res.Timeline, func(i, j int) bool { return res.Timeline[i].ID < res.Timeline[j].ID })
	h.sparseStats(res, before, after)
	res.DescFetched = (after["desc_fetched"] - before["desc_fetched"]) & (1<<32 - 1) // 32-bit counters
	res.DescReplaced = (after["desc_replaced"] - before["desc_replaced"]) & (1<<32 - 1)
	// Status: a malformed descriptor, a planar task error or a psum
	// overrun is a failed run.
	for _, s := range []string{"err_code", "planar_err_code", "psum_overrun", "skipped"} {
		v, err := h.peek(s)
		if err != nil {
			return err
		}
		if v != 0 {
			id, _ := h.peek("err_id")
			return fmt.Errorf("host: %s = %d after the run (err_id %d)", s, v, id)
		}
	}
	if r.completed != len(r.p.Tasks) {
		return fmt.Errorf("host: %d of %d tasks completed", r.completed, len(r.p.Tasks))
	}
	return nil
}
