package sim

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// refEval is a naive evaluator of hdl expressions over math/big: the
// specification the compiled, event-driven evaluation must match.
func refEval(x *hdl.Expr, env map[*hdl.Signal]*big.Int, memo map[*hdl.Expr]*big.Int) *big.Int {
	if v, ok := memo[x]; ok {
		return v
	}
	v := refEval1(x, env, memo)
	memo[x] = v
	return v
}

func refEval1(x *hdl.Expr, env map[*hdl.Signal]*big.Int, memo map[*hdl.Expr]*big.Int) *big.Int {
	bits := func(v *big.Int) *big.Int { return x.Type.Bits(v) }
	arg := func(i int) *big.Int { return refEval(x.Args[i], env, memo) }
	val := func(i int) *big.Int { return x.Args[i].Type.Interpret(arg(i)) }
	switch x.Op {
	case hdl.OpConst:
		return x.Const
	case hdl.OpSignal:
		switch x.Sig.Kind {
		case hdl.Input, hdl.Reg, hdl.MemRead:
			return env[x.Sig]
		}
		return refEval(x.Sig.Driver, env, memo)
	case hdl.OpNot:
		return bits(new(big.Int).Not(arg(0)))
	case hdl.OpNeg:
		return bits(new(big.Int).Neg(val(0)))
	case hdl.OpRedAnd:
		return b2i(arg(0).Cmp(x.Args[0].Type.Mask()) == 0)
	case hdl.OpRedOr:
		return b2i(arg(0).Sign() != 0)
	case hdl.OpRedXor:
		a, p := arg(0), uint(0)
		for i := 0; i < a.BitLen(); i++ {
			p ^= a.Bit(i)
		}
		return big.NewInt(int64(p))
	case hdl.OpAdd:
		return bits(new(big.Int).Add(arg(0), arg(1)))
	case hdl.OpSub:
		return bits(new(big.Int).Sub(arg(0), arg(1)))
	case hdl.OpMul:
		return bits(new(big.Int).Mul(arg(0), arg(1)))
	case hdl.OpAnd:
		return new(big.Int).And(arg(0), arg(1))
	case hdl.OpOr:
		return new(big.Int).Or(arg(0), arg(1))
	case hdl.OpXor:
		return new(big.Int).Xor(arg(0), arg(1))
	case hdl.OpShlConst:
		return bits(new(big.Int).Lsh(arg(0), uint(x.Amount)))
	case hdl.OpShl:
		return bits(new(big.Int).Lsh(arg(0), shiftCap(arg(1), x.Type.Width)))
	case hdl.OpShr:
		return bits(new(big.Int).Rsh(val(0), shiftCap(arg(1), x.Type.Width)))
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		c := val(0).Cmp(val(1))
		return b2i(map[hdl.Op]bool{hdl.OpEq: c == 0, hdl.OpNe: c != 0, hdl.OpLt: c < 0, hdl.OpLe: c <= 0, hdl.OpGt: c > 0, hdl.OpGe: c >= 0}[x.Op])
	case hdl.OpMux:
		if arg(0).Sign() != 0 {
			return arg(1)
		}
		return arg(2)
	case hdl.OpCat:
		r := new(big.Int)
		for i, a := range x.Args {
			r.Lsh(r, uint(a.Type.Width)).Or(r, arg(i))
		}
		return r
	case hdl.OpSlice:
		return bits(new(big.Int).Rsh(arg(0), uint(x.Lo)))
	case hdl.OpExt:
		return bits(val(0))
	case hdl.OpTrunc, hdl.OpAsSInt, hdl.OpAsUInt:
		return bits(arg(0))
	}
	panic(fmt.Sprintf("refEval: %s", x.Op))
}

// randomNetlist builds a combinational module of random operators over
// random inputs whose widths straddle the one-word boundary.
func randomNetlist(r *rand.Rand, name string, nInputs, nOps int) (*hdl.Module, []*hdl.Signal, []*hdl.Signal) {
	n := randomDesign(r, name, nInputs, nOps, false)
	return n.m, n.ins, n.outs
}

// randNet is a random design; with state it has registers (feeding back
// into the logic) and one memory with two write and two read ports.
type randNet struct {
	m    *hdl.Module
	ins  []*hdl.Signal
	outs []*hdl.Signal
	regs []*hdl.Signal
	mem  *hdl.Memory
}

// fitTo reinterprets and resizes e to t.
func fitTo(e *hdl.Expr, t hdl.Type) *hdl.Expr {
	if t.Signed {
		e = e.AsSInt()
	} else {
		e = e.AsUInt()
	}
	return e.Resize(t.Width)
}

