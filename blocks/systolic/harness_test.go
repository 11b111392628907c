package systolic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify/simtest"
)

// This file drives the array on the Go simulator from a plan (what to
// present at the ports in each cycle), records the run so it can be
// replayed on Verilator, and predicts the outputs from the golden model.

// vec is one input vector at the port.
type vec struct {
	x     []int64 // R elements
	entry int
	acc   bool
	swap  bool
}

// load is one row of weights at the load port.
type load struct {
	row int
	w   []int64 // C weights
}

// trCmd is a transpose command.
type trCmd struct{ last, entry int }

// beat is what the ports carry in one cycle; nil parts are idle (and
// carry random garbage, which the array must ignore).
type beat struct {
	vec  *vec
	load *load
	tr   *trCmd
}

// outVec is one output vector as the psum buffer would see it.
type outVec struct {
	Cycle int
	Entry int
	Acc   bool
	Psum  []int64
}

// tile is one unit of a plan: R×C weights and the vectors that use them.
type tile struct {
	w        [][]int64 // weights: row r is loaded unless w[r] is nil (then the row keeps stale weights)
	x        [][]int64 // vectors of R elements (ignored for a transpose)
	entry    int       // entry of the first vector; vector i goes to entry+i
	acc      bool      // accumulate flag of every vector
	tr       bool      // transpose: the feeder streams e_0 … e_last
	last     int       // transpose: R'-1
	gaps     []int     // idle cycles before vector i (nil: none; gaps[0] must be 0)
	idle     int       // idle cycles after the tile, before the next tile's first vector
	loadSkew int       // the next tile's load starts this many cycles into this tile (clamped to the window)
}

// plan is a cycle-by-cycle port schedule with the outputs it must give.
type plan struct {
	beats []beat
	want  []outVec
	macs  int64 // MACs of all valid vectors
	skips int64 // of which skipped (an element or weight is zero)
	first int   // cycle the first vector is taken
}

// weightsOf returns the weights the array holds after tile t's rows are
// loaded over prev (nil rows keep prev's).
func weightsOf(prev, w [][]int64) [][]int64 {
	out := make([][]int64, len(prev))
	for r := range prev {
		out[r] = prev[r]
		if r < len(w) && w[r] != nil {
			out[r] = w[r]
		}
	}
	return out
}

func zeros(r, c int) [][]int64 {
	m := make([][]int64, r)
	for i := range m {
		m[i] = make([]int64, c)
	}
	return m
}

// vectorsOf is the list of input vectors tile t streams.
func vectorsOf(cfg Config, t tile) [][]int64 {
	if !t.tr {
		return t.x
	}
	vs := zeros(t.last+1, cfg.Rows)
	for i := range vs {
		vs[i][i] = 1
	}
	return vs
}

