package examples

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

func init() {
	register(Design{Name: "ops", About: "every DSL operator at 1, 8, 64, 65 and 130 bits, signed and unsigned, registered",
		Build: func() *hdl.Module { return Ops([]int{1, 8, 64, 65, 130}) }})
	register(Design{Name: "mem", About: "memories: masked and plain writes, two write ports, enabled reads, non-power-of-two depth, a child module used twice",
		Build: func() *hdl.Module { return MemDemo(false) }})
	register(Design{Name: "memmacro", About: "the mem design with the child's memory emitted as an SRAM macro instance plus behavioural model",
		Build: func() *hdl.Module { return MemDemo(true) }})
}

// Ops exercises every operator of the DSL at each width, for both
// signednesses. Each result is an output; a few go through registers so
// reset and enable are covered too.
func Ops(widths []int) *hdl.Module {
	m := hdl.NewModule("ops")
	sh := m.Input("sh", hdl.UInt(8))
	sh3 := sh.Slice(2, 0)
	sel := m.Input("sel", hdl.Bool)
	en := m.Input("en", hdl.Bool)
	for _, w := range widths {
		for _, signed := range []bool{false, true} {
			t := hdl.Type{Width: w, Signed: signed}
			p := fmt.Sprintf("%s%d_", t.Short()[:1], w)
			a := m.Input(p+"a", t)
			b := m.Input(p+"b", t)
			narrow := m.Input(p+"n", hdl.Type{Width: (w + 1) / 2, Signed: signed})
			out := func(name string, v *hdl.Expr) {
				m.Output(p+name, v.Type).Set(v)
			}
			out("add", a.Add(b))
			out("addn", a.Add(narrow))
			out("sub", a.Sub(b))
			out("mul", a.Mul(b))
			out("muln", narrow.Mul(b))
			out("neg", a.Neg())
			out("and", a.And(b))
			out("or", a.Or(narrow))
			out("xor", a.Xor(b))
			out("not", a.Not())
			out("andr", a.AndR())
			out("orr", a.OrR())
			out("xorr", a.XorR())
			out("shl3", a.ShlConst(3))
			out("shr3", a.ShrConst(3))
			out("shrw", a.ShrConst(w))
			out("shl", a.Shl(sh3))
			out("shlw", a.ShlWrap(sh))
			out("shr", a.Shr(sh))
			out("eq", a.Eq(b))
			out("ne", a.Ne(b))
			out("lt", a.Lt(b))
			out("le", a.Le(narrow))
			out("gt", a.Gt(b))
			out("ge", a.Ge(b))
			out("mux", hdl.Mux(sel, a, narrow))
			out("cat", hdl.Cat(a, narrow, sel))
			out("slice", a.Slice(w-1, w/2))
			out("bit0", a.Bit(0))
			out("ext", a.Ext(w+5))
			if w > 1 {
				out("trunc", a.Trunc(w-1))
			}
			out("asu", a.AsUInt().Add(hdl.U(4, 9)))
			out("ass", a.AsSInt().Add(hdl.S(4, -3)))
			r := m.RegBig(p+"r", t, bigOne(signed))
			r.SetNext(r.Add(a).Trunc(w))
			r.SetEnable(en)
			out("reg", &r.Expr)
		}
	}
	return m
}

// MemDemo has a child module with a masked, non-power-of-two memory used
// twice, and a parent memory with two write ports and an enabled read.
// With macro the child's memory is emitted as an SRAM macro.
func MemDemo(macro bool) *hdl.Module {
	child := hdl.NewModule(hdl.Name("mem_child", macro))
	{
		addr := child.Input("addr", hdl.UInt(5))
		data := child.Input("data", hdl.UInt(12))
		mask := child.Input("mask", hdl.UInt(12))
		we := child.Input("we", hdl.Bool)
		mem := child.Memory("store", 20, hdl.UInt(12))
		if macro {
			mem.AsMacro()
		}
		mem.WriteMasked(addr, data, we, mask)
		child.Output("q", hdl.UInt(12)).Set(mem.Read("rd", addr))
	}
	m := hdl.NewModule(hdl.Name("mem_demo", macro))
	a0 := m.Input("a0", hdl.UInt(4))
	a1 := m.Input("a1", hdl.UInt(4))
	d0 := m.Input("d0", hdl.SInt(70))
	d1 := m.Input("d1", hdl.SInt(70))
	we0 := m.Input("we0", hdl.Bool)
	we1 := m.Input("we1", hdl.Bool)
	re := m.Input("re", hdl.Bool)
	ra := m.Input("ra", hdl.UInt(4))
	mem := m.Memory("big", 16, hdl.SInt(70))
	mem.Write(a0, d0, we0)
	mem.Write(a1, d1, we1)
	m.Output("q", hdl.SInt(70)).Set(mem.ReadEnabled("rdata", ra, re))
	for i, name := range []string{"c0", "c1"} {
		u := m.Instance(name, child)
		u.Connect("addr", hdl.Cat(a0.Bit(0), ra).Resize(5))
		u.Connect("data", d0.Slice(11+i, i))
		u.Connect("mask", d1.Slice(20, 9))
		u.Connect("we", we0.Xor(we1))
		m.Output("q_"+name, hdl.UInt(12)).Set(u.Out("q"))
	}
	return m
}
