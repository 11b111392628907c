// Package trace writes Chrome trace-event JSON (the format Perfetto and
// chrome://tracing open): processes holding tracks, tracks holding
// slices. It is the one writer behind every timeline hwgen produces —
// the NPU's task timeline (host.Result) and the host pipeline's stages
// (host/pipeline) — so the two can go into one File and be looked at
// side by side: each source adds its own process, and a process with the
// same name is shared, so several device runs can land on one "npu"
// process at different offsets.
//
// Timestamps and durations are microseconds (the format's unit), as
// float64 so that wall-clock spans keep sub-microsecond detail; whole
// numbers print without a fraction.
package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Micros is d in the trace's unit, microseconds.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Event is one trace event. Complete events ("X") carry a duration;
// metadata events ("M") name processes and threads.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// File collects the events of one trace. The zero value is ready to
// use.
type File struct {
	Events    []Event
	OtherData map[string]any // written as "otherData" (shown by Perfetto as metadata)

	pids   map[string]int
	tracks map[trackKey]int
	ntids  map[int]int
}

type trackKey struct {
	pid  int
	name string
}

// Process is a group of tracks (a "process" in the viewer).
type Process struct {
	f   *File
	Pid int
}

// Track is one row of slices (a "thread" in the viewer).
type Track struct {
	f        *File
	Pid, Tid int
}

// Process returns the process named name, adding it (pid 1, 2, … in the
// order of first use, which is also the order shown) when it is new.
func (f *File) Process(name string) Process {
	if pid, ok := f.pids[name]; ok {
		return Process{f, pid}
	}
	if f.pids == nil {
		f.pids = map[string]int{}
	}
	pid := len(f.pids) + 1
	f.pids[name] = pid
	f.Events = append(f.Events,
		Event{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}},
		Event{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
	return Process{f, pid}
}

// Track returns the process's track named name, adding it (tid 0, 1, …
// in the order of first use, which is also the order shown) when it is
// new.
func (p Process) Track(name string) Track {
	f := p.f
	k := trackKey{p.Pid, name}
	if tid, ok := f.tracks[k]; ok {
		return Track{f, p.Pid, tid}
	}
	if f.tracks == nil {
		f.tracks, f.ntids = map[trackKey]int{}, map[int]int{}
	}
	tid := f.ntids[p.Pid]
	f.ntids[p.Pid]++
	f.tracks[k] = tid
	f.Events = append(f.Events,
		Event{Name: "thread_name", Ph: "M", Pid: p.Pid, Tid: tid, Args: map[string]any{"name": name}},
		Event{Name: "thread_sort_index", Ph: "M", Pid: p.Pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	return Track{f, p.Pid, tid}
}

// Slice adds a complete event on the track from ts for dur microseconds.
func (t Track) Slice(name, cat string, ts, dur float64, args map[string]any) {
	t.f.Events = append(t.f.Events, Event{Name: name, Cat: cat, Ph: "X", Ts: ts, Dur: &dur, Pid: t.Pid, Tid: t.Tid, Args: args})
}

// Write writes the trace as one JSON object.
func (f *File) Write(w io.Writer) error {
	doc := map[string]any{"traceEvents": f.Events, "displayTimeUnit": "ns"}
	if f.Events == nil {
		doc["traceEvents"] = []Event{}
	}
	if f.OtherData != nil {
		doc["otherData"] = f.OtherData
	}
	if err := json.NewEncoder(w).Encode(doc); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}
