package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// NE operation codes (isa.Engines[NE]).
const (
	neNop       = 0
	neGEMM      = 1
	neConv      = 2
	neTranspose = 3
)

// NE phases.
const (
	phIdle  = iota
	phRun   // conv/gemm: weight loader and input streamer at work
	phDrain // wait for the array to empty, then done
	phFill  // transpose: read the block column by column into the grid
	phGap   // transpose: the last column lands
	phLoad  // transpose: grid rows into the array's shadow weights
	phStart // transpose: the one-hot stream command
)

// neDimWidth is the width of output-plane sizes (oh, ow) and counters:
// the width of the NE param layout's oh field.
func (c Config) neDimWidth() int { return c.neParamWidth("oh") }

// neParamWidth is the width of an NE param field.
func (c Config) neParamWidth(name string) int {
	f, _ := c.NEParams().Field(name)
	return f.Width
}

// neController builds the neural engine: the PE array with its input
// address generator, its weight loader and the transpose corner-turn
// (see doc.go for the operations). It accepts a task when idle and pulses
// done (registered) once the last result has left the array.
//
// Conv/gemm: a loader reads the R weight rows of the next pass from the
// weight buffer (one row per cycle, one cycle of read latency) into the
// array's shadow weights as soon as the running pass's swap vector has
// entered the array; the streamer issues one slot per cycle — a state
// read of the input vector, or a zero vector for a padding position — and
// the slot enters the array the cycle after (the read latency), so reads
// and padding keep their order. Back-to-back passes with no idle cycle
// need at least R+2 output pixels per pass. The next task is taken while
// the previous one drains, so tasks overlap by the array's latency, and
// its first pass's weights are loaded while the previous task's last
// pass still streams (the task manager holds an offered task on the
// port until it is taken), so a task switch costs no weight load.
func neController(c Config) (*hdl.Module, error) {
	sc := c.Systolic()
	arr, err := systolic.Build(sc)
	if err != nil {
		return nil, fmt.Errorf("npu: ne: %w", err)
	}
	R, C, E := c.Rows, c.Cols, c.ElemWidth
	aw, pw, ww := log2(c.StateDepth), log2(c.PsumDepth), log2(c.WeightDepth)
	dim := c.neDimWidth()
	sw := max(dim+6, 18) // signed input coordinates: oy·stride + ky − pad
	m := hdl.NewModule(hdl.Name("npu_ne", fmt.Sprintf("%dx%d", R, C), fmt.Sprintf("e%da%d", E, c.AccWidth),
		fmt.Sprintf("s%dp%dw%d", c.StateDepth, c.PsumDepth, c.WeightDepth)))

	// Task port.
	tValid := m.Input("t_valid", hdl.Bool)
	opW := isa.NE.OpWidth()
	tOp := m.Input("t_op", hdl.UInt(opW))
	tSrc := m.Input("t_src", hdl.UInt(aw))
	tAux := m.Input("t_aux", hdl.UInt(ww))
	tDst := m.Input("t_dst", hdl.UInt(pw))
	tD := [3]*hdl.Signal{m.Input("t_d0", hdl.UInt(16)), m.Input("t_d1", hdl.UInt(16)), m.Input("t_d2", hdl.UInt(16))}
	kw := c.neParamWidth("kh")
	tKH, tKW := m.Input("t_kh", hdl.UInt(kw)), m.Input("t_kw", hdl.UInt(c.neParamWidth("kw")))
	tStride := m.Input("t_stride", hdl.UInt(c.neParamWidth("stride")))
	tPadH, tPadW := m.Input("t_pad_h", hdl.UInt(c.neParamWidth("pad_h"))), m.Input("t_pad_w", hdl.UInt(c.neParamWidth("pad_w")))
	tOH, tOW := m.Input("t_oh", hdl.UInt(dim)), m.Input("t_ow", hdl.UInt(dim))
	tAcc := m.Input("t_acc", hdl.Bool)

	peReady := m.Input("pe_ready", hdl.Bool)
	wlReady := m.Input("wl_ready", hdl.Bool)
	peData := make([]*hdl.Signal, R)
	wlData := make([]*hdl.Signal, R)
	for p := range R {
		peData[p] = m.Input(fmt.Sprintf("pe_rdata_%d", p), hdl.UInt(E))
		wlData[p] = m.Input(fmt.Sprintf("wl_rdata_%d", p), hdl.UInt(E))
	}
	wbData := m.Input("wb_rdata", hdl.UInt(C*E))

	phase := m.Reg("phase", hdl.UInt(3), phIdle)
	is := func(p int) *hdl.Expr { return phase.Eq(hdl.U(3, uint64(p))) }
	idle := is(phIdle)
	// A new task is taken when idle, or while the previous one drains
	// (its vectors are all in the array; the array is a fixed-latency
	// pipe, so they leave before any of the new task's): the next task's
	// weights load and its stream starts behind them. oldActive tracks
	// the draining task so its done pulse comes when its last vector
	// leaves.
	oldActive := m.Reg("old_active", hdl.Bool, 0)
	takes := idle.Or(is(phDrain).And(oldActive.Not()))
	accept := tValid.And(takes)

	// Task registers, loaded on acceptance.
	latch := func(name string, in *hdl.Signal) *hdl.Signal {
		r := m.Reg(name, in.Type, 0)
		r.SetNext(in)
		r.SetEnable(accept)
		return r
	}
	op := latch("op", tOp)
	src := latch("src", tSrc)
	dst := latch("dst", tDst)
	H, W, CT := latch("h", tD[0]), latch("w", tD[1]), latch("ct", tD[2])
	KH, KW := latch("kh", tKH), latch("kw", tKW)
	stride := latch("stride", tStride)
	padH, padW := latch("pad_h", tPadH), latch("pad_w", tPadW)
	OH, OW := latch("oh", tOH), latch("ow", tOW)
	accFlag := latch("acc", tAcc)

	// Constants of the task.
	hw := m.Wire("plane", hdl.UInt(aw))
	hw.Set(H.Mul(W).Trunc(aw))
	rowStep := m.Wire("row_step", hdl.UInt(aw)) // stride·W: the address step between output rows
	rowStep.Set(stride.Mul(W).Resize(aw))
	// The pass count is registered: its two multiplies were the NE's
	// longest path into the phase logic. Every reader waits for fresh to
	// fall, by which time the register holds the latched task's count.
	passes := m.Reg("passes", hdl.UInt(24), 0)
	empty := OH.OrR().Not().Or(OW.OrR().Not())
	passes.SetNext(hdl.Mux(empty, hdl.U(24, 0), CT.Mul(KH).Mul(KW)))
	sH := H.Ext(sw).AsSInt()
	sW := W.Ext(sw).AsSInt()
	sStride := stride.Ext(sw).AsSInt()

	// ---- streamer state ----
	scount := m.Reg("spass", hdl.UInt(24), 0) // passes streamed
	first := m.Reg("first", hdl.Bool, 1)      // next slot is a pass's first (swap)
	fresh := m.Reg("fresh", hdl.Bool, 0)      // the cycle after acceptance: set up pass 0
	kx, ky := m.Reg("kx", hdl.UInt(kw), 0), m.Reg("ky", hdl.UInt(kw), 0)
	ct := m.Reg("cti", hdl.UInt(16), 0)
	chan_ := m.Reg("chan", hdl.UInt(aw), 0) // src + ct·H·W
	ox, oy := m.Reg("ox", hdl.UInt(dim), 0), m.Reg("oy", hdl.UInt(dim), 0)
	ix, iy := m.Reg("ix", hdl.SInt(sw), 0), m.Reg("iy", hdl.SInt(sw), 0)
	ix0 := m.Reg("ix0", hdl.SInt(sw), 0)
	rowAddr := m.Reg("row_addr", hdl.UInt(aw), 0) // chan + iy·W (mod 2^aw)
	tcount := m.Reg("t", hdl.UInt(pw), 0)         // output pixel of the pass

	// ---- loader state ----
	wr := m.Reg("wready", hdl.Bool, 0) // the shadow weights hold the next pass
	sfree := m.Reg("sfree", hdl.Bool, 0)
	lactive := m.Reg("lactive", hdl.Bool, 0)
	lrow := m.Reg("lrow", hdl.UInt(hdl.ClogWidth(R)), 0)
	lbase := m.Reg("lbase", hdl.UInt(ww), 0)
	lcount := m.Reg("lpass", hdl.UInt(24), 0)
	ldV := m.Reg("ld_v", hdl.Bool, 0) // a weight row is presented to the array
	ldR := m.Reg("ld_r", hdl.UInt(hdl.ClogWidth(R)), 0)

	// ---- slot stage: what enters the array this cycle ----
	s1Valid := m.Reg("s1_valid", hdl.Bool, 0)
	s1Pad := m.Reg("s1_pad", hdl.Bool, 0)
	s1Entry := m.Reg("s1_entry", hdl.UInt(pw), 0)
	s1Acc := m.Reg("s1_acc", hdl.Bool, 0)
	s1Swap := m.Reg("s1_swap", hdl.Bool, 0)

	run := is(phRun)
	lastRow := hdl.U(hdl.ClogWidth(R), uint64(R-1))

	// Loader.
	lstart := run.And(lactive.Not()).And(wr.Not()).And(sfree).And(lcount.Lt(passes)).And(fresh.Not())
	// Prefetch: once every pass of this task is loaded and its last swap
	// has entered the array, the next task (offered on the task port and
	// held there until taken) gets its first pass's weights loaded, so
	// its stream starts as soon as it is taken. pre says the shadow holds
	// them.
	pre := m.Reg("pre", hdl.Bool, 0)
	nextConv := tValid.And(tOp.Eq(hdl.U(opW, uint64(isa.NEGEMM))).Or(tOp.Eq(hdl.U(opW, uint64(isa.NEConv))))).
		And(tD[2].OrR()).And(tKH.OrR()).And(tKW.OrR()).And(tOH.OrR()).And(tOW.OrR())
	pstart := run.And(lactive.Not()).And(wr.Not()).And(sfree).And(lcount.Ge(passes)).And(fresh.Not()).
		And(pre.Not()).And(nextConv)
	lend := lactive.And(lrow.Eq(lastRow))
	// Going idle ends a load, except a prefetch: the task manager may
	// withdraw an offer for a while (its outstanding FIFO is full) but
	// offers this engine that same task next, so the prefetched weights
	// stay for it.
	dropLoad := idle.And(pre.Not())
	lactive.SetNext(hdl.Mux(dropLoad, hdl.U(1, 0), hdl.Mux(lstart.Or(pstart), hdl.U(1, 1), hdl.Mux(lend, hdl.U(1, 0), lactive))))
	lrow.SetNext(hdl.Mux(lactive.And(lend.Not()), lrow.Add(hdl.U(1, 1)).Trunc(lrow.Width()), hdl.U(lrow.Width(), 0)))
	// Taking a prefetched task keeps lbase (its pass 1, or its pass 0 if
	// the prefetch still runs) and counts pass 0 once its last row is in.
	takeFresh := accept.And(pre.Not())
	// The next pass's rows follow R rows on, modulo the buffer (R itself
	// does not fit ww bits when weight_depth = rows).
	lbase.SetNext(hdl.Mux(takeFresh.Or(pstart), tAux, lbase.Add(hdl.U(ww, uint64(R)&(1<<uint(ww)-1))).Trunc(ww)))
	lbase.SetEnable(takeFresh.Or(pstart).Or(lend))
	preDone := lend.Or(lactive.Not()) // the prefetched pass is (now) complete
	lcount.SetNext(hdl.Mux(accept, hdl.Mux(pre.And(preDone), hdl.U(24, 1), hdl.U(24, 0)), lcount.Add(hdl.U(1, 1)).Trunc(24)))
	lcount.SetEnable(accept.Or(lend))
	pre.SetNext(hdl.Mux(pstart, hdl.U(1, 1), hdl.Mux(accept, hdl.U(1, 0), pre)))
	ldV.SetNext(lactive)
	ldR.SetNext(lrow)
	wbAddr := lbase.Add(lrow.Ext(ww)).Trunc(ww)
	m.Output("wb_addr", hdl.UInt(ww)).Set(wbAddr)
	loaded := ldV.And(ldR.Eq(lastRow)) // the last row is presented this cycle

	// Streamer.
	pad := iy.Lt(hdl.S(sw, 0)).Or(iy.Ge(sH)).Or(ix.Lt(hdl.S(sw, 0))).Or(ix.Ge(sW))
	want := run.And(fresh.Not()).And(scount.Lt(passes)).And(first.Not().Or(wr))
	peValid := want.And(pad.Not())
	issue := want.And(pad.Or(peReady))
	addr := rowAddr.Add(ix.Resize(aw).AsUInt()).Trunc(aw)
	m.Output("pe_valid", hdl.Bool).Set(peValid)
	m.Output("pe_addr", hdl.UInt(aw)).Set(addr)
	m.Output("pe_mask", hdl.UInt(R)).Set(hdl.U(R, 1<<uint(R)-1))

	rowEnd := ox.Eq(OW.Sub(hdl.U(1, 1)).Trunc(dim))
	passEnd := rowEnd.And(oy.Eq(OH.Sub(hdl.U(1, 1)).Trunc(dim)))
	advance := issue.And(passEnd) // the pass's last slot issues
	kxEnd := kx.Eq(KW.Sub(hdl.U(1, 1)).Trunc(4))
	kyEnd := ky.Eq(KH.Sub(hdl.U(1, 1)).Trunc(4))
	nkx := hdl.Mux(kxEnd, hdl.U(4, 0), kx.Add(hdl.U(1, 1)).Trunc(4))
	nky := hdl.Mux(kxEnd, hdl.Mux(kyEnd, hdl.U(4, 0), ky.Add(hdl.U(1, 1)).Trunc(4)), ky)
	ctStep := kxEnd.And(kyEnd)
	nct := hdl.Mux(ctStep, ct.Add(hdl.U(1, 1)).Trunc(16), ct)
	nchan := hdl.Mux(ctStep, chan_.Add(hw).Trunc(aw), chan_)
	// Pass setup: from the counters after this pass (advance) or from
	// the first pass's (fresh; the counters were just reset).
	pky := hdl.Mux(fresh, hdl.U(4, 0), nky)
	pkx := hdl.Mux(fresh, hdl.U(4, 0), nkx)
	pchan := hdl.Mux(fresh, src, nchan)
	iyStart := pky.Ext(sw).AsSInt().Sub(padH.Ext(sw).AsSInt()).Trunc(sw)
	ixStart := pkx.Ext(sw).AsSInt().Sub(padW.Ext(sw).AsSInt()).Trunc(sw)
	rowStart := pchan.Add(iyStart.Mul(sW).Resize(aw).AsUInt()).Trunc(aw)
	setup := fresh.Or(advance)

	kx.SetNext(hdl.Mux(accept, hdl.U(4, 0), nkx))
	kx.SetEnable(accept.Or(advance))
	ky.SetNext(hdl.Mux(accept, hdl.U(4, 0), nky))
	ky.SetEnable(accept.Or(advance))
	ct.SetNext(hdl.Mux(accept, hdl.U(16, 0), nct))
	ct.SetEnable(accept.Or(advance))
	chan_.SetNext(hdl.Mux(accept, tSrc, nchan))
	chan_.SetEnable(accept.Or(advance))
	scount.SetNext(hdl.Mux(accept, hdl.U(24, 0), scount.Add(hdl.U(1, 1)).Trunc(24)))
	scount.SetEnable(accept.Or(advance))
	fresh.SetNext(accept)
	first.SetNext(hdl.Mux(accept.Or(advance), hdl.U(1, 1), hdl.Mux(issue, hdl.U(1, 0), first)))

	ox.SetNext(hdl.Mux(setup.Or(rowEnd), hdl.U(dim, 0), ox.Add(hdl.U(1, 1)).Trunc(dim)))
	ox.SetEnable(setup.Or(issue))
	oy.SetNext(hdl.Mux(setup, hdl.U(dim, 0), oy.Add(hdl.U(1, 1)).Trunc(dim)))
	oy.SetEnable(setup.Or(issue.And(rowEnd)))
	ix0.SetNext(ixStart)
	ix0.SetEnable(setup)
	ix.SetNext(hdl.Mux(setup, ixStart, hdl.Mux(rowEnd, ix0, ix.Add(sStride).Trunc(sw))))
	ix.SetEnable(setup.Or(issue))
	iy.SetNext(hdl.Mux(setup, iyStart, iy.Add(sStride).Trunc(sw)))
	iy.SetEnable(setup.Or(issue.And(rowEnd)))
	rowAddr.SetNext(hdl.Mux(setup, rowStart, rowAddr.Add(rowStep).Trunc(aw)))
	rowAddr.SetEnable(setup.Or(issue.And(rowEnd)))
	tcount.SetNext(hdl.Mux(setup, hdl.U(pw, 0), tcount.Add(hdl.U(1, 1)).Trunc(pw)))
	tcount.SetEnable(setup.Or(issue))

	s1Valid.SetNext(issue)
	s1Pad.SetNext(pad)
	s1Entry.SetNext(dst.Add(tcount).Trunc(pw))
	s1Acc.SetNext(accFlag.Or(scount.OrR()))
	s1Swap.SetNext(first)

	// The shadow weights: consumed by a swap, refilled by the loader.
	swapIssued := issue.And(first)
	wr.SetNext(hdl.Mux(dropLoad.Or(swapIssued), hdl.U(1, 0), hdl.Mux(loaded, hdl.U(1, 1), wr)))
	sfree.SetNext(hdl.Mux(takeFresh, hdl.U(1, 1), hdl.Mux(lstart.Or(pstart), hdl.U(1, 0), hdl.Mux(s1Valid.And(s1Swap), hdl.U(1, 1), sfree))))

	// ---- transpose: the corner-turn grid ----
	cw := hdl.ClogWidth(C)
	fcol := m.Reg("fcol", hdl.UInt(cw+1), 0) // next column to fill
	fillV := m.Reg("fill_v", hdl.Bool, 0)    // a column lands this cycle
	fillZ := m.Reg("fill_z", hdl.Bool, 0)    // ... as zeros (past the block)
	fillC := m.Reg("fill_c", hdl.UInt(cw+1), 0)
	fill := is(phFill)
	colInBlock := fcol.Ext(16).Lt(W)
	wlValid := fill.And(colInBlock)
	fillGo := fill.And(colInBlock.Not().Or(wlReady))
	m.Output("wl_valid", hdl.Bool).Set(wlValid)
	m.Output("wl_addr", hdl.UInt(aw)).Set(src.Add(fcol.Resize(aw)).Trunc(aw))
	m.Output("wl_mask", hdl.UInt(R)).Set(hdl.U(R, 1<<uint(R)-1))
	fcol.SetNext(hdl.Mux(accept, hdl.U(cw+1, 0), fcol.Add(hdl.U(1, 1)).Trunc(cw+1)))
	fcol.SetEnable(accept.Or(fillGo))
	fillV.SetNext(fillGo)
	fillZ.SetNext(colInBlock.Not())
	fillC.SetNext(fcol)
	grid := make([][]*hdl.Signal, R)
	for r := range R {
		grid[r] = make([]*hdl.Signal, C)
		for cc := range C {
			g := m.Reg(fmt.Sprintf("grid_%d_%d", r, cc), hdl.UInt(E), 0)
			g.SetNext(hdl.Mux(fillZ, hdl.U(E, 0), wlData[r]))
			g.SetEnable(fillV.And(fillC.Eq(hdl.U(cw+1, uint64(cc)))))
			grid[r][cc] = g
		}
	}
	fillDone := fill.And(fillGo).And(fcol.Eq(hdl.U(cw+1, uint64(C-1))))
	tload := is(phLoad)
	trow := m.Reg("trow", hdl.UInt(hdl.ClogWidth(R)), 0)
	trow.SetNext(hdl.Mux(tload, trow.Add(hdl.U(1, 1)).Trunc(trow.Width()), hdl.U(trow.Width(), 0)))
	tloadDone := tload.And(trow.Eq(lastRow))

	trStart := is(phStart)
	nrows := hdl.Mux(H.Gt(hdl.U(16, uint64(R))), hdl.U(16, uint64(R)), H) // the block's rows, at most R
	trLastW := max(1, hdl.ClogWidth(R))

	// ---- the PE array ----
	a := m.Instance("array", arr)
	a.Connect("in_valid", s1Valid).Connect("in_entry", s1Entry).Connect("in_acc", s1Acc).Connect("in_swap", s1Swap)
	for r := range R {
		a.Connect(fmt.Sprintf("in_x_%d", r), hdl.Mux(s1Pad, hdl.U(E, 0), peData[r]).AsSInt())
	}
	a.Connect("tr_start", trStart).Connect("tr_last", nrows.Sub(hdl.U(1, 1)).Resize(trLastW)).Connect("tr_entry", dst)
	a.Connect("ld_valid", ldV.Or(tload))
	a.Connect("ld_row", hdl.Mux(tload, trow, ldR))
	for cc := range C {
		w := wbData.Slice(cc*E+E-1, cc*E)
		col := make([]hdl.Value, R)
		for r := range R {
			col[r] = grid[r][cc]
		}
		g := hdl.Pick(trow, col, grid[0][cc])
		a.Connect(fmt.Sprintf("ld_w_%d", cc), hdl.Mux(tload, g, w).AsSInt())
	}
	trGo := trStart.And(a.Out("tr_ready"))

	m.Output("out_valid", hdl.Bool).Set(a.Out("out_valid"))
	m.Output("out_entry", hdl.UInt(pw)).Set(a.Out("out_entry"))
	m.Output("out_acc", hdl.Bool).Set(a.Out("out_acc"))
	for cc := range C {
		m.Output(fmt.Sprintf("out_psum_%d", cc), sc.PsumType()).Set(a.Out(fmt.Sprintf("out_psum_%d", cc)))
	}
	m.Output("mac_count", hdl.UInt(sc.CounterWidth)).Set(a.Out("mac_count"))
	// Without zero skipping the array has no skip counter: nothing is skipped.
	skips := hdl.U(sc.CounterWidth, 0)
	if sc.ZeroSkip {
		skips = &a.Out("skip_count").Expr
	}
	m.Output("skip_count", hdl.UInt(sc.CounterWidth)).Set(skips)

	// Vectors inside the array: done waits until they have all left.
	outV := a.Out("out_valid")
	pending := m.Reg("pending", hdl.UInt(16), 0)
	inc := hdl.Mux(trGo, nrows, hdl.Mux(s1Valid, hdl.U(16, 1), hdl.U(16, 0)))
	pending.SetNext(pending.Add(inc).Sub(outV).Trunc(16))
	// The draining task's vectors still to leave when the next task is
	// taken (the one entering this cycle included).
	inFlight := pending.Add(s1Valid).Sub(outV).Trunc(16)
	oldLeft := m.Reg("old_left", hdl.UInt(16), 0)
	overlapTake := accept.And(is(phDrain))
	oldLast := oldActive.And(outV).And(oldLeft.Eq(hdl.U(16, 1)))
	oldLeft.SetNext(hdl.Mux(overlapTake, inFlight, oldLeft.Sub(outV).Trunc(16)))
	oldLeft.SetEnable(overlapTake.Or(oldActive))
	oldActive.SetNext(hdl.Mux(overlapTake, inFlight.OrR(), hdl.Mux(oldLast, hdl.U(1, 0), oldActive)))

	// Phase sequencing.
	isConv := op.Eq(hdl.U(opW, uint64(isa.NEGEMM))).Or(op.Eq(hdl.U(opW, uint64(isa.NEConv))))
	isTr := op.Eq(hdl.U(opW, uint64(isa.NETranspose)))
	streamed := scount.Ge(passes).And(fresh.Not())
	trEmpty := H.OrR().Not().Or(W.OrR().Not())
	drained := is(phDrain).And(pending.OrR().Not()).And(s1Valid.Not()).And(oldActive.Not())
	// The phase after acceptance is decided from the latched op in the
	// next cycle (phRun), so every op takes the same path in.
	next := hdl.Mux(accept, hdl.U(3, phRun),
		hdl.Mux(run.And(isConv.Not()).And(isTr), hdl.Mux(trEmpty, hdl.U(3, phDrain), hdl.U(3, phFill)),
			hdl.Mux(run.And(isConv.Not().And(isTr.Not()).Or(streamed)), hdl.U(3, phDrain),
				hdl.Mux(fillDone, hdl.U(3, phGap),
					hdl.Mux(is(phGap), hdl.U(3, phLoad),
						hdl.Mux(tloadDone, hdl.U(3, phStart),
							hdl.Mux(trGo, hdl.U(3, phDrain),
								hdl.Mux(drained, hdl.U(3, phIdle), phase))))))))
	phase.SetNext(next)

	// Done: the draining task's last vector left (oldLast), or this
	// task drained. drained waits for !oldActive, so the two never fall
	// in one cycle; a task taken in the cycle its predecessor drained
	// leaves that done to drained.
	// Taken in the very cycle the draining task's last vector leaves
	// (pending 1, out_valid 1): nothing stays in flight, drained is not
	// yet true, so the done is given here.
	leftNow := overlapTake.And(inFlight.OrR().Not()).And(drained.Not())
	done := m.Reg("done_r", hdl.Bool, 0)
	done.SetNext(drained.Or(oldLast).Or(leftNow))
	m.Output("t_ready", hdl.Bool).Set(takes)
	m.Output("busy", hdl.Bool).Set(idle.Not())
	m.Output("done", hdl.Bool).Set(done)
	m.Output("stall", hdl.Bool).Set(peValid.And(peReady.Not()).Or(wlValid.And(wlReady.Not())))
	return m, nil
}
