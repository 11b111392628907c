package verilog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verilog"
)

// inlineIn are the inputs every inlining case may read.
type inlineIn struct {
	x, y *hdl.Signal // UInt(8)
	z    *hdl.Signal // UInt(9)
	s    *hdl.Signal // SInt(8)
	t    *hdl.Signal // SInt(4)
	n    *hdl.Signal // UInt(3), a shift amount
	c    *hdl.Signal // Bool
	p, q *hdl.Signal // SInt(1)
}

func inlineInputs(m *hdl.Module) inlineIn {
	return inlineIn{x: m.Input("x", hdl.UInt(8)), y: m.Input("y", hdl.UInt(8)), z: m.Input("z", hdl.UInt(9)),
		s: m.Input("s", hdl.SInt(8)), t: m.Input("t", hdl.SInt(4)), n: m.Input("n", hdl.UInt(3)), c: m.Input("c", hdl.Bool),
		p: m.Input("p", hdl.SInt(1)), q: m.Input("q", hdl.SInt(1))}
}

// inlineCases compute outputs from the inputs, named o, o1, ...; want is
// every wire and assign the emitter writes for them.
var inlineCases = []struct {
	name  string
	build func(in inlineIn) []*hdl.Expr // the outputs' values
	want  []string
}{
	{"single_use_add_inline", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.x.Add(in.y).Xor(in.z)}
	}, []string{
		"assign o = ({{1{1'b0}}, x} + {{1{1'b0}}, y}) ^ z;",
	}},
	{"narrowing_add_stays_a_wire", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.x.Add(in.y).Trunc(8)}
	}, []string{
		"wire [8:0] _add1 = {{1{1'b0}}, x} + {{1{1'b0}}, y};",
		"assign o = _add1[7:0];",
	}},
	{"part_select_operand_stays_a_wire", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.x.Add(in.y).Slice(8, 5)}
	}, []string{
		"wire [8:0] _add1 = {{1{1'b0}}, x} + {{1{1'b0}}, y};",
		"assign o = _add1[8:5];",
	}},
	{"add_read_twice_stays_a_wire", func(in inlineIn) []*hdl.Expr {
		sum := in.x.Add(in.y)
		return []*hdl.Expr{sum.Xor(in.z), sum.And(in.z)}
	}, []string{
		"wire [8:0] _add1 = {{1{1'b0}}, x} + {{1{1'b0}}, y};",
		"assign o = _add1 ^ z;",
		"assign o1 = _add1 & z;",
	}},
	{"value_of_an_output_read_by_its_name", func(in inlineIn) []*hdl.Expr {
		v := in.x.And(in.y)
		return []*hdl.Expr{v, v.Not()}
	}, []string{
		"assign o = x & y;",
		"assign o1 = ~o;",
	}},
	{"widened_add_keeps_its_carry", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.x.Add(in.y).Lt(in.z.Ext(10))}
	}, []string{
		"assign o = {{1{1'b0}}, ({{1{1'b0}}, x} + {{1{1'b0}}, y})} < {{1{1'b0}}, z};",
	}},
	{"sign_extension_pinned_signed", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.t.Ext(8).Shr(in.n)}
	}, []string{
		"assign o = $signed({{4{t[3]}}, t}) >>> n;",
	}},
	{"signed_trunc_pinned_signed", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.s.Trunc(4).Lt(in.t)}
	}, []string{
		"assign o = $signed(s[3:0]) < t;",
	}},
	{"sign_extended_expression_stays_a_wire", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.s.Neg().Ext(12)}
	}, []string{
		"wire signed [8:0] _neg1 = -$signed({{1{s[7]}}, s});",
		"assign o = {{3{_neg1[8]}}, _neg1};",
	}},
	{"signed_bits_pinned_signed", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.t.Trunc(1).Lt(in.s.Bit(7).AsSInt()).Xor(in.c)}
	}, []string{
		"assign o = ($signed(t[0]) < $signed(s[7])) ^ c;",
	}},
	{"bits_of_signed_bits_pinned_unsigned", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.p.Bit(0).Lt(in.q.Bit(0))} // spelled p and q, which are signed
	}, []string{
		"assign o = $unsigned(p) < $unsigned(q);",
	}},
	{"select_of_a_select", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{in.x.Slice(7, 4).Slice(2, 1)}
	}, []string{
		"assign o = x[6:5];",
	}},
	{"mux_condition_and_arms", func(in inlineIn) []*hdl.Expr {
		return []*hdl.Expr{hdl.Mux(in.x.Eq(in.y), in.x.And(in.y), in.x.Or(in.y))}
	}, []string{
		"assign o = (x == y) ? (x & y) : (x | y);",
	}},
	{"long_operand_gets_a_wire", func(in inlineIn) []*hdl.Expr {
		v := in.x.Xor(in.y)
		for i := 0; i < 12; i++ {
			v = v.And(in.x).Or(in.y)
		}
		return []*hdl.Expr{v.Not()}
	}, []string{
		"wire [7:0] _or1 = ((((((((((((((((x ^ y) & x) | y) & x) | y) & x) | y) & x) | y) & x) | y) & x) | y) & x) | y) & x) | y;",
		"assign o = ~((((((((_or1 & x) | y) & x) | y) & x) | y) & x) | y);",
	}},
}

