package verify

// The module structure of a random design: inputs, registers, memories,
// child instances, outputs, the body of random steps and the final wiring.

import (
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

func (g *gen) inputs(n int, widths []int) {
	for _, w := range widths {
		t := hdl.Type{Width: min(w, g.opts.MaxWidth), Signed: g.r.IntN(2) == 0}
		g.add(&g.m.Input(g.name("i"), t).Expr)
	}
	for i := 0; i < n; i++ {
		g.add(&g.m.Input(g.name("i"), g.typ(g.opts.MaxWidth)).Expr)
	}
	g.add(&g.m.Input(g.name("i"), hdl.Bool).Expr)
	g.add(&g.m.Input(g.name("i"), hdl.UInt(1+g.r.IntN(4))).Expr) // a small shift amount
}

// regs declares registers; their next values are set in finish, so they
// can read anything the module computes.
func (g *gen) regs(n int) {
	for i := 0; i < n; i++ {
		t := g.typ(g.opts.MaxWidth)
		init := t.Interpret(stim.RandomValue(g.r, t))
		r := g.m.RegBig(g.name("r"), t, init)
		g.regList = append(g.regList, r)
		g.add(&r.Expr)
	}
}

var memDepths = []int{1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 33, 64, 100}

// memory declares a memory and its read ports now (reading earlier
// values) and its write ports in finish.
func (g *gen) memory() {
	depth := memDepths[g.r.IntN(len(memDepths))]
	t := g.typ(g.opts.MaxWidth)
	if g.r.IntN(6) == 0 {
		t = hdl.Type{Width: 1, Signed: g.r.IntN(2) == 0}
	}
	mem := g.m.Memory(g.name("mem"), depth, t)
	if 1<<mem.AddrType.Width == depth {
		g.feat["memory of power-of-two depth"]++
	} else {
		g.feat["memory of other depth"]++
	}
	reads := g.r.IntN(3) // sometimes a memory nobody reads
	if reads == 0 {
		g.feat["memory without read port"]++
	}
	for i := 0; i < reads; i++ {
		addr := g.address(mem)
		var q *hdl.Signal
		if g.r.IntN(2) == 0 {
			g.feat["memory read with enable"]++
			q = mem.ReadEnabled(g.name(mem.Name+"_q"), addr, g.boolean())
		} else {
			g.feat["memory read"]++
			q = mem.Read(g.name(mem.Name+"_q"), addr)
		}
		g.add(&q.Expr)
	}
	fm := &fuzzMem{mem: mem, writes: 1 + g.r.IntN(3)}
	g.mems = append(g.mems, fm)
	// A memory with one write port and at most one read port may be an
	// SRAM macro. The choice comes from a side stream, so that it does
	// not change the rest of the design.
	if fm.writes == 1 && reads <= 1 && g.side.IntN(4) != 0 {
		g.feat["memory as SRAM macro"]++
		mem.AsMacro()
	}
}

// instance places child, connecting its inputs from earlier values, and
// adds its outputs to the pool.
func (g *gen) instance(child *hdl.Module) {
	g.feat["instance"]++
	in := g.m.Instance(g.name("u"), child)
	for _, p := range child.Ports {
		if p.Kind != hdl.Input {
			continue
		}
		v := g.operand(p.Type)
		if p.Type.Width > 1 && g.r.IntN(4) == 0 { // narrower: Connect extends it
			v = g.operand(hdl.Type{Width: g.width(1, p.Type.Width), Signed: p.Type.Signed})
		}
		in.Connect(p.Name, v)
	}
	for _, p := range child.Ports {
		if p.Kind == hdl.Output {
			o := in.Out(p.Name)
			if g.r.IntN(3) == 0 { // an output driven straight by an instance output
				g.output(&o.Expr)
			}
			g.add(&o.Expr)
		}
	}
}

// output drives a new output port with v and makes it readable.
func (g *gen) output(v *hdl.Expr) {
	o := g.m.Output(g.name("o"), v.Type)
	o.Set(v)
	g.add(&o.Expr)
}

// body adds n sub-circuits of steps operations each; every one ends in an
// output port, and some intermediate values become outputs too.
func (g *gen) body(n, steps int) {
	for i := 0; i < n; i++ {
		var last *hdl.Expr
		for s := 0; s < steps; s++ {
			last = g.step()
			if s < steps-1 && g.r.IntN(4) == 0 {
				g.output(last)
			}
		}
		g.output(last)
	}
}

// finish gives registers their next values and memories their write ports.
func (g *gen) finish() {
	for _, r := range g.regList {
		switch g.r.IntN(8) {
		case 0:
			g.feat["register that holds its reset value"]++
			continue
		case 1:
			g.feat["register with enable but no next value"]++
			r.SetEnable(g.boolean())
			continue
		}
		next := g.operand(r.Type)
		if r.Width() > 1 && g.r.IntN(4) == 0 { // narrower: SetNext extends it
			next = g.operand(hdl.Type{Width: g.width(1, r.Width()), Signed: r.Signed()})
		}
		r.SetNext(next)
		if g.r.IntN(2) == 0 {
			g.feat["register with enable"]++
			r.SetEnable(g.boolean())
		} else {
			g.feat["register without enable"]++
		}
	}
	for _, fm := range g.mems {
		mem := fm.mem
		if fm.writes > 1 {
			g.feat["memory with several write ports"]++
		}
		for i := 0; i < fm.writes; i++ {
			addr := g.address(mem)
			data := g.operand(mem.Type)
			en := g.boolean()
			if g.r.IntN(2) == 0 && !(mem.Type.Width > 64 && g.avoid(WideMaskedWrite)) &&
				!(mem.Type.Width == 1 && g.avoid(OneBitMaskedWrite)) {
				g.feat["masked memory write"]++
				mask := g.operand(hdl.UInt(mem.Type.Width))
				if mem.Type.Width > 1 && (constOnly(mask) || constOnly(data)) && g.avoid(ConstMaskedWrite) {
					mask, data = g.live(hdl.UInt(mem.Type.Width)), g.live(mem.Type)
				}
				mem.WriteMasked(addr, data, en, mask)
			} else {
				g.feat["memory write"]++
				mem.Write(addr, data, en)
			}
		}
	}
	if g.r.IntN(2) == 0 {
		// A readback of a register straight to an output.
		if len(g.regList) > 0 {
			r := g.regList[g.r.IntN(len(g.regList))]
			g.output(&r.Expr)
		}
	}
	// Every result nothing reads becomes an output too, so that no
	// operation is left out of the netlist (and of the comparison).
	reached := g.reachable()
	for _, x := range g.results {
		if !reached[x] {
			g.output(x)
		}
	}
}

// reachable is the set of nodes the module's signals, registers, memory
// ports and instances read.
func (g *gen) reachable() map[*hdl.Expr]bool {
	seen := map[*hdl.Expr]bool{}
	var walk func(x *hdl.Expr)
	walk = func(x *hdl.Expr) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		if x.Op != hdl.OpSignal {
			for _, a := range x.Args {
				walk(a)
			}
		}
	}
	eachRoot(g.m, walk)
	return seen
}

// step performs one random operation and returns its result, which joins
// the pool.
func (g *gen) step() *hdl.Expr {
	if len(g.deck) == 0 {
		g.deck = append(g.deck, opKinds...)
		g.r.Shuffle(len(g.deck), func(i, j int) { g.deck[i], g.deck[j] = g.deck[j], g.deck[i] })
	}
	k := g.deck[len(g.deck)-1]
	g.deck = g.deck[:len(g.deck)-1]
	g.feat["op "+k]++
	x := g.op(k)
	if x.Width() > g.opts.MaxWidth { // cannot happen by construction; keep the promise anyway
		x = x.Trunc(g.opts.MaxWidth)
	}
	g.results = append(g.results, x)
	return g.add(x)
}
