package compiler

import (
	"fmt"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// runConv plans layer j and emits its tasks.
func (c *ctx) runConv(j *convJob) error {
	if err := j.checkLimits(c.cfg); err != nil {
		return err
	}
	q := j.q
	if j.pc != nil {
		q.Scale, q.Bias = 0, 0 // replaced by the per-channel ones, checked below
	}
	if err := c.checkRequant(j.label, q); err != nil {
		return err
	}
	sc := &scratch{c: c}
	defer sc.release()
	params := -1
	if j.pc != nil {
		if err := j.pc.check(c.pcfg); err != nil {
			return fmt.Errorf("%s: %w", j.label, err)
		}
		var err error
		if params, err = c.bindChannelParams(j, sc); err != nil {
			return err
		}
	}
	var p *convPlan
	j.oneBlock = c.g.OneBlock
	if j.pool != nil {
		p, j.bands = c.planWithBands(j, j.pool)
	}
	if p == nil {
		var err error
		if p, err = planConv(c.cfg, j, c.state.largest(), c.wring); err != nil {
			return err
		}
	}
	rs, err := sc.ringsOf([]int{p.inSize, p.outSize}, []int{p.inSlots, p.outSlots})
	if err != nil {
		return fmt.Errorf("%s: %w", j.label, err)
	}
	e := &convEmitter{c: c, j: j, p: p, inRing: rs[0], outRing: rs[1], wbase: c.bindWeights(j, p), params: params, paramTile: -1}
	c.wring = p.wringEnd
	if !p.streamIn {
		e.bd = band{base: j.in.base, b0: 0, rows: j.h, stride: j.in.f}
	}
	for i := range p.steps {
		var next *convStep
		if i+1 < len(p.steps) {
			next = &p.steps[i+1]
		}
		if err := e.step(&p.steps[i], next); err != nil {
			return err
		}
	}
	if j.copy {
		return nil
	}
	macs := int64(j.oh) * int64(j.ow) * int64(j.n) * int64(j.perOut()) * int64(j.kh) * int64(j.kw)
	c.prog.MACs += macs
	c.prog.LayerMACs[j.label] += macs
	return nil
}

// bindWeights lays the layer's weight blocks out in external memory (one
// line per weight row, in pass order) and returns their first line.
func (c *ctx) bindWeights(j *convJob, p *convPlan) int {
	R, C, pin := c.R, c.C, j.in.part
	wb := &Binding{Name: j.wname, Shape: append([]int(nil), j.wt.Shape...), Rows: R}
	lines := 0
	for t := range p.wblocks {
		for _, b := range p.wblocks[t] {
			lines += b.rows
		}
	}
	wb.Index = make([]int32, 0, lines*R)
	for t := range p.wblocks {
		for gi, g := range p.groups[t] {
			for tc := g.c0; tc < g.c1; tc++ {
				for ky := g.y0; ky < g.y1; ky++ {
					for kx := 0; kx < j.kw; kx++ {
						for r := 0; r < R; r++ {
							ch := -1
							if r < pin {
								ch = j.inChan(tc*pin + r)
							}
							for e := 0; e < R; e++ {
								idx := -1
								if e < C && ch >= 0 {
									if oc := j.outChan(t*C + e); oc >= 0 {
										idx = j.widx(oc, ch, ky, kx)
									}
								}
								wb.Index = append(wb.Index, int32(idx))
							}
						}
					}
				}
			}
			wb.Lines += p.wblocks[t][gi].rows
		}
	}
	wb.Base = c.extAlloc(wb.Lines)
	c.prog.Inputs = append(c.prog.Inputs, wb)
	img, _ := wb.ToLines(j.wt)
	copy(c.prog.Image[wb.Base:], img)
	return wb.Base
}

// outMask is the mask of the lanes of output tile t (of cols lanes)
// that hold output channels: the act writes only those partitions, so
// a result that shares its tiles' other partitions (holes of a channel
// layout) keeps them.
func (j *convJob) outMask(t, cols int) uint64 {
	var m uint64
	for e := 0; e < cols; e++ {
		if j.outChan(t*cols+e) >= 0 {
			m |= 1 << uint(e)
		}
	}
	return m
}

// convEmitter emits the tasks of a planned layer, step by step.
type convEmitter struct {
	c *ctx
	j *convJob
	p *convPlan

	wbase           int // external line of the layer's weights
	inRing, outRing *ring

	bd        band  // the band the current step reads
	next      *band // the next band, loaded ahead (loadAhead), or nil
	nextTiles int   // its channel tiles loaded so far
	first     bool  // the next NE task starts its psum block (no accumulation)

	params    int // state address of the per-channel parameters (j.pc)
	paramTile int // the output tile whose parameters the lane registers hold, -1 none
}

// splitLoads is what a split step has loaded so far: the channel tiles
// of its band, and the tiles of the weight blocks that load per tile.
type splitLoads struct {
	band    []bool
	perTile map[int]bool    // groups whose weight block loads per channel tile
	w       map[[2]int]bool // (group, channel tile) loaded
}

// step emits one block of output rows of one output tile: its loads, NE
// tasks, act and store.
func (e *convEmitter) step(st, next *convStep) error {
	j, p := e.j, e.p
	blk := fmt.Sprintf("%s o%d-%d n%d", j.label, st.o0, st.o1, st.t)
	var ld *splitLoads
	if st.split {
		ld = &splitLoads{band: make([]bool, p.ct), perTile: map[int]bool{}, w: map[[2]int]bool{}}
	}
	switch {
	case st.newBand && e.next != nil:
		e.bd, e.next = *e.next, nil // loaded by the step before
	case st.newBand && st.split:
		slot := e.inRing.get()
		e.bd = band{base: slot, b0: st.b0, rows: st.b1 - st.b0, stride: (st.b1 - st.b0) * j.w}
	case st.newBand:
		bd, err := e.loadBand(st)
		if err != nil {
			return err
		}
		e.bd = bd
	}
	ps := e.c.psumAlloc((st.o1 - st.o0) * j.ow)
	e.first = true
	for g, gr := range p.groups[st.t] {
		wp := st.w[g]
		if wp.load && ld != nil && gr.c1-gr.c0 > 1 {
			ld.perTile[g] = true
		} else if wp.load {
			e.loadW(st.t, g, wp.row, 0, p.wblocks[st.t][g].rows)
		}
		if err := e.neTasks(st, g, ps, fmt.Sprintf("%s g%d", blk, g), ld); err != nil {
			return err
		}
	}
	if ld != nil {
		// Whatever a split step did not read (channel tiles whose rows are
		// all padding) still loads: later steps expect the whole band and
		// whole weight blocks.
		for g, gr := range p.groups[st.t] {
			if ld.perTile[g] {
				for t := gr.c0; t < gr.c1; t++ {
					e.loadWTile(st, g, t, ld)
				}
			}
		}
		for t := range ld.band {
			if err := e.loadBandTile(t, ld); err != nil {
				return err
			}
		}
	}
	e.prefetchWeights(st, next)
	if err := e.loadAhead(st, next); err != nil {
		return err
	}
	return e.act(st, ps, blk)
}

// prefetchWeights loads the next step's weight blocks now, ahead of this
// step's act, where they go to rows this step does not read, when the
// layer runs a fused eltwise after each act. A queue issues its tasks in
// order and each engine takes two at a time: the act alone leaves room
// in the planar engine's slots, but behind the act and the eltwise's
// tasks a load waits until the NE has finished this step and the act has
// started, and the NE then idles while the next step's weights arrive
// (570 cycles a step in ResNet-50's stage 5). Without a fused eltwise
// the early load only crowds the DMA engine (2% more cycles on a small
// GEMM), so it stays where the step starts.
func (e *convEmitter) prefetchWeights(st, next *convStep) {
	if next == nil || next.split || e.j.post == nil {
		return
	}
	p := e.p
	// overlaps: rows [row, row+rows) meet a block of step s other than
	// its group skip.
	overlaps := func(s *convStep, skip, row, rows int) bool {
		for g := range s.w {
			r := s.w[g].row
			if g != skip && row < r+p.wblocks[s.t][g].rows && r < row+rows {
				return true
			}
		}
		return false
	}
	for g, wp := range next.w {
		rows := p.wblocks[next.t][g].rows
		// Not over rows this step reads, nor over another of the next
		// step's blocks (a later group of the next step that reuses the
		// rows loads after this one is used).
		if !wp.load || overlaps(st, -1, wp.row, rows) || overlaps(next, g, wp.row, rows) {
			continue
		}
		e.loadW(next.t, g, wp.row, 0, rows)
		next.w[g].load = false
	}
}

// loadAhead loads, for a layer with a pre eltwise, this step's share of
// the next band's channel tiles and runs the pre on them, before the
// step's act: the planar engine runs its tasks in order, so a pre behind
// the act (which waits for the NE) would hold the NE up at every band,
// and a whole band's pre at once would delay the acts as long. The
// steps of a band are its output tiles in order, each taking its share.
func (e *convEmitter) loadAhead(st, next *convStep) error {
	j, p := e.j, e.p
	if j.pre == nil || e.inRing.n < 2 || next == nil || !p.streamIn {
		return nil
	}
	nb := e.next
	if nb == nil {
		// The band after this one: the first step past it starts it.
		var after *convStep
		for i := range p.steps {
			if p.steps[i].ob == st.ob+1 && p.steps[i].newBand {
				after = &p.steps[i]
				break
			}
		}
		if after == nil {
			return nil
		}
		nb = &band{base: e.inRing.get(), b0: after.b0, rows: after.b1 - after.b0, stride: (after.b1 - after.b0) * j.w}
		e.next, e.nextTiles = nb, 0
	}
	upTo := p.ct
	if !next.newBand {
		upTo = ceilDiv((st.t+1)*p.ct, p.nt)
	}
	for ; e.nextTiles < upTo; e.nextTiles++ {
		t := e.nextTiles
		e.c.load(fmt.Sprintf("%s load input rows %d-%d c%d", j.label, nb.b0, nb.b0+nb.rows, t),
			j.in.ext+t*j.in.f+nb.b0*j.w, nb.base+t*nb.stride, nb.stride, 1, nb.stride)
		if err := e.preBand(nb.base+t*nb.stride, nb.rows, fmt.Sprintf("%s rows %d-%d c%d", j.label, nb.b0, nb.b0+nb.rows, t)); err != nil {
			return err
		}
	}
	return nil
}

// loadBand loads the band of input rows step st reads into the next slot
// of the ring (and runs the layer's pre eltwise on it).
func (e *convEmitter) loadBand(st *convStep) (band, error) {
	j := e.j
	slot := e.inRing.get()
	bd := band{base: slot, b0: st.b0, rows: st.b1 - st.b0, stride: (st.b1 - st.b0) * j.w}
	e.c.load(fmt.Sprintf("%s load input rows %d-%d", j.label, st.b0, st.b1), j.in.ext+st.b0*j.w, slot, (st.b1-st.b0)*j.w, e.p.ct, j.in.f)
	return bd, e.preBand(slot, e.p.ct*(st.b1-st.b0), fmt.Sprintf("%s rows %d-%d", j.label, st.b0, st.b1))
}

// loadW loads rows [r0, r1) of weight block (t, g) placed at row w.
func (e *convEmitter) loadW(t, g, w, r0, r1 int) {
	b := e.p.wblocks[t][g]
	label := fmt.Sprintf("%s load weights n%d g%d", e.j.label, t, g)
	if r0 > 0 || r1 < b.rows {
		label += fmt.Sprintf(" rows %d-%d", r0, r1)
	}
	e.c.loadWeights(label, e.wbase+b.ext+r0, w+r0, r1-r0)
}

// loadWTile loads the rows of channel tile t of a split step's weight
// block g, unless they are loaded.
func (e *convEmitter) loadWTile(st *convStep, g, t int, ld *splitLoads) {
	if ld.w[[2]int{g, t}] {
		return
	}
	ld.w[[2]int{g, t}] = true
	gr := e.p.groups[st.t][g]
	per := (gr.y1 - gr.y0) * e.j.kw * e.c.R
	r0 := (t - gr.c0) * per
	e.loadW(st.t, g, st.w[g].row, r0, r0+per)
}

// loadBandTile loads channel tile t of a split step's band, unless it is
// loaded.
func (e *convEmitter) loadBandTile(t int, ld *splitLoads) error {
	if ld.band[t] {
		return nil
	}
	ld.band[t] = true
	j, bd := e.j, e.bd
	e.c.load(fmt.Sprintf("%s load input rows %d-%d c%d", j.label, bd.b0, bd.b0+bd.rows, t),
		j.in.ext+t*j.in.f+bd.b0*j.w, bd.base+t*bd.stride, bd.stride, 1, bd.stride)
	return e.preBand(bd.base+t*bd.stride, bd.rows, fmt.Sprintf("%s rows %d-%d c%d", j.label, bd.b0, bd.b0+bd.rows, t))
}

// neTasks emits the NE tasks of group g of step st into psum entry ps.
// A split step (ld) loads what each task reads just before it.
func (e *convEmitter) neTasks(st *convStep, g, ps int, name string, ld *splitLoads) error {
	j, R := e.j, e.c.R
	gr := e.p.groups[st.t][g]
	rd, ok := j.neReads(e.bd, gr, st.o0, st.o1, ld != nil)
	if !ok {
		// The first group of a block starts at the band's first row, so
		// it never reads only padding.
		if e.first {
			return fmt.Errorf("%s: internal: the first pass group of a block reads only padding", j.label)
		}
		return nil
	}
	w := st.w[g].row
	kh := gr.y1 - gr.y0
	for _, sb := range rd.subs {
		if ld != nil {
			for t := sb.c0; t < sb.c1; t++ {
				if ld.perTile[g] {
					e.loadWTile(st, g, t, ld)
				}
				if err := e.loadBandTile(t, ld); err != nil {
					return err
				}
			}
		}
		acc := !e.first
		e.first = false
		conv := isa.Conv{GEMM: j.gemm, Src: sb.src, Weights: w + (sb.c0-gr.c0)*kh*j.kw*R, Psum: ps,
			H: sb.d0, W: j.w, Tiles: sb.c1 - sb.c0, KH: kh, KW: j.kw, Stride: j.s, PadH: rd.ptop, PadW: j.pw,
			OH: st.o1 - st.o0, OW: j.ow, Acc: acc}
		if err := e.c.task(name, conv); err != nil {
			return fmt.Errorf("%s: %w", j.label, err)
		}
	}
	return nil
}

// act emits the act of step st (psum entry ps → the output, requantized)
// and, for a staged output, its store.
func (e *convEmitter) act(st *convStep, ps int, blk string) error {
	j := e.j
	np := (st.o1 - st.o0) * j.ow
	mask := j.outMask(st.t, e.c.C)
	dst := 0
	if e.p.staged {
		dst = e.outRing.get()
	} else {
		dst = j.out.addr(st.t, st.o0*j.ow)
	}
	at := planar.Task{Op: planar.OpAct, Mask: mask, Src: ps, Dst: dst, H: st.o1 - st.o0, W: j.ow}
	post(&at, j.q)
	if j.pc != nil {
		if err := e.laneParams(st.t, mask, blk); err != nil {
			return err
		}
		at.PerLane, at.Scale, at.Bias = true, 0, 0
	}
	if j.digits > 0 {
		return e.actDigits(at, st, blk)
	}
	if j.post != nil {
		if err := e.c.planarTask(blk+" act", at); err != nil {
			return err
		}
		return e.postBlock(st, dst, np, mask, blk)
	}
	if err := e.c.planarTask(blk+" act", at); err != nil {
		return err
	}
	if e.p.staged {
		e.c.store(blk+" store", dst, j.out.ext+st.t*j.out.f+st.o0*j.ow, np, 1, np)
	}
	if j.bands != nil {
		return j.bands.rowsDone(e.c, st.t, st.o0, st.o1)
	}
	return nil
}

// actDigits emits the acts of an int32 result's block: digit k of psum +
// bias (wrap, scale 1, shift k·E) into plane k of the staging slot, then
// one store of all planes (plane k goes to digit plane k of the output:
// out.tiles·out.f lines further per digit).
func (e *convEmitter) actDigits(at planar.Task, st *convStep, blk string) error {
	j, E := e.j, e.c.cfg.ElemWidth
	np := (st.o1 - st.o0) * j.ow
	if !e.p.staged {
		return fmt.Errorf("%s: internal: an int32 result must be staged", j.label)
	}
	base := at.Dst
	for k := range j.digits {
		at.Dst, at.Shift = base+k*np, k*E
		if err := e.c.planarTask(fmt.Sprintf("%s act digit %d", blk, k), at); err != nil {
			return err
		}
	}
	plane := j.out.tiles * j.out.f
	e.c.store(blk+" store", base, j.out.ext+st.t*j.out.f+st.o0*j.ow, np, j.digits, plane)
	return nil
}
