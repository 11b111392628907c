package pipeline

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The tests run inside synctest bubbles: time.Sleep and time.Now use a
// fake clock that advances only when every goroutine of the bubble is
// blocked, so a stage that sleeps d takes exactly d, instantly and
// deterministically, and wall times can be compared for equality.

// item is a packet of the test pipelines: its index (to look up a stage
// time) and a value every stage changes.
type item struct{ Packet, V int }

// durs gives stage s's time on packet i.
type durs func(s, i int) time.Duration

// varied is a table of stage times with no pattern a pipeline could
// exploit: 1..7 ms.
func varied(s, i int) time.Duration { return time.Duration(1+(3*s+5*i+s*i)%7) * time.Millisecond }

// constant gives stage s the time of s+1 ms (the last stage the slowest),
// or another order with rev.
func constant(ms ...int) durs {
	return func(s, i int) time.Duration { return time.Duration(ms[s]) * time.Millisecond }
}

// step is stage s of the test pipelines: it sleeps d(s, packet) and maps
// V to 3·V+s+1.
func step(s int, d durs) Stage[item, item] {
	return NewStage(fmt.Sprintf("s%d", s), func(ctx context.Context, in item) (item, error) {
		time.Sleep(d(s, in.Packet))
		return item{in.Packet, 3*in.V + s + 1}, nil
	})
}

func chain(S int, d durs) *Pipeline[item, item] {
	p := New(step(0, d))
	for s := 1; s < S; s++ {
		p = Then(p, step(s, d))
	}
	return p
}

func inputs(n int) []item {
	in := make([]item, n)
	for i := range in {
		in[i] = item{i, 100 + i}
	}
	return in
}

// want is what S stages make of the inputs.
func want(S int, in []item) []Result[item] {
	out := []Result[item]{}
	for i, x := range in {
		v := x.V
		for s := range S {
			v = 3*v + s + 1
		}
		out = append(out, Result[item]{Packet: i, Value: item{i, v}})
	}
	return out
}

// lockStepPeriods is the period log the model predicts: in period k stage
// s holds packet k−s, and the period is as long as the slowest of them.
func lockStepPeriods(N, S int, d durs) (cells [][]int, lens []time.Duration) {
	if N == 0 {
		return nil, nil
	}
	for k := range N + S - 1 {
		row := make([]int, S)
		var m time.Duration
		for s := range S {
			row[s] = -1
			if i := k - s; i >= 0 && i < N {
				row[s] = i
				m = max(m, d(s, i))
			}
		}
		cells = append(cells, row)
		lens = append(lens, m)
	}
	return cells, lens
}

// freeRunningWall is the model of a free-running pipeline with channels
// of capacity C: stage s receives packet i at R[i][s], when the packet is
// in its input channel and the stage has passed on packet i−1; it
// finishes at R+d and has passed it on at D[i][s], once the next stage
// has taken packet i−C out of the channel between them (the last stage's
// results are taken at once).
func freeRunningWall(N, S, C int, d durs) time.Duration {
	if N == 0 {
		return 0
	}
	R := make([][]time.Duration, N)
	D := make([][]time.Duration, N)
	for i := range N {
		R[i], D[i] = make([]time.Duration, S), make([]time.Duration, S)
	}
	for i := range N {
		for s := range S {
			var avail time.Duration // packet i is in stage s's input channel
			if s > 0 {
				avail = D[i][s-1]
			} else if i >= C {
				avail = R[i-C][0] // the input is read as soon as there is room
			}
			R[i][s] = avail
			if i > 0 {
				R[i][s] = max(R[i][s], D[i-1][s])
			}
			D[i][s] = R[i][s] + d(s, i)
			if s < S-1 && i >= C {
				D[i][s] = max(D[i][s], R[i-C][s+1])
			}
		}
	}
	return D[N-1][S-1]
}

func TestLockStepPeriods(t *testing.T) {
	for _, S := range []int{1, 2, 3, 5} {
		for _, N := range []int{0, 1, 2, 3, 7} {
			t.Run(fmt.Sprintf("S%d_N%d", S, N), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					in := inputs(N)
					res, st, err := chain(S, varied).Run(t.Context(), in, Options{Mode: LockStep})
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(want(S, in), res); d != "" {
						t.Errorf("results (-want +got):\n%s", d)
					}
					wantN := N + S - 1 // periods: S−1 to fill the pipeline, then one per packet
					if N == 0 {
						wantN = 0
					}
					if len(st.Periods) != wantN {
						t.Errorf("%d packets through %d stages took %d periods, want %d", N, S, len(st.Periods), wantN)
					}
					wantCells, wantLens := lockStepPeriods(N, S, varied)
					var gotCells [][]int
					var gotLens []time.Duration
					var sum time.Duration
					for k, p := range st.Periods {
						row := make([]int, S)
						for s, c := range p.Cells {
							row[s] = c.Packet
							if c.Ran != (c.Packet >= 0) {
								t.Errorf("period %d stage %d: packet %d, ran %v", k, s, c.Packet, c.Ran)
							}
							if c.Ran && c.Busy != varied(s, c.Packet) {
								t.Errorf("period %d stage %d: busy %v, the stage sleeps %v", k, s, c.Busy, varied(s, c.Packet))
							}
						}
						gotCells = append(gotCells, row)
						gotLens = append(gotLens, p.Dur)
						if p.Start != sum {
							t.Errorf("period %d starts at %v, the periods before it last %v", k, p.Start, sum)
						}
						sum += p.Dur
					}
					if d := cmp.Diff(wantCells, gotCells); d != "" {
						t.Errorf("packets per period and stage (-want +got):\n%s", d)
					}
					if d := cmp.Diff(wantLens, gotLens); d != "" {
						t.Errorf("period lengths (-want +got):\n%s", d)
					}
					if st.Wall != sum {
						t.Errorf("wall %v, the periods sum to %v", st.Wall, sum)
					}
					checkStages(t, st, N, S, varied)
				})
			})
		}
	}
}

