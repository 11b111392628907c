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
	b := newNEBuilder(c, sc)
	// The parts in the order they create signals (the Verilog declares
	// them in that order).
	b.ports()
	b.task()
	b.streamerState()
	b.loaderState()
	b.slotStage()
	b.loader()
	b.streamer()
	b.shadowWeights()
	b.transpose()
	b.array(arr)
	b.drain()
	b.phases()
	return b.m, nil
}

// neBuilder holds the NE module being built and the signals its parts
// share.
type neBuilder struct {
	c  Config
	sc systolic.Config
	m  *hdl.Module

	R, C, E    int
	aw, pw, ww int // state, psum and weight address widths
	dim        int // output-plane sizes and counters
	sw         int // signed input coordinates: oy·stride + ky − pad
	kw         int // kernel sizes and kx, ky
	opW        int

	// task port
	tValid, tOp, tSrc, tAux, tDst                   *hdl.Signal
	tD                                              [3]*hdl.Signal
	tKH, tKW, tStride, tPadH, tPadW, tOH, tOW, tAcc *hdl.Signal
	// buffer read ports: state (pe, wl) and weight buffer
	peReady, wlReady *hdl.Signal
	peData, wlData   []*hdl.Signal
	wbData           *hdl.Signal

	phase, oldActive    *hdl.Signal
	idle, takes, accept *hdl.Expr
	run                 *hdl.Expr
	lastRow             *hdl.Expr

	// the task, latched on acceptance, and its constants
	op, src, dst, H, W, CT, KH, KW, stride, padH, padW, OH, OW, accFlag *hdl.Signal
	hw, rowStep, passes                                                 *hdl.Signal

	// streamer state
	scount, first, fresh, kx, ky, ct, chan_ *hdl.Signal
	ox, oy, ix, iy, ix0, rowAddr, tcount    *hdl.Signal
	// loader state
	wr, sfree, lactive, lrow, lbase, lcount, ldV, ldR *hdl.Signal
	// slot stage
	s1Valid, s1Pad, s1Entry, s1Acc, s1Swap *hdl.Signal

	// from the loader
	lstart, pstart, dropLoad, takeFresh, loaded *hdl.Expr
	// from the streamer
	peValid, issue *hdl.Expr
	// from the transpose
	wlValid, fillDone, tload, tloadDone, trStart, nrows *hdl.Expr
	trow                                                *hdl.Signal
	grid                                                [][]*hdl.Signal
	// from the array and the drain
	trGo, overlapTake, oldLast, inFlight *hdl.Expr
	pending, outV                        *hdl.Signal
}

func newNEBuilder(c Config, sc systolic.Config) *neBuilder {
	b := &neBuilder{c: c, sc: sc, R: c.Rows, C: c.Cols, E: c.ElemWidth}
	b.aw, b.pw, b.ww = log2(c.StateDepth), log2(c.PsumDepth), log2(c.WeightDepth)
	b.dim = c.neDimWidth()
	b.sw = max(b.dim+6, 18)
	b.lastRow = hdl.U(hdl.ClogWidth(b.R), uint64(b.R-1))
	b.m = hdl.NewModule(hdl.Name("npu_ne", fmt.Sprintf("%dx%d", b.R, b.C), fmt.Sprintf("e%da%d", b.E, c.AccWidth),
		fmt.Sprintf("s%dp%dw%d", c.StateDepth, c.PsumDepth, c.WeightDepth)))
	return b
}

// is says the phase is p.
func (b *neBuilder) is(p int) *hdl.Expr { return b.phase.Eq(hdl.U(3, uint64(p))) }

// ports declares the task port and the buffer read ports.
func (b *neBuilder) ports() {
	c, m, aw, dim := b.c, b.m, b.aw, b.dim
	b.tValid = m.Input("t_valid", hdl.Bool)
	b.opW = isa.NE.OpWidth()
	b.tOp = m.Input("t_op", hdl.UInt(b.opW))
	b.tSrc = m.Input("t_src", hdl.UInt(aw))
	b.tAux = m.Input("t_aux", hdl.UInt(b.ww))
	b.tDst = m.Input("t_dst", hdl.UInt(b.pw))
	b.tD = [3]*hdl.Signal{m.Input("t_d0", hdl.UInt(16)), m.Input("t_d1", hdl.UInt(16)), m.Input("t_d2", hdl.UInt(16))}
	b.kw = c.neParamWidth("kh")
	b.tKH, b.tKW = m.Input("t_kh", hdl.UInt(b.kw)), m.Input("t_kw", hdl.UInt(c.neParamWidth("kw")))
	b.tStride = m.Input("t_stride", hdl.UInt(c.neParamWidth("stride")))
	b.tPadH, b.tPadW = m.Input("t_pad_h", hdl.UInt(c.neParamWidth("pad_h"))), m.Input("t_pad_w", hdl.UInt(c.neParamWidth("pad_w")))
	b.tOH, b.tOW = m.Input("t_oh", hdl.UInt(dim)), m.Input("t_ow", hdl.UInt(dim))
	b.tAcc = m.Input("t_acc", hdl.Bool)

	b.peReady = m.Input("pe_ready", hdl.Bool)
	b.wlReady = m.Input("wl_ready", hdl.Bool)
	b.peData = make([]*hdl.Signal, b.R)
	b.wlData = make([]*hdl.Signal, b.R)
	for p := range b.R {
		b.peData[p] = m.Input(fmt.Sprintf("pe_rdata_%d", p), hdl.UInt(b.E))
		b.wlData[p] = m.Input(fmt.Sprintf("wl_rdata_%d", p), hdl.UInt(b.E))
	}
	b.wbData = m.Input("wb_rdata", hdl.UInt(b.C*b.E))
}

