package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// CompileBatch compiles g for n inputs (the graph inputs named in
// perInput vary, the rest are shared) into one program for cfg whose
// images overlap on the engines. g is compiled for half of each on-chip
// buffer, so that consecutive images use different halves and share no
// on-chip address; every per-lane act gets its own loadparams right
// before it (and every lut task its own loadtable), so an image's
// planar work no longer has to wait for the lane registers (or the
// table) of the image before it; and the images' tasks are
// interleaved by a list schedule on estimated task times (each engine
// runs its tasks in the order given). When g does not fit half the
// buffers it is Batch of the plain program.
func CompileBatch(cfg npu.Config, g *Graph, n int, perInput ...string) (*Program, error) {
	half := cfg
	half.StateDepth, half.PsumDepth, half.WeightDepth = cfg.StateDepth/2, cfg.PsumDepth/2, cfg.WeightDepth/2
	p, err := Compile(half, g)
	if n < 2 || half.Validate() != nil || err != nil {
		p, err := Compile(cfg, g)
		if err != nil {
			return nil, err
		}
		return Batch(p, n, perInput...)
	}
	// A copy-major batch of the half program, re-based on cfg, then
	// interleaved.
	b, err := Batch(p, n, perInput...)
	if err != nil {
		return nil, err
	}
	return interleaveBatch(cfg, b, n)
}

// unit is what the interleaving moves as a whole: one task, or a
// loadparams and the per-lane act that follows it, or a loadtable and
// the lut task that follows it.
type unit struct {
	copy  int
	tasks []Task
	est   int
}

// interleaveBatch takes a copy-major batch program compiled for half the
// buffers (task labels end in @k) and places it on cfg: odd copies in
// the upper halves, a loadparams before every per-lane act and a
// loadtable before every lut task, the copies interleaved.
func interleaveBatch(cfg npu.Config, b *Program, n int) (*Program, error) {
	from, to := b.Config.Codec(), cfg.Codec()
	odd := isa.Offsets{isa.MemState: cfg.StateDepth / 2, isa.MemPsum: cfg.PsumDepth / 2, isa.MemWeight: cfg.WeightDepth / 2}
	var units []unit
	lastLP, lastLT := map[int]isa.PlanarTask{}, map[int]isa.PlanarTask{}
	per := len(b.Tasks) / n // the batch is copy-major, copies of equal length
	for i, t := range b.Tasks {
		k := i / per
		task, err := from.Decode(t.Desc)
		if err != nil {
			return nil, fmt.Errorf("compiler: batch: %s: %w", t.Label, err)
		}
		if k%2 == 1 {
			task = moveAll(task, odd)
		}
		mk := func(label string, task isa.Task) (Task, error) {
			d, err := to.Encode(task)
			if err != nil {
				return Task{}, fmt.Errorf("compiler: batch: %s: %w", label, err)
			}
			d.Engine, d.Deps = t.Desc.Engine, nil
			rd, wr := to.Access(task)
			return Task{Label: label, Layer: t.Layer, Desc: d, Reads: rd, Writes: wr}, nil
		}
		pt, isPlanar := task.(isa.PlanarTask)
		switch {
		case isPlanar && pt.Task.Op == planar.OpLoadParams:
			lastLP[k] = pt // loaded again right before each act that uses it
			continue
		case isPlanar && pt.Task.Op == planar.OpLoadTable:
			lastLT[k] = pt // likewise before each lut task
			continue
		}
		nt, err := mk(t.Label, task)
		if err != nil {
			return nil, err
		}
		u := unit{copy: k, tasks: []Task{nt}, est: estimate(cfg, task)}
		for _, pre := range []struct {
			use    bool
			load   isa.PlanarTask
			suffix string
		}{{isPlanar && pt.Task.Op == planar.OpAct && pt.PerLane, lastLP[k], " params"}, {isPlanar && pt.Lut, lastLT[k], " table"}} {
			if !pre.use {
				continue
			}
			lt, err := mk(t.Label+pre.suffix, pre.load)
			if err != nil {
				return nil, err
			}
			u.tasks = append([]Task{lt}, u.tasks...)
			u.est += estimate(cfg, pre.load)
		}
		units = append(units, u)
	}
	order := scheduleUnits(units)
	em := newEmitter(cfg)
	for _, i := range order {
		for _, t := range units[i].tasks {
			em.emit(t)
		}
	}
	layout, err := taskmgr.NewLayout(cfg.TaskMgr())
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	out := *b
	out.Config, out.Layout = cfg, layout
	out.Tasks, out.Joins = em.tasks, em.nops
	for i := range out.Tasks {
		if _, err := layout.Encode(out.Tasks[i].Desc); err != nil {
			return nil, fmt.Errorf("compiler: batch: %s: %w", out.Tasks[i].Label, err)
		}
	}
	return &out, nil
}

