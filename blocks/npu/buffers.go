package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// stateClients joins the state buffers' clients: each NE reads its own
// slice; the DMA engines and the planar engine reach every slice through
// the routers.
func (b *top) stateClients() {
	c, R := b.c, b.c.Rows
	sbs, di, do, pl := b.sbs, b.di, b.do, b.pl
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
			b.trackProducer("dma_in", b.starts[isa.DMAIn], b.dones[isa.DMAIn], &di.Out("sw_valid").Expr, &sbs[0].Out("dmaw_ready").Expr, &di.Out("sw_addr").Expr),
			b.trackProducer("planar", b.starts[isa.Planar], b.dones[isa.Planar], planarWrites(c, pl), &sbs[0].Out("plw_ready").Expr, &pl.Out("plw_addr").Expr),
		}
		neGate, storeGate := b.latchGate("ne", b.starts[isa.NE]), b.latchGate("dma_out", b.starts[isa.DMAOut])
		neHeld = func(a *hdl.Expr) *hdl.Expr { return neGate.held(a, prods) }
		storeHeld = func(a *hdl.Expr) *hdl.Expr { return storeGate.held(a, prods) }
	}
	for i, ne := range b.nes {
		read(sbs[i], "pe", ne, "pe", neHeld)
		read(sbs[i], "wl", ne, "wl", neHeld)
	}
	if c.Engines == 1 {
		read(sbs[0], "dmar", do, "sr", storeHeld)
		read(sbs[0], "plr", pl, "plr", nil)
		if c.PlanarReadPort {
			planarSecondRead(sbs[0], pl, R)
		}
		write(sbs[0], "dmaw", di, "sw")
		write(sbs[0], "plw", pl, "plw")
	} else {
		b.routeState("dmar", do, "sr", false)
		b.routeState("plr", pl, "plr", false)
		b.routeState("dmaw", di, "sw", true)
		b.routeState("plw", pl, "plw", true)
	}
}

// planarSecondRead joins the planar engine's second read port to the
// state buffer's plr2 client: the engine asks for b with a's plr read
// and holds it with it, and nobody else uses the port, so the request is
// taken in every cycle and, in the cycle plr's is accepted, its response
// comes with plr's (the buffer's ready and rvalid of plr2 are not
// needed).
func planarSecondRead(sb, pl *hdl.Instance, R int) {
	sb.Connect("plr2_valid", pl.Out("plr2_valid")).Connect("plr2_addr", pl.Out("plr2_addr")).Connect("plr2_mask", pl.Out("plr2_mask"))
	for p := range R {
		pl.Connect(fmt.Sprintf("plr2_rdata_%d", p), sb.Out(fmt.Sprintf("plr2_rdata_%d", p)))
	}
}

// psumBuffers joins the psum buffers: each array writes its own, the
// planar engine (plMod) reads them all; no clears.
func (b *top) psumBuffers(plMod *hdl.Module) {
	c, m, pl := b.c, b.m, b.pl
	R, C, pw := c.Rows, c.Cols, log2(c.PsumDepth)
	var overrunNow *hdl.Expr
	for i, ne := range b.nes {
		pb := b.pbs[i]
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
	if c.Engines == 1 {
		pb := b.pbs[0]
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
}

// weightBuffers joins the weight buffers: dma_in writes the slice its
// row's high bits name, each NE reads its own.
func (b *top) weightBuffers() {
	c, di := b.c, b.di
	ww, sl := log2(c.WeightDepth), c.SliceBits()
	for i, wb := range b.wbs {
		if c.Engines == 1 {
			wb.Connect("wr_valid", di.Out("ww_valid")).Connect("wr_addr", di.Out("ww_addr"))
		} else {
			hit := di.Out("ww_addr").Slice(ww+sl-1, ww).Eq(hdl.U(sl, uint64(i)))
			wb.Connect("wr_valid", di.Out("ww_valid").And(hit)).Connect("wr_addr", di.Out("ww_addr").Slice(ww-1, 0))
		}
		wb.Connect("wr_data", di.Out("ww_data"))
		wb.Connect("rd_addr", b.nes[i].Out("wb_addr"))
		b.nes[i].Connect("wb_rdata", wb.Out("rd_data"))
	}
}

// planarWrites is the planar engine's state writes as partial-output
// gating counts them: with passes (planar_lanes below rows) only the
// last pass's, after which every partition of the address is written.
func planarWrites(c Config, pl *hdl.Instance) *hdl.Expr {
	if c.Planar().Passes() > 1 {
		return pl.Out("plw_valid").And(pl.Out("last_pass"))
	}
	return &pl.Out("plw_valid").Expr
}
