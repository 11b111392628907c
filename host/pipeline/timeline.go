package pipeline

import (
	"fmt"
	"io"

	"github.com/hwgen/hwgen/host/trace"
)

// PeriodTrack is the name of the extra track that shows the periods of a
// LockStep run.
const PeriodTrack = "periods"

// AddTrace adds the run's timeline to p: one track per stage, in stage
// order, with a slice per stage call ("packet N", category "error" when
// the call failed the packet), and for LockStep a track of the periods.
// Times are microseconds from Stats.Start, the unit of the device
// timeline (host.Result.AddTrace) that can share the file.
func (s *Stats) AddTrace(p trace.Process) {
	tracks := make([]trace.Track, len(s.Stages))
	for i, st := range s.Stages {
		tracks[i] = p.Track(st.Name)
	}
	for _, sp := range s.Spans {
		cat := ""
		if sp.Failed {
			cat = "error"
		}
		tracks[sp.Stage].Slice(fmt.Sprintf("packet %d", sp.Packet), cat, trace.Micros(sp.Start), trace.Micros(sp.End-sp.Start),
			map[string]any{"packet": sp.Packet, "stage": s.Stages[sp.Stage].Name})
	}
	if len(s.Periods) == 0 {
		return
	}
	pt := p.Track(PeriodTrack)
	for k, per := range s.Periods {
		pk := make([]int, len(per.Cells))
		for i, c := range per.Cells {
			pk[i] = c.Packet
		}
		pt.Slice(fmt.Sprintf("period %d", k), "", trace.Micros(per.Start), trace.Micros(per.Dur), map[string]any{"packets": pk})
	}
}

// WriteTrace writes the timeline alone as Chrome trace-event JSON, in a
// process named "host".
func (s *Stats) WriteTrace(w io.Writer) error {
	var f trace.File
	s.AddTrace(f.Process("host"))
	f.OtherData = map[string]any{"mode": s.Mode.String(), "packets": s.Packets, "wall_us": trace.Micros(s.Wall),
		"serial_us": trace.Micros(s.Serial()), "overlap": s.Overlap()}
	return f.Write(w)
}
