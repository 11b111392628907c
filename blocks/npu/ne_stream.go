package npu

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// The conv/gemm path of the NE: the streamer walks a pass's output pixels
// and issues one slot per cycle into the slot stage, and the loader fills
// the array's shadow weights for the next pass.

// streamerState declares the streamer's counters.
func (b *neBuilder) streamerState() {
	m, aw, dim, sw, kw := b.m, b.aw, b.dim, b.sw, b.kw
	b.scount = m.Reg("spass", hdl.UInt(24), 0) // passes streamed
	b.first = m.Reg("first", hdl.Bool, 1)      // next slot is a pass's first (swap)
	b.fresh = m.Reg("fresh", hdl.Bool, 0)      // the cycle after acceptance: set up pass 0
	b.kx, b.ky = m.Reg("kx", hdl.UInt(kw), 0), m.Reg("ky", hdl.UInt(kw), 0)
	b.ct = m.Reg("cti", hdl.UInt(16), 0)
	b.chan_ = m.Reg("chan", hdl.UInt(aw), 0) // src + ct·H·W
	b.ox, b.oy = m.Reg("ox", hdl.UInt(dim), 0), m.Reg("oy", hdl.UInt(dim), 0)
	b.ix, b.iy = m.Reg("ix", hdl.SInt(sw), 0), m.Reg("iy", hdl.SInt(sw), 0)
	b.ix0 = m.Reg("ix0", hdl.SInt(sw), 0)
	b.rowAddr = m.Reg("row_addr", hdl.UInt(aw), 0) // chan + iy·W (mod 2^aw)
	b.tcount = m.Reg("t", hdl.UInt(b.pw), 0)       // output pixel of the pass
}

// loaderState declares the loader's registers.
func (b *neBuilder) loaderState() {
	m, R := b.m, b.R
	b.wr = m.Reg("wready", hdl.Bool, 0) // the shadow weights hold the next pass
	b.sfree = m.Reg("sfree", hdl.Bool, 0)
	b.lactive = m.Reg("lactive", hdl.Bool, 0)
	b.lrow = m.Reg("lrow", hdl.UInt(hdl.ClogWidth(R)), 0)
	b.lbase = m.Reg("lbase", hdl.UInt(b.ww), 0)
	b.lcount = m.Reg("lpass", hdl.UInt(24), 0)
	b.ldV = m.Reg("ld_v", hdl.Bool, 0) // a weight row is presented to the array
	b.ldR = m.Reg("ld_r", hdl.UInt(hdl.ClogWidth(R)), 0)
}

// slotStage declares what enters the array this cycle.
func (b *neBuilder) slotStage() {
	m := b.m
	b.s1Valid = m.Reg("s1_valid", hdl.Bool, 0)
	b.s1Pad = m.Reg("s1_pad", hdl.Bool, 0)
	b.s1Entry = m.Reg("s1_entry", hdl.UInt(b.pw), 0)
	b.s1Acc = m.Reg("s1_acc", hdl.Bool, 0)
	b.s1Swap = m.Reg("s1_swap", hdl.Bool, 0)
}

