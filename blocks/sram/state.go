package sram

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// StateReadClients are the read clients of the state buffer in their
// initial round-robin order; each is a port-name prefix.
var StateReadClients = []string{"pe", "wl", "dmar", "plr"}

// StateWriteClients are the write clients of the state buffer.
var StateWriteClients = []string{"dmaw", "plw"}

// form names the memory form in module names.
func form(macros bool) string {
	if macros {
		return "macro"
	}
	return "arr"
}

// StateBuffer builds the banked state buffer for c (see the package
// documentation for its ports and timing). With macros each bank's array
// is an SRAM macro instance.
func StateBuffer(c StateConfig, macros bool) (*hdl.Module, error) {
	if err := check.All(c.Validate(), c.CheckMacros("state", macros)); err != nil {
		return nil, fmt.Errorf("sram: state buffer: %w", err)
	}
	P, E := c.Partitions, c.ElemWidth
	aw := hdl.ClogWidth(c.Depth)
	size := fmt.Sprintf("%dx%dx%d", P, c.Depth, E)
	if c.DMAReadPort {
		size += "_dr" // the DMA's own read port
	}
	if c.PlanarReadPort {
		size += "_pr" // the planar engine's own read port
	}
	m := hdl.NewModule(hdl.Name("state_buffer", size, form(macros)))
	nw := len(StateWriteClients)

	// up is a registered "not in reset": low from the second reset cycle
	// through the first cycle after reset, so no request is accepted (and
	// no bank written) while the design is being reset.
	up := m.Reg("up", hdl.Bool, 0)
	up.SetNext(hdl.U(1, 1))

	type client struct {
		valid, addr, mask *hdl.Signal
		data              []*hdl.Signal // write clients
		gnt               *hdl.Signal   // granted lanes, from the arbiter
	}
	declare := func(name string, write bool) *client {
		cl := &client{
			valid: m.Input(name+"_valid", hdl.Bool),
			addr:  m.Input(name+"_addr", hdl.UInt(aw)),
			mask:  m.Input(name+"_mask", hdl.UInt(P)),
		}
		if write {
			for p := range P {
				cl.data = append(cl.data, m.Input(fmt.Sprintf("%s_wdata_%d", name, p), hdl.UInt(E)))
			}
		}
		return cl
	}
	arbitrate := func(inst string, cls []*client, names []string) {
		a := m.Instance(inst, arbiter(len(cls), P)).Connect("en", up)
		for i, cl := range cls {
			a.Connect(fmt.Sprintf("valid_%d", i), cl.valid).Connect(fmt.Sprintf("mask_%d", i), cl.mask)
			m.Output(names[i]+"_ready", hdl.Bool).Set(a.Out(fmt.Sprintf("ready_%d", i)))
			cl.gnt = a.Out(fmt.Sprintf("gnt_%d", i))
		}
	}
	readers := map[string]*client{}
	for _, name := range c.ReadClients() {
		readers[name] = declare(name, false)
	}
	writers := make([]*client, nw)
	for i, name := range StateWriteClients {
		writers[i] = declare(name, true)
	}
	shared, own := c.readPorts()
	var sharedCls []*client
	for _, name := range shared {
		sharedCls = append(sharedCls, readers[name])
	}
	arbitrate("rarb", sharedCls, shared)
	arbitrate("warb", writers, StateWriteClients)
	for _, name := range own {
		// Nobody else uses this port: every request is granted at once.
		cl := readers[name]
		ready := cl.valid.And(up)
		m.Output(name+"_ready", hdl.Bool).Set(ready)
		cl.gnt = m.Wire(name+"_gnt", hdl.UInt(P))
		cl.gnt.Set(hdl.Mux(ready, cl.mask, hdl.U(P, 0)))
	}

	bank := stateBank(c.Depth, E, len(shared), len(own), nw, macros)
	rdata := map[string][]*hdl.Signal{} // rdata[client][p]
	for p := range P {
		b := m.Instance(fmt.Sprintf("bank_%d", p), bank)
		for i, name := range append(append([]string(nil), shared...), own...) {
			cl := readers[name]
			b.Connect(fmt.Sprintf("rg_%d", i), cl.gnt.Bit(p)).Connect(fmt.Sprintf("raddr_%d", i), cl.addr)
			rdata[name] = append(rdata[name], b.Out(fmt.Sprintf("rdata_%d", i)))
		}
		for j, cl := range writers {
			b.Connect(fmt.Sprintf("wg_%d", j), cl.gnt.Bit(p)).Connect(fmt.Sprintf("waddr_%d", j), cl.addr).
				Connect(fmt.Sprintf("wdata_%d", j), cl.data[p])
		}
	}
	for _, name := range c.ReadClients() {
		// The response follows acceptance by exactly one cycle.
		rv := m.Reg(name+"_rv", hdl.Bool, 0)
		rv.SetNext(m.Port(name + "_ready"))
		m.Output(name+"_rvalid", hdl.Bool).Set(rv)
		for p := range P {
			m.Output(fmt.Sprintf("%s_rdata_%d", name, p), hdl.UInt(E)).Set(rdata[name][p])
		}
	}
	return m, nil
}

