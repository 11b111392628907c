package pipeline

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Stats is the accounting of one run.
type Stats struct {
	Mode     Mode
	Capacity int       // channel capacity between stages (FreeRunning; 0 in LockStep)
	Start    time.Time // when the run started; Span and Period times are offsets from it
	Wall     time.Duration
	Packets  int // packets taken from the input
	Done     int // results delivered without error
	Failed   int // results delivered with a PacketError
	Stages   []StageStats
	Spans    []Span   // every stage call, by stage, then in packet order
	Periods  []Period // LockStep: the period log
}

// StageStats is one stage's share of a run.
type StageStats struct {
	Name    string
	Packets int           // calls of the stage function
	Failed  int           // of them, the calls that failed their packet
	Busy    time.Duration // total time inside the stage function
}

// Throughput is the stage's packets per second of busy time: the rate it
// could sustain on its own.
func (s StageStats) Throughput() float64 { return rate(s.Packets, s.Busy) }

// Span is one stage call: Stage ran on Packet from Start to End (offsets
// from Stats.Start).
type Span struct {
	Stage      int
	Packet     int
	Start, End time.Duration
	Failed     bool // the call failed the packet
}

// Period is one step of a LockStep run.
type Period struct {
	Start time.Duration // offset from Stats.Start
	// Dur is from handing out the period's packets to the last stage
	// done: the slowest stage's time plus the hand-off overhead.
	Dur   time.Duration
	Cells []Cell // one per stage
}

// Cell is what one stage did in a period.
type Cell struct {
	Packet int           // the packet in the stage's slot, −1 when empty (filling or draining)
	Ran    bool          // false for an empty slot or a packet an earlier stage failed
	Busy   time.Duration // time inside the stage function
}

// Serial is the sum of all stage times: the wall time of running every
// stage of every packet one after the other.
func (s *Stats) Serial() time.Duration {
	var t time.Duration
	for _, st := range s.Stages {
		t += st.Busy
	}
	return t
}

// Overlap is Serial over Wall: how many stages were busy at once on
// average (1 without overlap, at most the number of stages).
func (s *Stats) Overlap() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Serial()) / float64(s.Wall)
}

// Throughput is the results (good or failed) per second of wall time.
func (s *Stats) Throughput() float64 { return rate(s.Done+s.Failed, s.Wall) }

// Bottleneck is the index of the stage with the most busy time.
func (s *Stats) Bottleneck() int {
	b := 0
	for i, st := range s.Stages {
		if st.Busy > s.Stages[b].Busy {
			b = i
		}
	}
	return b
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Summary is a few lines for a terminal:
//
//	pipeline  free-running, capacity 1: 3 stages, 10 packets (9 done, 1 failed)
//	stage     pre   10 packets, 0 failed, busy 1.2ms (8333.3/s)
//	…
//	wall      31ms for 60ms of stage time: overlap 1.94×, 322.6 packets/s; bottleneck exec
func (s *Stats) Summary() string {
	var b strings.Builder
	mode := s.Mode.String()
	if s.Mode == FreeRunning {
		mode += fmt.Sprintf(", capacity %d", s.Capacity)
	}
	fmt.Fprintf(&b, "pipeline  %s: %d stages, %d packets (%d done, %d failed)\n", mode, len(s.Stages), s.Packets, s.Done, s.Failed)
	w := 0
	for _, st := range s.Stages {
		w = max(w, len(st.Name))
	}
	for _, st := range s.Stages {
		fmt.Fprintf(&b, "stage     %-*s %d packets, %d failed, busy %v (%.1f/s)\n", w, st.Name, st.Packets, st.Failed, round(st.Busy), st.Throughput())
	}
	if s.Mode == LockStep {
		fmt.Fprintf(&b, "periods   %d for %d packets through %d stages (%d one after the other)\n",
			len(s.Periods), s.Packets, len(s.Stages), s.Packets*len(s.Stages))
	}
	fmt.Fprintf(&b, "wall      %v for %v of stage time: overlap %.2f×, %.1f packets/s", round(s.Wall), round(s.Serial()), s.Overlap(), s.Throughput())
	if len(s.Stages) > 0 {
		fmt.Fprintf(&b, "; bottleneck %s", s.Stages[s.Bottleneck()].Name)
	}
	return b.String()
}

// round keeps about four significant digits of d for printing.
func round(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 10000*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Second)
}

// WritePeriods writes the period log of a LockStep run as a table: per
// period its start, its length and the packet each stage held ("-" for an
// empty slot, "(3)" for packet 3 failed earlier and passed through).
func (s *Stats) WritePeriods(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "period\tstart\tlength")
	for _, st := range s.Stages {
		fmt.Fprintf(tw, "\t%s", st.Name)
	}
	fmt.Fprintln(tw)
	for k, p := range s.Periods {
		fmt.Fprintf(tw, "%d\t%v\t%v", k, round(p.Start), round(p.Dur))
		for _, c := range p.Cells {
			switch {
			case c.Packet < 0:
				fmt.Fprint(tw, "\t-")
			case !c.Ran:
				fmt.Fprintf(tw, "\t(%d)", c.Packet)
			default:
				fmt.Fprintf(tw, "\t%d", c.Packet)
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
