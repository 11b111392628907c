package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Name is the engine's module name for cfg: every parameter that changes
// the hardware is in it.
func Name(c Config) string {
	return checksTag(src2Tag(featureTag(unitsTag(resetTag(deepTag(lutTag(hdl.Name("planar", fmt.Sprintf("%dx%d", c.Lanes, c.PsumLanes), c.ElemType(), hdl.SInt(c.AccWidth),
		fmt.Sprintf("sc%d", c.ScaleWidth), fmt.Sprintf("d%d", c.StateDepth), fmt.Sprintf("p%d", c.PsumDepth),
		fmt.Sprintf("k%d", c.MaxKernel), fmt.Sprintf("l%d", c.LineDepth)), c), c), c.NoDatapathReset), c), c), c), c)
}

// src2Tag marks the module names of a variant with the second read
// port (the engine's, and the lane's, whose input FIFO carries b).
func src2Tag(name string, c Config) string {
	if c.Src2Port {
		return name + "_s2"
	}
	return name
}

// checksTag marks the module name of a variant without the checks.
func checksTag(name string, c Config) string {
	if c.NoChecks {
		return name + "_nc"
	}
	return name
}

// deepTag marks the module name of a variant with deep_pipeline.
func deepTag(name string, c Config) string {
	if c.DeepPipeline {
		return name + "_dp"
	}
	return name
}

// resetTag marks the module name of a variant without datapath reset.
func resetTag(name string, noReset bool) string {
	if noReset {
		return name + "_nr"
	}
	return name
}

// Build validates cfg and builds the planar engine (ports, timing and
// formulas in the package documentation).
func Build(c Config) (*hdl.Module, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("planar: %w", err)
	}
	return build(c), nil
}

// States of the controller.
const (
	stIdle  = 0
	stCheck = 1
	stRun   = 2
	stPre   = 3 // deep_pipeline: the checks' products, before CHECK
	stJudge = 4 // deep_pipeline: the registered check result, after CHECK
)

// The controller: task register, checks, the read address generator,
// the plane walker (the rasterizer) and the writer. Everything is shared
// by the lanes, which work in lockstep on one element index.
func build(c Config) *hdl.Module {
	cb := newCtl(c)
	// The parts in the order they create signals (the Verilog declares
	// them in that order).
	cb.taskPort()
	cb.passInit()
	cb.counts()
	cb.checks()
	cb.outputSide()
	cb.reader()
	cb.inputFIFO()
	cb.walker()
	cb.s2Align()
	cb.validBits()
	cb.postControl()
	cb.outputFIFO()
	cb.completion()
	cb.lanes()
	return cb.m
}