// checkStages checks the per-stage accounting against the stage times.
func checkStages(t *testing.T, st *Stats, N, S int, d durs) {
	t.Helper()
	var want []StageStats
	var serial time.Duration
	for s := range S {
		ss := StageStats{Name: fmt.Sprintf("s%d", s), Packets: N}
		for i := range N {
			ss.Busy += d(s, i)
		}
		serial += ss.Busy
		want = append(want, ss)
	}
	if diff := cmp.Diff(want, st.Stages); diff != "" {
		t.Errorf("stage stats (-want +got):\n%s", diff)
	}
	if st.Serial() != serial || st.Packets != N || st.Done != N || st.Failed != 0 {
		t.Errorf("serial %v packets %d done %d failed %d, want %v %d %d 0", st.Serial(), st.Packets, st.Done, st.Failed, serial, N, N)
	}
	if len(st.Spans) != N*S {
		t.Errorf("%d spans, want one per stage and packet, %d", len(st.Spans), N*S)
	}
}

func TestFreeRunningWall(t *testing.T) {
	cases := []struct {
		name string
		S    int
		d    durs
	}{
		{"varied", 3, varied},
		{"varied5", 5, varied},
		{"one", 1, varied},
		{"slow_last", 3, constant(1, 2, 4)},
		{"slow_first", 3, constant(4, 2, 1)},
		{"slow_middle", 4, constant(1, 5, 2, 1)},
	}
	for _, c := range cases {
		for _, C := range []int{0, 1, 2, 4} {
			for _, N := range []int{0, 1, 2, 8} {
				t.Run(fmt.Sprintf("%s_C%d_N%d", c.name, C, N), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						in := inputs(N)
						res, st, err := chain(c.S, c.d).Run(t.Context(), in, Options{Capacity: C})
						if err != nil {
							t.Fatal(err)
						}
						if d := cmp.Diff(want(c.S, in), res); d != "" {
							t.Errorf("results (-want +got):\n%s", d)
						}
						if w := freeRunningWall(N, c.S, max(C, 1), c.d); st.Wall != w {
							t.Errorf("wall %v, the model of a pipeline with capacity %d says %v", st.Wall, max(C, 1), w)
						}
						if st.Capacity != max(C, 1) || len(st.Periods) != 0 {
							t.Errorf("capacity %d, %d periods; want %d, none", st.Capacity, len(st.Periods), max(C, 1))
						}
						checkStages(t, st, N, c.S, c.d)
					})
				})
			}
		}
	}
}

// With constant stage times the free-running wall time is the textbook
// Σd + (N−1)·max d: the slowest stage never waits after its first packet.
// This checks the model the test above relies on as well as the pipeline.
func TestFreeRunningConstant(t *testing.T) {
	ms := []int{2, 5, 1, 3}
	N := 6
	wantWall := time.Duration(2+5+1+3+(N-1)*5) * time.Millisecond
	if m := freeRunningWall(N, len(ms), 1, constant(ms...)); m != wantWall {
		t.Fatalf("model: %v, want %v", m, wantWall)
	}
	synctest.Test(t, func(t *testing.T) {
		_, st, err := chain(len(ms), constant(ms...)).Run(t.Context(), inputs(N), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Wall != wantWall {
			t.Errorf("wall %v, want %v", st.Wall, wantWall)
		}
		serial := time.Duration(N*(2+5+1+3)) * time.Millisecond
		if got, want := st.Overlap(), float64(serial)/float64(wantWall); got != want {
			t.Errorf("overlap %v, want %v", got, want)
		}
		if b := st.Stages[st.Bottleneck()].Name; b != "s1" {
			t.Errorf("bottleneck %s, want s1", b)
		}
	})
}

// Both modes give the same results, and free-running is never slower.
func TestModesAgree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := inputs(9)
		p := chain(4, varied)
		free, fs, err := p.Run(t.Context(), in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lock, ls, err := p.Run(t.Context(), in, Options{Mode: LockStep})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(lock, free); d != "" {
			t.Errorf("(-lock-step +free-running):\n%s", d)
		}
		if fs.Wall > ls.Wall {
			t.Errorf("free-running took %v, lock-step %v", fs.Wall, ls.Wall)
		}
		if fs.Serial() != ls.Serial() {
			t.Errorf("serial time %v free-running, %v lock-step", fs.Serial(), ls.Serial())
		}
		t.Logf("\n%s\n%s", fs.Summary(), ls.Summary())
	})
}
