package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/host/trace"
)

// slice is a complete event read back from the JSON.
type slice struct {
	Process, Track, Name string
	Ts, Dur              float64 // µs
}

func decode(t *testing.T, b []byte) []slice {
	t.Helper()
	var doc struct{ TraceEvents []trace.Event }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	procs, tracks := map[int]string{}, map[[2]int]string{}
	var out []slice
	for _, e := range doc.TraceEvents {
		switch {
		case e.Name == "process_name":
			procs[e.Pid] = e.Args["name"].(string)
		case e.Name == "thread_name":
			tracks[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		case e.Ph == "X":
			out = append(out, slice{procs[e.Pid], tracks[[2]int{e.Pid, e.Tid}], e.Name, e.Ts, *e.Dur})
		}
	}
	return out
}

// The lock-step timeline of pre (1 ms), exec (3 ms) and post (2 ms) on two
// packets, with a device run of 30 cycles stretched over each exec span on
// the NPU's own engine tracks, in one file.
func TestTimelineMerge(t *testing.T) {
	ms := []int{1, 3, 2}
	names := []string{"pre", "exec", "post"}
	const N = 2
	synctest.Test(t, func(t *testing.T) {
		sleep := func(s int) Stage[int, int] {
			return NewStage(names[s], func(ctx context.Context, i int) (int, error) {
				time.Sleep(time.Duration(ms[s]) * time.Millisecond)
				return i, nil
			})
		}
		_, st, err := Then(Then(New(sleep(0)), sleep(1)), sleep(2)).Run(t.Context(), []int{0, 1}, Options{Mode: LockStep})
		if err != nil {
			t.Fatal(err)
		}
		dev := &host.Result{Cycles: 30, Timeline: []host.Span{
			{ID: 0, Engine: "dma_in", Label: "load x", Op: "dma_in", Start: 0, End: 9},
			{ID: 1, Engine: "ne", Label: "gemm", Op: "gemm", Start: 10, End: 29},
		}}
		var f trace.File
		st.AddTrace(f.Process("host"))
		npu := f.Process("npu")
		for _, sp := range st.Spans {
			if names[sp.Stage] == "exec" {
				dev.AddTrace(npu, trace.Micros(sp.Start), trace.Micros(sp.End-sp.Start)/float64(dev.Cycles))
			}
		}
		var buf bytes.Buffer
		if err := f.Write(&buf); err != nil {
			t.Fatal(err)
		}

		// The model: stage s works on packet i in period i+s; a period
		// lasts as long as its slowest stage.
		cells, lens := lockStepPeriods(N, len(ms), constant(ms...))
		us := func(n int) float64 { return float64(n) * 1000 }
		var want []slice
		starts := make([]float64, len(lens))
		for k := range lens {
			if k > 0 {
				starts[k] = starts[k-1] + trace.Micros(lens[k-1])
			}
		}
		for s := range ms {
			for i := range N {
				want = append(want, slice{"host", names[s], fmt.Sprintf("packet %d", i), starts[i+s], us(ms[s])})
			}
		}
		for k := range cells {
			want = append(want, slice{"host", PeriodTrack, fmt.Sprintf("period %d", k), starts[k], trace.Micros(lens[k])})
		}
		for i := range N {
			at, per := starts[i+1], us(ms[1])/30 // exec is stage 1
			want = append(want, slice{"npu", "dma_in", "load x", at, 10 * per}, slice{"npu", "ne", "gemm", at + 10*per, 20 * per})
		}
		if d := cmp.Diff(want, decode(t, buf.Bytes()), cmpopts.EquateApprox(0, 1e-9)); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
}

// WriteTrace marks failed calls and writes the run's figures.
func TestWriteTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewStage("s", func(ctx context.Context, i int) (int, error) {
			time.Sleep(time.Millisecond)
			if i == 1 {
				return 0, fmt.Errorf("odd")
			}
			return i, nil
		})
		_, st, err := New(s).Run(t.Context(), []int{0, 1}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := st.WriteTrace(&buf); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []trace.Event
			OtherData   map[string]any
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var cats []string
		for _, e := range doc.TraceEvents {
			if e.Ph == "X" {
				cats = append(cats, e.Cat)
			}
		}
		if d := cmp.Diff([]string{"", "error"}, cats); d != "" {
			t.Errorf("categories (-want +got):\n%s", d)
		}
		wantOther := map[string]any{"mode": "free-running", "packets": 2.0, "wall_us": 2000.0, "serial_us": 2000.0, "overlap": 1.0}
		if d := cmp.Diff(wantOther, doc.OtherData); d != "" {
			t.Errorf("otherData (-want +got):\n%s", d)
		}
	})
}

// The period log of two stages (1 ms and 2 ms) on three packets, the
// second failed by the first stage: it passes the second stage as a
// bubble, and the period is as long as the first stage alone.
func TestWritePeriods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stage := func(name string, d time.Duration) Stage[int, int] {
			return NewStage(name, func(ctx context.Context, i int) (int, error) {
				time.Sleep(d)
				if name == "a" && i == 1 {
					return 0, fmt.Errorf("bad")
				}
				return i, nil
			})
		}
		_, st, err := Then(New(stage("a", time.Millisecond)), stage("b", 2*time.Millisecond)).Run(t.Context(), []int{0, 1, 2}, Options{Mode: LockStep})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := st.WritePeriods(&buf); err != nil {
			t.Fatal(err)
		}
		want := "" +
			"period  start  length  a  b\n" +
			"0       0s     1ms     0  -\n" +
			"1       1ms    2ms     1  0\n" +
			"2       3ms    1ms     2  (1)\n" +
			"3       4ms    2ms     -  2\n"
		if d := cmp.Diff(want, buf.String()); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
}
