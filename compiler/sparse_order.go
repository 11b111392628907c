package compiler

// sparseQueue orders the jobs of a sparse-engine program: each runs on
// one resource (a DMA engine or a unit) for an estimated time, after the
// jobs it depends on; order is the order in which a greedy list
// schedule starts them.
type sparseQueue struct {
	jobs []sparseJob
	free []int64 // per resource: when it is next free
}

type sparseJob struct {
	res  int
	dur  int64
	deps []int
	emit func() error
}

// resource adds a resource and returns its index.
func (q *sparseQueue) resource() int {
	q.free = append(q.free, 0)
	return len(q.free) - 1
}

// busy keeps resource r busy for the first d cycles.
func (q *sparseQueue) busy(r int, d int64) { q.free[r] = d }

// add adds a job and returns its index; deps below 0 are none.
func (q *sparseQueue) add(res int, dur int64, emit func() error, deps ...int) int {
	var ds []int
	for _, d := range deps {
		if d >= 0 {
			ds = append(ds, d)
		}
	}
	q.jobs = append(q.jobs, sparseJob{res: res, dur: dur, deps: ds, emit: emit})
	return len(q.jobs) - 1
}

// order schedules every job at the earliest time its resource and its
// dependencies allow, the earliest first (ties: the job added first),
// and returns the jobs in the order they start and when the last ends.
func (q *sparseQueue) order() ([]int, int64) {
	free := append([]int64(nil), q.free...)
	finish := make([]int64, len(q.jobs))
	done := make([]bool, len(q.jobs))
	var out []int
	var end int64
	for len(out) < len(q.jobs) {
		best, bestAt := -1, int64(0)
		for j, job := range q.jobs {
			if done[j] {
				continue
			}
			at, ready := free[job.res], true
			for _, d := range job.deps {
				if !done[d] {
					ready = false
					break
				}
				at = max(at, finish[d])
			}
			if ready && (best < 0 || at < bestAt) {
				best, bestAt = j, at
			}
		}
		done[best] = true
		finish[best] = bestAt + max(q.jobs[best].dur, 1)
		free[q.jobs[best].res] = finish[best]
		end = max(end, finish[best])
		out = append(out, best)
	}
	return out, end
}
