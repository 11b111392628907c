package hdl_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/hdl"
)

// pe is a parameterized generator: every call returns a new Go object.
func pe(in, acc hdl.Type) *hdl.Module {
	m := hdl.NewModule(hdl.Name("pe", in, acc))
	a := m.Input("a", in)
	b := m.Input("b", in)
	r := m.Reg("acc", acc, 0)
	r.SetNext(r.Add(a.Mul(b)).Trunc(acc.Width))
	m.Output("y", acc).Set(r)
	return m
}

// leaf inverts its input; mid instantiates leaf twice.
func leaf() *hdl.Module {
	m := hdl.NewModule("leaf")
	m.Output("y", hdl.UInt(4)).Set(m.Input("a", hdl.UInt(4)).Not())
	return m
}

func mid() *hdl.Module {
	m := hdl.NewModule("mid")
	a := m.Input("a", hdl.UInt(4))
	l0 := m.Instance("l0", leaf()).Connect("a", a)
	l1 := m.Instance("l1", leaf()).Connect("a", l0.Out("y"))
	m.Output("y", hdl.UInt(4)).Set(l1.Out("y"))
	return m
}

// hierarchy: top instantiates two pe variants (one twice), mid and leaf.
func hierarchy() *hdl.Module {
	top := hdl.NewModule("top")
	a := top.Input("a", hdl.SInt(8))
	n := top.Input("n", hdl.UInt(4))
	u0 := top.Instance("u0", pe(hdl.SInt(8), hdl.SInt(32))).Connect("a", a).Connect("b", a)
	u1 := top.Instance("u1", pe(hdl.SInt(8), hdl.SInt(32))).Connect("a", a).Connect("b", u0.Out("y").Trunc(8))
	u2 := top.Instance("u2", pe(hdl.SInt(4), hdl.SInt(16))).Connect("a", a.Trunc(4)).Connect("b", a.Trunc(4))
	mi := top.Instance("mi", mid()).Connect("a", n)
	le := top.Instance("le", leaf()).Connect("a", mi.Out("y"))
	top.Output("y", hdl.SInt(32)).Set(u1.Out("y"))
	top.Output("z", hdl.SInt(16)).Set(u2.Out("y"))
	top.Output("w", hdl.UInt(4)).Set(le.Out("y"))
	return top
}

func moduleNames(d *hdl.Design) []string {
	var names []string
	for _, m := range d.Modules {
		names = append(names, m.Name)
	}
	return names
}

func TestDedupAndOrder(t *testing.T) {
	top := hierarchy()
	d := mustElaborate(t, top)
	if d.Top != top {
		t.Errorf("Design.Top is not the module given to Elaborate")
	}
	want := []string{"pe_s8_s32", "pe_s4_s16", "leaf", "mid", "top"}
	if diff := cmp.Diff(want, moduleNames(d)); diff != "" {
		t.Errorf("Design.Modules mismatch (-want +got):\n%s", diff)
	}
	insts := map[string]*hdl.Instance{}
	for _, in := range top.Insts {
		insts[in.Name] = in
	}
	if insts["u0"].Module != insts["u1"].Module {
		t.Errorf("u0 and u1 point to different modules %p and %p", insts["u0"].Module, insts["u1"].Module)
	}
	if insts["u0"].Module != d.Modules[0] {
		t.Errorf("u0's module is not the one in Design.Modules")
	}
	if insts["u2"].Module == insts["u0"].Module {
		t.Errorf("different parameterizations were merged")
	}
	mi := insts["mi"].Module
	if mi.Insts[0].Module != insts["le"].Module || mi.Insts[1].Module != insts["le"].Module {
		t.Errorf("leaf is not shared between mid and top")
	}
	// Children before parents, each module once, Info for exactly these.
	index := map[*hdl.Module]int{}
	for i, m := range d.Modules {
		if _, dup := index[m]; dup {
			t.Errorf("module %s listed twice", m.Name)
		}
		index[m] = i
		for _, in := range m.Insts {
			j, ok := index[in.Module]
			if !ok || j >= i {
				t.Errorf("%s (index %d) listed before its child %s", m.Name, i, in.Module.Name)
			}
		}
		if d.Info[m] == nil {
			t.Errorf("no Info for %s", m.Name)
		}
	}
	if len(d.Info) != len(d.Modules) {
		t.Errorf("Info has %d entries for %d modules", len(d.Info), len(d.Modules))
	}
}