func outName(prefix string, i int) string {
	if i == 0 {
		return prefix
	}
	return fmt.Sprintf("%s%d", prefix, i)
}

// logicLines returns the wires and assigns of an emitted module, trimmed,
// without the unused-bits waiver.
func logicLines(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if (strings.HasPrefix(l, "wire ") && strings.Contains(l, " = ") || strings.HasPrefix(l, "assign ")) && !strings.Contains(l, "_unused_ok") {
			lines = append(lines, l)
		}
	}
	return lines
}

// A temporary read in one place is written there, parenthesised, where
// Verilog evaluates it at its own width and signedness; it stays a wire
// where it is read twice (unless it drives an output, whose name the
// others read), where its bits are selected, or where its text would be
// long.
func TestInlineSingleUseOperands(t *testing.T) {
	for _, tc := range inlineCases {
		t.Run(tc.name, func(t *testing.T) {
			m := hdl.NewModule("inline_" + tc.name)
			for i, v := range tc.build(inlineInputs(m)) {
				m.Output(outName("o", i), v.Type).Set(v)
			}
			d, err := hdl.Elaborate(m)
			if err != nil {
				t.Fatal(err)
			}
			text := string(verilog.Emit(d)[0].Data)
			if diff := cmp.Diff(tc.want, logicLines(text)); diff != "" {
				t.Errorf("wires and assigns (-want +got):\n%s\n%s", diff, text)
			}
		})
	}
}

// All the cases in one module lint clean and agree with the Go simulator
// under Verilator, bit for bit.
func TestInlinedOperandsAgreeWithVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	m := hdl.NewModule("inline_cases")
	in := inlineInputs(m)
	for _, tc := range inlineCases {
		for i, v := range tc.build(in) {
			m.Output(outName(tc.name, i), v.Type).Set(v)
		}
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	dir, vs := writeFiles(t, verilog.Emit(d))
	if err := toolchain.Lint(dir, d.Top.Name, vs); err != nil {
		t.Error(err)
	}
	if _, err := verify.CrossCheck(d, stim.Random(d, 500, 7), verify.Options{Dir: t.TempDir()}); err != nil {
		t.Error(err)
	}
}

// An instance input driven by a signed expression reads it through a
// wire: Yosys 0.23 fails an assertion ("arg->is_signed ==
// sig.as_wire()->is_signed", genrtlil.cc) on a port connected to a signed
// expression; an unsigned one is written in place.
func TestSignedPortConnectionIsAWire(t *testing.T) {
	child := hdl.NewModule("port_child")
	a := child.Input("a", hdl.SInt(8))
	b := child.Input("b", hdl.UInt(8))
	child.Output("y", hdl.SInt(10)).Set(a.Ext(9).Add(b.Ext(9).AsSInt()))
	m := hdl.NewModule("port_parent")
	in := inlineInputs(m)
	u := m.Instance("u", child)
	u.Connect("a", in.s.Xor(in.t.Ext(8))).Connect("b", in.x.Xor(in.y))
	m.Output("o", hdl.SInt(10)).Set(u.Out("y"))
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	files := verilog.Emit(d)
	var text string
	for _, f := range files {
		if f.Name == "port_parent.v" {
			text = string(f.Data)
		}
	}
	var conns []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, ".a(") || strings.HasPrefix(l, ".b(") {
			conns = append(conns, strings.TrimSuffix(l, ","))
		}
	}
	if d := cmp.Diff([]string{".a(_xor1)", ".b(x ^ y)"}, conns); d != "" {
		t.Errorf("port connections (-want +got):\n%s\n%s", d, text)
	}
	tooltest.Need(t, "yosys")
	dir, vs := writeFiles(t, files)
	if _, err := toolchain.Synth(dir, "port_parent", vs); err != nil {
		t.Error(err)
	}
}