func randomDesign(r *rand.Rand, name string, nInputs, nOps int, state bool) *randNet {
	m := hdl.NewModule(name)
	net := &randNet{m: m}
	widths := []int{1, 2, 5, 8, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 190}
	randType := func() hdl.Type { return hdl.Type{Width: widths[r.Intn(len(widths))], Signed: r.Intn(2) == 0} }
	var pool []*hdl.Expr
	var ins []*hdl.Signal
	for i := range nInputs {
		s := m.Input(fmt.Sprintf("i%d", i), randType())
		ins = append(ins, s)
		pool = append(pool, &s.Expr)
	}
	if state {
		for i := range 6 {
			t := randType()
			init := new(big.Int).Rsh(randBits(r, t.Width), 1) // fits either signedness
			reg := m.RegBig(fmt.Sprintf("r%d", i), t, init)
			net.regs = append(net.regs, reg)
			pool = append(pool, &reg.Expr)
		}
		net.mem = m.Memory("mem", 6, randType())
		for i := range 2 {
			pool = append(pool, &net.mem.Read(fmt.Sprintf("q%d", i), pool[r.Intn(len(pool))].AsUInt().Resize(3)).Expr)
		}
	}
	nFixed := len(pool)
	pick := func() *hdl.Expr {
		// Prefer recent values so that paths get deep.
		if r.Intn(3) == 0 {
			return pool[r.Intn(len(pool))]
		}
		return pool[max(0, len(pool)-1-r.Intn(8))]
	}
	like := func(a, b *hdl.Expr) *hdl.Expr { // b with a's signedness
		if a.Signed() == b.Signed() {
			return b
		}
		if a.Signed() {
			return b.AsSInt()
		}
		return b.AsUInt()
	}
	limit := func(e *hdl.Expr) *hdl.Expr {
		if e.Width() > 260 {
			return e.Trunc(1 + r.Intn(200))
		}
		return e
	}
	amount := func() *hdl.Expr {
		a := pick().AsUInt()
		if a.Width() > 9 && r.Intn(3) != 0 {
			a = a.Trunc(1 + r.Intn(9))
		}
		return a
	}
	for range nOps {
		a := pick()
		b := like(a, pick())
		var e *hdl.Expr
		switch r.Intn(22) {
		case 0:
			e = a.Add(b)
		case 1:
			e = a.Sub(b)
		case 2:
			e = limit(a).Trunc(min(a.Width(), 1+r.Intn(130))).Mul(b.Trunc(min(b.Width(), 1+r.Intn(130))))
		case 3:
			e = a.And(b)
		case 4:
			e = a.Or(b)
		case 5:
			e = a.Xor(b)
		case 6:
			e = a.Not()
		case 7:
			e = a.Neg()
		case 8:
			e = []func() *hdl.Expr{a.AndR, a.OrR, a.XorR}[r.Intn(3)]()
		case 9:
			e = a.ShlConst(r.Intn(80))
		case 10:
			e = a.ShrConst(r.Intn(a.Width() + 2))
		case 11:
			e = a.ShlWrap(amount())
		case 12:
			e = a.Shr(amount())
		case 13:
			if amt := amount(); amt.Width() <= 7 {
				e = a.Shl(amt)
			} else {
				e = a.Shl(amt.Trunc(3))
			}
		case 14:
			e = []func(hdl.Value) *hdl.Expr{a.Eq, a.Ne, a.Lt, a.Le, a.Gt, a.Ge}[r.Intn(6)](b)
		case 15:
			e = hdl.Mux(pick().OrR(), a, b)
		case 16:
			e = hdl.Cat(a, b, pick())
		case 17:
			lo := r.Intn(a.Width())
			e = a.Slice(lo+r.Intn(a.Width()-lo), lo)
		case 18:
			e = a.Ext(a.Width() + r.Intn(100))
		case 19:
			e = a.Trunc(1 + r.Intn(a.Width()))
		case 20:
			e = a.AsSInt().Lt(hdl.S(a.Width()+2, -1).Trunc(a.Width()))
		case 21:
			// A constant below 2^(w-1) fits either signedness.
			v := new(big.Int).And(a.Type.Bits(big.NewInt(-7)), new(big.Int).Rsh(a.Type.Mask(), 1))
			e = a.Add(hdl.Const(a.Type, v))
		}
		pool = append(pool, limit(e))
	}
	if state {
		for _, reg := range net.regs {
			if r.Intn(5) != 0 {
				reg.SetNext(fitTo(pick(), reg.Type))
			}
			if r.Intn(2) == 0 {
				reg.SetEnable(pick().OrR())
			}
		}
		mt := net.mem.Type
		net.mem.Write(pick().AsUInt().Resize(3), fitTo(pick(), mt), pick().XorR())
		net.mem.WriteMasked(pick().AsUInt().Resize(3), fitTo(pick(), mt), pick().OrR(), fitTo(pick(), hdl.UInt(mt.Width)))
		// The second read port is an enabled one, declared late so that
		// its address can come from anywhere.
		q := net.mem.ReadEnabled("q2", pick().AsUInt().Resize(3), pick().Bit(0))
		pool = append(pool, &q.Expr)
	}
	var outs []*hdl.Signal
	for i, e := range pool[nFixed:] {
		if i%3 == 0 || i >= len(pool)-nFixed-10 {
			o := m.Output(fmt.Sprintf("o%d", i), e.Type)
			o.Set(e)
			outs = append(outs, o)
		}
	}
	net.ins, net.outs = ins, outs
	return net
}

