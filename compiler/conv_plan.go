package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// The convolution core (conv2d, GEMM and fully-connected layers) is
// planned, then emitted: planConv decides everything from the layer, the
// configuration and the free space (blocks, weight groups and slots,
// ring sizes, the order of the steps), so the decisions can be tested
// without emitting a task; the emitter (conv_emit.go) walks the plan.

// convJob is one NE layer: an input of cin channels in planes of h×w
// (channel tiles of in.part partitions), a kh×kw kernel, stride and
// padding, n output channels of oh×ow, requantized by q (and pc) into out.
type convJob struct {
	label          string
	gemm           bool // ne op gemm (for traces) instead of conv
	in             *place
	cin, h, w      int
	kh, kw, s      int
	ph, pw         int
	oh, ow         int
	n              int
	widx           func(n, c, ky, kx int) int // flat index of the weight, -1 for none (another group)
	wt             *golden.Tensor
	wname          string
	q              golden.Requant
	pc             *ChannelRequant // per-output-channel scale and bias, else nil
	out            *place
	kernelSplitOK  bool // kh may exceed max_kernel (split into row groups)
	digits         int  // an int32 result: the digit planes (acts and stores per block), else 0
	userKernelName string
	pool           *node      // a pool of the result that may run in bands (fusablePool), or nil
	bands          *poolBands // the pool running in bands after the acts, or nil
	oneBlock       bool       // no two-half split of an output that fits one block (Graph.OneBlock)

	// groups > 1: output channel o reads only the cin/groups input
	// channels of its group o/(n/groups) (Conv.Groups); the NE runs,
	// for each output tile, only the input tiles its groups touch.
	groups int
	// inCh and outCh say which channel each slot holds: input slot s
	// (tile s/in.part, partition s%in.part) holds input channel
	// inCh[s], output slot s (tile s/Cols, lane s%Cols) output channel
	// outCh[s]; -1 for none. nil: slot s holds channel s (the dense
	// layout).
	inCh, outCh []int
	// reads, when set, is the input channels [lo, hi) output channel o
	// reads (else all, or its group's): each output tile runs only the
	// input tiles they lie in.
	reads func(o int) (lo, hi int)
	// copy: the layer moves data (relayoutJob), its MACs are not the
	// workload's.
	copy bool
	// pre: an eltwise of one operand whose result is this layer's input,
	// run on each band of the streamed input after its load (conv_pre.go),
	// or nil.
	pre *node
	// post: an eltwise of this layer's result and another operand, run
	// on each output block after its act (conv_post.go), or nil.
	post *postElt
}

// inChan is the input channel in input slot s, -1 for none.
func (j *convJob) inChan(s int) int { return slotChan(j.inCh, j.cin, s) }

// outChan is the output channel in output slot s, -1 for none.
func (j *convJob) outChan(s int) int { return slotChan(j.outCh, j.n, s) }

func slotChan(m []int, n, s int) int {
	switch {
	case m != nil && s < len(m):
		return m[s]
	case m == nil && s < n:
		return s
	}
	return -1
}

// inSlots and outSlots are the slots the input and output take.
func (j *convJob) inSlots() int  { return slotCount(j.inCh, j.cin) }
func (j *convJob) outSlots() int { return slotCount(j.outCh, j.n) }

func slotCount(m []int, n int) int {
	if m != nil {
		return len(m)
	}
	return n
}

// perOut is the input channels each output channel reads.
func (j *convJob) perOut() int { return j.cin / max(1, j.groups) }