// Building and elaborating the same design again gives the same module
// order and fingerprints.
func TestElaborateDeterministic(t *testing.T) {
	type summary struct {
		Names, Fingerprints []string
	}
	sum := func() summary {
		d := mustElaborate(t, hierarchy())
		var s summary
		for _, m := range d.Modules {
			s.Names = append(s.Names, m.Name)
			s.Fingerprints = append(s.Fingerprints, d.Info[m].Fingerprint)
		}
		return s
	}
	first := sum()
	for i := 0; i < 10; i++ {
		if diff := cmp.Diff(first, sum()); diff != "" {
			t.Fatalf("run %d differs (-first +now):\n%s", i, diff)
		}
	}
	seen := map[string]string{}
	for i, fp := range first.Fingerprints {
		if len(fp) != 32 {
			t.Errorf("fingerprint of %s is %q, want 32 hex digits", first.Names[i], fp)
		}
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share a fingerprint", other, first.Names[i])
		}
		seen[fp] = first.Names[i]
	}
}

// childVariant builds module "child" with one aspect changed by v.
func childVariant(v string) *hdl.Module {
	m := hdl.NewModule("child")
	var a, b *hdl.Signal
	if v == "port order" {
		b = m.Input("b", hdl.UInt(8))
		a = m.Input("a", hdl.UInt(8))
	} else {
		a = m.Input("a", hdl.UInt(8))
		b = m.Input("b", hdl.UInt(8))
	}
	init := int64(0)
	if v == "reset value" {
		init = 1
	}
	rname := "r"
	if v == "signal name" {
		rname = "q"
	}
	r := m.Reg(rname, hdl.UInt(8), init)
	k := uint64(3)
	if v == "constant" {
		k = 4
	}
	hi := 7
	if v == "slice" {
		hi = 6
	}
	sh := 1
	if v == "shift" {
		sh = 2
	}
	depth := 4
	if v == "memory depth" {
		depth = 5
	}
	mem := m.Memory("mem", depth, hdl.UInt(8))
	mem.Write(a.Trunc(2).Resize(hdl.ClogWidth(depth)), b, a.Bit(0))
	q := mem.Read("rd", b.Trunc(2).Resize(hdl.ClogWidth(depth)))
	r.SetNext(a.Add(hdl.U(8, k)).Slice(hi, 0).Resize(8))
	m.Output("y", hdl.UInt(8)).Set(r.Xor(q).ShlConst(sh).Trunc(8))
	return m
}

// childSame is childVariant("") written out again on other lines: where a
// module is built does not make it different.
func childSame() *hdl.Module {
	m := hdl.NewModule("child")
	a := m.Input("a", hdl.UInt(8))
	b := m.Input("b", hdl.UInt(8))
	r := m.Reg("r", hdl.UInt(8), 0)
	mem := m.Memory("mem", 4, hdl.UInt(8))
	mem.Write(a.Trunc(2), b, a.Bit(0))
	q := mem.Read("rd", b.Trunc(2))
	r.SetNext(a.Add(hdl.U(8, 3)).Slice(7, 0))
	m.Output("y", hdl.UInt(8)).Set(r.Xor(q).ShlConst(1).Trunc(8))
	return m
}

func TestDedupByStructure(t *testing.T) {
	tests := []struct {
		name  string
		other func() *hdl.Module
		same  bool
	}{
		{"identical", func() *hdl.Module { return childVariant("") }, true},
		{"identical, built elsewhere", childSame, true},
		{"port order", func() *hdl.Module { return childVariant("port order") }, false},
		{"reset value", func() *hdl.Module { return childVariant("reset value") }, false},
		{"signal name", func() *hdl.Module { return childVariant("signal name") }, false},
		{"constant", func() *hdl.Module { return childVariant("constant") }, false},
		{"slice", func() *hdl.Module { return childVariant("slice") }, false},
		{"shift", func() *hdl.Module { return childVariant("shift") }, false},
		{"memory depth", func() *hdl.Module { return childVariant("memory depth") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := hdl.NewModule("top")
			a := top.Input("a", hdl.UInt(8))
			u0 := top.Instance("u0", childVariant("")).Connect("a", a).Connect("b", a)
			u1 := top.Instance("u1", tt.other()).Connect("a", a).Connect("b", a)
			top.Output("y", hdl.UInt(8)).Set(u0.Out("y").Or(u1.Out("y")))
			d, err := elaborateNoPanic(t, top)
			if !tt.same {
				if err == nil {
					t.Fatalf("modules differing in %s were merged", tt.name)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"child", "top"}, moduleNames(d)); diff != "" {
				t.Errorf("Design.Modules mismatch (-want +got):\n%s", diff)
			}
			if u0.Module != u1.Module {
				t.Errorf("identical children not merged")
			}
		})
	}
}