// makePlan schedules tiles back to back: tile 0's weights load in cycles
// 0…R-1 and its first vector is taken in cycle 1 (the earliest the load
// rule allows); tile k+1's weights load one row per cycle during tile k,
// starting loadSkew cycles after tile k's first vector or when the load
// port is free. A tile lasts as long as its vectors, gaps and idle
// cycles, or longer when the next load could not start in it.
func makePlan(t *testing.T, cfg Config, tiles []tile) *plan {
	t.Helper()
	R, C := cfg.Rows, cfg.Cols
	p := &plan{first: 1}
	at := func(c int) *beat {
		for len(p.beats) <= c {
			p.beats = append(p.beats, beat{})
		}
		return &p.beats[c]
	}
	putLoads := func(start int, w [][]int64) {
		for r := 0; r < R; r++ {
			if r < len(w) && w[r] != nil {
				at(start + r).load = &load{row: r, w: w[r]}
			}
		}
	}
	psum := golden.Int{Width: cfg.PsumWidth, Signed: cfg.PsumType().Signed}
	active := zeros(R, C)
	putLoads(0, tiles[0].w)
	loadFree := R
	T := p.first
	for k, tl := range tiles {
		active = weightsOf(active, tl.w)
		vs := vectorsOf(cfg, tl)
		cyc := T
		var cycles []int
		for i := range vs {
			if i < len(tl.gaps) {
				cyc += tl.gaps[i]
			}
			cycles = append(cycles, cyc)
			cyc++
		}
		if len(tl.gaps) > 0 && tl.gaps[0] != 0 {
			t.Fatalf("tile %d: the first vector (the swap) starts the tile; put idle cycles into the tile before", k)
		}
		if tl.tr {
			if len(tl.gaps) > 0 {
				t.Fatalf("tile %d: a transpose streams without gaps", k)
			}
			at(T).tr = &trCmd{last: tl.last, entry: tl.entry}
		} else {
			for i, v := range vs {
				at(cycles[i]).vec = &vec{x: v, entry: tl.entry + i, acc: tl.acc, swap: i == 0}
			}
		}
		span := max(cyc-T, 1) + tl.idle
		if k+1 < len(tiles) {
			// Row r of the next weights may load in cycles T+r … T'+r-1
			// (T' the next tile's first vector), one row per cycle: the
			// load starts between T and T'-1, after the previous load.
			lo := max(T, loadFree)
			if lo > T+span-1 {
				span = lo - T + 1
			}
			start := lo + min(tl.loadSkew, T+span-1-lo)
			putLoads(start, tiles[k+1].w)
			loadFree = start + R
		}
		// Expected results from the golden model.
		xm, err := golden.FromRows(vs)
		if err != nil {
			t.Fatal(err)
		}
		wm, _ := golden.FromRows(active)
		out, err := golden.GEMM(xm, wm, psum)
		if err != nil {
			t.Fatal(err)
		}
		mask := golden.Int{Width: cfg.EntryWidth}
		for i, row := range out.Rows() {
			p.want = append(p.want, outVec{Cycle: cycles[i] + cfg.Latency(), Entry: int(mask.Wrap(int64(tl.entry + i))), Acc: tl.acc && !tl.tr, Psum: row})
			p.macs += int64(R * C)
			p.skips += skipsOf(vs[i], active)
		}
		T += span
	}
	at(T + cfg.Latency() + 2) // drain
	return p
}

// skipsOf is the number of PEs that see a zero element or weight for x.
func skipsOf(x []int64, w [][]int64) int64 {
	n := int64(0)
	for r := range w {
		for c := range w[r] {
			if x[r] == 0 || w[r][c] == 0 {
				n++
			}
		}
	}
	return n
}

// result is what a run observed.
type result struct {
	outs        []outVec
	macs, skips int64
	drv         *simtest.Driver
}

// harness runs plans on one elaborated design.
type harness struct {
	cfg Config
	d   *hdl.Design
}

func newHarness(t testing.TB, cfg Config) *harness {
	t.Helper()
	m, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{cfg: cfg, d: simtest.Elaborate(t, m)}
}

