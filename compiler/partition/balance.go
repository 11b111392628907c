package partition

import "math"

// line is one 1-D balancing problem: units cut into n contiguous parts of
// at least min units, a part [a, b) costing cost(a, b) non-zeros. cost
// must not decrease when the interval grows (it counts the non-zeros of
// the input rows the part loads, which only grow).
type line struct {
	units, n, min int
	cost          func(a, b int) int64
	// sumBound bounds the sum of the n costs for any cuts (the line's
	// non-zeros plus, in Halo mode, every part's overlap with the next).
	sumBound int64
	// heaviest is the largest cost of a single unit (for the report).
	heaviest int64
}

// balanced reports whether max − min ≤ thr·max.
func balanced(maxc, minc int64, thr float64) bool {
	return float64(maxc-minc) <= thr*float64(maxc)
}

// spread is the largest allowed max − min for a largest cost h.
func spread(h int64, thr float64) int64 {
	d := int64(math.Floor(thr * float64(h)))
	for d < h && float64(d+1) <= thr*float64(h) {
		d++
	}
	for d > 0 && float64(d) > thr*float64(h) {
		d--
	}
	return min(d, h)
}

// outcome is what balance did.
type outcome struct {
	met        bool
	max, min   int64
	moves      int
	method     string
	exhaustive string // "" (not run), "found", "none" or "skipped"
}

const (
	methodEqual      = "equal-area"
	methodMoves      = "neighbour moves"
	methodExhaustive = "exhaustive search"
)

// equalCuts are the equal-area cuts of units into n parts (sizes differ
// by at most one unit).
func equalCuts(units, n int) []int {
	c := make([]int, n+1)
	for i := range c {
		c[i] = i * units / n
	}
	return c
}

func extremes(ls []line, cuts [][]int) (int64, int64) {
	maxc, minc := int64(math.MinInt64), int64(math.MaxInt64)
	for i, l := range ls {
		for j := 0; j < l.n; j++ {
			c := l.cost(cuts[i][j], cuts[i][j+1])
			maxc, minc = max(maxc, c), min(minc, c)
		}
	}
	return maxc, minc
}

// balance cuts every line into its parts so that the costs of all the
// parts of all the lines differ by at most thr of the largest. It starts
// from equal-area cuts and moves one unit at a time across a cut, from
// the heavier neighbour to the lighter, while that lowers the heavier
// cost of the two; it stops as soon as the costs are within thr. If the
// moves stall above thr, an exhaustive search over every cut position
// decides whether any cuts meet thr (and if so returns the ones with the
// smallest largest cost); if none do, the cuts the moves reached are
// returned with met false. budget bounds the cost evaluations of the
// exhaustive search (0: no bound).
func balance(ls []line, thr float64, moves bool, budget int64) ([][]int, outcome) {
	cuts := make([][]int, len(ls))
	costs := make([][]int64, len(ls))
	for i, l := range ls {
		cuts[i] = equalCuts(l.units, l.n)
		costs[i] = make([]int64, l.n)
		for j := range costs[i] {
			costs[i][j] = l.cost(cuts[i][j], cuts[i][j+1])
		}
	}
	var o outcome
	o.method = methodEqual
	o.max, o.min = extremes(ls, cuts)
	o.met = balanced(o.max, o.min, thr)
	if o.met || !moves {
		return cuts, o
	}
	met := func() bool {
		o.max, o.min = extremes(ls, cuts)
		return balanced(o.max, o.min, thr)
	}
	o.method = methodMoves
	// Every accepted move replaces the larger of two costs by two smaller
	// ones, so the costs sorted in decreasing order decrease
	// lexicographically: the loop ends.
sweeps:
	for {
		moved := false
		for i, l := range ls {
			c, k := costs[i], cuts[i]
			for j := 1; j < l.n; j++ {
				for {
					cl, cr := c[j-1], c[j]
					b := k[j]
					switch {
					case cl > cr && b-k[j-1] > l.min:
						b--
					case cr > cl && k[j+1]-b > l.min:
						b++
					default:
						b = -1
					}
					if b < 0 {
						break
					}
					nl, nr := l.cost(k[j-1], b), l.cost(b, k[j+1])
					if max(nl, nr) >= max(cl, cr) {
						break
					}
					k[j], c[j-1], c[j] = b, nl, nr
					o.moves++
					moved = true
					if met() {
						o.met = true
						break sweeps
					}
				}
			}
		}
		if !moved {
			break
		}
	}
	if o.met {
		return cuts, o
	}
	o.max, o.min = extremes(ls, cuts)
	if thr >= 1 {
		o.met = true
		return cuts, o
	}
	found, ok := exhaustive(ls, thr, budget, o.max)
	switch ok {
	case searchFound:
		o.exhaustive = "found"
		o.method = methodExhaustive
		cuts = found
		o.max, o.min = extremes(ls, cuts)
		o.met = true
	case searchNone:
		o.exhaustive = "none"
		if mx, mn := extremes(ls, found); imbalance(mx, mn) < imbalance(o.max, o.min) {
			cuts, o.max, o.min = found, mx, mn
			o.method = methodExhaustive
		}
	default:
		o.exhaustive = "skipped"
	}
	return cuts, o
}

