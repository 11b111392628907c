package pipeline

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"
)

// Mode is how the stages advance.
type Mode int

const (
	// FreeRunning: each stage takes the next packet as soon as it can.
	FreeRunning Mode = iota
	// LockStep: all stages advance together, one period at a time.
	LockStep
)

func (m Mode) String() string {
	switch m {
	case FreeRunning:
		return "free-running"
	case LockStep:
		return "lock-step"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options tune a run. The zero value is a free-running run with one
// packet of room between stages.
type Options struct {
	Mode Mode
	// Capacity is the number of packets each channel between two stages
	// holds (FreeRunning; 0 means 1). Besides it each stage holds the
	// packet it works on, so a stage can run Capacity+1 packets ahead of
	// the next one.
	Capacity int
}

// Result is what came out of the pipeline for one packet.
type Result[Out any] struct {
	Packet int // index in the input, from 0
	Value  Out // the last stage's output; the zero value when Err is set
	Err    error
}

// packet is a packet in flight.
type packet struct {
	idx int
	v   any
	err error
}

// Run runs every packet of in through the pipeline and returns the
// results in packet order. The error is the run's own (an invalid
// pipeline or options, a cancelled context); packet failures are in the
// results.
func (p *Pipeline[In, Out]) Run(ctx context.Context, in []In, opt Options) ([]Result[Out], *Stats, error) {
	out := make([]Result[Out], 0, len(in))
	st, err := p.Stream(ctx, slices.Values(in), opt, func(r Result[Out]) { out = append(out, r) })
	return out, st, err
}

// Stream runs the packets of src through the pipeline, calling sink with
// each result in packet order, on the caller's goroutine. src is read on
// a goroutine of its own (FreeRunning) or between periods (LockStep), one
// packet ahead of the first stage. Stream returns when src is exhausted
// and every result delivered, or when ctx is cancelled; in both cases
// after every goroutine it started has exited.
func (p *Pipeline[In, Out]) Stream(ctx context.Context, src iter.Seq[In], opt Options, sink func(Result[Out])) (*Stats, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if opt.Mode != FreeRunning && opt.Mode != LockStep {
		return nil, fmt.Errorf("pipeline: Options.Mode = %d: want FreeRunning (%d) or LockStep (%d)", int(opt.Mode), int(FreeRunning), int(LockStep))
	}
	if opt.Capacity < 0 {
		return nil, fmt.Errorf("pipeline: Options.Capacity = %d: want 0 (meaning 1) or more packets", opt.Capacity)
	}
	r := &runner{stages: p.stages, opt: opt, start: time.Now()}
	if r.opt.Capacity == 0 {
		r.opt.Capacity = 1
	}
	r.stats = make([]stageRec, len(p.stages))
	deliver := func(pk *packet) {
		res := Result[Out]{Packet: pk.idx, Err: pk.err}
		if pk.err == nil {
			res.Value, _ = pk.v.(Out) // not ok only for a nil interface value: the zero Out
			r.done++
		} else {
			r.failed++
		}
		sink(res)
	}
	run := r.freeRunning
	if opt.Mode == LockStep {
		run = r.lockStep
	}
	finished := run(ctx, anySeq(src), deliver)
	st := r.result()
	if !finished {
		return st, fmt.Errorf("pipeline: stopped after %d of %d packets: %w", st.Done+st.Failed, st.Packets, context.Cause(ctx))
	}
	return st, nil
}

func anySeq[T any](src iter.Seq[T]) iter.Seq[any] {
	return func(yield func(any) bool) {
		for v := range src {
			if !yield(v) {
				return
			}
		}
	}
}

// runner is one run's state. stats[s] is written only by stage s's
// goroutine and read after all goroutines have exited; entered, done and
// failed only by the goroutine that reads the input or delivers.
type runner struct {
	stages  []erased
	opt     Options
	start   time.Time
	stats   []stageRec
	periods []Period
	entered int // packets taken from the input
	done    int
	failed  int
}

type stageRec struct {
	StageStats
	spans []Span
}

// call runs stage s on pk unless an earlier stage failed it or the run
// is cancelled, and returns whether it ran and for how long.
func (r *runner) call(ctx context.Context, s int, pk *packet) (bool, time.Duration) {
	if pk.err != nil || ctx.Err() != nil {
		return false, 0
	}
	st := &r.stats[s]
	t0 := time.Since(r.start)
	v, err := r.stages[s].fn(ctx, pk.v)
	t1 := time.Since(r.start)
	st.Packets++
	st.Busy += t1 - t0
	if err != nil {
		st.Failed++
		pk.v, pk.err = nil, &PacketError{Packet: pk.idx, Stage: r.stages[s].name, Err: err}
	} else {
		pk.v = v
	}
	st.spans = append(st.spans, Span{Stage: s, Packet: pk.idx, Start: t0, End: t1, Failed: err != nil})
	return true, t1 - t0
}

func (r *runner) result() *Stats {
	st := &Stats{Mode: r.opt.Mode, Capacity: r.opt.Capacity, Start: r.start, Wall: time.Since(r.start),
		Packets: r.entered, Done: r.done, Failed: r.failed, Periods: r.periods}
	if st.Mode == LockStep {
		st.Capacity = 0
	}
	for s, rec := range r.stats {
		rec.Name = r.stages[s].name
		st.Stages = append(st.Stages, rec.StageStats)
		st.Spans = append(st.Spans, rec.spans...)
	}
	return st
}

// freeRunning runs a feeder goroutine, one goroutine per stage and the
// delivery on the caller's goroutine, connected by channels of
// r.opt.Capacity. It reports whether every packet was delivered.
func (r *runner) freeRunning(ctx context.Context, src iter.Seq[any], deliver func(*packet)) bool {
	chans := make([]chan *packet, len(r.stages)+1)
	for i := range chans {
		chans[i] = make(chan *packet, r.opt.Capacity)
	}
	var wg sync.WaitGroup
	exhausted := false
	wg.Go(func() {
		defer close(chans[0])
		for v := range src {
			select {
			case chans[0] <- &packet{idx: r.entered, v: v}:
				r.entered++
			case <-ctx.Done():
				return
			}
		}
		exhausted = true
	})
	for s := range r.stages {
		in, out := chans[s], chans[s+1]
		wg.Go(func() {
			defer close(out)
			for {
				var pk *packet
				select {
				case p, ok := <-in:
					if !ok {
						return
					}
					pk = p
				case <-ctx.Done():
					return
				}
				r.call(ctx, s, pk)
				if ctx.Err() != nil {
					return // the packet's result is moot
				}
				select {
				case out <- pk:
				case <-ctx.Done():
					return
				}
			}
		})
	}
loop:
	for {
		select {
		case pk, ok := <-chans[len(r.stages)]:
			if !ok {
				break loop
			}
			if ctx.Err() != nil {
				break loop
			}
			deliver(pk)
		case <-ctx.Done():
			break loop
		}
	}
	wg.Wait()
	// wg.Wait orders the feeder's writes before these reads.
	return exhausted && r.entered == r.done+r.failed
}
