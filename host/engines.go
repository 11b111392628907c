package host

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/isa"
)

// NEStats is one neural engine's share of a run on an NPU with several
// engines (npu.Config.Engines > 1): the differences of its ne<i>_*
// counters over the run.
type NEStats struct {
	Busy    uint64 // cycles the engine is not idle
	Stall   uint64 // cycles its input stream waits for the state buffer
	MACs    uint64 // ne<i>_mac_count
	Skipped uint64 // ne<i>_skip_count: MACs with a zero operand
}

// neCounterNames are the per-engine counters of an NPU with several
// engines (none with one).
func (h *runner) neCounterNames() []string {
	var names []string
	for i := 0; h.cfg.Engines > 1 && i < h.cfg.Engines; i++ {
		for _, c := range []string{"busy_cycles", "stall_cycles", "mac_count", "skip_count"} {
			names = append(names, fmt.Sprintf("ne%d_%s", i, c))
		}
	}
	return names
}

// neStats fills res.NEs from the counters before and after the run.
func (h *runner) neStats(res *Result, before, after map[string]uint64) {
	if h.cfg.Engines <= 1 {
		return
	}
	res.NEs = make([]NEStats, h.cfg.Engines)
	for i := range res.NEs {
		d := func(c string) uint64 { n := fmt.Sprintf("ne%d_%s", i, c); return after[n] - before[n] }
		res.NEs[i] = NEStats{Busy: d("busy_cycles"), Stall: d("stall_cycles"), MACs: d("mac_count"), Skipped: d("skip_count")}
	}
}

// SparseUnitStats is one sparse unit's share of a run on an NPU with the
// sparse engine: the differences of its sparse<i>_* counters.
type SparseUnitStats struct {
	Busy  uint64 // cycles the unit runs a task
	Stall uint64 // cycles a conv task runs without issuing a record
	Mults uint64 // multiplications performed (non-zero input × non-zero weight)
	// Finished is the end of the unit's last task on the timeline, its
	// plane's store included (cycles from the first push).
	Finished int
}

// sparseCounterNames are the sparse units' counters (none without the
// sparse engine).
func (h *runner) sparseCounterNames() []string {
	var names []string
	for i := range h.cfg.SparseUnits {
		for _, c := range []string{"busy_cycles", "stall_cycles", "mults"} {
			names = append(names, fmt.Sprintf("sparse%d_%s", i, c))
		}
	}
	return names
}

// sparseStats fills res.SparseUnits from the counters before and after
// the run and from the timeline.
func (h *runner) sparseStats(res *Result, before, after map[string]uint64) {
	if h.cfg.SparseUnits == 0 {
		return
	}
	res.SparseUnits = make([]SparseUnitStats, h.cfg.SparseUnits)
	for i := range res.SparseUnits {
		d := func(c string) uint64 { n := fmt.Sprintf("sparse%d_%s", i, c); return after[n] - before[n] }
		res.SparseUnits[i] = SparseUnitStats{Busy: d("busy_cycles"), Stall: d("stall_cycles"), Mults: d("mults")}
		prefix := compiler.SparseUnitLabel(i)
		for _, s := range res.Timeline {
			if strings.HasPrefix(s.Label, prefix) {
				res.SparseUnits[i].Finished = max(res.SparseUnits[i].Finished, s.End)
			}
		}
	}
}

// completedTask is the index in inflight (an engine's started, unfinished
// tasks, in start order) of the task its done pulse completes: the oldest,
// except on the sparse engine, whose units finish in any order and name
// the task (sparse_done_queue, sparse_done_id; task maps them to the
// program's task as for a start).
func (h *runner) completedTask(e isa.Engine, inflight []int, task func(q, hwid uint64) (int, error)) (int, error) {
	if e != isa.Sparse {
		return 0, nil
	}
	q, err := h.peek("sparse_done_queue")
	if err != nil {
		return 0, err
	}
	hwid, err := h.peek("sparse_done_id")
	if err != nil {
		return 0, err
	}
	id, err := task(q, hwid)
	if err != nil {
		return 0, err
	}
	for k, t := range inflight {
		if t == id {
			return k, nil
		}
	}
	return 0, fmt.Errorf("sparse_done names task %d of queue %d, which is not running", hwid, q)
}
