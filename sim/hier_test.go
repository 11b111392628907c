package sim

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// macPE multiplies a by a stationary weight and accumulates while en is
// high; it forwards a one cycle later, and y = acc + a is combinational
// in a so that comb paths cross the instance boundary.
func macPE() *hdl.Module {
	m := hdl.NewModule("pe")
	a, w, en := m.Input("a", hdl.SInt(8)), m.Input("w", hdl.SInt(8)), m.Input("en", hdl.Bool)
	acc := m.Reg("acc", hdl.SInt(20), 0)
	acc.SetNext(acc.Add(a.Mul(w)).Trunc(20))
	acc.SetEnable(en)
	fwd := m.Reg("fwd", hdl.SInt(8), 0)
	fwd.SetNext(a)
	sum := m.Wire("sum", hdl.SInt(21))
	sum.Set(acc.Add(a))
	m.Output("y", hdl.SInt(21)).Set(sum)
	m.Output("aout", hdl.SInt(8)).Set(fwd)
	return m
}

// row chains two PEs: u_pe1 sees u_pe0's forwarded activation.
func row() *hdl.Module {
	m := hdl.NewModule("row")
	a, w0, w1, en := m.Input("a", hdl.SInt(8)), m.Input("w0", hdl.SInt(8)), m.Input("w1", hdl.SInt(8)), m.Input("en", hdl.Bool)
	// u_pe1 is declared first and reads u_pe0's output, declared later.
	p1 := m.Instance("u_pe1", macPE())
	p0 := m.Instance("u_pe0", macPE())
	p0.Connect("a", a).Connect("w", w0).Connect("en", en)
	p1.Connect("a", p0.Out("aout")).Connect("w", w1).Connect("en", en)
	m.Output("y0", hdl.SInt(21)).Set(p0.Out("y"))
	m.Output("y1", hdl.SInt(21)).Set(p1.Out("y"))
	return m
}

type peModel struct{ acc, fwd int64 }

func (p *peModel) y(a int64) int64 { return p.acc + a }

func (p *peModel) edge(a, w int64, en bool) {
	if en {
		p.acc = wrap(p.acc+a*w, 20)
	}
	p.fwd = a
}

func wrap(v int64, w uint) int64 { return v << (64 - w) >> (64 - w) }

func TestHierarchy(t *testing.T) {
	top := hdl.NewModule("top")
	a := top.Input("a", hdl.SInt(8))
	en := top.Input("en", hdl.Bool)
	r0 := top.Instance("u_row0", row())
	r1 := top.Instance("u_row1", row())
	r0.Connect("a", a).Connect("w0", hdl.S(8, 3)).Connect("w1", hdl.S(8, -5)).Connect("en", en)
	r1.Connect("a", a.Neg().Trunc(8)).Connect("w0", hdl.S(8, 7)).Connect("w1", hdl.S(8, 1)).Connect("en", en)
	top.Output("q", hdl.SInt(21)).Set(r0.Out("y1"))
	s := mustSim(t, top)

	type rowModel struct{ p0, p1 peModel }
	rows := []*rowModel{{}, {}}
	weights := [][2]int64{{3, -5}, {7, 1}}
	paths := []string{"q", "u_row0.u_pe0.acc", "u_row0.u_pe1.acc", "u_row1.u_pe0.acc", "u_row1.u_pe1.acc",
		"u_row0.u_pe1.a", "u_row1.u_pe0.a", "u_row1.u_pe1.sum", "u_row0.y0", "u_row0.u_pe0_y", "u_row1.u_pe1.fwd"}
	r := rand.New(rand.NewSource(1))
	for cyc := range 60 {
		av := int64(r.Intn(256) - 128)
		ev := r.Intn(4) != 0
		poke(t, s, map[string]int64{"a": av, "en": int64(b2u(ev))})
		ins := []int64{av, wrap(-av, 8)}
		want := map[string]int64{}
		for i, rm := range rows {
			n := []string{"u_row0.", "u_row1."}[i]
			want[n+"u_pe0.acc"] = rm.p0.acc
			want[n+"u_pe1.acc"] = rm.p1.acc
			want[n+"u_pe0.a"] = ins[i]
			want[n+"u_pe1.a"] = rm.p0.fwd
			want[n+"u_pe1.sum"] = rm.p1.y(rm.p0.fwd)
			want[n+"y0"] = rm.p0.y(ins[i])
			want[n+"u_pe0_y"] = rm.p0.y(ins[i])
			want[n+"u_pe1.fwd"] = rm.p1.fwd
		}
		want["q"] = want["u_row0.u_pe1.sum"]
		got := peekAll(t, s, paths...)
		for k := range want {
			if _, ok := got[k]; !ok {
				delete(want, k)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("cycle %d (-want +got):\n%s", cyc, diff)
		}
		for i, rm := range rows {
			fwd0 := rm.p0.fwd
			rm.p0.edge(ins[i], weights[i][0], ev)
			rm.p1.edge(fwd0, weights[i][1], ev)
		}
		s.Step(1)
	}
}

// TestMACAccumulator runs a signed multiply-accumulate with clear and
// enable for many cycles against a Go model.
func TestMACAccumulator(t *testing.T) {
	m := hdl.NewModule("mac")
	a, b := m.Input("a", hdl.SInt(8)), m.Input("b", hdl.SInt(8))
	en, clr := m.Input("en", hdl.Bool), m.Input("clr", hdl.Bool)
	acc := m.Reg("acc", hdl.SInt(32), 0)
	acc.SetNext(hdl.Mux(clr, hdl.S(32, 0), acc.Add(a.Mul(b)).Trunc(32)))
	acc.SetEnable(en.Or(clr))
	m.Output("y", hdl.SInt(32)).Set(acc)
	// A 96-bit accumulator of the same products takes the wide path.
	wacc := m.Reg("wacc", hdl.SInt(96), 0)
	wacc.SetNext(hdl.Mux(clr, hdl.S(96, 0), wacc.Add(a.Mul(b).Mul(hdl.S(64, 1<<40))).Trunc(96)))
	wacc.SetEnable(en.Or(clr))
	s := mustSim(t, m)
	s.Reset(2)

	var model int64
	r := rand.New(rand.NewSource(7))
	for cyc := range 2000 {
		av, bv := int64(r.Intn(256)-128), int64(r.Intn(256)-128)
		ev, cv := r.Intn(5) != 0, r.Intn(97) == 0
		poke(t, s, map[string]int64{"a": av, "b": bv, "en": int64(b2u(ev)), "clr": int64(b2u(cv))})
		s.Step(1)
		switch {
		case cv:
			model = 0
		case ev:
			model += av * bv
		}
		got := peekAll(t, s, "y")["y"]
		if got != wrap(model, 32) {
			t.Fatalf("cycle %d: y = %d, want %d", cyc, got, wrap(model, 32))
		}
		w, _ := s.PeekSigned("wacc")
		if want := model << 40; w.Int64() != want || !w.IsInt64() {
			t.Fatalf("cycle %d: wacc = %s, want %d", cyc, w, want)
		}
	}
}
