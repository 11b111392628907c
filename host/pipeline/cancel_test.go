package pipeline

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A cancelled context stops every stage promptly and leaves no
// goroutine behind. The exec stage hangs on packet 3 until the context
// is cancelled (as a device run that honours Ctrl-C would); the post
// stage would sleep an hour on packet 2 unless cancelled. Ctrl-C comes at
// 50 ms.
func TestCancel(t *testing.T) {
	// Post never finishes packet 2, so in both modes packets 0 and 1 are
	// all that come out.
	delivered := []int{0, 1}
	for _, mode := range []Mode{FreeRunning, LockStep} {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				time.AfterFunc(50*time.Millisecond, cancel)
				var calls atomic.Int32
				wait := func(ctx context.Context, d time.Duration) error {
					select {
					case <-time.After(d):
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				pre := NewStage("pre", func(ctx context.Context, i int) (int, error) {
					calls.Add(1)
					return i, wait(ctx, time.Millisecond)
				})
				exec := NewStage("exec", func(ctx context.Context, i int) (int, error) {
					calls.Add(1)
					if i == 3 {
						<-ctx.Done()
						return 0, ctx.Err()
					}
					return i, wait(ctx, time.Millisecond)
				})
				post := NewStage("post", func(ctx context.Context, i int) (int, error) {
					calls.Add(1)
					if i == 2 {
						return i, wait(ctx, time.Hour)
					}
					return i, nil
				})
				t0 := time.Now()
				var got []int
				st, err := Then(Then(New(pre), exec), post).Stream(ctx, func(yield func(int) bool) {
					for i := 0; ; i++ { // an endless source
						if !yield(i) {
							return
						}
					}
				}, Options{Mode: mode}, func(r Result[int]) {
					if r.Err != nil {
						t.Errorf("packet %d delivered with %v", r.Packet, r.Err)
					}
					got = append(got, r.Packet)
				})
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v, want context.Canceled", err)
				}
				if d := time.Since(t0); d != 50*time.Millisecond {
					t.Errorf("returned %v after the start, want at the cancellation (50ms)", d)
				}
				if d := cmp.Diff(delivered, got); d != "" {
					t.Errorf("delivered (-want +got):\n%s", d)
				}
				if st == nil || st.Done != len(got) {
					t.Errorf("stats %+v after %d results", st, len(got))
				}
				synctest.Wait()
				for _, g := range leaked() {
					t.Errorf("goroutine left after the run returned:\n%s", g)
				}
				n := calls.Load()
				time.Sleep(time.Hour)
				if m := calls.Load(); m != n {
					t.Errorf("%d stage calls after the run returned", m-n)
				}
			})
		})
	}
}

// leaked returns the stacks of goroutines running the package's code
// (any goroutine of a run passes through a runner method or anySeq).
func leaked() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "pipeline.(*runner)") || strings.Contains(g, "pipeline.anySeq") {
			out = append(out, g)
		}
	}
	return out
}

// An already cancelled context runs no stage at all.
func TestCancelledBefore(t *testing.T) {
	for _, mode := range []Mode{FreeRunning, LockStep} {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				var calls atomic.Int32
				s := NewStage("s", func(ctx context.Context, i int) (int, error) { calls.Add(1); return i, nil })
				res, _, err := Then(New(s), NewStage("t", s.Fn)).Run(ctx, []int{1, 2, 3}, Options{Mode: mode})
				if !errors.Is(err, context.Canceled) || len(res) != 0 || calls.Load() != 0 {
					t.Errorf("error %v, %d results, %d calls; want context.Canceled, none, none", err, len(res), calls.Load())
				}
			})
		})
	}
}