// stateBank is one partition of the state buffer: the array with one
// shared read port (its nr clients arbitrated), one read port per client
// that has its own (nown), one write port, and the per-bank steering.
// Read clients are numbered shared first, then own. The arbiter grants
// each port of the bank to at most one client per cycle (rg_i, wg_j are
// one-hot or zero), so the address and data selection is an AND-OR.
// rdata_i is the bank's word in the cycle after client i was granted its
// read port, and 0 otherwise.
func stateBank(depth, width, nr, nown, nw int, macros bool) *hdl.Module {
	ports := fmt.Sprintf("r%dw%d", nr, nw)
	if nown > 0 {
		ports += fmt.Sprintf("o%d", nown)
	}
	m := hdl.NewModule(hdl.Name("sb_bank", fmt.Sprintf("%dx%d", depth, width), ports, form(macros)))
	at, dt := hdl.UInt(hdl.ClogWidth(depth)), hdl.UInt(width)
	var rg, wg, ra []*hdl.Signal
	var raddr, waddr, wdata *hdl.Expr
	for i := range nr + nown {
		g := m.Input(fmt.Sprintf("rg_%d", i), hdl.Bool)
		a := m.Input(fmt.Sprintf("raddr_%d", i), at)
		if i < nr {
			raddr = orOf(raddr, hdl.Mux(g, a, hdl.U(at.Width, 0)))
		}
		rg, ra = append(rg, g), append(ra, a)
	}
	for j := range nw {
		g := m.Input(fmt.Sprintf("wg_%d", j), hdl.Bool)
		waddr = orOf(waddr, hdl.Mux(g, m.Input(fmt.Sprintf("waddr_%d", j), at), hdl.U(at.Width, 0)))
		wdata = orOf(wdata, hdl.Mux(g, m.Input(fmt.Sprintf("wdata_%d", j), dt), hdl.U(width, 0)))
		wg = append(wg, g)
	}
	mem := m.Memory("ram", depth, dt)
	if macros {
		mem.AsMacro()
	}
	mem.Write(waddr, wdata, anyOf(wg))
	q := mem.ReadEnabled("q", raddr, anyOf(rg[:nr]))
	for i, g := range rg {
		word := q
		if i >= nr {
			k := i - nr + 1
			word = mem.ReadEnabled(fmt.Sprintf("q%d", k), ra[i], g)
		}
		got := m.Reg(fmt.Sprintf("got_%d", i), hdl.Bool, 0)
		got.SetNext(g)
		m.Output(fmt.Sprintf("rdata_%d", i), dt).Set(hdl.Mux(got, word, hdl.U(width, 0)))
	}
	return m
}

func orOf(acc, x *hdl.Expr) *hdl.Expr {
	if acc == nil {
		return x
	}
	return acc.Or(x)
}

func anyOf(sigs []*hdl.Signal) *hdl.Expr {
	var r *hdl.Expr
	for _, s := range sigs {
		r = orOf(r, &s.Expr)
	}
	return r
}