// run resets the array (2 cycles), plays the beats and collects every
// valid output vector. Cycle 0 is the first cycle after reset. Every
// vector and transpose command must be taken in the cycle it is
// presented (the plans never present one while the feeder is busy).
func (h *harness) run(t testing.TB, p *plan, seed uint64) *result {
	t.Helper()
	res, err := h.runWatching(t, p, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// start resets a fresh recorded simulation (2 cycles of rst).
func (h *harness) start(t testing.TB) (*simtest.Driver, *result) {
	t.Helper()
	sd := simtest.New(t, h.d)
	sd.Reset(2)
	return sd, &result{drv: sd}
}

// runWatching is run with a hook called in every cycle after the inputs
// are presented, before the clock edge.
func (h *harness) runWatching(t testing.TB, p *plan, seed uint64, watch func(cycle int, d *driver)) (*result, error) {
	t.Helper()
	sd, res := h.start(t)
	dr := &driver{Driver: sd, h: h, rng: rand.New(rand.NewPCG(seed, 77))}
	for c, b := range p.beats {
		dr.present(b)
		if watch != nil {
			watch(c, dr)
		}
		if b.vec != nil && dr.PeekInt("in_ready") != 1 {
			t.Fatalf("cycle %d: vector presented while in_ready is 0", c)
		}
		if b.tr != nil && dr.PeekInt("tr_ready") != 1 {
			t.Fatalf("cycle %d: transpose command presented while tr_ready is 0", c)
		}
		if o, ok := dr.sample(c); ok {
			res.outs = append(res.outs, o)
		}
		dr.Step(1)
	}
	res.macs, res.skips = dr.counters()
	return res, nil
}

// driver is the array's client in one recorded run: it presents beats
// (random garbage on idle ports) and samples the outputs.
type driver struct {
	*simtest.Driver
	h   *harness
	rng *rand.Rand
}

// garbage is a random value of t, for ports whose valid is low.
func (d *driver) garbage(t hdl.Type) int64 {
	if t.Signed {
		return d.rng.Int64N(1<<t.Width) - 1<<(t.Width-1)
	}
	return d.rng.Int64N(1 << t.Width)
}

func (d *driver) bit() int64 { return d.rng.Int64N(2) }

// present drives one beat.
func (d *driver) present(b beat) {
	cfg := d.h.cfg
	it, wt, et := cfg.InputType(), cfg.WeightType(), cfg.EntryType()
	iw := hdl.UInt(hdl.ClogWidth(cfg.Rows))
	if v := b.vec; v != nil {
		d.PokeInt("in_valid", 1)
		for r := 0; r < cfg.Rows; r++ {
			d.PokeInt(fmt.Sprintf("in_x_%d", r), v.x[r])
		}
		d.PokeInt("in_entry", int64(v.entry)&(1<<cfg.EntryWidth-1))
		d.PokeInt("in_acc", b2i(v.acc))
		d.PokeInt("in_swap", b2i(v.swap))
	} else {
		d.PokeInt("in_valid", 0)
		for r := 0; r < cfg.Rows; r++ {
			d.PokeInt(fmt.Sprintf("in_x_%d", r), d.garbage(it))
		}
		d.PokeInt("in_entry", d.garbage(et))
		d.PokeInt("in_acc", d.bit())
		d.PokeInt("in_swap", d.bit())
	}
	if l := b.load; l != nil {
		d.PokeInt("ld_valid", 1)
		d.PokeInt("ld_row", int64(l.row))
		for c := 0; c < cfg.Cols; c++ {
			d.PokeInt(fmt.Sprintf("ld_w_%d", c), l.w[c])
		}
	} else {
		d.PokeInt("ld_valid", 0)
		d.PokeInt("ld_row", d.garbage(iw))
		for c := 0; c < cfg.Cols; c++ {
			d.PokeInt(fmt.Sprintf("ld_w_%d", c), d.garbage(wt))
		}
	}
	if tr := b.tr; tr != nil {
		d.PokeInt("tr_start", 1)
		d.PokeInt("tr_last", int64(tr.last))
		d.PokeInt("tr_entry", int64(tr.entry)&(1<<cfg.EntryWidth-1))
	} else {
		d.PokeInt("tr_start", 0)
		d.PokeInt("tr_last", d.garbage(iw))
		d.PokeInt("tr_entry", d.garbage(et))
	}
}

// sample reads the output port in cycle c.
func (d *driver) sample(c int) (outVec, bool) {
	if d.PeekInt("out_valid") != 1 {
		return outVec{}, false
	}
	o := outVec{Cycle: c, Entry: int(d.PeekInt("out_entry")), Acc: d.PeekInt("out_acc") == 1}
	for k := 0; k < d.h.cfg.Cols; k++ {
		o.Psum = append(o.Psum, d.PeekInt(fmt.Sprintf("out_psum_%d", k)))
	}
	return o, true
}

func (d *driver) counters() (macs, skips int64) {
	macs = d.PeekInt("mac_count")
	if d.h.cfg.ZeroSkip {
		skips = d.PeekInt("skip_count")
	}
	return macs, skips
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// randMatrix draws an r×c matrix of values of t; zeroShare of them are 0.
func randMatrix(rng *rand.Rand, r, c int, t golden.Int, zeroShare float64) [][]int64 {
	m := zeros(r, c)
	for i := range m {
		for j := range m[i] {
			if rng.Float64() < zeroShare {
				continue
			}
			switch rng.IntN(8) {
			case 0:
				m[i][j] = t.Min()
			case 1:
				m[i][j] = t.Max()
			default:
				m[i][j] = t.Min() + rng.Int64N(t.Max()-t.Min()+1)
			}
		}
	}
	return m
}

func intOf(t hdl.Type) golden.Int { return golden.Int{Width: t.Width, Signed: t.Signed} }
