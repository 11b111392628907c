package hdl_test

import (
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/hdl"
)

// passThrough is a child whose output y is its input a: a combinational path.
func passThrough() *hdl.Module {
	m := hdl.NewModule("pass")
	m.Output("y", hdl.UInt(8)).Set(m.Input("a", hdl.UInt(8)))
	return m
}

// delay is a child whose output y is its input a one cycle late.
func delay() *hdl.Module {
	m := hdl.NewModule("delay")
	r := m.Reg("r", hdl.UInt(8), 0)
	r.SetNext(m.Input("a", hdl.UInt(8)))
	m.Output("y", hdl.UInt(8)).Set(r)
	return m
}

type errCase struct {
	name  string
	build func() (*hdl.Module, []wantErr)
}

// errCases each make exactly one mistake; everything else in the design is
// correct so the mistake is the only error.
var errCases = []errCase{
	{"set wider value", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(4))
		pos := mark(func() { y.Set(a) })
		return m, []wantErr{{pos, "top.y", "width mismatch: cannot assign UInt(8) to UInt(4)"}}
	}},
	{"set signedness mismatch", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.SInt(8))
		pos := mark(func() { y.Set(a) })
		return m, []wantErr{{pos, "top.y", "signedness differs"}}
	}},
	{"set narrower signed to unsigned", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.SInt(4))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a) })
		return m, []wantErr{{pos, "top.y", "signedness differs"}}
	}},
	{"setnext wider value", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		r := m.Reg("r", hdl.UInt(8), 0)
		pos := mark(func() { r.SetNext(r.Add(hdl.U(1, 1))) })
		m.Output("y", hdl.UInt(8)).Set(r)
		return m, []wantErr{{pos, "top.r", "width mismatch: cannot assign UInt(9) to UInt(8)"}}
	}},
	{"undriven output", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		pos := mark(func() { m.Output("y", hdl.UInt(8)) })
		return m, []wantErr{{pos, "top.y", "undriven output"}}
	}},
	{"undriven wire", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var w *hdl.Signal
		pos := mark(func() { w = m.Wire("w", hdl.UInt(8)) })
		m.Output("y", hdl.UInt(8)).Set(w)
		return m, []wantErr{{pos, "top.w", "undriven wire"}}
	}},
	{"register without reset or next value", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var r *hdl.Signal
		pos := mark(func() { r = m.RegNoReset("r", hdl.UInt(8)) })
		m.Output("y", hdl.UInt(8)).Set(r)
		return m, []wantErr{{pos, "top.r", "register without reset and without a next value"}}
	}},
	{"set twice", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(8))
		first := mark(func() { y.Set(a) })
		pos := mark(func() { y.Set(a.Not()) })
		return m, []wantErr{{pos, "top.y", "multiple drivers: already driven at " + first}}
	}},
	{"setnext twice", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		r := m.Reg("r", hdl.UInt(8), 0)
		first := mark(func() { r.SetNext(r) })
		pos := mark(func() { r.SetNext(r.Not()) })
		m.Output("y", hdl.UInt(8)).Set(r)
		return m, []wantErr{{pos, "top.r", "multiple drivers: next value already set at " + first}}
	}},
	{"connect twice", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		u := m.Instance("u", passThrough())
		first := mark(func() { u.Connect("a", a) })
		pos := mark(func() { u.Connect("a", a.Not()) })
		m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
		return m, []wantErr{{pos, "top.u.a", "multiple drivers: port already connected at " + first}}
	}},
	{"unconnected instance input", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var u *hdl.Instance
		pos := mark(func() { u = m.Instance("u", passThrough()) })
		m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
		return m, []wantErr{{pos, "top.u", "unconnected input port(s) of pass: a"}}
	}},
	{"connect unknown port", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		u := m.Instance("u", passThrough()).Connect("a", a)
		pos := mark(func() { u.Connect("b", a) })
		m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
		return m, []wantErr{{pos, "top.u.b", `module pass has no input port "b" (inputs: a)`}}
	}},
	{"connect to an output port", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		u := m.Instance("u", passThrough()).Connect("a", a)
		pos := mark(func() { u.Connect("y", a) })
		m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
		return m, []wantErr{{pos, "top.u.y", `no input port "y"`}}
	}},
	{"out unknown port", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		u := m.Instance("u", passThrough()).Connect("a", a)
		y := m.Output("y", hdl.UInt(1))
		pos := mark(func() { y.Set(u.Out("z")) })
		return m, []wantErr{{pos, "top.u.z", `module pass has no output port "z" (outputs: y)`}}
	}},
	{"connect wrong width", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(9))
		u := m.Instance("u", passThrough())
		pos := mark(func() { u.Connect("a", a) })
		m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
		return m, []wantErr{{pos, "top.u.a", "width mismatch: cannot connect UInt(9) to UInt(8)"}}
	}},
	{"slice out of range", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(1))
		pos := mark(func() { y.Set(a.Slice(8, 8)) })
		return m, []wantErr{{pos, "top", "slice [8:8] out of range for UInt(8) (bits 7..0)"}}
	}},
	{"slice reversed", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(1))
		pos := mark(func() { y.Set(a.Slice(2, 3)) })
		return m, []wantErr{{pos, "top", "slice [2:3] out of range"}}
	}},
	{"bit negative", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(1))
		pos := mark(func() { y.Set(a.Bit(-1)) })
		return m, []wantErr{{pos, "top", "slice [-1:-1] out of range"}}
	}},
	{"trunc widening", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a.Trunc(9)) })
		return m, []wantErr{{pos, "top", "Trunc to 9 bits is not a narrowing of UInt(8)"}}
	}},
	{"ext narrowing", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.SInt(8))
		y := m.Output("y", hdl.SInt(8))
		pos := mark(func() { y.Set(a.Ext(4)) })
		return m, []wantErr{{pos, "top", "Ext to 4 bits would narrow SInt(8); use Trunc"}}
	}},
	{"add mixes signedness", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		b := m.Input("b", hdl.SInt(8))
		y := m.Output("y", hdl.UInt(9))
		pos := mark(func() { y.Set(a.Add(b)) })
		return m, []wantErr{{pos, "top", "add of UInt(8) and SInt(8) mixes signed and unsigned"}}
	}},
	{"compare mixes signedness", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.SInt(4))
		b := m.Input("b", hdl.UInt(8))
		y := m.Output("y", hdl.Bool)
		pos := mark(func() { y.Set(a.Lt(b)) })
		return m, []wantErr{{pos, "top", "lt of SInt(4) and UInt(8) mixes signed and unsigned"}}
	}},
	{"mux arms mix signedness", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		s := m.Input("s", hdl.Bool)
		a := m.Input("a", hdl.UInt(8))
		b := m.Input("b", hdl.SInt(8))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(hdl.Mux(s, a, b)) })
		return m, []wantErr{{pos, "top", "mux of UInt(8) and SInt(8) mixes"}}
	}},
	{"mux select too wide", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(hdl.Mux(a, a, a)) })
		return m, []wantErr{{pos, "top", "mux select must be UInt(1), got UInt(8)"}}
	}},
	{"constant does not fit, set", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		y := m.Output("y", hdl.UInt(4))
		pos := mark(func() { y.Set(hdl.U(4, 20)) })
		return m, []wantErr{{pos, "top.y", "constant 20 does not fit UInt(4)"}}
	}},
	{"constant does not fit, operand", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(4))
		y := m.Output("y", hdl.UInt(5))
		var c *hdl.Expr
		pos := mark(func() { c = hdl.S(4, 8) })
		y.Set(a.Add(c.AsUInt()))
		return m, []wantErr{{pos, "top", "constant 8 does not fit SInt(4)"}}
	}},
	{"reset value does not fit", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var r *hdl.Signal
		pos := mark(func() { r = m.Reg("r", hdl.UInt(4), 20) })
		r.SetNext(r)
		m.Output("y", hdl.UInt(4)).Set(r)
		return m, []wantErr{{pos, "top.r", "reset value 20 does not fit UInt(4)"}}
	}},
	{"signed reset value does not fit", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var r *hdl.Signal
		pos := mark(func() { r = m.Reg("r", hdl.SInt(4), 8) })
		r.SetNext(r)
		m.Output("y", hdl.SInt(4)).Set(r)
		return m, []wantErr{{pos, "top.r", "reset value 8 does not fit SInt(4)"}}
	}},
	{"keyword name", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var w *hdl.Signal
		pos := mark(func() { w = m.Input("wire", hdl.UInt(8)) })
		m.Output("y", hdl.UInt(8)).Set(w)
		return m, []wantErr{{pos, "top.wire", `name "wire" is not a plain identifier`}}
	}},
	{"reserved name clk", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var c *hdl.Signal
		pos := mark(func() { c = m.Input("clk", hdl.Bool) })
		m.Output("y", hdl.Bool).Set(c)
		return m, []wantErr{{pos, "top.clk", `name "clk" is reserved`}}
	}},
	{"reserved name rst", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var y *hdl.Signal
		pos := mark(func() { y = m.Output("rst", hdl.Bool) })
		y.Set(hdl.U(1, 0))
		return m, []wantErr{{pos, "top.rst", `name "rst" is reserved`}}
	}},
	{"leading underscore", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var w *hdl.Signal
		pos := mark(func() { w = m.Wire("_t0", hdl.UInt(8)) })
		w.Set(hdl.U(8, 0))
		m.Output("y", hdl.UInt(8)).Set(w)
		return m, []wantErr{{pos, "top._t0", `name "_t0" is not a plain identifier`}}
	}},
	{"duplicate name", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var a *hdl.Signal
		first := mark(func() { a = m.Input("a", hdl.UInt(8)) })
		var r *hdl.Signal
		pos := mark(func() { r = m.Reg("a", hdl.UInt(8), 0) })
		r.SetNext(a)
		m.Output("y", hdl.UInt(8)).Set(r)
		return m, []wantErr{{pos, "top.a", `name "a" already declared at ` + first}}
	}},
	{"instance name clashes with signal", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		first := mark(func() { m.Output("u_y", hdl.UInt(8)).Set(a) })
		var u *hdl.Instance
		pos := mark(func() { u = m.Instance("u", passThrough()) })
		u.Connect("a", a)
		return m, []wantErr{{pos, "top.u_y", `name "u_y" already declared at ` + first}}
	}},
	{"keyword module name", func() (*hdl.Module, []wantErr) {
		var m *hdl.Module
		pos := mark(func() { m = hdl.NewModule("module") })
		m.Output("y", hdl.Bool).Set(hdl.U(1, 1))
		return m, []wantErr{{pos, "module", `module name "module" is not a plain identifier`}}
	}},
	{"two modules named alike", func() (*hdl.Module, []wantErr) {
		var first string
		child := func(w int) *hdl.Module {
			var m *hdl.Module
			pos := mark(func() { m = hdl.NewModule("child") })
			if first == "" {
				first = pos
			}
			m.Output("y", hdl.UInt(w)).Set(m.Input("a", hdl.UInt(w)))
			return m
		}
		top := hdl.NewModule("top")
		a := top.Input("a", hdl.UInt(8))
		top.Output("y", hdl.UInt(8)).Set(top.Instance("c8", child(8)).Connect("a", a).Out("y"))
		top.Output("z", hdl.UInt(4)).Set(top.Instance("c4", child(4)).Connect("a", a.Trunc(4)).Out("y"))
		return top, []wantErr{{first, "child", "two different modules are named child (the other is built at " + first + ")"}}
	}},
	{"module instantiates itself", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		m.Output("y", hdl.Bool).Set(hdl.U(1, 1))
		pos := mark(func() { m.Instance("self", m) })
		return m, []wantErr{{pos, "top.self", "module top instantiates itself"}}
	}},
	{"module instantiates itself through a child", func() (*hdl.Module, []wantErr) {
		a := hdl.NewModule("a")
		b := hdl.NewModule("b")
		a.Output("y", hdl.Bool).Set(hdl.U(1, 1))
		b.Output("y", hdl.Bool).Set(hdl.U(1, 0))
		a.Instance("ib", b)
		pos := mark(func() { b.Instance("ia", a) })
		return a, []wantErr{{pos, "a", "module instantiates itself through its children"}}
	}},
	{"operands from two modules", func() (*hdl.Module, []wantErr) {
		other := hdl.NewModule("other")
		x := other.Input("x", hdl.UInt(8))
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		var sum *hdl.Expr
		pos := mark(func() { sum = a.Add(x) })
		m.Output("y", hdl.UInt(9)).Set(sum)
		return m, []wantErr{{pos, "top", "operands come from two modules (top and other)"}}
	}},
	{"value from another module", func() (*hdl.Module, []wantErr) {
		other := hdl.NewModule("other")
		x := other.Input("x", hdl.UInt(8))
		m := hdl.NewModule("top")
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(x) })
		return m, []wantErr{{pos, "top.y", "value comes from module other"}}
	}},
	{"set an input", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		pos := mark(func() { a.Set(hdl.U(8, 1)) })
		m.Output("y", hdl.UInt(8)).Set(a)
		return m, []wantErr{{pos, "top.a", "cannot Set a input"}}
	}},
	{"setnext on a wire", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		w := m.Wire("w", hdl.UInt(8))
		w.Set(hdl.U(8, 1))
		pos := mark(func() { w.SetNext(hdl.U(8, 1)) })
		m.Output("y", hdl.UInt(8)).Set(w)
		return m, []wantErr{{pos, "top.w", "SetNext on a wire"}}
	}},
	{"enable not a bool", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		r := m.Reg("r", hdl.UInt(8), 0)
		r.SetNext(r)
		pos := mark(func() { r.SetEnable(r) })
		m.Output("y", hdl.UInt(8)).Set(r)
		return m, []wantErr{{pos, "top.r enable", "cannot use as enable UInt(8) to UInt(1)"}}
	}},
	{"shift amount signed", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		s := m.Input("s", hdl.SInt(3))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a.Shr(s)) })
		return m, []wantErr{{pos, "top", "shift amount must be unsigned, got SInt(3)"}}
	}},
	{"growing shift amount too wide", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		s := m.Input("s", hdl.UInt(13))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a.Shl(s)) })
		return m, []wantErr{{pos, "top", "too wide for a growing left shift"}}
	}},
	{"negative constant shift", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(8))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a.ShlConst(-1)) })
		return m, []wantErr{{pos, "top", "shift amount -1 is negative"}}
	}},
	{"cat of nothing", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		y := m.Output("y", hdl.UInt(1))
		pos := mark(func() { y.Set(hdl.Cat()) })
		return m, []wantErr{{pos, "top.y", "Cat of nothing"}}
	}},
	{"width zero", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var a *hdl.Signal
		pos := mark(func() { a = m.Input("a", hdl.UInt(0)) })
		m.Output("y", hdl.UInt(1)).Set(a)
		return m, []wantErr{{pos, "top.a", "width 0 outside 1..4096"}}
	}},
	{"mul too wide", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		a := m.Input("a", hdl.UInt(4000))
		y := m.Output("y", hdl.UInt(8))
		pos := mark(func() { y.Set(a.Mul(a).Trunc(8)) })
		return m, []wantErr{{pos, "top", "mul result width 8000 exceeds 4096"}}
	}},
	{"memory depth zero", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var mem *hdl.Memory
		pos := mark(func() { mem = m.Memory("mem", 0, hdl.UInt(8)) })
		m.Output("y", hdl.UInt(8)).Set(mem.Read("q", hdl.U(1, 0)))
		return m, []wantErr{{pos, "top.mem", "memory depth 0 outside 1..16777216"}}
	}},
	{"memory address too wide", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		mem := m.Memory("mem", 16, hdl.UInt(8))
		a := m.Input("a", hdl.UInt(5))
		var q *hdl.Signal
		pos := mark(func() { q = mem.Read("q", a) })
		m.Output("y", hdl.UInt(8)).Set(q)
		return m, []wantErr{{pos, "top.q address", "cannot use as address UInt(5) to UInt(4)"}}
	}},
	{"comb loop", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var a, b *hdl.Signal
		pa := mark(func() { a = m.Wire("a", hdl.UInt(8)) })
		pb := mark(func() { b = m.Wire("b", hdl.UInt(8)) })
		a.Set(b.Not())
		b.Set(a.Add(hdl.U(1, 1)).Trunc(8))
		m.Output("y", hdl.UInt(8)).Set(a)
		return m, []wantErr{{pa, "top", fmt.Sprintf("combinational loop: a (%s) -> b (%s) -> a", pa, pb)}}
	}},
	{"comb loop on itself", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var w *hdl.Signal
		pw := mark(func() { w = m.Wire("w", hdl.Bool) })
		w.Set(w.Not())
		m.Output("y", hdl.Bool).Set(w)
		return m, []wantErr{{pw, "top", fmt.Sprintf("combinational loop: w (%s) -> w", pw)}}
	}},
	{"comb loop through an instance", func() (*hdl.Module, []wantErr) {
		m := hdl.NewModule("top")
		var u *hdl.Instance
		pu := mark(func() { u = m.Instance("u", passThrough()) })
		var w *hdl.Signal
		pw := mark(func() { w = m.Wire("w", hdl.UInt(8)) })
		w.Set(u.Out("y"))
		u.Connect("a", w)
		m.Output("y", hdl.UInt(8)).Set(w)
		return m, []wantErr{{pu, "top", fmt.Sprintf("combinational loop: u_y (%s) -> w (%s) -> u_y", pu, pw)}}
	}},
}