// loader reads the weight rows of the next pass into the shadow weights.
func (b *neBuilder) loader() {
	m, R, ww, opW := b.m, b.R, b.ww, b.opW
	run, accept, passes, fresh := b.run, b.accept, b.passes, b.fresh
	lactive, lrow, lbase, lcount, wr, sfree := b.lactive, b.lrow, b.lbase, b.lcount, b.wr, b.sfree
	tOp, tD := b.tOp, b.tD
	b.lstart = run.And(lactive.Not()).And(wr.Not()).And(sfree).And(lcount.Lt(passes)).And(fresh.Not())
	// Prefetch: once every pass of this task is loaded and its last swap
	// has entered the array, the next task (offered on the task port and
	// held there until taken) gets its first pass's weights loaded, so
	// its stream starts as soon as it is taken. pre says the shadow holds
	// them.
	pre := m.Reg("pre", hdl.Bool, 0)
	nextConv := b.tValid.And(tOp.Eq(hdl.U(opW, uint64(isa.NEGEMM))).Or(tOp.Eq(hdl.U(opW, uint64(isa.NEConv))))).
		And(tD[2].OrR()).And(b.tKH.OrR()).And(b.tKW.OrR()).And(b.tOH.OrR()).And(b.tOW.OrR())
	b.pstart = run.And(lactive.Not()).And(wr.Not()).And(sfree).And(lcount.Ge(passes)).And(fresh.Not()).
		And(pre.Not()).And(nextConv)
	lend := lactive.And(lrow.Eq(b.lastRow))
	// Going idle ends a load, except a prefetch: the task manager may
	// withdraw an offer for a while (its outstanding FIFO is full) but
	// offers this engine that same task next, so the prefetched weights
	// stay for it.
	b.dropLoad = b.idle.And(pre.Not())
	lactive.SetNext(hdl.Mux(b.dropLoad, hdl.U(1, 0), hdl.Mux(b.lstart.Or(b.pstart), hdl.U(1, 1), hdl.Mux(lend, hdl.U(1, 0), lactive))))
	lrow.SetNext(hdl.Mux(lactive.And(lend.Not()), lrow.Add(hdl.U(1, 1)).Trunc(lrow.Width()), hdl.U(lrow.Width(), 0)))
	// Taking a prefetched task keeps lbase (its pass 1, or its pass 0 if
	// the prefetch still runs) and counts pass 0 once its last row is in.
	b.takeFresh = accept.And(pre.Not())
	// The next pass's rows follow R rows on, modulo the buffer (R itself
	// does not fit ww bits when weight_depth = rows).
	lbase.SetNext(hdl.Mux(b.takeFresh.Or(b.pstart), b.tAux, lbase.Add(hdl.U(ww, uint64(R)&(1<<uint(ww)-1))).Trunc(ww)))
	lbase.SetEnable(b.takeFresh.Or(b.pstart).Or(lend))
	preDone := lend.Or(lactive.Not()) // the prefetched pass is (now) complete
	lcount.SetNext(hdl.Mux(accept, hdl.Mux(pre.And(preDone), hdl.U(24, 1), hdl.U(24, 0)), lcount.Add(hdl.U(1, 1)).Trunc(24)))
	lcount.SetEnable(accept.Or(lend))
	pre.SetNext(hdl.Mux(b.pstart, hdl.U(1, 1), hdl.Mux(accept, hdl.U(1, 0), pre)))
	b.ldV.SetNext(lactive)
	b.ldR.SetNext(lrow)
	wbAddr := lbase.Add(lrow.Ext(ww)).Trunc(ww)
	m.Output("wb_addr", hdl.UInt(ww)).Set(wbAddr)
	b.loaded = b.ldV.And(b.ldR.Eq(b.lastRow)) // the last row is presented this cycle
}