func imbalance(maxc, minc int64) float64 {
	if maxc <= 0 {
		return 0
	}
	return float64(maxc-minc) / float64(maxc)
}

type searchResult int

const (
	searchNone searchResult = iota
	searchFound
	searchSkipped
)

// reachable is the dynamic program of one line under a cost window
// [lo, hi]: reach[t][b] says whether the first t parts can end at unit b
// with every cost in the window. It evaluates cost O(n·units) times (the
// valid ends of a part starting at a form an interval whose bounds never
// decrease with a, as costs only grow with the interval).
func reachable(l line, lo, hi int64, reach [][]bool, evals *int64) bool {
	u := l.units
	for t := range reach {
		clear(reach[t])
	}
	reach[0][0] = true
	diff := make([]int, u+2)
	for t := 1; t <= l.n; t++ {
		clear(diff)
		pl, ph := 0, 0
		any := false
		for a := 0; a <= u; a++ {
			if !reach[t-1][a] {
				continue
			}
			pl = max(pl, a+l.min)
			for pl <= u && l.cost(a, pl) < lo {
				pl++
				*evals++
			}
			ph = max(ph, a+l.min-1)
			for ph+1 <= u && l.cost(a, ph+1) <= hi {
				ph++
				*evals++
			}
			*evals += 2
			if pl <= ph {
				diff[pl]++
				diff[ph+1]--
				any = true
			}
		}
		if !any {
			return false
		}
		run := 0
		for b := 0; b <= u; b++ {
			run += diff[b]
			reach[t][b] = run > 0
		}
	}
	return reach[l.n][u]
}

// backtrack reads cuts out of a successful reachable.
func backtrack(l line, lo, hi int64, reach [][]bool) []int {
	cuts := make([]int, l.n+1)
	b := l.units
	cuts[l.n] = b
	for t := l.n; t >= 1; t-- {
		for a := b - l.min; a >= 0; a-- {
			c := l.cost(a, b)
			if c > hi {
				break
			}
			if reach[t-1][a] && c >= lo {
				b = a
				break
			}
		}
		cuts[t-1] = b
	}
	return cuts
}

// exhaustive decides whether cuts exist with every part of every line
// within thr of the largest. Any such cuts have a largest cost h no less
// than the smallest achievable largest cost of every line (the
// bottleneck, found by bisection) and no more than the smallest average
// cost bound divided by 1−thr, and all their costs lie in
// [h − spread(h), h]; so trying every h in that range in increasing order
// is exact, and the first h that works gives the balanced cuts with the
// smallest largest cost. If there are none, it returns the most balanced
// cuts among two candidates: for the smallest achievable largest cost,
// and for the largest cost cur the moves reached, the cuts with the
// largest smallest cost (not necessarily the least imbalance possible).
func exhaustive(ls []line, thr float64, budget int64, cur int64) ([][]int, searchResult) {
	reach := make([][][]bool, len(ls))
	for i, l := range ls {
		reach[i] = make([][]bool, l.n+1)
		for t := range reach[i] {
			reach[i][t] = make([]bool, l.units+1)
		}
	}
	var evals int64
	over := func() bool { return budget > 0 && evals > budget }
	var hlo int64
	hhi := int64(math.MaxInt64)
	for i, l := range ls {
		// the bottleneck: the smallest h with cuts of costs ≤ h
		lo, hi := int64(0), l.cost(0, l.units)
		for lo < hi {
			mid := lo + (hi-lo)/2
			if reachable(l, 0, mid, reach[i], &evals) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		hlo = max(hlo, lo)
		hhi = min(hhi, int64(math.Floor(float64(l.sumBound)/float64(l.n)/(1-thr)))+1)
	}
	for h := hlo; h <= hhi; h++ {
		if over() {
			return nil, searchSkipped
		}
		lo := h - spread(h, thr)
		ok := true
		for i, l := range ls {
			if !reachable(l, lo, h, reach[i], &evals) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		cuts := make([][]int, len(ls))
		for i, l := range ls {
			cuts[i] = backtrack(l, lo, h, reach[i])
		}
		return cuts, searchFound
	}
	var best [][]int
	bestImb := math.Inf(1)
	for _, h := range []int64{hlo, cur} {
		if h < hlo {
			continue
		}
		// the largest l with cuts of costs in [l, h] (l = 0 works)
		lo, hi := int64(0), h
		for lo < hi {
			mid := hi - (hi-lo)/2
			ok := true
			for i, l := range ls {
				if !reachable(l, mid, h, reach[i], &evals) {
					ok = false
					break
				}
			}
			if ok {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		cuts := make([][]int, len(ls))
		for i, l := range ls {
			reachable(l, lo, h, reach[i], &evals)
			cuts[i] = backtrack(l, lo, h, reach[i])
		}
		if mx, mn := extremes(ls, cuts); imbalance(mx, mn) < bestImb {
			best, bestImb = cuts, imbalance(mx, mn)
		}
	}
	return best, searchNone
}