// task builds the phase register, task acceptance and the task registers
// with the task's constants.
func (b *neBuilder) task() {
	m, aw := b.m, b.aw
	b.phase = m.Reg("phase", hdl.UInt(3), phIdle)
	b.idle = b.is(phIdle)
	b.run = b.is(phRun)
	// A new task is taken when idle, or while the previous one drains
	// (its vectors are all in the array; the array is a fixed-latency
	// pipe, so they leave before any of the new task's): the next task's
	// weights load and its stream starts behind them. oldActive tracks
	// the draining task so its done pulse comes when its last vector
	// leaves.
	b.oldActive = m.Reg("old_active", hdl.Bool, 0)
	b.takes = b.idle.Or(b.is(phDrain).And(b.oldActive.Not()))
	b.accept = b.tValid.And(b.takes)

	// Task registers, loaded on acceptance.
	latch := func(name string, in *hdl.Signal) *hdl.Signal {
		r := m.Reg(name, in.Type, 0)
		r.SetNext(in)
		r.SetEnable(b.accept)
		return r
	}
	b.op = latch("op", b.tOp)
	b.src = latch("src", b.tSrc)
	b.dst = latch("dst", b.tDst)
	b.H, b.W, b.CT = latch("h", b.tD[0]), latch("w", b.tD[1]), latch("ct", b.tD[2])
	b.KH, b.KW = latch("kh", b.tKH), latch("kw", b.tKW)
	b.stride = latch("stride", b.tStride)
	b.padH, b.padW = latch("pad_h", b.tPadH), latch("pad_w", b.tPadW)
	b.OH, b.OW = latch("oh", b.tOH), latch("ow", b.tOW)
	b.accFlag = latch("acc", b.tAcc)

	// Constants of the task.
	b.hw = m.Wire("plane", hdl.UInt(aw))
	b.hw.Set(b.H.Mul(b.W).Trunc(aw))
	b.rowStep = m.Wire("row_step", hdl.UInt(aw)) // stride·W: the address step between output rows
	b.rowStep.Set(b.stride.Mul(b.W).Resize(aw))
	// The pass count is registered: its two multiplies were the NE's
	// longest path into the phase logic. Every reader waits for fresh to
	// fall, by which time the register holds the latched task's count.
	b.passes = m.Reg("passes", hdl.UInt(24), 0)
	empty := b.OH.OrR().Not().Or(b.OW.OrR().Not())
	b.passes.SetNext(hdl.Mux(empty, hdl.U(24, 0), b.CT.Mul(b.KH).Mul(b.KW)))
}

// array connects the PE array: the slot stage and the loaded weights in
// (or, for a transpose, the grid's rows and the stream command), results
// and counters out.
func (b *neBuilder) array(arr *hdl.Module) {
	m, R, C, E, sc := b.m, b.R, b.C, b.E, b.sc
	a := m.Instance("array", arr)
	a.Connect("in_valid", b.s1Valid).Connect("in_entry", b.s1Entry).Connect("in_acc", b.s1Acc).Connect("in_swap", b.s1Swap)
	for r := range R {
		a.Connect(fmt.Sprintf("in_x_%d", r), hdl.Mux(b.s1Pad, hdl.U(E, 0), b.peData[r]).AsSInt())
	}
	trLastW := max(1, hdl.ClogWidth(R))
	a.Connect("tr_start", b.trStart).Connect("tr_last", b.nrows.Sub(hdl.U(1, 1)).Resize(trLastW)).Connect("tr_entry", b.dst)
	a.Connect("ld_valid", b.ldV.Or(b.tload))
	a.Connect("ld_row", hdl.Mux(b.tload, b.trow, b.ldR))
	for cc := range C {
		w := b.wbData.Slice(cc*E+E-1, cc*E)
		col := make([]hdl.Value, R)
		for r := range R {
			col[r] = b.grid[r][cc]
		}
		g := hdl.Pick(b.trow, col, b.grid[0][cc])
		a.Connect(fmt.Sprintf("ld_w_%d", cc), hdl.Mux(b.tload, g, w).AsSInt())
	}
	b.trGo = b.trStart.And(a.Out("tr_ready"))

	m.Output("out_valid", hdl.Bool).Set(a.Out("out_valid"))
	m.Output("out_entry", hdl.UInt(b.pw)).Set(a.Out("out_entry"))
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
	b.outV = a.Out("out_valid")
}