func TestElaborationErrors(t *testing.T) {
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			top, want := tt.build()
			checkErrors(t, top, want)
		})
	}
}

// The position names this file and the exact line of the bad call, and
// the text of the error has the form file:line: path: message.
func TestErrorPositionIsCaller(t *testing.T) {
	m := hdl.NewModule("top")
	a := m.Input("a", hdl.UInt(8))
	y := m.Output("y", hdl.UInt(4))
	y.Set(a)
	_, _, line, _ := runtime.Caller(0)
	_, err := hdl.Elaborate(m)
	re := regexp.MustCompile(`^hdl/errors_test\.go:([0-9]+): top\.y: width mismatch`)
	sub := re.FindStringSubmatch(fmt.Sprint(err))
	if sub == nil {
		t.Fatalf("error %q does not match %v", err, re)
	}
	if want := strconv.Itoa(line - 1); sub[1] != want {
		t.Errorf("error names line %s, want %s", sub[1], want)
	}
}

// Every mistake is reported, in construction order, and all of them are
// in the text of the single returned error.
func TestSeveralErrorsReportedTogether(t *testing.T) {
	child := hdl.NewModule("child")
	ca := child.Input("a", hdl.UInt(8))
	cy := child.Output("y", hdl.UInt(4))
	p1 := mark(func() { cy.Set(ca) })

	m := hdl.NewModule("top")
	a := m.Input("a", hdl.UInt(8))
	s := m.Input("s", hdl.SInt(8))
	y := m.Output("y", hdl.UInt(8))
	p2 := mark(func() { y.Set(a.Trunc(9)) })
	p3 := mark(func() { m.Wire("reg", hdl.Bool).Set(a.Eq(s)) })
	p4 := mark(func() { y.Set(a) })
	m.Instance("u", child).Connect("a", a)

	checkErrors(t, m, []wantErr{
		{p1, "child.y", "width mismatch"},
		{p2, "top", "Trunc to 9 bits"},
		{p3, "top.reg", "not a plain identifier"},
		{p3, "top", "eq of UInt(8) and SInt(8) mixes"},
		{p4, "top.y", "multiple drivers"},
	})
}

