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

	pl, di, do, xa *hdl.Instance        // planar engine, DMA engines, external-memory arbiter
	np             map[string]*hdl.Expr // the NE's task params
	starts, dones  []*hdl.Expr          // per task-manager engine: a task starts, a task is done
	sp             *sparseEngine        // nil without the sparse engine
}

// modules are the submodules the NPU instantiates (besides the small
// ones built where they are placed).
type modules struct {
	tm, sb, pb, ne, pl *hdl.Module
}

// build wires the NPU part by part, in the order the parts create
// signals and instances (the Verilog declares them in that order).
func (b *top) build() error {
	mods, err := b.modules()
	if err != nil {
		return err
	}
	b.instances(mods)
	// Host command port and status.
	df, err := b.hostFront(mods.tm)
	if err != nil {
		return err
	}
	if err := b.engines(); err != nil {
		return err
	}
	b.dmaTasks()
	b.neTasks()
	b.planarTask()
	b.stateClients()
	b.psumBuffers(mods.pl)
	b.weightBuffers()
	// External memory port through the arbiter.
	b.connectExt(b.xa, b.di, b.do, df)
	b.counters()
	return nil
}

func (b *top) modules() (*modules, error) {
	c := b.c
	var mods modules
	var err error
	if mods.tm, err = taskmgr.Build(c.TaskMgr()); err != nil {
		return nil, err
	}
	if b.lay, err = taskmgr.NewLayout(c.TaskMgr()); err != nil {
		return nil, err
	}
	if mods.sb, err = sram.StateBuffer(c.SRAM().State, c.Macros); err != nil {
		return nil, err
	}
	if mods.pb, err = sram.PsumBuffer(c.SRAM().Psum, c.Macros); err != nil {
		return nil, err
	}
	if mods.ne, err = neController(c); err != nil {
		return nil, err
	}
	if mods.pl, err = planar.Build(c.Planar()); err != nil {
		return nil, err
	}
	return &mods, nil
}

// instances places the blocks: one state buffer, psum buffer, NE and
// weight buffer per engine (named sb, pb, nec, wb with one engine; sb0,
// sb1, ... with more), and one of each other block.
func (b *top) instances(mods *modules) {
	c, m, N := b.c, b.m, b.c.Engines
	whole := c.whole()
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
	b.tm = m.Instance("tm", mods.tm)
	b.sbs = inst("sb", mods.sb)
	b.pbs = inst("pb", mods.pb)
	b.nes = inst("nec", mods.ne)
	b.pl = m.Instance("pl", mods.pl)
	b.wbs = inst("wb", weightBuffer(c))
	b.di = m.Instance("dmai", dmaIn(whole))
	b.do = m.Instance("dmao", dmaOut(whole))
	b.xa = m.Instance("xarb", extArbiter(c))
}

// field is task-manager engine e's descriptor field f, resized to w bits.
func (b *top) field(e, f string, w int) *hdl.Expr { return b.tm.Out(e + "_" + f).Resize(w) }

// param is engine e's param words, the first at the bottom.
func (b *top) param(e string) *hdl.Expr {
	var words []hdl.Value
	for _, f := range b.lay.EngineFields() {
		if f.Name == "param" || (len(f.Name) > 5 && f.Name[:5] == "param") {
			words = append([]hdl.Value{b.tm.Out(e + "_" + f.Name)}, words...)
		}
	}
	return hdl.Cat(words...)
}

// engines joins each engine's dispatch and completion to the task
// manager. With several NEs the dispatcher stands for them as the task
// manager's one "ne" engine.
func (b *top) engines() error {
	c, tm := b.c, b.tm
	b.np = sliceParams(c.NEParams(), b.param("ne"))
	engines := []*hdl.Instance{b.di, b.nes[0], b.pl, b.do}
	names := c.EngineNames()
	b.starts = make([]*hdl.Expr, len(names))
	b.dones = make([]*hdl.Expr, len(names))
	if c.SparseUnits > 0 {
		var err error
		if b.sp, err = b.buildSparse(b.di, b.do, b.field, b.param); err != nil {
			return err
		}
	}
	for e, name := range names {
		if e == int(isa.Sparse) {
			b.starts[e], b.dones[e] = b.sp.start, b.sp.done
			continue
		}
		if e == int(isa.NE) && c.Engines > 1 {
			ready, done := b.dispatchNE(b.np[isa.EngineField])
			tm.Connect(name+"_ready", ready)
			tm.Connect("ne_free", b.neFree())
			tm.Connect(name+"_done", done)
			b.starts[e] = tm.Out(name + "_valid").And(ready)
			b.dones[e] = done
			continue
		}
		en := engines[e]
		en.Connect("t_valid", tm.Out(name+"_valid"))
		tm.Connect(name+"_ready", en.Out("t_ready"))
		tm.Connect(name+"_done", en.Out("done"))
		b.starts[e] = tm.Out(name + "_valid").And(en.Out("t_ready"))
		b.dones[e] = &en.Out("done").Expr
	}
	return nil
}

// dmaTasks gives the DMA engines their task operands: their buffer
// addresses span every slice; their external lines are relative to a
// base pointer with networks. (With the sparse engine t_dst of dma_in
// and t_src of dma_out are wide enough for its LoadAddr and ReadAddr
// operands too.)
func (b *top) dmaTasks() {
	di, do := b.di, b.do
	portWidth := func(in *hdl.Instance, p string) int { return in.Module.Port(p).Type.Width }
	ext := b.basePointers()
	di.Connect("t_op", b.field("dma_in", "op", isa.DMAIn.OpWidth())).Connect("t_src", ext("dma_in", "src", "src_mem")).
		Connect("t_dst", b.field("dma_in", "dst", portWidth(di, "t_dst")))
	do.Connect("t_op", b.field("dma_out", "op", isa.DMAOut.OpWidth())).Connect("t_src", b.field("dma_out", "src", portWidth(do, "t_src"))).
		Connect("t_dst", ext("dma_out", "dst", "dst_mem"))
	for _, d := range []string{"d0", "d1", "d2"} {
		di.Connect("t_"+d, b.field("dma_in", d, 16))
		do.Connect("t_"+d, b.field("dma_out", d, 16))
	}
}

// neTasks gives every NE the task; the addresses are slice-relative.
func (b *top) neTasks() {
	c := b.c
	aw, pw, ww := log2(c.StateDepth), log2(c.PsumDepth), log2(c.WeightDepth)
	for _, ne := range b.nes {
		ne.Connect("t_op", b.field("ne", "op", isa.NE.OpWidth())).Connect("t_src", b.field("ne", "src", aw)).
			Connect("t_aux", b.field("ne", "aux", ww)).Connect("t_dst", b.field("ne", "dst", pw))
		for _, d := range []string{"d0", "d1", "d2"} {
			ne.Connect("t_"+d, b.field("ne", d, 16))
		}
		for _, f := range c.NEParams().Fields {
			if f.Name != isa.EngineField {
				ne.Connect("t_"+f.Name, b.np[f.Name])
			}
		}
	}
}

// planarTask puts the descriptor operands and the packed params onto the
// planar engine's task fields.
func (b *top) planarTask() {
	c := b.c
	pp := sliceParams(c.PlanarParams(), b.param("planar"))
	for _, f := range c.Planar().Fields() {
		var v *hdl.Expr
		if operand := isa.PlanarFieldOperand(f.Name); operand == "param" {
			v = pp[f.Name]
		} else {
			v = b.field("planar", operand, f.Width)
		}
		if f.Signed {
			v = v.AsSInt()
		}
		b.pl.Connect("t_"+f.Name, v)
	}
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