// ctl holds the controller being built and the signals its parts share.
type ctl struct {
	c               Config
	m               *hdl.Module
	L, C, E         int
	aw, pwid, dw    int
	cw              int // counts: at most 2·depth reads
	lbw             int // line-buffer addresses
	one             *hdl.Expr
	opW, fnW, postW int

	// the task register and its decode
	st                                             *hdl.Signal
	stw                                            int
	idle, checking, running, accept                *hdl.Expr
	q                                              map[string]*hdl.Signal
	tMask                                          *hdl.Signal // the mask input (the first pass is chosen from it)
	op                                             *hdl.Signal
	isNop, isAct, isWB, isElt, isPool, isRed, isLP *hdl.Expr
	eltOp, redOp                                   *hdl.Expr // the op decodes; isElt and isRed are 0 without the feature
	isLT, lutOn                                    *hdl.Expr // with the table: loadtable, and the lut flag of an operation with a post-processor
	psumOp                                         *hdl.Expr
	two                                            *hdl.Expr // Task.twoTensors
	inter                                          *hdl.Expr // two, read a and b in turn on plr (0 with Src2Port)
	bcast                                          *hdl.Expr // Task.broadcasts: src2 read once, first
	isRow                                          *hdl.Expr // a reduction across rows
	walkOp                                         *hdl.Expr // the plane walker runs: pooling or isRow

	// passes (passes.go): U post units, G = L/U passes
	U, G                int
	pass                *hdl.Signal // the pass (G > 1)
	lastPass            *hdl.Expr   // the last pass, or a nop (G > 1)
	firstPass, nextPass *hdl.Expr   // the task's first pass (from t_mask), the pass after this one
	gmask               *hdl.Expr   // the pass's mask: the task's, restricted to the pass's partitions

	// counts and checks
	n                *hdl.Signal // H·W
	nLP, nLT         *hdl.Expr   // a loadparams and a loadtable task's reads
	nIn, nOut, nPool *hdl.Expr   // reads, writes, pooling outputs
	chkBad, errCode  *hdl.Signal
	nInR, nOutR      *hdl.Signal

	// output side, reader and input FIFO
	ocount, adv         *hdl.Signal
	fcount, pop         *hdl.Signal
	plrRvalid, rdRvalid *hdl.Signal
	fWe                 *hdl.Expr
	fri                 *hdl.Signal

	// S1: the consumer and the plane walker
	consDone, y, px, ox *hdl.Signal
	fire, ck, phase     *hdl.Signal
	vrow, lastPop       *hdl.Expr
	wKW                 *hdl.Expr
	hOut, rowOut, walk  *hdl.Expr
	// S2
	oxS2                             *hdl.Expr
	s2v, s2ox, s2fill, s2virt, s2out *hdl.Signal
	lbWe                             *hdl.Expr
	fwd                              *hdl.Signal

	// valid bits, the post function and the output FIFO
	vv      *hdl.Signal
	postCtl []postCtlPort
	oWe     *hdl.Expr
	ori, wk *hdl.Signal
}

// postCtlPort is one of the post function's strobes to the lanes.
type postCtlPort struct {
	port string
	v    *hdl.Expr
}

func newCtl(c Config) *ctl {
	cb := &ctl{c: c, m: hdl.NewModule(Name(c)), L: c.Lanes, C: c.PsumLanes, E: c.ElemWidth}
	cb.aw, cb.pwid, cb.dw = c.AddrWidth(), c.PsumAddrWidth(), c.DimWidth()
	cb.cw = c.SrcWidth() + 2
	cb.lbw = hdl.ClogWidth(c.LineDepth)
	cb.one = hdl.U(1, 1)
	cb.opW, cb.fnW, cb.postW = isaplanar.OpWidth(), isaplanar.FnWidth(), isaplanar.PostWidth()
	return cb
}

// stIs says the controller is in state s.
func (cb *ctl) stIs(s uint64) *hdl.Expr { return cb.st.Eq(hdl.U(cb.stw, s)) }