// Check-phase problems (undriven, unconnected) are also all reported.
func TestSeveralCheckErrorsReportedTogether(t *testing.T) {
	m := hdl.NewModule("top")
	var u *hdl.Instance
	p1 := mark(func() { m.Output("y", hdl.UInt(8)) })
	p2 := mark(func() { m.Wire("w", hdl.Bool) })
	p3 := mark(func() { u = m.Instance("u", passThrough()) })
	m.Output("z", hdl.UInt(8)).Set(u.Out("y"))
	checkErrors(t, m, []wantErr{
		{p1, "top.y", "undriven output"},
		{p2, "top.w", "undriven wire"},
		{p3, "top.u", "unconnected input port(s) of pass: a"},
	})
}

// A loop broken by a register, in a module or across an instance, is fine.
func TestRegisterBreaksLoop(t *testing.T) {
	tests := []struct {
		name  string
		build func() *hdl.Module
	}{
		{"counter", func() *hdl.Module {
			m := hdl.NewModule("counter")
			r := m.Reg("r", hdl.UInt(8), 0)
			r.SetNext(r.Add(hdl.U(1, 1)).Trunc(8))
			m.Output("y", hdl.UInt(8)).Set(r)
			return m
		}},
		{"register with enable from itself", func() *hdl.Module {
			m := hdl.NewModule("top")
			r := m.Reg("r", hdl.UInt(8), 0)
			w := m.Wire("w", hdl.UInt(8))
			w.Set(r.Not())
			r.SetNext(w)
			r.SetEnable(w.OrR())
			m.Output("y", hdl.UInt(8)).Set(w)
			return m
		}},
		{"feedback through a registered child", func() *hdl.Module {
			m := hdl.NewModule("top")
			u := m.Instance("u", delay())
			u.Connect("a", u.Out("y").Add(hdl.U(8, 3)).Trunc(8))
			m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
			return m
		}},
		{"feedback through a memory", func() *hdl.Module {
			m := hdl.NewModule("top")
			mem := m.Memory("mem", 4, hdl.UInt(2))
			q := m.Wire("q", hdl.UInt(2))
			q.Set(mem.Read("rd", q))
			mem.Write(q, q, q.Bit(0))
			m.Output("y", hdl.UInt(2)).Set(q)
			return m
		}},
		{"two instances of a comb child in series", func() *hdl.Module {
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.UInt(8))
			u1 := m.Instance("u1", passThrough()).Connect("a", a)
			u2 := m.Instance("u2", passThrough()).Connect("a", u1.Out("y"))
			m.Output("y", hdl.UInt(8)).Set(u2.Out("y"))
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustElaborate(t, tt.build())
		})
	}
}

