package planar

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// Depth of the lane's output FIFO: it is only full while the write port
// stalls. The input FIFO's is Config.inDepth.
const outDepth = 2

// laneName is the lane module's name: every parameter that shapes it.
func laneName(c Config) string {
	sign := "u"
	if c.ElemSigned {
		sign = "s"
	}
	name := src2Tag(featureTag(resetTag(deepTag(lutTag(hdl.Name("planar_lane", fmt.Sprintf("%s%d", sign, c.ElemWidth), fmt.Sprintf("a%d", c.AccWidth),
		fmt.Sprintf("sc%d", c.ScaleWidth), fmt.Sprintf("d%d", c.StateDepth), fmt.Sprintf("k%d", c.MaxKernel)), c), c), c.NoDatapathReset), c), c)
	if c.Passes() > 1 {
		return name + "_xp" // the parameters are the controller's (per partition)
	}
	return name
}

// lane is one partition's datapath; the controller drives every select
// and enable, so all lanes work in lockstep on the same element index.
//
// Pipeline (each stage a register, all enabled by adv so a full output
// FIFO freezes everything behind it):
//
//	input FIFO → S1 (eltwise, reduce, horizontal pool filter, param shift)
//	           → [Hreg → S2 vertical pool filter over the line buffer]
//	           → X → P = X·scale → V = P + bias → R = floor(V / 2^shift), round up?
//	           → +1, ReLU, clamp, saturate (or wrap) → [L: the lookup table] → output FIFO
//
// deep_pipeline adds registers on the way (Config's *Stages methods
// count them): each window's tree one level per cycle, the eltwise
// operands and result, a reduction's sum, the gain's two halves before
// P, the increment and then the saturation before the clamp; the scale,
// bias and rounding masks are registered task constants.
func lane(c Config) *hdl.Module {
	ln := newLaneBuilder(c)
	// The stages in the order they create signals (the Verilog declares
	// them in that order).
	ln.ports()
	ln.inputFIFO()
	ln.eltwise()
	ln.params()
	ln.horizontal()
	ln.vertical()
	ln.reduction()
	ln.exact()
	ln.gain()
	ln.postFunction()
	ln.round()
	ln.lookup()
	ln.outputFIFO()
	return ln.m
}

// laneBuilder holds the lane module being built and the values its
// stages hand on.
type laneBuilder struct {
	c              Config
	m              *hdl.Module
	E, A, K        int
	ew, iw, hw, pw int
	xw, vw         int
	et             hdl.Type
	p              lanePorts

	head, e       *hdl.Signal // the input FIFO's head, as an extended element
	e2            *hdl.Signal // with Src2Port: b, beside the head
	elt           *hdl.Expr   // the eltwise result (nil without eltwise)
	pScale, pBias *hdl.Expr   // the per-lane parameters
	poolMin       *hdl.Expr   // min pooling (else max; nil without min pooling)
	hreg          *hdl.Signal // the horizontal window's value
	word          *hdl.Expr   // the line-buffer word S2 reads
	parts         []hdl.Value // the line-buffer word's new rows, most significant first
	newWord       *hdl.Signal
	vres          *hdl.Expr   // the vertical window's value
	accNext       *hdl.Signal // the reduction's next value (nil without reductions)
	x             *hdl.Signal // X
	vr            *hdl.Signal // V
	u             *hdl.Signal // V through the post function
	y             *hdl.Signal // the lane's result
}

// lanePorts are the lane's inputs: the buffers' data and the
// controller's selects and enables.
type lanePorts struct {
	rs, rp, inPsum, fWe, fRi                                          *hdl.Signal
	rs2                                                               *hdl.Signal // with Src2Port: b from the second port
	eltHold, fn, eltScalar, eltBcast, scalar                          *hdl.Signal
	redEn, redFirst, redMax, redRows, lpEn                            *hdl.Signal
	hEn, hFill, hVirt, padEdge, padIgnore, avg, kw, kh                *hdl.Signal
	vFill, vVirt, lbWe, lbFwd, xSel, adv                              *hdl.Signal
	perLane, scale, bias, shift, roundEven, relu, clamp, wrap, lo, hi *hdl.Signal
	post                                                              postUnitCtl
	postOn, oWe, oRi                                                  *hdl.Signal
	lutOn, lutQ                                                       *hdl.Signal // with the table: the lut flag, the lane's entry (L)
	lpScale, lpBias                                                   *hdl.Signal // with passes: the partition's parameters, from the controller
}

func newLaneBuilder(c Config) *laneBuilder {
	ln := &laneBuilder{c: c, m: hdl.NewModule(laneName(c)), E: c.ElemWidth, A: c.AccWidth, K: c.MaxKernel, et: c.ElemType()}
	ln.ew, ln.iw, ln.hw, ln.pw = c.ExtWidth(), c.InWidth(), c.windowWidth(c.HsumWidth()), c.windowWidth(c.PoolWidth())
	ln.xw, ln.vw = c.XWidth(), c.VWidth()
	return ln
}