// taskPort builds the task port, the state register and the task
// register, and decodes the task.
func (cb *ctl) taskPort() {
	c, m := cb.c, cb.m
	tValid := m.Input("t_valid", hdl.Bool)
	q := map[string]*hdl.Signal{}
	cb.stw = 2
	if c.checkStages() > 0 {
		cb.stw = 3
	}
	cb.st = m.Reg("state", hdl.UInt(cb.stw), stIdle)
	cb.idle, cb.checking, cb.running = cb.stIs(stIdle), cb.stIs(stCheck), cb.stIs(stRun)
	cb.accept = tValid.And(cb.idle)
	for _, f := range c.Fields() {
		ft := fieldType(f)
		in := m.Input("t_"+f.Name, ft)
		if f.Name == "mask" {
			cb.tMask = in
		}
		r := m.Reg("q_"+f.Name, ft, 0)
		r.SetNext(in)
		r.SetEnable(cb.accept)
		q[f.Name] = r
	}
	cb.q = q
	m.Output("t_ready", hdl.Bool).Set(cb.idle)
	m.Output("busy", hdl.Bool).Set(cb.idle.Not())

	op := q["op"]
	cb.op = op
	is := func(o isaplanar.Op) *hdl.Expr { return op.Eq(hdl.U(cb.opW, uint64(o))) }
	cb.isNop, cb.isAct, cb.isWB, cb.isElt, cb.isPool, cb.isRed, cb.isLP = is(isaplanar.OpNop), is(isaplanar.OpAct), is(isaplanar.OpWriteBack), is(isaplanar.OpEltwise), is(isaplanar.OpPool), is(isaplanar.OpReduce), is(isaplanar.OpLoadParams)
	cb.psumOp = cb.isAct.Or(cb.isWB)
	// Without eltwise or reductions their tasks are refused (featureBad,
	// from the raw decodes): to the rest of the engine the op never
	// runs, so the logic only it uses is constant and goes.
	cb.eltOp, cb.redOp = cb.isElt, cb.isRed
	if c.NoEltwise {
		cb.isElt = hdl.U(1, 0)
	}
	if c.NoReduce {
		cb.isRed = hdl.U(1, 0)
	}
	binary := cb.isElt.And(q["scalar_operand"].Not()).And(fnIn(q["fn"], isaplanar.UnaryFns()).Not())
	cb.two = binary.And(q["broadcast"].Not())
	cb.inter = hdl.U(1, 0) // with the second port a and b arrive together
	if c.interleaved() {
		cb.inter = cb.two
	}
	cb.bcast = binary.And(q["broadcast"])
	// A reduction across rows walks the plane like a 1×1 pooling with
	// one output row at the last input row, each column's running sum
	// (or max) in the line buffer.
	cb.isRow = cb.isRed.And(q["fn"].Bit(1))
	cb.walkOp = cb.isPool.Or(cb.isRow)
	if c.LUT {
		cb.isLT = is(isaplanar.OpLoadTable)
		cb.lutOn = q["lut"].And(cb.isAct.Or(cb.isElt).Or(cb.isPool).Or(cb.isRed))
	}
}

// outputSide declares the output FIFO's count and adv first: adv gates
// every stage. adv is set with the post function's hold (postControl).
func (cb *ctl) outputSide() {
	cb.ocount = cb.m.Reg("ocount", hdl.UInt(2), 0)
	cb.adv = cb.m.Wire("adv", hdl.Bool)
}

// completion sequences the states and gives the done pulse. With
// passes, the end of a pass but the last goes back to the checks (PRE
// with deep_pipeline), which clear the counters for the next pass.
func (cb *ctl) completion() {
	c, m, stw := cb.c, cb.m, cb.stw
	st, idle, checking, accept := cb.st, cb.idle, cb.checking, cb.accept
	finish := cb.running.And(cb.consDone).And(cb.wk.Eq(cb.nOutR))
	done := m.Reg("done_r", hdl.Bool, 0)
	end, again := finish, hdl.U(1, 0) // the task ends; another pass begins
	if cb.G > 1 {
		// An address is complete once the last pass has written it: a
		// consumer's progress counts only those writes.
		m.Output("last_pass", hdl.Bool).Set(cb.running.And(cb.lastPass))
		end, again = finish.And(cb.lastPass), finish.And(cb.lastPass.Not())
		cb.pass.SetNext(hdl.Mux(idle, cb.firstPass, cb.nextPass))
		cb.pass.SetEnable(accept.Or(again))
	}
	if c.checkStages() == 0 {
		next := hdl.Mux(checking.And(cb.chkBad.Not()), hdl.U(2, stRun), hdl.U(2, stIdle))
		if cb.G > 1 {
			next = hdl.Mux(checking.And(cb.chkBad.Not()), hdl.U(2, stRun), hdl.Mux(again, hdl.U(2, stCheck), hdl.U(2, stIdle)))
		}
		st.SetNext(hdl.Mux(idle, hdl.U(2, stCheck), next))
		st.SetEnable(accept.Or(checking).Or(finish))
		done.SetNext(checking.And(cb.chkBad).Or(end))
	} else {
		// PRE, CHECK (into err_code_r), then JUDGE on the registered code.
		pre, judge, errBad := cb.stIs(stPre), cb.stIs(stJudge), cb.errCode.OrR()
		last := hdl.U(stw, stIdle)
		if cb.G > 1 {
			last = hdl.Mux(again, hdl.U(stw, stPre), hdl.U(stw, stIdle))
		}
		st.SetNext(hdl.Mux(idle, hdl.U(stw, stPre), hdl.Mux(pre, hdl.U(stw, stCheck), hdl.Mux(checking, hdl.U(stw, stJudge),
			hdl.Mux(judge.And(errBad.Not()), hdl.U(stw, stRun), last)))))
		st.SetEnable(accept.Or(pre).Or(checking).Or(judge).Or(finish))
		done.SetNext(judge.And(errBad).Or(end))
	}
	m.Output("done", hdl.Bool).Set(done)
}