// Misuse of the API must come back as errors, never as a panic or a hang.
func TestMisuseNeverPanics(t *testing.T) {
	type build func(m *hdl.Module, a *hdl.Signal)
	tests := []struct {
		name   string
		build  build
		phrase string
	}{
		{"huge memory", func(m *hdl.Module, a *hdl.Signal) { m.Memory("mem", int(^uint(0)>>1), hdl.UInt(8)) }, "memory depth 9223372036854775807 outside"},
		{"negative memory", func(m *hdl.Module, a *hdl.Signal) { m.Memory("mem", -5, hdl.UInt(8)) }, "memory depth -5 outside"},
		{"memory width 0", func(m *hdl.Module, a *hdl.Signal) { m.Memory("mem", 4, hdl.UInt(0)) }, "memory width 0 outside"},
		{"const width 0", func(m *hdl.Module, a *hdl.Signal) { m.Wire("w", hdl.UInt(1)).Set(hdl.U(0, 0)) }, "top.w: constant width 0 outside"},
		{"const width huge", func(m *hdl.Module, a *hdl.Signal) { m.Wire("w", hdl.UInt(1)).Set(hdl.U(1<<30, 0)) }, "constant width 1073741824 outside"},
		{"negative width", func(m *hdl.Module, a *hdl.Signal) { m.Reg("r", hdl.SInt(-3), 0) }, "top.r: width -3 outside"},
		{"shlconst huge", func(m *hdl.Module, a *hdl.Signal) { a.ShlConst(1 << 40) }, "shift result width 1099511627784 exceeds"},
		{"shrconst negative", func(m *hdl.Module, a *hdl.Signal) { a.ShrConst(-2) }, "shift amount -2 is negative"},
		{"trunc 0", func(m *hdl.Module, a *hdl.Signal) { a.Trunc(0) }, "Trunc to 0 bits"},
		{"ext huge", func(m *hdl.Module, a *hdl.Signal) { a.Ext(1 << 20) }, "Ext to 1048576 bits exceeds"},
		{"resize 0", func(m *hdl.Module, a *hdl.Signal) { a.Resize(0) }, "Resize to 0 bits outside"},
		{"resize huge", func(m *hdl.Module, a *hdl.Signal) { a.Resize(hdl.MaxWidth + 1) }, "Resize to 4097 bits outside"},
		{"neg too wide", func(m *hdl.Module, a *hdl.Signal) { m.Input("b", hdl.SInt(hdl.MaxWidth)).Neg() }, "neg result width 4097 exceeds"},
		{"cat too wide", func(m *hdl.Module, a *hdl.Signal) { hdl.Cat(m.Input("b", hdl.UInt(hdl.MaxWidth)), a) }, "Cat result width 4104 exceeds"},
		{"add too wide", func(m *hdl.Module, a *hdl.Signal) { m.Input("b", hdl.UInt(hdl.MaxWidth)).Add(a) }, "add result width 4097 exceeds"},
		{"shl too wide", func(m *hdl.Module, a *hdl.Signal) { m.Input("b", hdl.UInt(4090)).Shl(a.Trunc(4)) }, "shift result width 4105 exceeds"},
		{"use unknown out", func(m *hdl.Module, a *hdl.Signal) {
			m.Wire("w", hdl.Bool).Set(m.Instance("u", passThrough()).Connect("a", a).Out("nope"))
		}, `no output port "nope"`},
		{"set enable twice", func(m *hdl.Module, a *hdl.Signal) {
			r := m.Reg("r", hdl.UInt(8), 0)
			r.SetNext(a)
			r.SetEnable(a.Bit(0))
			r.SetEnable(a.Bit(1))
		}, "top.r: enable already set"},
		{"enable on a wire", func(m *hdl.Module, a *hdl.Signal) {
			w := m.Wire("w", hdl.UInt(8))
			w.Set(a)
			w.SetEnable(a.Bit(0))
		}, "SetEnable on a wire"},
		{"memory name clk", func(m *hdl.Module, a *hdl.Signal) { m.Memory("clk", 4, hdl.UInt(8)) }, `top.clk: name "clk" is reserved`},
		{"instance name rst", func(m *hdl.Module, a *hdl.Signal) { m.Instance("rst", passThrough()).Connect("a", a) }, `top.rst: name "rst" is reserved`},
		{"memory name duplicate", func(m *hdl.Module, a *hdl.Signal) { m.Memory("a", 4, hdl.UInt(8)) }, `name "a" already declared`},
		{"instance name keyword", func(m *hdl.Module, a *hdl.Signal) { m.Instance("begin", passThrough()).Connect("a", a) }, `instance name "begin" is not a plain identifier`},
		{"masked write signed mask", func(m *hdl.Module, a *hdl.Signal) {
			mem := m.Memory("mem", 4, hdl.UInt(8))
			mem.WriteMasked(a.Trunc(2), a, a.Bit(0), a.AsSInt())
		}, "top.mem write mask: width mismatch: cannot use as mask SInt(8) to UInt(8)"},
	}
	posRE := regexp.MustCompile(`^hdl/errors_test\.go:[0-9]+: `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						done <- fmt.Errorf("panic: %v", r)
					}
				}()
				m := hdl.NewModule("top")
				a := m.Input("a", hdl.UInt(8))
				m.Output("y", hdl.UInt(8)).Set(a)
				tt.build(m, a)
				_, err := hdl.Elaborate(m)
				done <- err
			}()
			select {
			case err := <-done:
				switch {
				case err == nil:
					t.Errorf("Elaborate succeeded, want an error containing %q", tt.phrase)
				case !strings.Contains(err.Error(), tt.phrase) || !posRE.MatchString(err.Error()):
					t.Errorf("error %q lacks the position or %q", err, tt.phrase)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("hung")
			}
		})
	}
}

// A macro memory named like the macro model's array would emit Verilog
// that fails Verilator -Wall (VARHIDDEN); elaboration refuses it.
func TestMacroMemoryNamedLikeModelArray(t *testing.T) {
	m := hdl.NewModule("top")
	a := m.Input("a", hdl.UInt(3))
	mem := m.Memory(hdl.MacroArrayName, 8, hdl.UInt(8)).AsMacro()
	mem.Write(a, m.Input("d", hdl.UInt(8)), m.Input("we", hdl.Bool))
	m.Output("q", hdl.UInt(8)).Set(mem.Read("rd", a))
	_, err := hdl.Elaborate(m)
	if err == nil || !strings.Contains(err.Error(), `may not be named "mem"`) {
		t.Fatalf("got %v, want an error about the name", err)
	}
}