// data is a register no valid output reads before writing.
func (ln *laneBuilder) data(name string, t hdl.Type) *hdl.Signal {
	return ln.m.DataReg(name, t, !ln.c.NoDatapathReset)
}

// ext is element bits as SInt(E+1).
func (ln *laneBuilder) ext(bits *hdl.Expr) *hdl.Expr {
	if ln.c.ElemSigned {
		return bits.AsSInt().Ext(ln.ew)
	}
	return bits.Ext(ln.ew).AsSInt()
}

func (ln *laneBuilder) ports() {
	c, m, E, A := ln.c, ln.m, ln.E, ln.A
	p := &ln.p
	p.rs = m.Input("rs", hdl.UInt(E))
	p.rp = m.Input("rp", hdl.SInt(A))
	if c.Src2Port {
		p.rs2 = m.Input("rs2", hdl.UInt(E))
	}
	p.inPsum = m.Input("in_psum", hdl.Bool)
	p.fWe = m.Input("f_we", hdl.UInt(c.inDepth()))
	p.fRi = m.Input("f_ri", hdl.UInt(hdl.ClogWidth(c.inDepth())))

	// The ports of the optional features only with them (hasFnPort,
	// NoEltwise, NoReduce, hasPostUnit): the controller drives none of
	// their logic without them.
	if !c.NoEltwise {
		p.eltHold = m.Input("elt_hold", hdl.Bool)
	}
	if c.hasFnPort() {
		p.fn = m.Input("fn", hdl.UInt(isaplanar.FnWidth()))
	}
	if !c.NoEltwise {
		p.eltScalar = m.Input("elt_scalar", hdl.Bool)
		p.eltBcast = m.Input("elt_bcast", hdl.Bool)
		p.scalar = m.Input("scalar", hdl.UInt(E))
	}
	if !c.NoReduce {
		p.redEn = m.Input("red_en", hdl.Bool)
		p.redFirst = m.Input("red_first", hdl.Bool)
		p.redMax = m.Input("red_max", hdl.Bool)
		p.redRows = m.Input("red_rows", hdl.Bool)
	}
	if c.Passes() == 1 {
		p.lpEn = m.Input("lp_en", hdl.Bool)
	}
	p.hEn = m.Input("h_en", hdl.Bool)
	p.hFill = m.Input("h_fill", hdl.Bool)
	p.hVirt = m.Input("h_virt", hdl.Bool)
	p.padEdge = m.Input("pad_edge", hdl.Bool)
	p.padIgnore = m.Input("pad_ignore", hdl.Bool)
	p.avg = m.Input("avg", hdl.Bool)
	p.kw = m.Input("kw", hdl.UInt(c.KWidth()))
	p.kh = m.Input("kh", hdl.UInt(c.KWidth()))
	p.vFill = m.Input("v_fill", hdl.Bool)
	p.vVirt = m.Input("v_virt", hdl.Bool)
	p.lbWe = m.Input("lb_we", hdl.Bool)
	p.lbFwd = m.Input("lb_fwd", hdl.Bool)
	p.xSel = m.Input("x_sel", hdl.UInt(2))
	p.adv = m.Input("adv", hdl.Bool)
	p.perLane = m.Input("per_lane", hdl.Bool)
	p.scale = m.Input("scale", hdl.SInt(c.ScaleWidth))
	p.bias = m.Input("bias", hdl.SInt(A))
	p.shift = m.Input("shift", hdl.UInt(c.ShiftWidth()))
	p.roundEven = m.Input("round_even", hdl.Bool)
	p.relu = m.Input("relu", hdl.Bool)
	p.clamp = m.Input("clamp", hdl.Bool)
	p.wrap = m.Input("wrap", hdl.Bool)
	p.lo = m.Input("lo", hdl.UInt(E))
	p.hi = m.Input("hi", hdl.UInt(E))
	if c.hasPostUnit() {
		p.post = postUnitCtl{load: m.Input("post_load", hdl.Bool), step: m.Input("post_step", hdl.Bool),
			first: m.Input("post_first", hdl.Bool), fix: m.Input("post_fix", hdl.Bool), sqrt: m.Input("post_sqrt", hdl.Bool)}
		p.postOn = m.Input("post_on", hdl.Bool)
	}
	p.oWe = m.Input("o_we", hdl.UInt(outDepth))
	p.oRi = m.Input("o_ri", hdl.Bool)
	if c.LUT {
		p.lutOn = m.Input("lut_on", hdl.Bool)
		p.lutQ = m.Input("lut_q", hdl.UInt(E))
	}
	if c.Passes() > 1 {
		p.lpScale = m.Input("lp_scale", hdl.SInt(c.ScaleWidth))
		p.lpBias = m.Input("lp_bias", hdl.SInt(A))
	}
}