// drain counts the vectors inside the array: done waits until they have
// all left, and a task taken while its predecessor drains tracks that
// predecessor's vectors still to leave.
func (b *neBuilder) drain() {
	m, outV := b.m, b.outV
	b.pending = m.Reg("pending", hdl.UInt(16), 0)
	inc := hdl.Mux(b.trGo, b.nrows, hdl.Mux(b.s1Valid, hdl.U(16, 1), hdl.U(16, 0)))
	b.pending.SetNext(b.pending.Add(inc).Sub(outV).Trunc(16))
	// The draining task's vectors still to leave when the next task is
	// taken (the one entering this cycle included).
	b.inFlight = b.pending.Add(b.s1Valid).Sub(outV).Trunc(16)
	oldLeft := m.Reg("old_left", hdl.UInt(16), 0)
	b.overlapTake = b.accept.And(b.is(phDrain))
	b.oldLast = b.oldActive.And(outV).And(oldLeft.Eq(hdl.U(16, 1)))
	oldLeft.SetNext(hdl.Mux(b.overlapTake, b.inFlight, oldLeft.Sub(outV).Trunc(16)))
	oldLeft.SetEnable(b.overlapTake.Or(b.oldActive))
	b.oldActive.SetNext(hdl.Mux(b.overlapTake, b.inFlight.OrR(), hdl.Mux(b.oldLast, hdl.U(1, 0), b.oldActive)))
}

// phases sequences the phase register and gives the done pulse and the
// status outputs.
func (b *neBuilder) phases() {
	m, opW, run, accept := b.m, b.opW, b.run, b.accept
	isConv := b.op.Eq(hdl.U(opW, uint64(isa.NEGEMM))).Or(b.op.Eq(hdl.U(opW, uint64(isa.NEConv))))
	isTr := b.op.Eq(hdl.U(opW, uint64(isa.NETranspose)))
	streamed := b.scount.Ge(b.passes).And(b.fresh.Not())
	trEmpty := b.H.OrR().Not().Or(b.W.OrR().Not())
	drained := b.is(phDrain).And(b.pending.OrR().Not()).And(b.s1Valid.Not()).And(b.oldActive.Not())
	// The phase after acceptance is decided from the latched op in the
	// next cycle (phRun), so every op takes the same path in.
	next := hdl.Mux(accept, hdl.U(3, phRun),
		hdl.Mux(run.And(isConv.Not()).And(isTr), hdl.Mux(trEmpty, hdl.U(3, phDrain), hdl.U(3, phFill)),
			hdl.Mux(run.And(isConv.Not().And(isTr.Not()).Or(streamed)), hdl.U(3, phDrain),
				hdl.Mux(b.fillDone, hdl.U(3, phGap),
					hdl.Mux(b.is(phGap), hdl.U(3, phLoad),
						hdl.Mux(b.tloadDone, hdl.U(3, phStart),
							hdl.Mux(b.trGo, hdl.U(3, phDrain),
								hdl.Mux(drained, hdl.U(3, phIdle), b.phase))))))))
	b.phase.SetNext(next)

	// Done: the draining task's last vector left (oldLast), or this
	// task drained. drained waits for !oldActive, so the two never fall
	// in one cycle; a task taken in the cycle its predecessor drained
	// leaves that done to drained.
	// Taken in the very cycle the draining task's last vector leaves
	// (pending 1, out_valid 1): nothing stays in flight, drained is not
	// yet true, so the done is given here.
	leftNow := b.overlapTake.And(b.inFlight.OrR().Not()).And(drained.Not())
	done := m.Reg("done_r", hdl.Bool, 0)
	done.SetNext(drained.Or(b.oldLast).Or(leftNow))
	m.Output("t_ready", hdl.Bool).Set(b.takes)
	m.Output("busy", hdl.Bool).Set(b.idle.Not())
	m.Output("done", hdl.Bool).Set(done)
	m.Output("stall", hdl.Bool).Set(b.peValid.And(b.peReady.Not()).Or(b.wlValid.And(b.wlReady.Not())))
}