// tilesFor lists the input channel tiles (of part partitions, ct in
// all) that output tile t (of cols lanes) reads: every tile of a dense
// conv; for a grouped one, the tiles holding an input channel of a
// group one of t's output channels belongs to (weights elsewhere are
// zero, so their passes would add nothing).
func (j *convJob) tilesFor(t, cols, part, ct int) []int {
	if j.groups <= 1 && j.reads == nil {
		all := make([]int, ct)
		for i := range all {
			all[i] = i
		}
		return all
	}
	reads := j.reads
	if reads == nil {
		cg, og := j.perOut(), j.n/j.groups
		reads = func(o int) (int, int) { return o / og * cg, (o/og + 1) * cg }
	}
	slotOf := make([]int, j.cin) // input channel → slot
	for s := range j.inSlots() {
		if ch := j.inChan(s); ch >= 0 {
			slotOf[ch] = s
		}
	}
	need := make([]bool, ct)
	seen := map[int]bool{}
	for e := 0; e < cols; e++ {
		o := j.outChan(t*cols + e)
		if o < 0 {
			continue
		}
		lo, hi := reads(o)
		if seen[lo] {
			continue
		}
		seen[lo] = true
		for c := lo; c < hi; c++ {
			need[slotOf[c]/part] = true
		}
	}
	var out []int
	for i, ok := range need {
		if ok {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		out = []int{0} // a tile of no channels: zero weights still start its psums
	}
	return out
}

// group is a set of NE passes that one weight-buffer block holds:
// channel tiles [c0,c1) × kernel rows [y0,y1) × all kernel columns.
type group struct{ c0, c1, y0, y1 int }

func (j *convJob) passes(g group) int { return (g.c1 - g.c0) * (g.y1 - g.y0) * j.kw }

// wblock is the external copy of one weight block (output tile, group):
// its first line relative to the layer's weights, and its lines (weight
// rows).
type wblock struct{ ext, rows int }

// wplace is where a step finds a group's weights: the first weight row
// of its block, and whether the step loads it there first.
type wplace struct {
	row  int
	load bool
}

// convStep is one block of output rows [o0,o1) of one output tile t: its
// NE tasks (one chain over all groups into one psum block), then the act.
type convStep struct {
	ob, t  int
	o0, o1 int
	// b0, b1 are the input rows the block reads (the whole plane when
	// the input is resident); newBand: a streamed input's band is loaded
	// before the step (the first step of each block of output rows).
	b0, b1  int
	newBand bool
	// split: the band and the weight blocks load one channel tile at a
	// time, each just before an NE task that reads only that tile.
	split bool
	w     []wplace // per group
}

// convPlan is how one NE layer runs.
type convPlan struct {
	ct, nt int // input channel tiles (of in.part partitions), output tiles (of C lanes)

	// Weights: resident (every block at its own rows, loaded once) when
	// the layer's wrows fit the weight buffer, else streamed through
	// slots of slotRows rows.
	wrows           int
	resident        bool
	slots, slotRows int
	groups          [][]group  // [output tile]: its pass groups (a grouped conv's tiles differ)
	wblocks         [][]wblock // [output tile][group], in load order
	wringEnd        int        // the weight ring's next row after the layer (resident)

	// Output rows run in blocks of ohb; the streamed input's bands and
	// the staged output's blocks take state rings of inSize and outSize
	// addresses per slot (0: no ring), with inSlots and outSlots slots.
	ohb, nob          int
	streamIn, staged  bool
	inSize, outSize   int
	inSlots, outSlots int

	steps []convStep
}

// checkLimits reports a kernel, stride or padding the NE's descriptor
// fields cannot express.
func (j *convJob) checkLimits(cfg npu.Config) error {
	ne := cfg.NEParams()
	switch {
	case j.kw > cfg.MaxKernel:
		return fmt.Errorf("%s: kernel width kw = %d exceeds max_kernel = %d", j.label, j.kw, cfg.MaxKernel)
	case j.kh > cfg.MaxKernel && !j.kernelSplitOK:
		return fmt.Errorf("%s: kernel height kh = %d exceeds max_kernel = %d", j.label, j.kh, cfg.MaxKernel)
	case j.s > cfg.MaxKernel:
		return fmt.Errorf("%s: stride = %d exceeds max_kernel = %d", j.label, j.s, cfg.MaxKernel)
	case uint64(j.ph) > ne.Max("pad_h") || uint64(j.pw) > ne.Max("pad_w"):
		return fmt.Errorf("%s: padding %d, %d exceeds %d (the NE's pad fields)", j.label, j.ph, j.pw, min(ne.Max("pad_h"), ne.Max("pad_w")))
	}
	return nil
}

// planConv plans layer j (within checkLimits) on cfg, with free
// consecutive state addresses for its rings and the weight ring at row
// wring.
func planConv(cfg npu.Config, j *convJob, free, wring int) (*convPlan, error) {
	p := &convPlan{
		ct: ceilDiv(j.inSlots(), j.in.part), nt: ceilDiv(j.outSlots(), cfg.Cols),
		streamIn: !j.in.resident, staged: !j.out.resident,
	}
	dim := int(cfg.NEParams().Max("oh")) + 1
	if j.ow >= dim || j.oh >= dim {
		return nil, fmt.Errorf("%s: output plane %dx%d: oh and ow must be below %d (the NE's output-shape fields)", j.label, j.oh, j.ow, dim)
	}
	if err := p.planGroups(cfg, j); err != nil {
		return nil, err
	}
	if err := p.planBlocks(cfg, j, free); err != nil {
		return nil, err
	}
	p.planSteps(j)
	p.placeWeights(cfg, wring)
	return p, nil
}

// planGroups chooses where the weights live and groups each output
// tile's passes so a group's weights fit a slot.
func (p *convPlan) planGroups(cfg npu.Config, j *convJob) error {
	R := cfg.Rows
	p.groups = make([][]group, p.nt)
	p.wrows = 0
	for t := range p.groups {
		p.wrows += len(j.tilesFor(t, cfg.Cols, j.in.part, p.ct)) * j.kh * j.kw * R
	}
	p.resident = p.wrows <= cfg.WeightDepth
	p.slotRows, p.slots = cfg.WeightDepth, 1
	if !p.resident {
		// Two halves, so the next block loads while the NE works on the
		// current one; one whole-buffer slot when a kernel row of passes
		// does not fit a half.
		p.slotRows, p.slots = cfg.WeightDepth/2, 2
		if j.kw*R > p.slotRows {
			p.slotRows, p.slots = cfg.WeightDepth, 1
		}
	}
	limit := p.slotRows
	perCT := j.kh * j.kw * R
	rows := min(cfg.MaxKernel, limit/(j.kw*R))
	if (j.kh > cfg.MaxKernel || perCT > limit) && rows < 1 {
		return fmt.Errorf("%s: one kernel row of kw = %d passes needs %d weight rows (kw·rows), more than weight_depth = %d",
			j.label, j.kw, j.kw*R, cfg.WeightDepth)
	}
	for t := range p.groups {
		for _, run := range tileRuns(j.tilesFor(t, cfg.Cols, j.in.part, p.ct)) {
			if j.kh <= cfg.MaxKernel && perCT <= limit {
				g := limit / perCT
				for c0 := run[0]; c0 < run[1]; c0 += g {
					p.groups[t] = append(p.groups[t], group{c0, min(run[1], c0+g), 0, j.kh})
				}
				continue
			}
			for c := run[0]; c < run[1]; c++ {
				for y0 := 0; y0 < j.kh; y0 += rows {
					p.groups[t] = append(p.groups[t], group{c, c + 1, y0, min(j.kh, y0+rows)})
				}
			}
		}
	}
	// External weight blocks, one per (output tile, group), in pass order.
	p.wblocks = make([][]wblock, p.nt)
	ext := 0
	for t := range p.wblocks {
		for _, g := range p.groups[t] {
			rows := j.passes(g) * R
			p.wblocks[t] = append(p.wblocks[t], wblock{ext, rows})
			ext += rows
		}
	}
	return nil
}

// tileRuns cuts ascending tile indices into runs of consecutive ones,
// [first, last+1) each: one NE task reads a run at one stride.
func tileRuns(tiles []int) [][2]int {
	var out [][2]int
	for _, t := range tiles {
		if n := len(out); n > 0 && out[n-1][1] == t {
			out[n-1][1]++
			continue
		}
		out = append(out, [2]int{t, t + 1})
	}
	return out
}

// bandRows is the input rows a block of ohb output rows reads at most.
func (j *convJob) bandRows(ohb int) int { return min(j.h, (ohb-1)*j.s+j.kh) }

// ringSizes is the state a block of ohb output rows takes per slot: its
// streamed input band and its staged output.
func (p *convPlan) ringSizes(j *convJob, ohb int) (in, out int) {
	if p.streamIn {
		in = p.ct * j.bandRows(ohb) * j.w
	}
	if p.staged {
		out = ohb * j.ow * max(1, j.digits)
		if j.post != nil && (!j.post.other.resident || j.post.rq != nil) {
			out *= 2 // the other operand's block beside the act's
		}
	}
	return in, out
}

// planBlocks chooses the block of output rows: half the psum buffer at
// most, and rings that fit the free state.
func (p *convPlan) planBlocks(cfg npu.Config, j *convJob, free int) error {
	half := cfg.PsumDepth / 2
	if j.ow > half {
		return fmt.Errorf("%s: output width ow = %d exceeds half the psum buffer (psum_depth/2 = %d)", j.label, j.ow, half)
	}
	// The largest block of output rows whose slots fit double-buffered,
	// else the largest that fits single-buffered.
	ohb := 0
	for _, double := range []bool{true, false} {
		for b := min(j.oh, half/j.ow); b >= 1 && ohb == 0; b-- {
			least, most := ringNeed(p.ringSizes(j, b))
			if (double && most <= free) || (!double && least <= free) {
				ohb = b
			}
		}
	}
	if p.streamIn && ohb > 0 {
		ohb = p.widerBlock(cfg, j, free, ohb)
	}
	if ohb == 0 {
		least, _ := ringNeed(p.ringSizes(j, 1))
		return fmt.Errorf("%s: streaming its input (%d channel tiles of %d×%d) and staging its output needs %d state addresses, %d are free (state_depth %d)",
			j.label, p.ct, j.bandRows(1), j.w, least, free, cfg.StateDepth)
	}
	// Balanced blocks: as many as the largest block needs, all of about
	// the same height (a short last block would run short passes).
	ohb = ceilDiv(j.oh, ceilDiv(j.oh, ohb))
	// A layer of one output tile that fits one block still takes two
	// when their passes stay long (2R pixels): the first block's inputs
	// arrive sooner, the act of the first overlaps the NE of the second
	// (the only act left exposed is the second's), and a consumer may
	// start on the first half.
	if !j.oneBlock && p.nt == 1 && ohb == j.oh && (j.oh/2)*j.ow >= 2*cfg.Rows {
		ohb = ceilDiv(j.oh, 2)
	}
	p.ohb, p.nob = ohb, ceilDiv(j.oh, ohb)
	p.inSize, p.outSize = p.ringSizes(j, ohb)
	counts := ringCounts(free, []int{p.inSize, p.outSize})
	p.inSlots, p.outSlots = counts[0], counts[1]
	return nil
}

// widerBlock weighs the double-buffered block of ohb output rows against
// larger single-buffered ones for a streamed input. Every pass loads a
// weight tile into the PE array's shadow registers, Rows cycles, hidden
// only behind a pass of as many input vectors: a 7-wide plane in blocks
// of one row (ResNet-50's stride-2 3×3 conv of 512×14×14, whose input
// is larger than the state buffer) runs at a third of the array. A
// single-buffered band exposes its load, but every output tile reuses
// it, so a taller block usually wins; the estimate decides.
func (p *convPlan) widerBlock(cfg npu.Config, j *convJob, free, ohb int) int {
	cost := func(b int, double bool) int {
		nob := ceilDiv(j.oh, b)
		b = ceilDiv(j.oh, nob)
		ne := p.nt * p.ct * j.kh * j.kw * max(b*j.ow, cfg.Rows)
		load := p.ct * j.bandRows(b) * j.w
		if double {
			return nob * max(ne, load)
		}
		return nob * (ne + load)
	}
	best, bestCost := ohb, cost(ohb, true)
	for b := min(j.oh, cfg.PsumDepth/2/j.ow); b > ohb; b-- {
		if least, _ := ringNeed(p.ringSizes(j, b)); least <= free {
			if c := cost(b, false); c < bestCost {
				best, bestCost = b, c
			}
		}
	}
	return best
}

// planSteps orders the steps: a streamed input runs all output tiles of
// a band before the next band (each band loads once), a resident one
// all blocks of an output tile before the next tile.
func (p *convPlan) planSteps(j *convJob) {
	add := func(ob, t int) {
		o0, o1 := ob*p.ohb, min(j.oh, (ob+1)*p.ohb)
		st := convStep{ob: ob, t: t, o0: o0, o1: o1, b0: 0, b1: j.h}
		if p.streamIn {
			st.b0 = max(0, o0*j.s-j.ph)
			st.b1 = min(j.h, (o1-1)*j.s-j.ph+j.kh)
			st.newBand = len(p.steps) == 0 || p.steps[len(p.steps)-1].ob != ob
			// The first step of a streamed layer starts as soon as it
			// can: the NE starts after one channel tile instead of the
			// whole band.
			st.split = len(p.steps) == 0 && p.ct > 1
		}
		p.steps = append(p.steps, st)
	}
	if p.streamIn {
		for ob := 0; ob < p.nob; ob++ {
			for t := 0; t < p.nt; t++ {
				add(ob, t)
			}
		}
		return
	}
	for t := 0; t < p.nt; t++ {
		for ob := 0; ob < p.nob; ob++ {
			add(ob, t)
		}
	}
}

// placeWeights places every step's weight blocks: resident blocks at
// fixed rows of the weight ring from wring (or from row 0 when the layer
// does not fit after it), each loaded by its first step; streamed blocks
// in the least recently used slot unless a slot still holds them.
func (p *convPlan) placeWeights(cfg npu.Config, wring int) {
	type key struct{ t, g int }
	p.wringEnd = wring
	if p.resident {
		if wring+p.wrows > cfg.WeightDepth {
			wring = 0
		}
		rows := map[key]int{}
		at := wring
		for t := range p.wblocks {
			for g, b := range p.wblocks[t] {
				rows[key{t, g}] = at
				at += b.rows
			}
		}
		p.wringEnd = at
		loaded := map[key]bool{}
		for i := range p.steps {
			st := &p.steps[i]
			for g := range p.groups[st.t] {
				k := key{st.t, g}
				st.w = append(st.w, wplace{rows[k], !loaded[k]})
				loaded[k] = true
			}
		}
		return
	}
	held := make([]key, p.slots)
	used := make([]bool, p.slots)
	lru := 0
	for i := range p.steps {
		st := &p.steps[i]
		for g := range p.groups[st.t] {
			k := key{st.t, g}
			h := lru
			for s := 0; s < p.slots; s++ {
				if used[s] && held[s] == k {
					h = s
				}
			}
			load := !used[h] || held[h] != k
			held[h], used[h] = k, true
			lru = (h + 1) % p.slots
			st.w = append(st.w, wplace{h * p.slotRows, load})
		}
	}
}

// neSub is one NE task of a group: channel tiles [c0,c1) read from state
// address src on, d0 rows per tile.
type neSub struct{ c0, c1, src, d0 int }

// neReads is how the NE tasks of one group read a band for a block of
// output rows: top padding ptop, the last row read (maxRel, from the
// first row read) and the tasks.
type neReads struct {
	ptop, maxRel int
	subs         []neSub
}

// band is the part of the input plane the NE reads for a block of output
// rows: rows [b0, b0+rows) of every channel tile, tile t at base +
// t·stride.
type band struct {
	base, b0, rows, stride int
}

// neReads splits group g of the block of output rows [o0,o1) into NE
// tasks on band bd (with split, one per channel tile); false when every
// row the group would read lies in the bottom padding (it adds nothing).
func (j *convJob) neReads(bd band, g group, o0, o1 int, split bool) (neReads, bool) {
	rowOff := o0*j.s - j.ph + g.y0 - bd.b0 // band row of the first read
	src, ptop, d0 := bd.base, 0, bd.rows
	if rowOff >= 0 {
		src += rowOff * j.w
		d0 = bd.rows - rowOff
	} else {
		ptop = -rowOff
	}
	if d0 < 1 {
		return neReads{}, false
	}
	r := neReads{ptop: ptop, maxRel: (o1-o0-1)*j.s + (g.y1 - g.y0 - 1) - ptop}
	perTile := func() {
		for t := g.c0; t < g.c1; t++ {
			r.subs = append(r.subs, neSub{t, t + 1, src + t*bd.stride, d0})
		}
	}
	switch {
	case split && g.c1-g.c0 > 1:
		perTile()
	case g.c1-g.c0 == 1 || d0 == bd.rows:
		r.subs = []neSub{{g.c0, g.c1, src + g.c0*bd.stride, d0}}
	case r.maxRel < d0:
		// No bottom padding is reached: the full band height keeps the
		// channel-tile stride and is never read past.
		r.subs = []neSub{{g.c0, g.c1, src + g.c0*bd.stride, bd.rows}}
	default:
		perTile()
	}
	return r, true
}
