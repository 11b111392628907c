package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// EngineNames are the task manager's dense engines, in engine-code order:
// the prefixes of the per-engine ports every NPU has. Config.EngineNames
// adds "sparse" when the NPU has the sparse engine.
var EngineNames = func() []string {
	var n []string
	for _, e := range isa.Engines[:isa.DenseEngines] {
		n = append(n, e.Name)
	}
	return n
}()

// Build returns the NPU for c (ports in doc.go).
func Build(c Config) (*hdl.Module, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("npu: %w", err)
	}
	b := &top{c: c, m: hdl.NewModule(c.Name())}
	if err := b.build(); err != nil {
		return nil, fmt.Errorf("npu: %w", err)
	}
	return b.m, nil
}

type top struct {
	c   Config
	m   *hdl.Module
	tm  *hdl.Instance
	lay *taskmgr.Layout

	sbs, pbs, nes, wbs []*hdl.Instance      // per engine: state buffer, psum buffer, NE, weight buffer
	routedReady        map[string]*hdl.Expr // several engines: a routed client's ready (plr, plw, rd)
	neValid            []*hdl.Expr          // several engines: each NE's t_valid
}

func (b *top) build() error {
	c, m := b.c, b.m
	R, C, N := c.Rows, c.Cols, c.Engines
	aw, pw, ww := log2(c.StateDepth), log2(c.PsumDepth), log2(c.WeightDepth)
	sl := c.SliceBits() // the shared blocks' addresses are aw+sl, pw+sl, ww+sl bits wide
	whole := c.whole()

	tmMod, err := taskmgr.Build(c.TaskMgr())
	if err != nil {
		return err
	}
	if b.lay, err = taskmgr.NewLayout(c.TaskMgr()); err != nil {
		return err
	}
	sbMod, err := sram.StateBuffer(c.SRAM().State, c.Macros)
	if err != nil {
		return err
	}
	pbMod, err := sram.PsumBuffer(c.SRAM().Psum, c.Macros)
	if err != nil {
		return err
	}
	neMod, err := neController(c)
	if err != nil {
		return err
	}
	plMod, err := planar.Build(c.Planar())
	if err != nil {
		return err
	}

	// One state buffer, psum buffer, NE and weight buffer per engine
	// (named sb, pb, nec, wb with one engine; sb0, sb1, ... with more).
	inst := func(name string, mod *hdl.Module) []*hdl.Instance {
		if N == 1 {
			return []*hdl.Instance{m.Instance(name, mod)}
		}
		out := make([]*hdl.Instance, N)
		for i := range out {
			out[i] = m.Instance(fmt.Sprintf("%s%d", name, i), mod)
		}
		return out
	}
	tm := m.Instance("tm", tmMod)
	b.tm = tm
	sbs := inst("sb", sbMod)
	pbs := inst("pb", pbMod)
	nes := inst("nec", neMod)
	pl := m.Instance("pl", plMod)
	wbs := inst("wb", weightBuffer(c))
	di := m.Instance("dmai", dmaIn(whole))
	do := m.Instance("dmao", dmaOut(whole))
	xa := m.Instance("xarb", extArbiter(c))
	b.sbs, b.pbs, b.nes, b.wbs = sbs, pbs, nes, wbs

	// Host command port and status.
	df, err := b.hostFront(tmMod)
	if err != nil {
		return err
	}

	field := func(e, f string, w int) *hdl.Expr { return tm.Out(e + "_" + f).Resize(w) }
	param := func(e string) *hdl.Expr {
		var words []hdl.Value
		for _, f := range b.lay.EngineFields() {
			if f.Name == "param" || (len(f.Name) > 5 && f.Name[:5] == "param") {
				words = append([]hdl.Value{tm.Out(e + "_" + f.Name)}, words...)
			}
		}
		return hdl.Cat(words...)
	}
	np := sliceParams(c.NEParams(), param("ne"))

	// Engines: dispatch and completion. With several NEs the dispatcher
	// stands for them as the task manager's one "ne" engine.
	engines := []*hdl.Instance{di, nes[0], pl, do}
	names := c.EngineNames()
	starts := make([]*hdl.Expr, len(names))
	dones := make([]*hdl.Expr, len(names))
	var sp *sparseEngine
	if c.SparseUnits > 0 {
		if sp, err = b.buildSparse(di, do, field, param); err != nil {
			return err
		}
	}
	for e, name := range names {
		if e == int(isa.Sparse) {
			starts[e], dones[e] = sp.start, sp.done
			continue
		}
		if e == int(isa.NE) && N > 1 {
			ready, done := b.dispatchNE(np[isa.EngineField])
			tm.Connect(name+"_ready", ready)
			tm.Connect("ne_free", b.neFree())
			tm.Connect(name+"_done", done)
			starts[e] = tm.Out(name + "_valid").And(ready)
			dones[e] = done
			continue
		}
		en := engines[e]
		en.Connect("t_valid", tm.Out(name+"_valid"))
		tm.Connect(name+"_ready", en.Out("t_ready"))
		tm.Connect(name+"_done", en.Out("done"))
		starts[e] = tm.Out(name + "_valid").And(en.Out("t_ready"))
		dones[e] = &en.Out("done").Expr
	}

	// DMA engines: their buffer addresses span every slice; their
	// external lines are relative to a base pointer with networks.
	// (With the sparse engine t_dst of dma_in and t_src of dma_out are
	// wide enough for its LoadAddr and ReadAddr operands too.)
	portWidth := func(in *hdl.Instance, p string) int { return in.Module.Port(p).Type.Width }
	ext := b.basePointers()
	di.Connect("t_op", field("dma_in", "op", isa.DMAIn.OpWidth())).Connect("t_src", ext("dma_in", "src", "src_mem")).
		Connect("t_dst", field("dma_in", "dst", portWidth(di, "t_dst")))
	do.Connect("t_op", field("dma_out", "op", isa.DMAOut.OpWidth())).Connect("t_src", field("dma_out", "src", portWidth(do, "t_src"))).
		Connect("t_dst", ext("dma_out", "dst", "dst_mem"))
	for _, d := range []string{"d0", "d1", "d2"} {
		di.Connect("t_"+d, field("dma_in", d, 16))
		do.Connect("t_"+d, field("dma_out", d, 16))
	}

	// NEs: every one sees the task; the addresses are slice-relative.
	for _, ne := range nes {
		ne.Connect("t_op", field("ne", "op", isa.NE.OpWidth())).Connect("t_src", field("ne", "src", aw)).
			Connect("t_aux", field("ne", "aux", ww)).Connect("t_dst", field("ne", "dst", pw))
		for _, d := range []string{"d0", "d1", "d2"} {
			ne.Connect("t_"+d, field("ne", d, 16))
		}
		for _, f := range c.NEParams().Fields {
			if f.Name != isa.EngineField {
				ne.Connect("t_"+f.Name, np[f.Name])
			}
		}
	}

	// Planar engine: descriptor operands and packed params onto its fields.
	pp := sliceParams(c.PlanarParams(), param("planar"))
	for _, f := range c.Planar().Fields() {
		var v *hdl.Expr
		if operand := isa.PlanarFieldOperand(f.Name); operand == "param" {
			v = pp[f.Name]
		} else {
			v = field("planar", operand, f.Width)
		}
		if f.Signed {
			v = v.AsSInt()
		}
		pl.Connect("t_"+f.Name, v)
	}

	// State buffer clients: each NE reads its own slice; the DMA engines
	// and the planar engine reach every slice through the routers.
	// held (nil: never) keeps a read from the buffer: partial outputs.
	read := func(sb *hdl.Instance, client string, en *hdl.Instance, prefix string, held func(addr *hdl.Expr) *hdl.Expr) {
		valid, ready := &en.Out(prefix+"_valid").Expr, &sb.Out(client+"_ready").Expr
		if held != nil {
			pass := held(&en.Out(prefix + "_addr").Expr).Not()
			valid, ready = valid.And(pass), ready.And(pass)
		}
		sb.Connect(client+"_valid", valid).Connect(client+"_addr", en.Out(prefix+"_addr")).
			Connect(client+"_mask", en.Out(prefix+"_mask"))
		en.Connect(prefix+"_ready", ready)
		if en.Module.Port(prefix+"_rvalid") != nil {
			en.Connect(prefix+"_rvalid", sb.Out(client+"_rvalid"))
		}
		for p := range R {
			en.Connect(fmt.Sprintf("%s_rdata_%d", prefix, p), sb.Out(fmt.Sprintf("%s_rdata_%d", client, p)))
		}
	}
	write := func(sb *hdl.Instance, client string, en *hdl.Instance, prefix string) {
		sb.Connect(client+"_valid", en.Out(prefix+"_valid")).Connect(client+"_addr", en.Out(prefix+"_addr")).
			Connect(client+"_mask", en.Out(prefix+"_mask"))
		en.Connect(prefix+"_ready", sb.Out(client+"_ready"))
		for p := range R {
			sb.Connect(fmt.Sprintf("%s_wdata_%d", client, p), en.Out(fmt.Sprintf("%s_wdata_%d", prefix, p)))
		}
	}
	var neHeld, storeHeld func(*hdl.Expr) *hdl.Expr
	if c.PartialGating { // one engine (Validate)
		prods := []*progress{
			b.trackProducer("dma_in", starts[isa.DMAIn], dones[isa.DMAIn], &di.Out("sw_valid").Expr, &sbs[0].Out("dmaw_ready").Expr, &di.Out("sw_addr").Expr),
			b.trackProducer("planar", starts[isa.Planar], dones[isa.Planar], &pl.Out("plw_valid").Expr, &sbs[0].Out("plw_ready").Expr, &pl.Out("plw_addr").Expr),
		}
		neGate, storeGate := b.latchGate("ne", starts[isa.NE]), b.latchGate("dma_out", starts[isa.DMAOut])
		neHeld = func(a *hdl.Expr) *hdl.Expr { return neGate.held(a, prods) }
		storeHeld = func(a *hdl.Expr) *hdl.Expr { return storeGate.held(a, prods) }
	}
	for i, ne := range nes {
		read(sbs[i], "pe", ne, "pe", neHeld)
		read(sbs[i], "wl", ne, "wl", neHeld)
	}
	if N == 1 {
		read(sbs[0], "dmar", do, "sr", storeHeld)
		read(sbs[0], "plr", pl, "plr", nil)
		write(sbs[0], "dmaw", di, "sw")
		write(sbs[0], "plw", pl, "plw")
	} else {
		b.routeState("dmar", do, "sr", false)
		b.routeState("plr", pl, "plr", false)
		b.routeState("dmaw", di, "sw", true)
		b.routeState("plw", pl, "plw", true)
	}

	// Psum buffers: each array writes its own, the planar engine reads
	// them all; no clears.
	var overrunNow *hdl.Expr
	for i, ne := range nes {
		pb := pbs[i]
		pb.Connect("wr_valid", ne.Out("out_valid")).Connect("wr_addr", ne.Out("out_entry")).
			Connect("wr_acc", ne.Out("out_acc")).Connect("wr_mask", hdl.U(C, 1<<uint(C)-1))
		for k := range C {
			pb.Connect(fmt.Sprintf("wr_data_%d", k), ne.Out(fmt.Sprintf("out_psum_%d", k)))
		}
		pb.Connect("clr_valid", hdl.U(1, 0)).Connect("clr_base", hdl.U(pw, 0)).Connect("clr_count", hdl.U(pw+1, 0))
		o := ne.Out("out_valid").And(pb.Out("wr_ready").Not())
		if overrunNow == nil {
			overrunNow = o
		} else {
			overrunNow = overrunNow.Or(o)
		}
	}
	if N == 1 {
		pb := pbs[0]
		for k := range C {
			pl.Connect(fmt.Sprintf("rd_data_%d", k), pb.Out(fmt.Sprintf("rd_data_%d", k)))
		}
		pb.Connect("rd_valid", pl.Out("rd_valid")).Connect("rd_addr", pl.Out("rd_addr")).Connect("rd_mask", pl.Out("rd_mask"))
		pl.Connect("rd_ready", pb.Out("rd_ready")).Connect("rd_rvalid", pb.Out("rd_rvalid"))
	} else {
		b.routePsum(pl)
	}
	for k := C; k < R; k++ { // planar lanes without a psum partition
		if plMod.Port(fmt.Sprintf("rd_data_%d", k)) != nil {
			pl.Connect(fmt.Sprintf("rd_data_%d", k), hdl.S(c.AccWidth, 0))
		}
	}
	// The array cannot stall: a write the buffer refuses would be lost.
	// Write priority makes that impossible; this sticky flag proves it
	// in every simulation.
	overrun := m.Reg("psum_overrun_r", hdl.Bool, 0)
	overrun.SetNext(hdl.U(1, 1))
	overrun.SetEnable(overrunNow)
	m.Output("psum_overrun", hdl.Bool).Set(overrun)

	// Weight buffers: dma_in writes the slice its row's high bits name.
	for i, wb := range wbs {
		if N == 1 {
			wb.Connect("wr_valid", di.Out("ww_valid")).Connect("wr_addr", di.Out("ww_addr"))
		} else {
			hit := di.Out("ww_addr").Slice(ww+sl-1, ww).Eq(hdl.U(sl, uint64(i)))
			wb.Connect("wr_valid", di.Out("ww_valid").And(hit)).Connect("wr_addr", di.Out("ww_addr").Slice(ww-1, 0))
		}
		wb.Connect("wr_data", di.Out("ww_data"))
		wb.Connect("rd_addr", nes[i].Out("wb_addr"))
		nes[i].Connect("wb_rdata", wb.Out("rd_data"))
	}

	// External memory port through the arbiter.
	b.connectExt(xa, di, do, df)

	// Performance counters and the timeline ports.
	cw := c.CounterWidth
	count := func(name string, en *hdl.Expr) {
		r := m.Reg(name+"_r", hdl.UInt(cw), 0)
		r.SetNext(r.Add(hdl.U(1, 1)).Trunc(cw))
		r.SetEnable(en)
		m.Output(name, hdl.UInt(cw)).Set(r)
	}
	var planarStall *hdl.Expr
	if N == 1 {
		planarStall = pl.Out("plr_valid").And(sbs[0].Out("plr_ready").Not()).
			Or(pl.Out("plw_valid").And(sbs[0].Out("plw_ready").Not())).
			Or(pl.Out("rd_valid").And(pbs[0].Out("rd_ready").Not()))
	} else {
		planarStall = pl.Out("plr_valid").And(b.routedReady["plr"].Not()).
			Or(pl.Out("plw_valid").And(b.routedReady["plw"].Not())).
			Or(pl.Out("rd_valid").And(b.routedReady["rd"].Not()))
	}
	neStall := &nes[0].Out("stall").Expr
	for _, ne := range nes[1:] {
		neStall = neStall.Or(ne.Out("stall"))
	}
	stalls := []*hdl.Expr{&di.Out("stall").Expr, neStall, planarStall, &do.Out("stall").Expr}
	if sp != nil {
		stalls = append(stalls, sp.stall)
	}
	for e, name := range names {
		count(name+"_busy_cycles", &tm.Out(name+"_busy").Expr)
		count(name+"_stall_cycles", b.late(name+"_stall", stalls[e]))
		m.Output(name+"_completed", tm.Out(name+"_completed").Type).Set(tm.Out(name + "_completed"))
		m.Output(name+"_start", hdl.Bool).Set(starts[e])
		m.Output(name+"_start_id", tm.Out(name+"_id").Type).Set(tm.Out(name + "_id"))
		m.Output(name+"_start_queue", tm.Out(name+"_queue").Type).Set(tm.Out(name + "_queue"))
		m.Output(name+"_done", hdl.Bool).Set(dones[e])
	}
	if N == 1 {
		m.Output("mac_count", hdl.UInt(cw)).Set(nes[0].Out("mac_count"))
		m.Output("skip_count", hdl.UInt(cw)).Set(nes[0].Out("skip_count"))
	} else {
		b.engineCounters(count)
	}
	m.Output("planar_err_code", pl.Out("err_code").Type).Set(pl.Out("err_code"))
	return nil
}