// lanes places the lanes (one per post unit) and their line buffers
// and drives them. With passes, lane u takes partition g·U+u's element
// in pass g and drives that partition's write data.
func (cb *ctl) lanes() {
	c, m, q := cb.c, cb.m, cb.q
	U, E, cw, dw, lbw := cb.U, cb.E, cb.cw, cb.dw, cb.lbw
	isWB, isRed, isElt, isAct, isPool, isRow := cb.isWB, cb.isRed, cb.isElt, cb.isAct, cb.isPool, cb.isRow
	fire, inter, bcast, ck, adv, lbWe := cb.fire, cb.inter, cb.bcast, cb.ck, cb.adv, cb.lbWe
	mask, W := q["mask"], q["w"]
	isWBn := isWB.Not()
	xSel := hdl.Mux(isPool, hdl.U(2, 3), hdl.Mux(isRed, hdl.U(2, 2), hdl.Mux(isElt, hdl.U(2, 1), hdl.U(2, 0))))
	lm, lbm := lane(c), lineBuffer(c)
	rs, rp, rs2 := cb.laneInputs()
	var insts []*hdl.Instance
	for p := range U {
		ln := m.Instance(fmt.Sprintf("lane_%d", p), lm)
		insts = append(insts, ln)
		ln.Connect("rs", rs(p))
		ln.Connect("rp", rp(p))
		if c.Src2Port {
			ln.Connect("rs2", rs2(p))
		}
		ln.Connect("in_psum", cb.psumOp).Connect("f_we", cb.fWe).Connect("f_ri", cb.fri)
		if c.hasFnPort() {
			ln.Connect("fn", q["fn"])
		}
		if !c.NoEltwise {
			ln.Connect("elt_hold", fire.And(inter.And(cb.phase.Not()).Or(bcast.And(ck.OrR().Not())))).
				Connect("elt_scalar", q["scalar_operand"]).Connect("elt_bcast", bcast).Connect("scalar", q["scalar"])
		}
		if !c.NoReduce {
			ln.Connect("red_en", fire.And(isRed).And(isRow.Not())).Connect("red_first", ck.Eq(hdl.U(cw, 0))).Connect("red_max", q["fn"].Bit(0)).
				Connect("red_rows", isRow)
		}
		if cb.G == 1 {
			ln.Connect("lp_en", fire.And(cb.isLP).And(mask.Bit(p)))
		}
		ln.Connect("h_en", cb.walk.And(cb.vrow.Not())).Connect("h_fill", cb.px.Eq(hdl.U(dw+1, 0))).Connect("h_virt", cb.px.Ge(W)).
			Connect("pad_edge", q["pad_edge"]).Connect("pad_ignore", q["pad_ignore"]).Connect("avg", q["fn"].Bit(0)).Connect("kw", cb.wKW).Connect("kh", q["kh"])
		lb := m.Instance(fmt.Sprintf("lb_%d", p), lbm).Connect("raddr", cb.oxS2.Resize(lbw)).Connect("ren", adv).
			Connect("waddr", cb.s2ox.Resize(lbw)).Connect("we", lbWe).Connect("wdata", ln.Out("lb_wdata"))
		ln.Connect("v_fill", cb.s2fill).Connect("v_virt", cb.s2virt).Connect("lb_q", lb.Out("q")).
			Connect("lb_we", lbWe).Connect("lb_fwd", cb.fwd)
		ln.Connect("x_sel", xSel).Connect("adv", adv)
		ln.Connect("per_lane", isAct.And(q["per_lane"])).
			Connect("scale", hdl.Mux(isWB, hdl.S(c.ScaleWidth, 1), q["scale"])).
			Connect("bias", hdl.Mux(isWB, hdl.S(c.AccWidth, 0), q["bias"])).
			Connect("shift", hdl.Mux(isWB, hdl.U(c.ShiftWidth(), 0), q["shift"])).
			Connect("round_even", q["round_even"]).Connect("relu", q["relu"].And(isWBn)).Connect("clamp", q["clamp"].And(isWBn)).
			Connect("wrap", q["wrap"].And(isWBn)).Connect("lo", q["lo"]).Connect("hi", q["hi"])
		for _, pc := range cb.postCtl {
			ln.Connect(pc.port, pc.v)
		}
		ln.Connect("o_we", cb.oWe).Connect("o_ri", cb.ori)
		if cb.G == 1 {
			m.Output(fmt.Sprintf("plw_wdata_%d", p), hdl.UInt(E)).Set(ln.Out("wdata"))
		}
	}
	if cb.G > 1 {
		// Every partition of the pass's group takes its lane's result;
		// the write mask leaves the others alone.
		for p := range cb.L {
			m.Output(fmt.Sprintf("plw_wdata_%d", p), hdl.UInt(E)).Set(insts[p%U].Out("wdata"))
		}
		cb.paramRegs(insts)
	}
	if c.LUT {
		cb.lutControl(insts)
	}
}

