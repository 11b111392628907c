package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu/isa"
	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/golden"
)

func (c *ctx) lower(n *node) error {
	switch n.kind {
	case opView:
		return nil // shares its root's storage
	case opConv:
		return c.lowerConv(n)
	case opGEMM:
		return c.lowerGEMM(n)
	case opPool:
		return c.lowerPool(n)
	case opEltwise:
		return c.lowerEltwise(n)
	case opReduce:
		return c.lowerReduce(n)
	case opTranspose:
		return c.lowerTranspose(n)
	}
	return fmt.Errorf("compiler: unknown operation %v", n.kind)
}

// operand is where an operation finds an input: resident in the state
// buffer, or streamed from external memory (graph inputs).
func (c *ctx) operand(v *Value) *place {
	return c.loc[root(v)]
}

// scratch is the state space an operation takes for its streaming slots
// and output staging, freed when it is done.
type scratch struct {
	c     *ctx
	bases []int
}

func (s *scratch) take(n int) (int, error) {
	b, err := s.c.state.alloc(n)
	if err != nil {
		return 0, err
	}
	s.bases = append(s.bases, b)
	return b, nil
}

func (s *scratch) release() {
	for _, b := range s.bases {
		s.c.state.free(b)
	}
	s.bases = nil
}

// ring is a set of equal state slots used in turn (double buffering: a
// DMA fills the next slot while the engines work on the current one; the
// derived write-after-read dependencies keep a slot until its readers are
// done).
type ring struct {
	base, size, n, next int
}

func (r *ring) get() int {
	a := r.base + (r.next%r.n)*r.size
	r.next++
	return a
}

// rings allocates one ring per size (0: none, nil ring): two slots each
// when the state buffer has room (double buffering), else one slot for
// the largest rings first. One slot is still correct — the derived
// dependencies then serialize the load with the compute — only slower.
func (s *scratch) rings(sizes ...int) ([]*ring, error) {
	counts := ringCounts(s.c.state.largest(), sizes)
	total := 0
	for i, sz := range sizes {
		total += sz * counts[i]
	}
	out := make([]*ring, len(sizes))
	if total == 0 {
		return out, nil
	}
	b, err := s.take(total)
	if err != nil {
		return nil, fmt.Errorf("its streaming and staging slots (%v) need %d state addresses: %w", sizes, total, err)
	}
	for i, sz := range sizes {
		if sz > 0 {
			out[i] = &ring{base: b, size: sz, n: counts[i]}
			b += sz * counts[i]
		}
	}
	return out, nil
}

