package host

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host/trace"
)

// Two runs added to one process at different offsets and clock periods
// land on the same engine tracks, each task at at + cycle·usPerCycle.
func TestAddTraceOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 5, 6))
	g.Output("c", g.GEMM(a, randTensor(rng, 6, 3), golden.Requant{Scale: 1, Shift: 6}))
	res := run(t, small(), g)

	type slice struct {
		Track  string
		Ts     float64
		Dur    float64
		TaskID int
	}
	var want []slice
	runs := []struct{ at, us float64 }{{0, 1}, {1000, 0.5}}
	for _, r := range runs {
		for _, s := range res.Timeline {
			want = append(want, slice{s.Engine, r.at + float64(s.Start)*r.us, float64(s.End-s.Start+1) * r.us, s.ID})
		}
	}

	var f trace.File
	for _, r := range runs {
		res.AddTrace(f.Process("npu"), r.at, r.us)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct{ TraceEvents []trace.Event }
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tracks := map[int]string{}
	var got []slice
	for _, e := range doc.TraceEvents {
		if e.Pid != 1 {
			t.Errorf("event %q in process %d, want every run in process 1", e.Name, e.Pid)
		}
		switch {
		case e.Name == "thread_name":
			tracks[e.Tid] = e.Args["name"].(string)
		case e.Ph == "X":
			got = append(got, slice{tracks[e.Tid], e.Ts, *e.Dur, int(e.Args["id"].(float64))})
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