// laneInputs gives lane p's state and psum inputs (and, with Src2Port,
// its state input from the second port). With one pass the ports are
// declared as the lanes are placed (lane p's own partition); with passes
// all of them first, each lane choosing its partition of the pass.
func (cb *ctl) laneInputs() (rs, rp, rs2 func(p int) hdl.Value) {
	c, m, C, E := cb.c, cb.m, cb.C, cb.E
	psumIn := func(p int) hdl.Value {
		if p < C {
			return m.Input(fmt.Sprintf("rd_data_%d", p), hdl.SInt(c.AccWidth))
		}
		return hdl.S(c.AccWidth, 0)
	}
	stateIn := func(p int) hdl.Value { return m.Input(fmt.Sprintf("plr_rdata_%d", p), hdl.UInt(E)) }
	state2In := func(p int) hdl.Value { return m.Input(fmt.Sprintf("plr2_rdata_%d", p), hdl.UInt(E)) }
	if cb.G == 1 {
		return stateIn, psumIn, state2In
	}
	st, ps, st2 := make([]hdl.Value, cb.L), make([]hdl.Value, cb.L), make([]hdl.Value, cb.L)
	for p := range cb.L {
		st[p] = stateIn(p)
	}
	for p := range cb.L {
		ps[p] = psumIn(p)
	}
	if c.Src2Port {
		for p := range cb.L {
			st2[p] = state2In(p)
		}
	}
	return func(p int) hdl.Value { return cb.byPass(p, st) }, func(p int) hdl.Value { return cb.byPass(p, ps) },
		func(p int) hdl.Value { return cb.byPass(p, st2) }
}

// fnIn is fn ∈ codes: the decode of a function attribute (such as
// unary) from the function table.
func fnIn(fn *hdl.Signal, codes []isaplanar.Fn) *hdl.Expr {
	in := hdl.U(1, 0)
	for i, c := range codes {
		eq := fn.Eq(hdl.U(fn.Width(), uint64(c)))
		if i == 0 {
			in = eq
			continue
		}
		in = in.Or(eq)
	}
	return in
}

// fieldType is the type of a descriptor field's port.
func fieldType(f isaplanar.FieldDef) hdl.Type { return hdl.Type{Width: f.Width, Signed: f.Signed} }
