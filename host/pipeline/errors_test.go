package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// image is a float packet of the kind a pre-processing stage checks.
type image struct {
	Shape []int
	Data  []float32
	Scale float64
}

// quantize is a pre stage: float → int8 in units of the image's scale,
// rejecting what cannot be quantized.
func quantize(ctx context.Context, x image) ([]int8, error) {
	time.Sleep(time.Millisecond)
	if !slices.Equal(x.Shape, []int{1, 2, 2}) {
		return nil, fmt.Errorf("shape %v, want [1 2 2]", x.Shape)
	}
	if !(x.Scale > 0 && x.Scale <= 1) {
		return nil, fmt.Errorf("scale %g out of range (0, 1]", x.Scale)
	}
	q := make([]int8, len(x.Data))
	for i, v := range x.Data {
		if math.IsNaN(float64(v)) {
			return nil, fmt.Errorf("element %d is NaN", i)
		}
		q[i] = int8(max(-127, min(127, math.RoundToEven(float64(v)/x.Scale))))
	}
	return q, nil
}

// Bad packets fail alone, with one line naming the packet and the stage;
// the later stages never see them, and the other packets complete in order.
func TestPacketErrors(t *testing.T) {
	good := image{[]int{1, 2, 2}, []float32{0.5, -0.25, 1, 0}, 1.0 / 127}
	in := []image{
		good,
		{[]int{1, 2, 2}, []float32{0.5, float32(math.NaN()), 1, 0}, 1.0 / 127},
		good,
		{[]int{2, 2}, []float32{0.5, -0.25, 1, 0}, 1.0 / 127},
		{[]int{1, 2, 2}, []float32{0.5, -0.25, 1, 0}, 0},
		good,
		{[]int{1, 2, 2}, []float32{0.5, -0.25, 1, 0.75}, 1.0 / 127}, // the exec stage rejects it
	}
	wantErrs := []string{
		"",
		"packet 1: stage pre: element 1 is NaN",
		"",
		"packet 3: stage pre: shape [2 2], want [1 2 2]",
		"packet 4: stage pre: scale 0 out of range (0, 1]",
		"",
		"packet 6: stage exec: device fault; status 3",
	}
	errFault := errors.New("device fault\nstatus 3\n")
	for _, mode := range []Mode{FreeRunning, LockStep} {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var execCalls, postCalls atomic.Int32
				exec := NewStage("exec", func(ctx context.Context, q []int8) (int32, error) {
					execCalls.Add(1)
					time.Sleep(2 * time.Millisecond)
					var acc int32
					for _, v := range q {
						acc += int32(v)
					}
					if q[3] != 0 {
						return 0, errFault
					}
					return acc, nil
				})
				post := NewStage("post", func(ctx context.Context, acc int32) (float64, error) {
					postCalls.Add(1)
					return float64(acc) / 127, nil
				})
				p := Then(Then(New(NewStage("pre", quantize)), exec), post)
				res, st, err := p.Run(t.Context(), in, Options{Mode: mode})
				if err != nil {
					t.Fatalf("a bad packet failed the run: %v", err)
				}
				var gotErrs []string
				var packets []int
				for _, r := range res {
					packets = append(packets, r.Packet)
					if r.Err == nil {
						gotErrs = append(gotErrs, "")
						if r.Value != 159.0/127 {
							t.Errorf("packet %d: %v, want 159/127", r.Packet, r.Value)
						}
						continue
					}
					gotErrs = append(gotErrs, r.Err.Error())
					var pe *PacketError
					if !errors.As(r.Err, &pe) || pe.Packet != r.Packet {
						t.Errorf("packet %d: %#v is not a *PacketError of the packet", r.Packet, r.Err)
					}
				}
				if d := cmp.Diff(wantErrs, gotErrs); d != "" {
					t.Errorf("errors (-want +got):\n%s", d)
				}
				if d := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6}, packets); d != "" {
					t.Errorf("packet order (-want +got):\n%s", d)
				}
				if !errors.Is(res[6].Err, errFault) {
					t.Errorf("the exec stage's error is not wrapped: %v", res[6].Err)
				}
				if e, p := execCalls.Load(), postCalls.Load(); e != 4 || p != 3 {
					t.Errorf("exec ran %d times, post %d; want 4 (the packets pre passed) and 3", e, p)
				}
				wantStages := []StageStats{
					{Name: "pre", Packets: 7, Failed: 3, Busy: 7 * time.Millisecond},
					{Name: "exec", Packets: 4, Failed: 1, Busy: 8 * time.Millisecond},
					{Name: "post", Packets: 3},
				}
				if d := cmp.Diff(wantStages, st.Stages); d != "" {
					t.Errorf("stage stats (-want +got):\n%s", d)
				}
				if st.Done != 3 || st.Failed != 4 || st.Packets != 7 {
					t.Errorf("%d packets, %d done, %d failed; want 7, 3, 4", st.Packets, st.Done, st.Failed)
				}
				if mode == LockStep && len(st.Periods) != len(in)+2 {
					t.Errorf("%d periods, want N+S−1 = %d: a failed packet is a bubble, not a gap", len(st.Periods), len(in)+2)
				}
				for _, e := range gotErrs {
					if strings.Contains(e, "\n") {
						t.Errorf("error of more than one line: %q", e)
					}
				}
			})
		})
	}
}

func TestInvalid(t *testing.T) {
	id := func(ctx context.Context, v int) (int, error) { return v, nil }
	cases := []struct {
		name string
		p    *Pipeline[int, int]
		opt  Options
		want string
	}{
		{"no name", New(NewStage("", id)), Options{}, "pipeline: stage 0 has no name"},
		{"same name", Then(New(NewStage("a", id)), NewStage("a", id)), Options{}, `pipeline: stages 0 and 1 are both named "a": names must be unique`},
		{"no function", New(Stage[int, int]{Name: "a"}), Options{}, `pipeline: stage "a" has no function`},
		{"capacity", New(NewStage("a", id)), Options{Capacity: -1}, "pipeline: Options.Capacity = -1: want 0 (meaning 1) or more packets"},
		{"mode", New(NewStage("a", id)), Options{Mode: 7}, "pipeline: Options.Mode = 7: want FreeRunning (0) or LockStep (1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := c.p.Run(t.Context(), []int{1}, c.opt)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
		})
	}
}

// Then copies: two pipelines grown from one prefix do not share stages.
func TestThenCopies(t *testing.T) {
	id := func(ctx context.Context, v int) (int, error) { return v, nil }
	// Three stages: the slice has room for a fourth, which append would share.
	base := Then(Then(New(NewStage("a", id)), NewStage("b", id)), NewStage("c", id))
	x := Then(base, NewStage("x", id))
	y := Then(base, NewStage("y", id))
	got := [][]string{base.Stages(), x.Stages(), y.Stages()}
	want := [][]string{{"a", "b", "c"}, {"a", "b", "c", "x"}, {"a", "b", "c", "y"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Stages of interface types pass nil values on.
func TestNilInterfaceValues(t *testing.T) {
	s := NewStage("s", func(ctx context.Context, v any) (error, error) { return nil, nil })
	u := NewStage("u", func(ctx context.Context, e error) (any, error) { return e, nil })
	for _, mode := range []Mode{FreeRunning, LockStep} {
		res, _, err := Then(New(s), u).Run(t.Context(), []any{nil, 1}, Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]Result[any]{{Packet: 0}, {Packet: 1}}, res); d != "" {
			t.Errorf("%v: (-want +got):\n%s", mode, d)
		}
	}
}
