package partition

import (
	"errors"
	"fmt"
	"strings"
)

// Mode says how the partitions of a convolution's input are made
// independent.
type Mode int

const (
	// Halo partitions the output rows (and columns) exactly; each
	// partition loads every input row its outputs read, including the
	// k−s rows (for a kernel k, stride s) its window shares with the next
	// partition's, so it computes its outputs alone and the outputs are
	// placed side by side.
	Halo Mode = iota
	// PartialSums partitions the input rows (and columns) exactly; each
	// partition computes the contributions of its own rows to every
	// output they reach, and the partial sums of neighbours that reach
	// the same outputs are added.
	PartialSums
)

var modeNames = [...]string{Halo: "halo", PartialSums: "partial-sums"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// DefaultThreshold is the default balance threshold: the non-zero counts
// of any two partitions may differ by at most 3% of the larger
// (docs/sources.md §4).
const DefaultThreshold = 0.03

// Options says how to partition a feature map.
type Options struct {
	// Rows and Cols are the partitions along each axis: Rows·Cols
	// engines. 0 means 1. With Cols > 1 the columns are cut first into
	// Cols strips, and each strip is cut into Rows partitions with its own
	// row cuts.
	Rows, Cols int
	// Threshold is the largest allowed difference between the non-zero
	// counts of any two partitions, as a fraction of the larger count; 0
	// means DefaultThreshold. (To ask for counts that are exactly equal,
	// give a threshold smaller than 1/count, e.g. 1e-12.)
	Threshold float64
	// Conv is the convolution the partitions feed; the zero value is a
	// 1×1 kernel: plain sub-feature-maps without halo.
	Conv Conv
	// Mode is how the partitions are made independent (Halo by default).
	Mode Mode
	// MinRows and MinCols are the fewest units each partition keeps
	// along each axis: output rows (columns) in Halo mode, where the
	// default 1 already gives each partition the KH rows (KW columns) a
	// kernel window needs; input rows (columns) in PartialSums mode,
	// where the default is KH (KW).
	MinRows, MinCols int
	// SearchBudget bounds the cost evaluations of the exhaustive search
	// that runs when the neighbour moves stall above the threshold; 0
	// means 1e8 (seconds at most; searches typically take milliseconds),
	// negative means no bound. If the budget runs out the report says
	// the search was cut short.
	SearchBudget int64
}

// Part is one partition: one engine's sub-feature-map.
type Part struct {
	Index            int // GridRow·Cols + GridCol
	GridRow, GridCol int
	Rows, Cols       Span
	// NNZ is the number of non-zero values (all channels) in the input
	// slice Rows.In × Cols.In: the values the engine stores and
	// multiplies when it skips zeros. This is what is balanced.
	NNZ int64
}

// Balance is how well the non-zero counts of the partitions agree.
type Balance struct {
	Threshold float64
	// Met says whether MaxNNZ − MinNNZ ≤ Threshold·MaxNNZ.
	Met            bool
	MaxNNZ, MinNNZ int64
	// Imbalance is (MaxNNZ − MinNNZ)/MaxNNZ (0 when the map is all
	// zeros); Met is Imbalance ≤ Threshold.
	Imbalance float64
	// Method is how the cuts were found: "equal-area" (no moves were
	// needed, or EqualArea), "neighbour moves" or "exhaustive search"
	// (the moves stalled above the threshold; a search over all cut
	// positions found cuts within it or, if there are none, cuts more
	// balanced than the moves').
	Method string
	// Moves is how many single-row or single-column moves across a cut
	// the neighbour phase made.
	Moves int
	// Reason explains why the threshold is not met (empty when it is).
	Reason string
}

// Plan is a partitioned feature map.
type Plan struct {
	C, H, W    int // the input
	OH, OW     int // the output
	Conv       Conv
	Mode       Mode
	Rows, Cols int
	// Parts are in row-major grid order. All the parts of grid column j
	// share Cols; each grid column (strip) has its own row cuts.
	Parts   []Part
	Balance Balance
}

// UnbalancedError is returned, with the best plan found, when the
// threshold cannot be met.
type UnbalancedError struct {
	Threshold float64
	// Imbalance, MaxNNZ and MinNNZ are the best reached.
	Imbalance      float64
	MaxNNZ, MinNNZ int64
	Reason         string
}

func (e *UnbalancedError) Error() string {
	return fmt.Sprintf("partition: the non-zero counts are not balanced within %.4g%%: best imbalance %.4g%% (max %d, min %d non-zeros): %s",
		100*e.Threshold, 100*e.Imbalance, e.MaxNNZ, e.MinNNZ, e.Reason)
}

// ErrUnbalanced matches every *UnbalancedError under errors.Is.
var ErrUnbalanced = errors.New("partition: threshold not met")

// Is makes errors.Is(err, ErrUnbalanced) true.
func (e *UnbalancedError) Is(target error) bool { return target == ErrUnbalanced }

// setup is a validated problem.
type setup struct {
	m          *Map
	o          Options
	conv       Conv
	rows, cols axis
	budget     int64
}

func prepare(m *Map, o Options) (*setup, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if o.Rows == 0 {
		o.Rows = 1
	}
	if o.Cols == 0 {
		o.Cols = 1
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	c := o.Conv.norm()
	switch {
	case o.Rows < 1 || o.Cols < 1:
		return nil, fmt.Errorf("partition: %d×%d partitions: Rows and Cols must be at least 1", o.Rows, o.Cols)
	case o.Threshold < 0 || o.Threshold != o.Threshold:
		return nil, fmt.Errorf("partition: threshold %v must be a non-negative fraction", o.Threshold)
	case o.Mode != Halo && o.Mode != PartialSums:
		return nil, fmt.Errorf("partition: unknown mode %v", o.Mode)
	case o.MinRows < 0 || o.MinCols < 0:
		return nil, fmt.Errorf("partition: MinRows %d, MinCols %d must not be negative", o.MinRows, o.MinCols)
	}
	if err := c.check(m.H, m.W); err != nil {
		return nil, err
	}
	if o.MinRows == 0 {
		o.MinRows = 1
		if o.Mode == PartialSums {
			o.MinRows = c.KH
		}
	}
	if o.MinCols == 0 {
		o.MinCols = 1
		if o.Mode == PartialSums {
			o.MinCols = c.KW
		}
	}
	s := &setup{m: m, o: o, conv: c,
		rows: newAxis(m.H, c.KH, c.Stride, c.PadH, o.Mode),
		cols: newAxis(m.W, c.KW, c.Stride, c.PadW, o.Mode)}
	unit := map[Mode]string{Halo: "output", PartialSums: "input"}[o.Mode]
	if u := s.rows.units(); u < o.Rows*o.MinRows {
		return nil, fmt.Errorf("partition: %d %s rows cannot be cut into %d partitions of at least %d rows", u, unit, o.Rows, o.MinRows)
	}
	if u := s.cols.units(); u < o.Cols*o.MinCols {
		return nil, fmt.Errorf("partition: %d %s columns cannot be cut into %d partitions of at least %d columns", u, unit, o.Cols, o.MinCols)
	}
	switch {
	case o.SearchBudget == 0:
		s.budget = 1e8
	case o.SearchBudget > 0:
		s.budget = o.SearchBudget
	}
	return s, nil
}

// colLine is the column problem: Cols strips over all rows.
func (s *setup) colLine() line {
	all := Range{0, s.m.H}
	l := line{units: s.cols.units(), n: s.o.Cols, min: s.o.MinCols}
	l.cost = func(a, b int) int64 { return s.m.Count(all, s.cols.span(Range{a, b}).In) }
	l.sumBound = s.m.Total() + int64(l.n)*maxWindow(s.cols.tail(), s.m.W, func(r Range) int64 { return s.m.Count(all, r) })
	l.heaviest = heaviest(l)
	return l
}

// rowLine is the row problem of one strip (input columns cols).
func (s *setup) rowLine(cols Range) line {
	l := line{units: s.rows.units(), n: s.o.Rows, min: s.o.MinRows}
	l.cost = func(a, b int) int64 { return s.m.Count(s.rows.span(Range{a, b}).In, cols) }
	l.sumBound = s.m.Count(Range{0, s.m.H}, cols) + int64(l.n)*maxWindow(s.rows.tail(), s.m.H, func(r Range) int64 { return s.m.Count(r, cols) })
	l.heaviest = heaviest(l)
	return l
}

// heaviest is the most non-zeros one unit moved across a cut can carry:
// the largest increase of a part's cost when it grows by one unit.
func heaviest(l line) int64 {
	var h, prev int64
	for u := 1; u <= l.units; u++ {
		c := l.cost(0, u)
		h, prev = max(h, c-prev), c
	}
	return h
}

// maxWindow is the largest count of t consecutive rows (0 when t is 0).
func maxWindow(t, n int, count func(Range) int64) int64 {
	var best int64
	if t <= 0 {
		return 0
	}
	for lo := 0; lo+t <= n; lo++ {
		best = max(best, count(Range{lo, lo + t}))
	}
	if t > n {
		best = count(Range{0, n})
	}
	return best
}

// Partition divides the feature map m into o.Rows×o.Cols partitions
// whose non-zero counts differ by at most o.Threshold of the larger (see
// the package documentation for the algorithm). If the threshold cannot
// be met it returns the best plan found together with an
// *UnbalancedError (errors.Is(err, ErrUnbalanced)) that says how close it
// came and why; any other error means there is no plan.
func Partition(m *Map, o Options) (*Plan, error) {
	return run(m, o, true)
}

// EqualArea is the baseline: the map cut into equal areas (partitions
// whose counts of the units the balancer cuts, output rows and columns in
// Halo mode and input rows and columns in PartialSums mode, differ by at
// most one), with no balancing. These are also Partition's starting cuts.
// Its Balance says how far apart the non-zero counts are; it never
// returns an *UnbalancedError.
func EqualArea(m *Map, o Options) (*Plan, error) {
	return run(m, o, false)
}

func run(m *Map, o Options, moves bool) (*Plan, error) {
	s, err := prepare(m, o)
	if err != nil {
		return nil, err
	}
	thr := s.o.Threshold
	type try struct {
		colOut  outcome
		cols    []Span
		ls      []line
		rowCuts [][]int
		out     outcome
	}
	attempt := func(colThr float64) try {
		var t try
		colCuts := []int{0, s.cols.units()}
		if s.o.Cols > 1 {
			var cc [][]int
			cc, t.colOut = balance([]line{s.colLine()}, colThr, moves, s.budget)
			colCuts = cc[0]
		}
		t.cols = make([]Span, s.o.Cols)
		t.ls = make([]line, s.o.Cols)
		for j := range t.cols {
			t.cols[j] = s.cols.span(Range{colCuts[j], colCuts[j+1]})
			t.ls[j] = s.rowLine(t.cols[j].In)
		}
		t.rowCuts, t.out = balance(t.ls, thr, moves, s.budget)
		return t
	}
	// The column strips should be as even as possible, as their spread is
	// lost to the row cuts within them: first within a quarter of the
	// threshold (close to equal area), then as even as the search can make
	// them.
	best := attempt(thr / 4)
	if s.o.Cols > 1 && moves && !best.out.met {
		if t := attempt(0); t.out.met || imbalance(t.out.max, t.out.min) < imbalance(best.out.max, best.out.min) {
			best = t
		}
	}
	colOut, colSpans, ls, rowCuts, out := best.colOut, best.cols, best.ls, best.rowCuts, best.out
	p := &Plan{C: m.C, H: m.H, W: m.W, OH: s.rows.out, OW: s.cols.out, Conv: s.conv, Mode: s.o.Mode,
		Rows: s.o.Rows, Cols: s.o.Cols}
	for r := 0; r < s.o.Rows; r++ {
		for j := 0; j < s.o.Cols; j++ {
			rs := s.rows.span(Range{rowCuts[j][r], rowCuts[j][r+1]})
			p.Parts = append(p.Parts, Part{Index: len(p.Parts), GridRow: r, GridCol: j, Rows: rs, Cols: colSpans[j],
				NNZ: m.Count(rs.In, colSpans[j].In)})
		}
	}
	b := Balance{Threshold: thr, Met: out.met, MaxNNZ: out.max, MinNNZ: out.min, Method: out.method,
		Moves: out.moves + colOut.moves}
	if colOut.method == methodExhaustive {
		b.Method = methodExhaustive
	} else if b.Method == methodEqual && colOut.moves > 0 {
		b.Method = methodMoves
	}
	if b.MaxNNZ > 0 {
		b.Imbalance = float64(b.MaxNNZ-b.MinNNZ) / float64(b.MaxNNZ)
	}
	p.Balance = b
	if b.Met || !moves {
		return p, nil
	}
	p.Balance.Reason = s.reason(ls, out, colOut)
	return p, &UnbalancedError{Threshold: thr, Imbalance: b.Imbalance, MaxNNZ: b.MaxNNZ, MinNNZ: b.MinNNZ, Reason: p.Balance.Reason}
}

// reason explains a threshold that was not met.
func (s *setup) reason(ls []line, out outcome, colOut outcome) string {
	thr := s.o.Threshold
	var why []string
	what := "row cuts"
	if s.o.Cols > 1 {
		what = "row cuts within the chosen column strips"
	}
	switch out.exhaustive {
	case "none":
		why = append(why, fmt.Sprintf("no choice of %s keeps every partition within %.4g%% of the largest (an exhaustive search over all cut positions; the plan is the most balanced one found)", what, 100*thr))
	case "skipped":
		why = append(why, fmt.Sprintf("the neighbour moves stalled and the exhaustive search over all %s ran out of its budget of %d cost evaluations (Options.SearchBudget), so cuts within the threshold may still exist", what, s.budget))
	}
	if s.o.Cols > 1 && !balanced(colOut.max, colOut.min, thr) {
		why = append([]string{fmt.Sprintf("the %d column strips themselves are not balanced within the threshold (strip counts %d..%d, %.4g%% apart), so their partitions cannot be",
			s.o.Cols, colOut.min, colOut.max, 100*imbalance(colOut.max, colOut.min))}, why...)
	}
	// granularity: a single row (column) against what the threshold allows
	var heavy int64
	var sum int64
	var n int
	for _, l := range ls {
		heavy = max(heavy, l.heaviest)
		sum += l.cost(0, l.units)
		n += l.n
	}
	allow := thr * float64(sum) / float64(n)
	unit := map[Mode]string{Halo: "output row", PartialSums: "input row"}[s.o.Mode]
	if float64(heavy) > allow {
		hint := "use more columns (Cols > 1), fewer partitions or a larger threshold"
		if s.o.Cols > 1 {
			hint = "use more columns, fewer partitions or a larger threshold"
		}
		why = append(why, fmt.Sprintf("moving a single %s across a cut moves up to %d non-zeros, more than the %.1f the threshold allows at the average partition count %.1f: rows are too coarse a step; %s",
			unit, heavy, allow, float64(sum)/float64(n), hint))
	}
	if len(why) == 0 {
		why = append(why, "the neighbour moves stalled")
	}
	return strings.Join(why, "; ")
}
