// Package pipeline runs a stream of self-contained packets through a
// host's stages — typically pre-processing (float → int8 in the model's
// input scale, laid out for the NPU), execution (the device) and
// post-processing (int8/int32 → float32, softmax/argmax, comparison with
// a reference) — with one goroutine per stage and bounded channels
// between them, so that while the device runs packet i the host already
// prepares packet i+1 and finishes packet i−1.
//
// # The model
//
// Time is cut into periods. In a period every stage works on its own
// packet: stage s on packet k−s in period k. A period lasts as long as
// its slowest stage. N packets through S stages therefore take N+S−1
// periods (S−1 to fill the pipeline, then one packet out per period)
// instead of the N·S of running the stages one after the other, and the
// throughput approaches one packet per slowest-stage time.
//
// Two modes run this model:
//
//   - LockStep: all stages advance together, one period at a time: the
//     packets of period k are handed out, and period k+1 starts when the
//     last of them is done. Stats.Periods is the period log; its length
//     is exactly N+S−1, and each period's length is the slowest stage's
//     time in it (plus the hand-off overhead).
//   - FreeRunning: each stage takes its next packet as soon as it has
//     passed on the previous one and the next one has arrived; the
//     channels between stages (Options.Capacity packets, default 1) let a
//     fast stage run ahead of a slow one. This is never slower than
//     LockStep and is what a real host does; its wall time against the
//     serial sum of all stage times (Stats.Overlap) shows how much the
//     stages overlapped.
//
// Both modes call the same stage functions on the same packets in the same
// order per stage, so they produce the same results.
//
// # Packets, order and errors
//
// Results come out in packet order (a stage is one goroutine and the
// channels are FIFO, so no reordering is needed), each carrying its
// packet index. A stage that returns an error fails that packet only: its
// Result.Err is a *PacketError naming the packet and the stage ("packet
// 3: stage pre: element 12 is NaN"), the later stages skip it (it still
// takes its slot in LockStep, a bubble), and the other packets complete.
// Errors of the run itself — an invalid pipeline or options, a cancelled
// context — are Run's error.
//
// # Cancellation
//
// Every stage function gets the run's context and should return when it
// is cancelled. Every goroutine of the run waits on the context as well
// as on its channels, so a cancelled context (Ctrl-C) stops the run
// promptly: Run returns only after all its goroutines have exited, with
// the context's error wrapped and the results delivered so far. A stage
// function that ignores the context delays that return until it is done
// (rather than leaving its goroutine behind); no further stage function
// is called once the context is cancelled.
//
// A stage is one goroutine, so a stage function is never called
// concurrently with itself: a stateful stage (a device session) needs no
// lock.
//
// # Accounting and timeline
//
// Stats has per stage the packets, failures and busy time (throughput =
// packets per busy second), the run's wall and serial time, every stage
// call as a Span and, in LockStep, the period log. AddTrace puts the
// spans on a trace.File, one track per stage, next to the NPU's own
// timeline (host.Result.AddTrace), so that a device run can be placed at
// the start of its exec span.
//
// # Example
//
//	pre := pipeline.NewStage("pre", func(ctx context.Context, x []float32) (*golden.Tensor, error) {…})
//	exec := pipeline.NewStage("exec", func(ctx context.Context, t *golden.Tensor) (*golden.Tensor, error) {…})
//	post := pipeline.NewStage("post", func(ctx context.Context, y *golden.Tensor) (int, error) {…})
//	p := pipeline.Then(pipeline.Then(pipeline.New(pre), exec), post)
//	results, stats, err := p.Run(ctx, images, pipeline.Options{})
package pipeline