// inputFIFO: responses land here one cycle after the request.
func (ln *laneBuilder) inputFIFO() {
	c, m, p, iw, ew := ln.c, ln.m, &ln.p, ln.iw, ln.ew
	in := hdl.Mux(p.inPsum, p.rp.Ext(iw), ln.ext(&p.rs.Expr).Ext(iw))
	h := ln.fifoHead("fifo", hdl.SInt(iw), in)
	head := m.Wire("head", hdl.SInt(iw))
	head.Set(h)
	e := m.Wire("e", hdl.SInt(ew))
	e.Set(head.Trunc(ew))
	ln.head, ln.e = head, e
	if c.Src2Port {
		// b's element beside each entry: written with a's, read with it.
		h2 := ln.fifoHead("fifo_b", hdl.SInt(ew), ln.ext(&p.rs2.Expr))
		e2 := m.Wire("e_b", hdl.SInt(ew))
		e2.Set(h2)
		ln.e2 = e2
	}
}

// fifoHead builds the input FIFO's entries of one word (name_0, name_1,
// ...), written from in by the controller's write enables, and returns
// the entry its read index names.
func (ln *laneBuilder) fifoHead(name string, t hdl.Type, in *hdl.Expr) *hdl.Expr {
	p := &ln.p
	fe := make([]hdl.Value, ln.c.inDepth())
	for i := range fe {
		r := ln.data(fmt.Sprintf("%s_%d", name, i), t)
		r.SetNext(in)
		r.SetEnable(p.fWe.Bit(i))
		fe[i] = r
	}
	if len(fe) == 2 {
		return hdl.Mux(p.fRi, fe[1], fe[0])
	}
	return hdl.Pick(p.fRi, fe, fe[0])
}

// outputFIFO holds the lane's results while the write port stalls.
func (ln *laneBuilder) outputFIFO() {
	m, p, E := ln.m, &ln.p, ln.E
	res := &ln.y.Expr
	if ln.c.LUT {
		res = hdl.Mux(p.lutOn, p.lutQ, ln.y) // L: the entry, a stage after y
	}
	var oe [outDepth]*hdl.Signal
	for i := range oe {
		oe[i] = ln.data(fmt.Sprintf("out_%d", i), hdl.UInt(E))
		oe[i].SetNext(res)
		oe[i].SetEnable(p.oWe.Bit(i))
	}
	m.Output("wdata", hdl.UInt(E)).Set(hdl.Mux(p.oRi, oe[1], oe[0]))
}

// lineWidth is a line-buffer word: MaxKernel-1 horizontal results, or
// a column's running sum for a reduction across rows (wider only for
// deep state buffers and small windows; not without reductions).
func lineWidth(c Config) int {
	w := (c.MaxKernel - 1) * c.windowWidth(c.HsumWidth())
	if c.NoReduce {
		return w
	}
	return max(w, c.RedWidth())
}

// lineBuffer is one lane's line buffer: LineDepth words, one write and
// one read port, the read held while en is 0 (a stalled pipeline keeps
// its word). It is a module of its own, beside the lane, so it can be
// replaced by an SRAM macro and stays a small leaf for the tools.
func lineBuffer(c Config) *hdl.Module {
	ww, aw := lineWidth(c), hdl.ClogWidth(c.LineDepth)
	m := hdl.NewModule(hdl.Name("planar_linebuf", fmt.Sprintf("%dx%d", c.LineDepth, ww)))
	raddr := m.Input("raddr", hdl.UInt(aw))
	ren := m.Input("ren", hdl.Bool)
	waddr := m.Input("waddr", hdl.UInt(aw))
	wdata := m.Input("wdata", hdl.UInt(ww))
	we := m.Input("we", hdl.Bool)
	lb := m.Memory("ram", c.LineDepth, hdl.UInt(ww))
	lb.Write(waddr, wdata, we)
	m.Output("q", hdl.UInt(ww)).Set(lb.ReadEnabled("q_r", raddr, ren))
	return m
}

// stage is v registered, enabled by adv.
func stage(reg func(string, hdl.Type) *hdl.Signal, adv *hdl.Signal, name string, v *hdl.Expr) *hdl.Expr {
	r := reg(name, v.Type)
	r.SetNext(v)
	r.SetEnable(adv)
	return &r.Expr
}

func minOf(t hdl.Type) int64 {
	if t.Signed {
		return -(1 << uint(t.Width-1))
	}
	return 0
}

func maxOf(t hdl.Type) int64 {
	if t.Signed {
		return 1<<uint(t.Width-1) - 1
	}
	return 1<<uint(t.Width) - 1
}
