package sim

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hwgen/hwgen/hdl"
)

// wsPE is a weight-stationary processing element: the weight shifts down
// the column while load is high and then stays; activations move right,
// partial sums move down.
func wsPE() *hdl.Module {
	m := hdl.NewModule("wspe")
	a, p, w, load := m.Input("a", hdl.SInt(8)), m.Input("pin", hdl.SInt(32)), m.Input("win", hdl.SInt(8)), m.Input("load", hdl.Bool)
	wr := m.Reg("w", hdl.SInt(8), 0)
	wr.SetNext(w)
	wr.SetEnable(load)
	ar := m.Reg("ar", hdl.SInt(8), 0)
	ar.SetNext(a)
	ps := m.Reg("psum", hdl.SInt(32), 0)
	ps.SetNext(p.Add(a.Mul(wr)).Trunc(32))
	m.Output("aout", hdl.SInt(8)).Set(ar)
	m.Output("pout", hdl.SInt(32)).Set(ps)
	m.Output("wout", hdl.SInt(8)).Set(wr)
	return m
}

// wsArray is an n x n array of wsPE: a<i> feeds row i, w<j> column j,
// p<j> is the bottom partial sum of column j.
func wsArray(n int) *hdl.Module {
	m := hdl.NewModule(hdl.Name("wsarray", n))
	load := m.Input("load", hdl.Bool)
	pe := wsPE()
	insts := make([][]*hdl.Instance, n)
	for i := range n {
		insts[i] = make([]*hdl.Instance, n)
		for j := range n {
			insts[i][j] = m.Instance(fmt.Sprintf("u_r%d_c%d", i, j), pe)
		}
	}
	for i := range n {
		a := m.Input(fmt.Sprintf("a%d", i), hdl.SInt(8))
		for j := range n {
			in := insts[i][j]
			in.Connect("load", load)
			if j == 0 {
				in.Connect("a", a)
			} else {
				in.Connect("a", insts[i][j-1].Out("aout"))
			}
			if i == 0 {
				in.Connect("pin", hdl.S(32, 0))
			} else {
				in.Connect("pin", insts[i-1][j].Out("pout"))
			}
		}
	}
	for j := range n {
		w := m.Input(fmt.Sprintf("w%d", j), hdl.SInt(8))
		for i := range n {
			if i == 0 {
				insts[i][j].Connect("win", w)
			} else {
				insts[i][j].Connect("win", insts[i-1][j].Out("wout"))
			}
		}
		m.Output(fmt.Sprintf("p%d", j), hdl.SInt(32)).Set(insts[n-1][j].Out("pout"))
	}
	return m
}

// loadWeights shifts random weights into the array and leaves load low.
func loadWeights(t testing.TB, s *Sim, n int, r *rand.Rand) {
	t.Helper()
	s.Reset(1)
	poke(t, s, map[string]int64{"load": 1})
	for range n {
		for j := range n {
			poke(t, s, map[string]int64{fmt.Sprintf("w%d", j): int64(r.Intn(256) - 128)})
		}
		s.Step(1)
	}
	poke(t, s, map[string]int64{"load": 0})
}

// BenchmarkWSArray16 streams random activations through a 16x16
// weight-stationary array, one new activation per row per cycle.
func BenchmarkWSArray16(b *testing.B) {
	streamWSArray(b, mustSim(b, wsArray(16)))
}

// BenchmarkWSArray16Idle is the same array with nothing changing: a Step
// should cost next to nothing.
func BenchmarkWSArray16Idle(b *testing.B) {
	const n = 16
	s := mustSim(b, wsArray(n))
	loadWeights(b, s, n, rand.New(rand.NewSource(1)))
	s.Step(2 * n)
	b.ResetTimer()
	for range b.N {
		s.Step(1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

// BenchmarkWSArray16Compiled is BenchmarkWSArray16 on generated code.
func BenchmarkWSArray16Compiled(b *testing.B) {
	s, err := NewWith(elab(b, wsArray(16)), Options{Compiled: true})
	if err != nil {
		b.Fatal(err)
	}
	streamWSArray(b, s)
}

// streamWSArray loads weights into the 16x16 array s and times cycles
// that each poke a new random activation into every row.
func streamWSArray(b *testing.B, s *Sim) {
	const n = 16
	r := rand.New(rand.NewSource(1))
	loadWeights(b, s, n, r)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("a%d", i)
	}
	vals := make([]uint64, 1024)
	for i := range vals {
		vals[i] = uint64(int64(r.Intn(256) - 128))
	}
	st0 := s.Stats()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		for i, name := range names {
			if err := s.Poke(name, vals[(k*n+i)&1023]); err != nil {
				b.Fatal(err)
			}
		}
		s.Step(1)
	}
	b.StopTimer()
	st := s.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
	b.ReportMetric(float64(st.Evals-st0.Evals)/float64(b.N), "evals/cycle")
}