func TestRandomNetlists(t *testing.T) {
	for seed := range 12 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewSource(int64(seed)))
			m, ins, outs := randomNetlist(r, fmt.Sprintf("rnd%d", seed), 6, 200)
			s := mustSim(t, m)
			env := map[*hdl.Signal]*big.Int{}
			for _, in := range ins {
				env[in] = new(big.Int)
			}
			for it := range 40 {
				// Change a few inputs at a time, so that most of the netlist
				// is not re-evaluated and stale values would show.
				for range 1 + r.Intn(2) {
					in := ins[r.Intn(len(ins))]
					env[in] = randBits(r, in.Type.Width)
					if err := s.PokeBig(in.Name, env[in]); err != nil {
						t.Fatal(err)
					}
				}
				got, want := map[string]string{}, map[string]string{}
				memo := map[*hdl.Expr]*big.Int{}
				for _, o := range outs {
					v, err := s.PeekBig(o.Name)
					if err != nil {
						t.Fatal(err)
					}
					got[o.Name] = v.Text(16)
					want[o.Name] = refEval(&o.Expr, env, memo).Text(16)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("iteration %d (-want +got):\n%s", it, diff)
				}
			}
		})
	}
}

// TestRandomSequential runs random designs with registers and a memory
// for many cycles against a cycle-level model built on refEval, with
// idle stretches (no input change) and occasional resets.
func TestRandomSequential(t *testing.T) {
	for seed := range 24 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewSource(int64(1000 + seed)))
			net := randomDesign(r, fmt.Sprintf("seq%d", seed), 4, 80, true)
			s := mustSim(t, net.m)
			env := map[*hdl.Signal]*big.Int{}
			for _, sig := range net.m.Signals {
				env[sig] = new(big.Int)
			}
			mem := make([]*big.Int, net.mem.Depth)
			for i := range mem {
				mem[i] = new(big.Int)
			}
			var rst bool
			for cyc := range 150 {
				if r.Intn(3) == 0 { // otherwise an idle cycle
					in := net.ins[r.Intn(len(net.ins))]
					env[in] = randBits(r, in.Type.Width)
					if err := s.PokeBig(in.Name, env[in]); err != nil {
						t.Fatal(err)
					}
				}
				if r.Intn(20) == 0 || rst {
					rst = !rst
					if err := s.Poke("rst", b2u(rst)); err != nil {
						t.Fatal(err)
					}
				}
				memo := map[*hdl.Expr]*big.Int{}
				ev := func(x *hdl.Expr) *big.Int { return refEval(x, env, memo) }
				on := func(x *hdl.Expr) bool { return x == nil || ev(x).Sign() != 0 }

				got, want := map[string]string{}, map[string]string{}
				check := []*hdl.Signal{}
				check = append(check, net.outs...)
				check = append(check, net.regs...)
				for _, rp := range net.mem.Reads {
					check = append(check, rp.Data)
				}
				for _, sig := range check {
					v, err := s.PeekBig(sig.Name)
					if err != nil {
						t.Fatal(err)
					}
					got[sig.Name] = v.Text(16)
					want[sig.Name] = ev(&sig.Expr).Text(16)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("cycle %d (-want +got):\n%s", cyc, diff)
				}

				// The edge: everything computed from the old state first.
				next := map[*hdl.Signal]*big.Int{}
				for _, reg := range net.regs {
					switch {
					case rst:
						next[reg] = reg.Init
					case reg.Next != nil && on(reg.Enable):
						next[reg] = ev(reg.Next)
					}
				}
				for _, rp := range net.mem.Reads {
					if on(rp.En) {
						a := ev(rp.Addr).Int64()
						next[rp.Data] = new(big.Int)
						if a < int64(len(mem)) {
							next[rp.Data] = mem[a]
						}
					}
				}
				for _, wp := range net.mem.Writes {
					if a := ev(wp.Addr).Int64(); on(wp.En) && a < int64(len(mem)) {
						d := ev(wp.Data)
						if wp.Mask != nil {
							mk := ev(wp.Mask)
							d = new(big.Int).Or(new(big.Int).AndNot(mem[a], mk), new(big.Int).And(d, mk))
						}
						mem[a] = d
					}
				}
				for sig, v := range next {
					env[sig] = v
				}
				s.Step(1)
				for i, v := range mem {
					m, err := s.MemRead("mem", i)
					if err != nil {
						t.Fatal(err)
					}
					if m.Cmp(v) != 0 {
						t.Fatalf("cycle %d: mem[%d] = %#x, want %#x", cyc, i, m, v)
					}
				}
			}
		})
	}
}