// late registers a stall before it is counted. A stall is a request
// meeting a ready that an arbiter in another block decides in the same
// cycle; counted directly, the counter's enable would hang off a
// combinational path through three blocks (the requester, the
// arbiter, the requester again: hdl.Passages). The count still
// completes before the engine is idle: a stall is always followed by the
// cycle its request is accepted.
func (b *top) late(name string, stall *hdl.Expr) *hdl.Expr {
	r := b.m.Reg(name+"_q", hdl.Bool, 0)
	r.SetNext(stall)
	return &r.Expr
}

// connectExt joins dma_in's reads and dma_out's writes onto the
// external-memory port through the arbiter xa.
func (b *top) connectExt(xa, di, do, df *hdl.Instance) {
	m, lw := b.m, b.c.LineWidth()
	if df == nil {
		xa.Connect("xr_valid", di.Out("xr_valid")).Connect("xr_addr", di.Out("xr_addr"))
		di.Connect("xr_ready", xa.Out("xr_ready")).Connect("xr_rvalid", xa.Out("xr_rvalid")).Connect("xr_rdata", xa.Out("xr_rdata"))
	} else {
		// Two readers: dma_in and the descriptor fetch share the read client.
		rm := m.Instance("xrmux", extReadMux(b.c))
		rm.Connect("ar_valid", di.Out("xr_valid")).Connect("ar_addr", di.Out("xr_addr"))
		di.Connect("xr_ready", rm.Out("ar_ready")).Connect("xr_rvalid", rm.Out("ar_rvalid")).Connect("xr_rdata", rm.Out("ar_rdata"))
		rm.Connect("dr_valid", df.Out("x_valid")).Connect("dr_addr", df.Out("x_addr"))
		df.Connect("x_ready", rm.Out("dr_ready")).Connect("x_rvalid", rm.Out("dr_rvalid")).Connect("x_rdata", rm.Out("dr_rdata"))
		xa.Connect("xr_valid", rm.Out("xr_valid")).Connect("xr_addr", rm.Out("xr_addr"))
		rm.Connect("xr_ready", xa.Out("xr_ready")).Connect("xr_rvalid", xa.Out("xr_rvalid")).Connect("xr_rdata", xa.Out("xr_rdata"))
	}
	xa.Connect("xw_valid", do.Out("xw_valid")).Connect("xw_addr", do.Out("xw_addr")).Connect("xw_data", do.Out("xw_data"))
	do.Connect("xw_ready", xa.Out("xw_ready"))
	for _, p := range []string{"x_req_valid", "x_req_write", "x_req_addr", "x_req_wdata"} {
		m.Output(p, xa.Out(p).Type).Set(xa.Out(p))
	}
	xa.Connect("x_req_ready", m.Input("x_req_ready", hdl.Bool))
	xa.Connect("x_resp_valid", m.Input("x_resp_valid", hdl.Bool))
	xa.Connect("x_resp_data", m.Input("x_resp_data", hdl.UInt(lw)))
}
