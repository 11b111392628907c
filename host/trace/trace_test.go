package trace

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decoded is the written JSON read back, slices only, keyed by the names
// the metadata events gave their process and track.
type decoded struct {
	Process, Track, Name string
	Ts, Dur              float64
}

func readBack(t *testing.T, buf []byte) []decoded {
	t.Helper()
	var doc struct {
		TraceEvents []Event `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf)
	}
	procs := map[int]string{}
	tracks := map[[2]int]string{}
	for _, e := range doc.TraceEvents {
		switch e.Name {
		case "process_name":
			procs[e.Pid] = e.Args["name"].(string)
		case "thread_name":
			tracks[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		}
	}
	var out []decoded
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		out = append(out, decoded{procs[e.Pid], tracks[[2]int{e.Pid, e.Tid}], e.Name, e.Ts, *e.Dur})
	}
	return out
}

func TestFile(t *testing.T) {
	cases := []struct {
		name  string
		build func(f *File)
		want  []decoded
	}{
		{"empty", func(f *File) {}, nil},
		{"two processes share nothing", func(f *File) {
			f.Process("npu").Track("ne").Slice("gemm", "", 0, 10, nil)
			f.Process("host").Track("ne").Slice("packet 0", "", 0.5, 2.25, nil)
		}, []decoded{{"npu", "ne", "gemm", 0, 10}, {"host", "ne", "packet 0", 0.5, 2.25}}},
		{"a name used again is the same process and track", func(f *File) {
			f.Process("npu").Track("dma_in").Slice("a", "", 0, 1, nil)
			f.Process("npu").Track("ne").Slice("b", "", 1, 1, nil)
			f.Process("npu").Track("dma_in").Slice("c", "", 100, 1, nil)
		}, []decoded{{"npu", "dma_in", "a", 0, 1}, {"npu", "ne", "b", 1, 1}, {"npu", "dma_in", "c", 100, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f File
			c.build(&f)
			var buf bytes.Buffer
			if err := f.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, readBack(t, buf.Bytes())); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Ids are dense and in order of first use, so the viewer shows processes
// and tracks in the order they were added.
func TestIDs(t *testing.T) {
	var f File
	a, b := f.Process("a"), f.Process("b")
	got := [][2]int{{a.Pid, a.Track("x").Tid}, {a.Pid, a.Track("y").Tid}, {b.Pid, b.Track("y").Tid}, {a.Pid, a.Track("x").Tid}}
	want := [][2]int{{1, 0}, {1, 1}, {2, 0}, {1, 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