// ringCounts chooses the slots per ring for free addresses: 2 each if
// they fit, else single slots, largest ring first.
func ringCounts(free int, sizes []int) []int {
	counts := make([]int, len(sizes))
	total := 0
	for i, sz := range sizes {
		counts[i] = 2
		total += 2 * sz
	}
	for total > free {
		best := -1
		for i, sz := range sizes {
			if counts[i] == 2 && sz > 0 && (best < 0 || sz > sizes[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		counts[best] = 1
		total -= sizes[best]
	}
	return counts
}

// ringNeed is the state space rings of these sizes take at the least
// (single slots) and at the most (double).
func ringNeed(sizes ...int) (least, most int) {
	for _, sz := range sizes {
		least += sz
		most += 2 * sz
	}
	return least, most
}

// --- convolution core: conv2d, GEMM and fully-connected layers ---

// convJob is one NE layer: an input of cin channels in planes of h×w
// (channel tiles of in.part partitions), a kh×kw kernel, stride and
// padding, n output channels of oh×ow, requantized by q into out.
type convJob struct {
	label          string
	gemm           bool // ne op gemm (for traces) instead of conv
	in             *place
	cin, h, w      int
	kh, kw, s      int
	ph, pw         int
	oh, ow         int
	n              int
	widx           func(n, c, ky, kx int) int // flat index of the weight, -1 for none
	wt             *golden.Tensor
	wname          string
	q              golden.Requant
	out            *place
	kernelSplitOK  bool // kh may exceed max_kernel (split into row groups)
	userKernelName string
}

// group is a set of NE passes that one weight-buffer block holds:
// channel tiles [c0,c1) × kernel rows [y0,y1) × all kernel columns.
type group struct{ c0, c1, y0, y1 int }

func (j *convJob) passes(g group) int { return (g.c1 - g.c0) * (g.y1 - g.y0) * j.kw }

// band is the part of the input plane the NE reads for a block of output
// rows: rows [b0, b0+rows) of every channel tile, tile t at base +
// t·stride.
type band struct {
	base, b0, rows, stride int
}

func (c *ctx) runConv(j *convJob) error {
	cfg := c.cfg
	R, C := c.R, c.C
	pin := j.in.part
	ct := ceilDiv(j.cin, pin)
	nt := ceilDiv(j.n, C)
	switch {
	case j.kw > cfg.MaxKernel:
		return fmt.Errorf("%s: kernel width kw = %d exceeds max_kernel = %d", j.label, j.kw, cfg.MaxKernel)
	case j.kh > cfg.MaxKernel && !j.kernelSplitOK:
		return fmt.Errorf("%s: kernel height kh = %d exceeds max_kernel = %d", j.label, j.kh, cfg.MaxKernel)
	case j.s > cfg.MaxKernel:
		return fmt.Errorf("%s: stride = %d exceeds max_kernel = %d", j.label, j.s, cfg.MaxKernel)
	case j.ph > 15 || j.pw > 15:
		return fmt.Errorf("%s: padding %d, %d exceeds 15 (the NE's 4-bit pad fields)", j.label, j.ph, j.pw)
	}
	if err := c.checkRequant(j.label, j.q); err != nil {
		return err
	}
	dim := 1 << (log2(cfg.StateDepth) + 1)
	if j.ow >= dim || j.oh >= dim {
		return fmt.Errorf("%s: output plane %dx%d: oh and ow must be below %d (the NE's output-shape fields)", j.label, j.oh, j.ow, dim)
	}
	// Weights: resident when the whole layer fits the weight buffer,
	// else streamed through its two halves.
	total := nt * ct * j.kh * j.kw * R
	resident := total <= cfg.WeightDepth
	limit, slots := cfg.WeightDepth, 1
	if !resident {
		// Two halves, so the next block loads while the NE works on the
		// current one; one whole-buffer slot when a kernel row of passes
		// does not fit a half.
		limit, slots = cfg.WeightDepth/2, 2
		if j.kw*R > limit {
			limit, slots = cfg.WeightDepth, 1
		}
	}
	perCT := j.kh * j.kw * R
	var groups []group
	if j.kh <= cfg.MaxKernel && perCT <= limit {
		g := min(ct, limit/perCT)
		for c0 := 0; c0 < ct; c0 += g {
			groups = append(groups, group{c0, min(ct, c0+g), 0, j.kh})
		}
	} else {
		rows := min(cfg.MaxKernel, limit/(j.kw*R))
		if rows < 1 {
			return fmt.Errorf("%s: one kernel row of kw = %d passes needs %d weight rows (kw·rows), more than weight_depth = %d",
				j.label, j.kw, j.kw*R, cfg.WeightDepth)
		}
		for t := 0; t < ct; t++ {
			for y0 := 0; y0 < j.kh; y0 += rows {
				groups = append(groups, group{t, t + 1, y0, min(j.kh, y0+rows)})
			}
		}
	}
	// Psum blocks of output rows: half the psum buffer each.
	half := cfg.PsumDepth / 2
	if j.ow > half {
		return fmt.Errorf("%s: output width ow = %d exceeds half the psum buffer (psum_depth/2 = %d)", j.label, j.ow, half)
	}
	streamIn := !j.in.resident
	staged := !j.out.resident
	bandRows := func(ohb int) int { return min(j.h, (ohb-1)*j.s+j.kh) }
	sizes := func(ohb int) (in, out int) {
		if streamIn {
			in = ct * bandRows(ohb) * j.w
		}
		if staged {
			out = ohb * j.ow
		}
		return in, out
	}
	// The largest block of output rows whose slots fit double-buffered,
	// else the largest that fits single-buffered.
	free := c.state.largest()
	ohb := 0
	for _, double := range []bool{true, false} {
		for b := min(j.oh, half/j.ow); b >= 1 && ohb == 0; b-- {
			least, most := ringNeed(sizes(b))
			if (double && most <= free) || (!double && least <= free) {
				ohb = b
			}
		}
	}
	if ohb == 0 {
		least, _ := ringNeed(sizes(1))
		return fmt.Errorf("%s: streaming its input (%d channel tiles of %d×%d) and staging its output needs %d state addresses, %d are free (state_depth %d)",
			j.label, ct, bandRows(1), j.w, least, free, cfg.StateDepth)
	}
	// Balanced blocks: as many as the largest block needs, all of about
	// the same height (a short last block would run short passes).
	ohb = ceilDiv(j.oh, ceilDiv(j.oh, ohb))
	// A layer of one output tile that fits one block still takes two
	// when their passes stay long (2R pixels): the first block's inputs
	// arrive sooner, the act of the first overlaps the NE of the second
	// (the only act left exposed is the second's), and a consumer may
	// start on the first half.
	if nt == 1 && ohb == j.oh && (j.oh/2)*j.ow >= 2*R {
		ohb = ceilDiv(j.oh, 2)
	}
	sc := &scratch{c: c}
	defer sc.release()
	inSize, outSize := sizes(ohb)
	rs, err := sc.rings(inSize, outSize)
	if err != nil {
		return fmt.Errorf("%s: %w", j.label, err)
	}
	inRing, outRing := rs[0], rs[1]
	// External weight blocks, one per (output tile, group), in pass order.
	type wblock struct{ ext, rows int }
	blocks := make([][]wblock, nt)
	wb := &Binding{Name: j.wname, Shape: append([]int(nil), j.wt.Shape...), Rows: R}
	for t := 0; t < nt; t++ {
		for _, g := range groups {
			rows := j.passes(g) * R
			blocks[t] = append(blocks[t], wblock{wb.Lines, rows})
			for tc := g.c0; tc < g.c1; tc++ {
				for ky := g.y0; ky < g.y1; ky++ {
					for kx := 0; kx < j.kw; kx++ {
						for r := 0; r < R; r++ {
							for e := 0; e < R; e++ {
								idx := -1
								ch, oc := tc*pin+r, t*C+e
								if e < C && r < pin && ch < j.cin && oc < j.n {
									idx = j.widx(oc, ch, ky, kx)
								}
								wb.Index = append(wb.Index, int32(idx))
							}
						}
					}
				}
			}
			wb.Lines += rows
		}
	}
	wb.Base = c.extAlloc(wb.Lines)
	c.prog.Inputs = append(c.prog.Inputs, wb)
	lines, _ := wb.ToLines(j.wt)
	copy(c.prog.Image[wb.Base:], lines)

	// Weight-buffer placement: fixed rows per block (resident), or the
	// block's most recent half.
	type key struct{ t, g int }
	var wrow map[key]int
	if resident {
		if c.wring+total > cfg.WeightDepth {
			c.wring = 0
		}
		wrow = map[key]int{}
		at := c.wring
		for t := range blocks {
			for g, b := range blocks[t] {
				wrow[key{t, g}] = at
				at += b.rows
			}
		}
		c.wring = at
	}
	loaded := map[key]bool{}
	var halves [2]key
	var halfOK [2]bool
	lru := 0
	// wslot places weight block (t, g): its first weight row, and whether
	// it must be loaded there.
	wslot := func(t, g int) (int, bool) {
		k := key{t, g}
		if resident {
			need := !loaded[k]
			loaded[k] = true
			return wrow[k], need
		}
		for h := 0; h < slots; h++ {
			if halfOK[h] && halves[h] == k {
				lru = (h + 1) % slots
				return h * limit, false
			}
		}
		h := lru
		halves[h], halfOK[h] = k, true
		lru = (h + 1) % slots
		return h * limit, true
	}
	// loadW loads rows [r0, r1) of weight block (t, g) placed at row w.
	loadW := func(t, g, w, r0, r1 int) {
		b := blocks[t][g]
		label := fmt.Sprintf("%s load weights n%d g%d", j.label, t, g)
		if r0 > 0 || r1 < b.rows {
			label += fmt.Sprintf(" rows %d-%d", r0, r1)
		}
		c.loadWeights(label, wb.Base+b.ext+r0, w+r0, r1-r0)
	}

	// neTasks emits the NE tasks of group g for output rows [o0,o1) of
	// output tile t, reading band bd, weights at w, into psum entry ps.
	// With split, every channel tile is a task of its own and pre(tile)
	// runs just before it is emitted (to load what it reads).
	first := true
	neTasks := func(bd band, g group, o0, o1, w, ps int, name string, split bool, pre func(tile int)) error {
		rowOff := o0*j.s - j.ph + g.y0 - bd.b0 // band row of the first read
		src, ptop, d0 := bd.base, 0, bd.rows
		if rowOff >= 0 {
			src += rowOff * j.w
			d0 = bd.rows - rowOff
		} else {
			ptop = -rowOff
		}
		if d0 < 1 {
			// Every row this group would read lies in the bottom padding:
			// it adds nothing. (The first group of a block starts at the
			// band's first row, so it never gets here.)
			if first {
				return fmt.Errorf("%s: internal: the first pass group of a block reads only padding", j.label)
			}
			return nil
		}
		maxRel := (o1-o0-1)*j.s + (g.y1 - g.y0 - 1) - ptop // last row read, from src
		type sub struct{ c0, c1, src, d0 int }
		var subs []sub
		switch {
		case split && g.c1-g.c0 > 1:
			for t := g.c0; t < g.c1; t++ {
				subs = append(subs, sub{t, t + 1, src + t*bd.stride, d0})
			}
		case g.c1-g.c0 == 1 || d0 == bd.rows:
			subs = []sub{{g.c0, g.c1, src + g.c0*bd.stride, d0}}
		case maxRel < d0:
			// No bottom padding is reached: the full band height keeps the
			// channel-tile stride and is never read past.
			subs = []sub{{g.c0, g.c1, src + g.c0*bd.stride, bd.rows}}
		default:
			for t := g.c0; t < g.c1; t++ {
				subs = append(subs, sub{t, t + 1, src + t*bd.stride, d0})
			}
		}
		for _, sb := range subs {
			if pre != nil {
				for t := sb.c0; t < sb.c1; t++ {
					pre(t)
				}
			}
			err := c.task(name, isa.Conv{GEMM: j.gemm, Src: sb.src, Weights: w + (sb.c0-g.c0)*(g.y1-g.y0)*j.kw*R, Psum: ps,
				H: sb.d0, W: j.w, Tiles: sb.c1 - sb.c0,
				KH: g.y1 - g.y0, KW: j.kw, Stride: j.s, PadH: ptop, PadW: j.pw,
				OH: o1 - o0, OW: j.ow, Acc: !first})
			first = false
			if err != nil {
				return fmt.Errorf("%s: %w", j.label, err)
			}
		}
		return nil
	}

	nob := ceilDiv(j.oh, ohb)
	type step struct{ ob, t int }
	var steps []step
	if streamIn {
		for ob := 0; ob < nob; ob++ {
			for t := 0; t < nt; t++ {
				steps = append(steps, step{ob, t})
			}
		}
	} else {
		for t := 0; t < nt; t++ {
			for ob := 0; ob < nob; ob++ {
				steps = append(steps, step{ob, t})
			}
		}
	}
	var bd band
	lastOB := -1
	for si, st := range steps {
		o0, o1 := st.ob*ohb, min(j.oh, (st.ob+1)*ohb)
		blk := fmt.Sprintf("%s o%d-%d n%d", j.label, o0, o1, st.t)
		// The first step of a streamed layer starts as soon as it can:
		// its band and weights load one channel tile at a time, each
		// just before an NE task of its own that reads only that tile,
		// so the NE starts after one tile instead of the whole band.
		split := si == 0 && streamIn && ct > 1
		var bandLoaded []bool
		if streamIn {
			if st.ob != lastOB {
				b0 := max(0, o0*j.s-j.ph)
				b1 := min(j.h, (o1-1)*j.s-j.ph+j.kh)
				slot := inRing.get()
				bd = band{base: slot, b0: b0, rows: b1 - b0, stride: (b1 - b0) * j.w}
				if split {
					bandLoaded = make([]bool, ct)
				} else {
					c.load(fmt.Sprintf("%s load input rows %d-%d", j.label, b0, b1), j.in.ext+b0*j.w, slot, (b1-b0)*j.w, ct, j.in.f)
				}
				lastOB = st.ob
			}
		} else {
			bd = band{base: j.in.base, b0: 0, rows: j.h, stride: j.in.f}
		}
		loadBand := func(t int) {
			if bandLoaded != nil && !bandLoaded[t] {
				bandLoaded[t] = true
				c.load(fmt.Sprintf("%s load input rows %d-%d c%d", j.label, bd.b0, bd.b0+bd.rows, t),
					j.in.ext+t*j.in.f+bd.b0*j.w, bd.base+t*bd.stride, bd.stride, 1, bd.stride)
			}
		}
		np := (o1 - o0) * j.ow
		ps := c.psumAlloc(np)
		first = true
		type pend struct{ g, w int }
		var partial []pend // split weight blocks, per channel tile loaded
		var wLoaded map[[2]int]bool
		for g := range groups {
			gr := groups[g]
			w, need := wslot(st.t, g)
			var pre func(int)
			if need && split && gr.c1-gr.c0 > 1 {
				if wLoaded == nil {
					wLoaded = map[[2]int]bool{}
				}
				partial = append(partial, pend{g, w})
				per := (gr.y1 - gr.y0) * j.kw * R
				g := g
				pre = func(t int) {
					if !wLoaded[[2]int{g, t}] {
						wLoaded[[2]int{g, t}] = true
						r0 := (t - gr.c0) * per
						loadW(st.t, g, w, r0, r0+per)
					}
					loadBand(t)
				}
			} else {
				if need {
					loadW(st.t, g, w, 0, blocks[st.t][g].rows)
				}
				if split {
					pre = loadBand
				}
			}
			if err := neTasks(bd, gr, o0, o1, w, ps, fmt.Sprintf("%s g%d", blk, g), split, pre); err != nil {
				return err
			}
		}
		// Whatever a split step did not read (channel tiles whose rows are
		// all padding) still loads: later steps expect the whole band and
		// whole weight blocks.
		for _, p := range partial {
			gr := groups[p.g]
			per := (gr.y1 - gr.y0) * j.kw * R
			for t := gr.c0; t < gr.c1; t++ {
				if !wLoaded[[2]int{p.g, t}] {
					r0 := (t - gr.c0) * per
					loadW(st.t, p.g, p.w, r0, r0+per)
				}
			}
		}
		for t := range bandLoaded {
			loadBand(t)
		}
		lanes := min(C, j.n-st.t*C)
		dst := 0
		if staged {
			dst = outRing.get()
		} else {
			dst = j.out.addr(st.t, o0*j.ow)
		}
		at := planar.Task{Op: planar.OpAct, Mask: laneMask(lanes), Src: ps, Dst: dst, H: o1 - o0, W: j.ow}
		post(&at, j.q)
		if err := c.planarTask(blk+" act", at); err != nil {
			return err
		}
		if staged {
			c.store(blk+" store", dst, j.out.ext+st.t*j.out.f+o0*j.ow, np, 1, np)
		}
	}
	c.prog.MACs += int64(j.oh) * int64(j.ow) * int64(j.n) * int64(j.cin) * int64(j.kh) * int64(j.kw)
	return nil
}

func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}

// storeResident writes a resident result to its external region when it
// is an output (or has an output view).
func (c *ctx) storeResident(label string, pl *place) {
	if pl.resident && pl.ext >= 0 {
		n := pl.tiles * pl.f
		c.store(label+" store", pl.base, pl.ext, n, 1, n)
	}
}

func (c *ctx) lowerConv(n *node) error {
	x := n.in[0]
	in := c.operand(x)
	out, err := c.outPlace(n, "conv")
	if err != nil {
		return err
	}
	w := n.weights
	co, ci, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	v := n.out
	j := &convJob{label: n.label, in: in, cin: ci, h: x.h, w: x.w, kh: kh, kw: kw, s: n.conv.Stride,
		ph: n.conv.PadH, pw: n.conv.PadW, oh: v.h, ow: v.w, n: co, wt: w, wname: n.wname, q: n.q, out: out,
		widx: func(o, c, ky, kx int) int { return ((o*ci+c)*kh+ky)*kw + kx }}
	if err := c.runConv(j); err != nil {
		return err
	}
	c.storeResident(n.label, out)
	return nil
}

func (c *ctx) lowerGEMM(n *node) error {
	a := n.in[0]
	b := n.weights
	nn := b.Shape[1]
	in := c.operand(a)
	if !a.trans && a.shape[0] == 1 {
		// A fully-connected layer on a flattened feature map (or any
		// plain [1][K] value): the NE reads each pixel's channel vector in
		// place, a kernel as large as the plane (seen as f×1), so the
		// sum runs over channels (partitions) and pixels (passes).
		out, err := c.outPlace(n, "fc")
		if err != nil {
			return err
		}
		f := a.f
		j := &convJob{label: n.label, gemm: true, in: in, cin: a.p, h: f, w: 1, kh: f, kw: 1, s: 1,
			oh: 1, ow: 1, n: nn, wt: b, wname: n.wname, q: n.q, out: out, kernelSplitOK: true,
			widx: func(o, ch, ky, _ int) int { return (ch*f+ky)*nn + o }}
		if err := c.runConv(j); err != nil {
			return err
		}
		c.storeResident(n.label, out)
		return nil
	}
	var tmp *place
	if !a.trans {
		// A plain [M][K] matrix: transpose it on chip first (partition k,
		// address m), as the PE array needs.
		var err error
		if tmp, err = c.transposeInto(n.label+" transpose A", a, in, nil); err != nil {
			return err
		}
		in = tmp
	}
	out, err := c.outPlace(n, "gemm")
	if err != nil {
		return err
	}
	m, k := a.shape[0], a.shape[1]
	j := &convJob{label: n.label, gemm: true, in: in, cin: k, h: m, w: 1, kh: 1, kw: 1, s: 1,
		oh: m, ow: 1, n: nn, wt: b, wname: n.wname, q: n.q, out: out,
		widx: func(o, ch, _, _ int) int { return ch*nn + o }}
	if err := c.runConv(j); err != nil {
		return err
	}
	if tmp != nil {
		c.state.free(tmp.base)
	}
	c.storeResident(n.label, out)
	return nil
}