type infoSummary struct {
	UsesClock, UsesReset bool
	CombDeps             map[string][]int
	Inputs               []string
}

func summarize(inf *hdl.ModuleInfo) infoSummary {
	s := infoSummary{UsesClock: inf.UsesClock, UsesReset: inf.UsesReset, CombDeps: inf.CombDeps}
	for _, in := range inf.Inputs {
		s.Inputs = append(s.Inputs, in.Name)
	}
	return s
}

func TestModuleInfo(t *testing.T) {
	tests := []struct {
		name  string
		build func() *hdl.Module
		want  infoSummary
	}{
		{"combinational", func() *hdl.Module {
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.UInt(8))
			b := m.Input("b", hdl.UInt(8))
			c := m.Input("c", hdl.UInt(8))
			w := m.Wire("w", hdl.UInt(8))
			w.Set(c.Xor(b))
			m.Output("y", hdl.UInt(9)).Set(w.Add(a))
			m.Output("z", hdl.UInt(8)).Set(hdl.U(8, 7))
			return m
		}, infoSummary{false, false, map[string][]int{"y": {0, 1, 2}, "z": nil}, []string{"a", "b", "c"}}},
		{"memory only", func() *hdl.Module {
			m := hdl.NewModule("top")
			addr := m.Input("addr", hdl.UInt(3))
			data := m.Input("data", hdl.UInt(8))
			we := m.Input("we", hdl.Bool)
			mem := m.Memory("mem", 8, hdl.UInt(8))
			mem.Write(addr, data, we)
			m.Output("q", hdl.UInt(8)).Set(mem.Read("rd", addr))
			m.Output("busy", hdl.Bool).Set(we)
			return m
		}, infoSummary{true, false, map[string][]int{"q": nil, "busy": {2}}, []string{"addr", "data", "we"}}},
		{"registered path", delay, infoSummary{true, true, map[string][]int{"y": nil}, []string{"a"}}},
		{"register beside a comb path", func() *hdl.Module {
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.UInt(8))
			b := m.Input("b", hdl.UInt(8))
			en := m.Input("en", hdl.Bool)
			r := m.Reg("r", hdl.UInt(8), 0)
			r.SetNext(b)
			r.SetEnable(en)
			m.Output("y", hdl.UInt(9)).Set(r.Add(a))
			return m
		}, infoSummary{true, true, map[string][]int{"y": {0}}, []string{"a", "b", "en"}}},
		{"parent of a registered child", func() *hdl.Module {
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.UInt(8))
			u := m.Instance("u", delay()).Connect("a", a)
			m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
			return m
		}, infoSummary{true, true, map[string][]int{"y": nil}, []string{"a"}}},
		{"parent of a comb child", func() *hdl.Module {
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.UInt(8))
			b := m.Input("b", hdl.UInt(8))
			u := m.Instance("u", passThrough()).Connect("a", b)
			m.Output("y", hdl.UInt(8)).Set(u.Out("y"))
			m.Output("z", hdl.UInt(8)).Set(a)
			return m
		}, infoSummary{false, false, map[string][]int{"y": {1}, "z": {0}}, []string{"a", "b"}}},
		{"grandparent of a memory", func() *hdl.Module {
			inner := hdl.NewModule("inner")
			mem := inner.Memory("mem", 2, hdl.Bool)
			ia := inner.Input("a", hdl.Bool)
			mem.Write(ia, ia, ia)
			inner.Output("y", hdl.Bool).Set(mem.Read("rd", ia))
			outer := hdl.NewModule("outer")
			oa := outer.Input("a", hdl.Bool)
			outer.Output("y", hdl.Bool).Set(outer.Instance("i", inner).Connect("a", oa).Out("y"))
			m := hdl.NewModule("top")
			a := m.Input("a", hdl.Bool)
			m.Output("y", hdl.Bool).Set(m.Instance("o", outer).Connect("a", a).Out("y"))
			return m
		}, infoSummary{true, false, map[string][]int{"y": nil}, []string{"a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := tt.build()
			d := mustElaborate(t, top)
			if diff := cmp.Diff(tt.want, summarize(d.Info[top]), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ModuleInfo mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// CombDeps of a child as seen from the design of its parent.
func TestChildCombDeps(t *testing.T) {
	top := hdl.NewModule("top")
	a := top.Input("a", hdl.UInt(8))
	p := top.Instance("p", passThrough()).Connect("a", a)
	q := top.Instance("q", delay()).Connect("a", p.Out("y"))
	top.Output("y", hdl.UInt(8)).Set(q.Out("y"))
	d := mustElaborate(t, top)
	got := map[string]map[string][]int{}
	for _, m := range d.Modules {
		got[m.Name] = d.Info[m].CombDeps
	}
	want := map[string]map[string][]int{
		"pass":  {"y": {0}},
		"delay": {"y": nil},
		"top":   {"y": nil},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("CombDeps mismatch (-want +got):\n%s", diff)
	}
}

// The example of the package documentation elaborates.
func TestDocExample(t *testing.T) {
	m := hdl.NewModule("mac")
	a := m.Input("a", hdl.SInt(8))
	b := m.Input("b", hdl.SInt(8))
	acc := m.Reg("acc", hdl.SInt(32), 0)
	acc.SetNext(acc.Add(a.Mul(b)).Trunc(32))
	m.Output("y", hdl.SInt(32)).Set(acc)
	d := mustElaborate(t, m)
	if diff := cmp.Diff([]string{"mac"}, moduleNames(d)); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
}

// Module bookkeeping: ports, signals, instance outputs.
func TestModuleStructure(t *testing.T) {
	m := hdl.NewModule("top")
	a := m.Input("a", hdl.UInt(8))
	w := m.Wire("w", hdl.UInt(8))
	y := m.Output("y", hdl.UInt(8))
	r := m.Reg("r", hdl.SInt(4), -2)
	u := m.Instance("u", delay()).Connect("a", a)
	w.Set(u.Out("y"))
	y.Set(w)
	r.SetNext(r)

	type sig struct {
		Name, Kind string
		Type       hdl.Type
	}
	var got []sig
	for _, s := range m.Signals {
		got = append(got, sig{s.Name, s.Kind.String(), s.Type})
	}
	want := []sig{
		{"a", "input", hdl.UInt(8)},
		{"w", "wire", hdl.UInt(8)},
		{"y", "output", hdl.UInt(8)},
		{"r", "reg", hdl.SInt(4)},
		{"u_y", "instance output", hdl.UInt(8)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Signals mismatch (-want +got):\n%s", diff)
	}
	if m.Port("a") != a || m.Port("y") != y || m.Port("w") != nil || m.Port("nope") != nil {
		t.Errorf("Port lookup wrong")
	}
	if len(m.Ports) != 2 {
		t.Errorf("Ports has %d entries, want 2", len(m.Ports))
	}
	if out := u.Out("y"); out != u.Outputs["y"] || out.Inst != u || out.Port != "y" {
		t.Errorf("Out(y) is not the instance's output signal")
	}
	if r.Init.Int64() != 14 {
		t.Errorf("reset bits of SInt(4) -2 = %v, want 14", r.Init)
	}
	if y.Driver != &w.Expr {
		t.Errorf("y.Driver is not w")
	}
	mustElaborate(t, m)
}

// A narrower driver is extended to the driven type.
func TestSetExtends(t *testing.T) {
	m := hdl.NewModule("top")
	a := m.Input("a", hdl.SInt(3))
	y := m.Output("y", hdl.SInt(8))
	y.Set(a)
	if got := shape(y.Driver); got != "ext:s8(a)" {
		t.Errorf("driver shape %s, want ext:s8(a)", got)
	}
	mustElaborate(t, m)
}
