package pipeline

import (
	"context"
	"iter"
	"sync"
	"time"
)

// lockStep runs the stages one period at a time: the caller's goroutine
// hands each stage its packet of the period, waits until all are done,
// delivers the last stage's packet and moves every other packet one stage
// on. Each stage still runs on a goroutine of its own, so the stages of a
// period run at the same time. It reports whether every packet was
// delivered.
func (r *runner) lockStep(ctx context.Context, src iter.Seq[any], deliver func(*packet)) bool {
	S := len(r.stages)
	type done struct {
		s    int
		ran  bool
		busy time.Duration
	}
	work := make([]chan *packet, S)
	dones := make(chan done, S)
	var wg sync.WaitGroup
	for s := range r.stages {
		work[s] = make(chan *packet)
		wg.Go(func() {
			for {
				select {
				case pk, ok := <-work[s]:
					if !ok {
						return
					}
					ran, busy := r.call(ctx, s, pk)
					select {
					case dones <- done{s, ran, busy}:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		})
	}
	stop := func() {
		for _, w := range work {
			close(w)
		}
		wg.Wait()
	}

	next, stopSrc := iter.Pull(src)
	defer stopSrc()
	slots := make([]*packet, S) // slots[s]: stage s's packet in this period
	exhausted := false
	for {
		if ctx.Err() != nil {
			stop()
			return false
		}
		if !exhausted {
			if v, ok := next(); ok {
				slots[0] = &packet{idx: r.entered, v: v}
				r.entered++
			} else {
				exhausted = true
			}
		}
		busy := 0
		for _, pk := range slots {
			if pk != nil {
				busy++
			}
		}
		if busy == 0 {
			break
		}
		p := Period{Start: time.Since(r.start), Cells: make([]Cell, S)}
		for s, pk := range slots {
			p.Cells[s].Packet = -1
			if pk == nil {
				continue
			}
			p.Cells[s].Packet = pk.idx
			select {
			case work[s] <- pk:
			case <-ctx.Done():
				stop()
				return false
			}
		}
		for range busy {
			select {
			case d := <-dones:
				p.Cells[d.s].Ran, p.Cells[d.s].Busy = d.ran, d.busy
			case <-ctx.Done():
				stop()
				return false
			}
		}
		p.Dur = time.Since(r.start) - p.Start
		r.periods = append(r.periods, p)
		if pk := slots[S-1]; pk != nil {
			if ctx.Err() != nil {
				stop()
				return false
			}
			deliver(pk)
		}
		copy(slots[1:], slots[:S-1])
		slots[0] = nil
	}
	stop()
	return true
}