// streamer issues a pass's slots, one per cycle: a state read of the
// input vector, or a zero vector for a padding position.
func (b *neBuilder) streamer() {
	m, R, aw, dim, sw, pw := b.m, b.R, b.aw, b.dim, b.sw, b.pw
	run, accept, fresh, first := b.run, b.accept, b.fresh, b.first
	ix, iy, ox, oy, kx, ky, ct, chan_ := b.ix, b.iy, b.ox, b.oy, b.kx, b.ky, b.ct, b.chan_
	scount, rowAddr, tcount := b.scount, b.rowAddr, b.tcount
	sH := b.H.Ext(sw).AsSInt()
	sW := b.W.Ext(sw).AsSInt()
	sStride := b.stride.Ext(sw).AsSInt()

	pad := iy.Lt(hdl.S(sw, 0)).Or(iy.Ge(sH)).Or(ix.Lt(hdl.S(sw, 0))).Or(ix.Ge(sW))
	want := run.And(fresh.Not()).And(scount.Lt(b.passes)).And(first.Not().Or(b.wr))
	b.peValid = want.And(pad.Not())
	issue := want.And(pad.Or(b.peReady))
	b.issue = issue
	addr := rowAddr.Add(ix.Resize(aw).AsUInt()).Trunc(aw)
	m.Output("pe_valid", hdl.Bool).Set(b.peValid)
	m.Output("pe_addr", hdl.UInt(aw)).Set(addr)
	m.Output("pe_mask", hdl.UInt(R)).Set(hdl.U(R, 1<<uint(R)-1))

	rowEnd := ox.Eq(b.OW.Sub(hdl.U(1, 1)).Trunc(dim))
	passEnd := rowEnd.And(oy.Eq(b.OH.Sub(hdl.U(1, 1)).Trunc(dim)))
	advance := issue.And(passEnd) // the pass's last slot issues
	kxEnd := kx.Eq(b.KW.Sub(hdl.U(1, 1)).Trunc(4))
	kyEnd := ky.Eq(b.KH.Sub(hdl.U(1, 1)).Trunc(4))
	nkx := hdl.Mux(kxEnd, hdl.U(4, 0), kx.Add(hdl.U(1, 1)).Trunc(4))
	nky := hdl.Mux(kxEnd, hdl.Mux(kyEnd, hdl.U(4, 0), ky.Add(hdl.U(1, 1)).Trunc(4)), ky)
	ctStep := kxEnd.And(kyEnd)
	nct := hdl.Mux(ctStep, ct.Add(hdl.U(1, 1)).Trunc(16), ct)
	nchan := hdl.Mux(ctStep, chan_.Add(b.hw).Trunc(aw), chan_)
	// Pass setup: from the counters after this pass (advance) or from
	// the first pass's (fresh; the counters were just reset).
	pky := hdl.Mux(fresh, hdl.U(4, 0), nky)
	pkx := hdl.Mux(fresh, hdl.U(4, 0), nkx)
	pchan := hdl.Mux(fresh, b.src, nchan)
	iyStart := pky.Ext(sw).AsSInt().Sub(b.padH.Ext(sw).AsSInt()).Trunc(sw)
	ixStart := pkx.Ext(sw).AsSInt().Sub(b.padW.Ext(sw).AsSInt()).Trunc(sw)
	rowStart := pchan.Add(iyStart.Mul(sW).Resize(aw).AsUInt()).Trunc(aw)
	setup := fresh.Or(advance)

	kx.SetNext(hdl.Mux(accept, hdl.U(4, 0), nkx))
	kx.SetEnable(accept.Or(advance))
	ky.SetNext(hdl.Mux(accept, hdl.U(4, 0), nky))
	ky.SetEnable(accept.Or(advance))
	ct.SetNext(hdl.Mux(accept, hdl.U(16, 0), nct))
	ct.SetEnable(accept.Or(advance))
	chan_.SetNext(hdl.Mux(accept, b.tSrc, nchan))
	chan_.SetEnable(accept.Or(advance))
	scount.SetNext(hdl.Mux(accept, hdl.U(24, 0), scount.Add(hdl.U(1, 1)).Trunc(24)))
	scount.SetEnable(accept.Or(advance))
	fresh.SetNext(accept)
	first.SetNext(hdl.Mux(accept.Or(advance), hdl.U(1, 1), hdl.Mux(issue, hdl.U(1, 0), first)))

	ox.SetNext(hdl.Mux(setup.Or(rowEnd), hdl.U(dim, 0), ox.Add(hdl.U(1, 1)).Trunc(dim)))
	ox.SetEnable(setup.Or(issue))
	oy.SetNext(hdl.Mux(setup, hdl.U(dim, 0), oy.Add(hdl.U(1, 1)).Trunc(dim)))
	oy.SetEnable(setup.Or(issue.And(rowEnd)))
	b.ix0.SetNext(ixStart)
	b.ix0.SetEnable(setup)
	ix.SetNext(hdl.Mux(setup, ixStart, hdl.Mux(rowEnd, b.ix0, ix.Add(sStride).Trunc(sw))))
	ix.SetEnable(setup.Or(issue))
	iy.SetNext(hdl.Mux(setup, iyStart, iy.Add(sStride).Trunc(sw)))
	iy.SetEnable(setup.Or(issue.And(rowEnd)))
	rowAddr.SetNext(hdl.Mux(setup, rowStart, rowAddr.Add(b.rowStep).Trunc(aw)))
	rowAddr.SetEnable(setup.Or(issue.And(rowEnd)))
	tcount.SetNext(hdl.Mux(setup, hdl.U(pw, 0), tcount.Add(hdl.U(1, 1)).Trunc(pw)))
	tcount.SetEnable(setup.Or(issue))

	b.s1Valid.SetNext(issue)
	b.s1Pad.SetNext(pad)
	b.s1Entry.SetNext(b.dst.Add(tcount).Trunc(pw))
	b.s1Acc.SetNext(b.accFlag.Or(scount.OrR()))
	b.s1Swap.SetNext(first)
}

// shadowWeights tracks the shadow weights: consumed by a swap, refilled
// by the loader.
func (b *neBuilder) shadowWeights() {
	swapIssued := b.issue.And(b.first)
	b.wr.SetNext(hdl.Mux(b.dropLoad.Or(swapIssued), hdl.U(1, 0), hdl.Mux(b.loaded, hdl.U(1, 1), b.wr)))
	b.sfree.SetNext(hdl.Mux(b.takeFresh, hdl.U(1, 1), hdl.Mux(b.lstart.Or(b.pstart), hdl.U(1, 0), hdl.Mux(b.s1Valid.And(b.s1Swap), hdl.U(1, 1), b.sfree))))
}