// moveAll moves every on-chip address of t by o, the NE's too.
func moveAll(t isa.Task, o isa.Offsets) isa.Task {
	switch c := t.(type) {
	case isa.Conv:
		c.Src += o[isa.MemState]
		c.Weights += o[isa.MemWeight]
		c.Psum += o[isa.MemPsum]
		return c
	case isa.Transpose:
		c.Src += o[isa.MemState]
		c.Psum += o[isa.MemPsum]
		return c
	}
	return isa.Relocate(t, o)
}

// scheduleUnits is a list schedule of the units: a unit may go when the
// unit before it in its copy and every earlier unit it conflicts with
// are placed; of those, the one that could start first (its engine free,
// its conflicts done, by the estimates) goes next.
func scheduleUnits(units []unit) []int {
	n := len(units)
	conflict := func(a, b *unit) bool {
		for i := range a.tasks {
			for j := range b.tasks {
				x, y := &a.tasks[i], &b.tasks[j]
				if spansMeet(x.Writes, y.Reads) || spansMeet(x.Writes, y.Writes) || spansMeet(x.Reads, y.Writes) {
					return true
				}
			}
		}
		return false
	}
	preds, waits := make([][]int, n), make([][]int, n)
	prevOfCopy := map[int]int{}
	for i := range units {
		if p, ok := prevOfCopy[units[i].copy]; ok {
			preds[i] = append(preds[i], p)
		}
		prevOfCopy[units[i].copy] = i
		for j := 0; j < i; j++ {
			if conflict(&units[i], &units[j]) {
				preds[i] = append(preds[i], j)
				waits[i] = append(waits[i], j)
			}
		}
	}
	left, succs := make([]int, n), make([][]int, n)
	for i, ps := range preds {
		left[i] = len(ps)
		for _, j := range ps {
			succs[j] = append(succs[j], i)
		}
	}
	finish := make([]int, n)
	var free [isa.NumEngines]int
	ready := map[int]bool{}
	for i := range units {
		if left[i] == 0 {
			ready[i] = true
		}
	}
	order := make([]int, 0, n)
	for len(order) < n {
		best, bestStart := -1, 0
		for i := range ready {
			e := units[i].tasks[0].Desc.Engine
			start := free[e]
			for _, j := range waits[i] {
				start = max(start, finish[j])
			}
			if best < 0 || start < bestStart || start == bestStart && i < best {
				best, bestStart = i, start
			}
		}
		delete(ready, best)
		order = append(order, best)
		finish[best] = bestStart + units[best].est
		free[units[best].tasks[0].Desc.Engine] = finish[best]
		for _, s := range succs[best] {
			if left[s]--; left[s] == 0 {
				ready[s] = true
			}
		}
	}
	return order
}

// estimate is a rough cycle count of task t, for ordering only.
func estimate(cfg npu.Config, t isa.Task) int {
	switch t := t.(type) {
	case isa.Load:
		return t.Lines*t.Rows + cfg.ExtLatency + 2
	case isa.LoadWeights:
		return t.Lines*t.Rows + cfg.ExtLatency + 2
	case isa.Store:
		return t.Lines*t.Rows + cfg.ExtLatency + 2
	case isa.Conv:
		return max(t.Passes(), 1)*max(t.OH*t.OW, cfg.Rows+2) + 20
	case isa.Transpose:
		return t.Rows + t.Cols + 10
	case isa.PlanarTask:
		return cfg.Planar().Cycles(t.Task)
	}
	return 3
}
