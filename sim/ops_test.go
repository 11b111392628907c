package sim

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// opEnv holds one random stimulus for the operator table.
type opEnv struct {
	t          hdl.Type
	a, b       *big.Int // bit patterns
	av, bv     *big.Int // values read by t
	sh, shw    *big.Int // dynamic shift amounts: UInt(13) and UInt(70)
	sel        *big.Int
	shrk, shlk int // constant shift amounts
}

// opIns are the input signals of the operator module.
type opIns struct {
	a, b, sh, shw, sel *hdl.Signal
	shrk, shlk         int
}

type opCase struct {
	name string
	ok   func(w int) bool // whether the case is legal at this width
	// build and ref must agree on the result type: ref returns the
	// mathematical value, wrapped to the result type by the test.
	build func(in opIns) *hdl.Expr
	ref   func(e opEnv) *big.Int
}

func all(int) bool { return true }

// grow narrows a MaxWidth operand by one bit so that results one bit
// wider stay legal; ga and gb are the matching reference values.
func grow(x *hdl.Signal) *hdl.Expr { return x.Trunc(min(x.Width(), hdl.MaxWidth-1)) }

func (e opEnv) growType() hdl.Type {
	return hdl.Type{Width: min(e.t.Width, hdl.MaxWidth-1), Signed: e.t.Signed}
}
func (e opEnv) ga() *big.Int { return e.growType().Interpret(e.a) }
func (e opEnv) gb() *big.Int { return e.growType().Interpret(e.b) }

func pow2(n int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(n)) }

func lowBits(x *big.Int, n int) *big.Int {
	return new(big.Int).And(x, new(big.Int).Sub(pow2(n), big.NewInt(1)))
}

// mulWidth is the operand width used for Mul: the product of two 4096-bit
// values would exceed MaxWidth.
func mulWidth(w int) int { return min(w, hdl.MaxWidth/2) }

// shiftCap turns a huge amount into one that shifts everything out.
func shiftCap(sh *big.Int, w int) uint {
	if sh.Cmp(big.NewInt(int64(w))) >= 0 {
		return uint(w)
	}
	return uint(sh.Uint64())
}

func b2i(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return big.NewInt(0)
}

var opCases = []opCase{
	{"add", all, func(in opIns) *hdl.Expr { return grow(in.a).Add(grow(in.b)) }, func(e opEnv) *big.Int { return new(big.Int).Add(e.ga(), e.gb()) }},
	{"sub", all, func(in opIns) *hdl.Expr { return grow(in.a).Sub(grow(in.b)) }, func(e opEnv) *big.Int { return new(big.Int).Sub(e.ga(), e.gb()) }},
	{"mul", all, func(in opIns) *hdl.Expr {
		w := mulWidth(in.a.Width())
		return in.a.Trunc(w).Mul(in.b.Trunc(w))
	}, func(e opEnv) *big.Int {
		w := mulWidth(e.t.Width)
		tt := hdl.Type{Width: w, Signed: e.t.Signed}
		return new(big.Int).Mul(tt.Interpret(e.a), tt.Interpret(e.b))
	}},
	// Wrapping arithmetic at the operand width, as Trunc(add) is written.
	{"addwrap", all, func(in opIns) *hdl.Expr { return grow(in.a).Add(grow(in.b)).Trunc(grow(in.a).Width()) }, func(e opEnv) *big.Int {
		return new(big.Int).Add(e.ga(), e.gb())
	}},
	{"and", all, func(in opIns) *hdl.Expr { return in.a.And(in.b) }, func(e opEnv) *big.Int { return new(big.Int).And(e.av, e.bv) }},
	{"or", all, func(in opIns) *hdl.Expr { return in.a.Or(in.b) }, func(e opEnv) *big.Int { return new(big.Int).Or(e.av, e.bv) }},
	{"xor", all, func(in opIns) *hdl.Expr { return in.a.Xor(in.b) }, func(e opEnv) *big.Int { return new(big.Int).Xor(e.av, e.bv) }},
	{"not", all, func(in opIns) *hdl.Expr { return in.a.Not() }, func(e opEnv) *big.Int { return new(big.Int).Not(e.av) }},
	{"neg", all, func(in opIns) *hdl.Expr { return grow(in.a).Neg() }, func(e opEnv) *big.Int { return new(big.Int).Neg(e.ga()) }},
	{"andr", all, func(in opIns) *hdl.Expr { return in.a.AndR() }, func(e opEnv) *big.Int {
		return b2i(e.a.Cmp(lowBits(big.NewInt(-1), e.t.Width)) == 0)
	}},
	{"orr", all, func(in opIns) *hdl.Expr { return in.a.OrR() }, func(e opEnv) *big.Int { return b2i(e.a.Sign() != 0) }},
	{"xorr", all, func(in opIns) *hdl.Expr { return in.a.XorR() }, func(e opEnv) *big.Int {
		p := uint(0)
		for i := 0; i < e.t.Width; i++ {
			p ^= e.a.Bit(i)
		}
		return big.NewInt(int64(p))
	}},
	{"shlc", all, func(in opIns) *hdl.Expr {
		if in.a.Width()+in.shlk > hdl.MaxWidth {
			return in.a.Trunc(in.a.Width() - in.shlk).ShlConst(in.shlk)
		}
		return in.a.ShlConst(in.shlk)
	}, func(e opEnv) *big.Int {
		v := e.av
		if e.t.Width+e.shlk > hdl.MaxWidth {
			v = hdl.Type{Width: e.t.Width - e.shlk, Signed: e.t.Signed}.Interpret(e.a)
		}
		return new(big.Int).Lsh(v, uint(e.shlk))
	}},
	{"shrc", all, func(in opIns) *hdl.Expr { return in.a.ShrConst(in.shrk) }, func(e opEnv) *big.Int {
		return new(big.Int).Rsh(e.av, uint(e.shrk)) // Rsh of a negative value is arithmetic
	}},
	{"shl", func(w int) bool { return w+15 <= hdl.MaxWidth }, func(in opIns) *hdl.Expr {
		return in.a.Shl(in.sh.Trunc(4))
	}, func(e opEnv) *big.Int { return new(big.Int).Lsh(e.av, uint(e.sh.Uint64()&15)) }},
	{"shlwrap", all, func(in opIns) *hdl.Expr { return in.a.ShlWrap(in.sh) }, func(e opEnv) *big.Int {
		return new(big.Int).Lsh(e.av, shiftCap(e.sh, e.t.Width))
	}},
	{"shlwrap70", all, func(in opIns) *hdl.Expr { return in.a.ShlWrap(in.shw) }, func(e opEnv) *big.Int {
		return new(big.Int).Lsh(e.av, shiftCap(e.shw, e.t.Width))
	}},
	{"shr", all, func(in opIns) *hdl.Expr { return in.a.Shr(in.sh) }, func(e opEnv) *big.Int {
		return new(big.Int).Rsh(e.av, shiftCap(e.sh, e.t.Width))
	}},
	{"shr70", all, func(in opIns) *hdl.Expr { return in.a.Shr(in.shw) }, func(e opEnv) *big.Int {
		return new(big.Int).Rsh(e.av, shiftCap(e.shw, e.t.Width))
	}},
	{"eq", all, func(in opIns) *hdl.Expr { return in.a.Eq(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) == 0) }},
	{"ne", all, func(in opIns) *hdl.Expr { return in.a.Ne(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) != 0) }},
	{"lt", all, func(in opIns) *hdl.Expr { return in.a.Lt(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) < 0) }},
	{"le", all, func(in opIns) *hdl.Expr { return in.a.Le(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) <= 0) }},
	{"gt", all, func(in opIns) *hdl.Expr { return in.a.Gt(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) > 0) }},
	{"ge", all, func(in opIns) *hdl.Expr { return in.a.Ge(in.b) }, func(e opEnv) *big.Int { return b2i(e.av.Cmp(e.bv) >= 0) }},
	// Comparison against a narrower operand exercises the implicit extension.
	{"ltnarrow", func(w int) bool { return w > 3 }, func(in opIns) *hdl.Expr { return in.a.Lt(in.b.Trunc(3)) }, func(e opEnv) *big.Int {
		return b2i(e.av.Cmp(hdl.Type{Width: 3, Signed: e.t.Signed}.Interpret(e.b)) < 0)
	}},
	{"mux", all, func(in opIns) *hdl.Expr { return hdl.Mux(in.sel, in.a, in.b) }, func(e opEnv) *big.Int {
		if e.sel.Sign() != 0 {
			return e.av
		}
		return e.bv
	}},
	{"cat", func(w int) bool { return 2*w+1 <= hdl.MaxWidth }, func(in opIns) *hdl.Expr { return hdl.Cat(in.a, in.sel, in.b) }, func(e opEnv) *big.Int {
		x := new(big.Int).Lsh(e.a, uint(e.t.Width+1))
		x.Or(x, new(big.Int).Lsh(e.sel, uint(e.t.Width)))
		return x.Or(x, e.b)
	}},
	{"cat3", func(w int) bool { return w+20 <= hdl.MaxWidth }, func(in opIns) *hdl.Expr { return hdl.Cat(in.sh, in.a, in.sh.Trunc(7)) }, func(e opEnv) *big.Int {
		x := new(big.Int).Lsh(e.sh, uint(e.t.Width+7))
		x.Or(x, new(big.Int).Lsh(e.a, 7))
		return x.Or(x, lowBits(e.sh, 7))
	}},
	{"slicehi", all, func(in opIns) *hdl.Expr { return in.a.Slice(in.a.Width()-1, in.a.Width()/2) }, func(e opEnv) *big.Int {
		return new(big.Int).Rsh(e.a, uint(e.t.Width/2))
	}},
	{"slicemid", func(w int) bool { return w >= 7 }, func(in opIns) *hdl.Expr {
		w := in.a.Width()
		return in.a.Slice(w-3, w/3)
	}, func(e opEnv) *big.Int {
		w := e.t.Width
		return lowBits(new(big.Int).Rsh(e.a, uint(w/3)), w-3-w/3+1)
	}},
	{"bit", all, func(in opIns) *hdl.Expr { return in.a.Bit(in.a.Width() - 1) }, func(e opEnv) *big.Int {
		return big.NewInt(int64(e.a.Bit(e.t.Width - 1)))
	}},
	{"ext", func(w int) bool { return w+37 <= hdl.MaxWidth }, func(in opIns) *hdl.Expr { return in.a.Ext(in.a.Width() + 37) }, func(e opEnv) *big.Int { return e.av }},
	{"ext64", func(w int) bool { return w < 64 }, func(in opIns) *hdl.Expr { return in.a.Ext(64) }, func(e opEnv) *big.Int { return e.av }},
	{"trunc", func(w int) bool { return w > 1 }, func(in opIns) *hdl.Expr { return in.a.Trunc(max(1, in.a.Width()/3)) }, func(e opEnv) *big.Int {
		return e.av // wrapped to the result width by the test
	}},
	{"asuint", all, func(in opIns) *hdl.Expr { return in.a.AsUInt() }, func(e opEnv) *big.Int { return e.a }},
	{"assint", all, func(in opIns) *hdl.Expr { return in.a.AsSInt() }, func(e opEnv) *big.Int { return e.a }},
}

// randBits returns a w-bit pattern biased towards the interesting values.
func randBits(r *rand.Rand, w int) *big.Int {
	all := lowBits(big.NewInt(-1), w)
	switch r.Intn(8) {
	case 0:
		return big.NewInt(0)
	case 1:
		return all
	case 2:
		return pow2(w - 1) // most negative when signed
	case 3:
		return new(big.Int).Sub(pow2(w-1), big.NewInt(int64(min(w-1, 1)))) // most positive
	case 4:
		return lowBits(big.NewInt(r.Int63n(5)-2), w) // small, maybe negative
	}
	x := new(big.Int)
	for i := 0; i < w; i += 62 {
		x.Lsh(x, 62).Or(x, big.NewInt(r.Int63()))
	}
	return lowBits(x, w)
}

// randShift mostly stays below the width, sometimes goes beyond it.
func randShift(r *rand.Rand, w, bits int) *big.Int {
	switch r.Intn(6) {
	case 0:
		return randBits(r, bits)
	case 1:
		return big.NewInt(int64(w + r.Intn(3)))
	}
	return lowBits(big.NewInt(int64(r.Intn(w+1))), bits)
}

var opWidths = []int{1, 7, 8, 63, 64, 65, 128, 200, 4096}

func TestOperatorsAgainstBig(t *testing.T) {
	for _, w := range opWidths {
		for _, signed := range []bool{false, true} {
			ty := hdl.Type{Width: w, Signed: signed}
			t.Run(ty.Short(), func(t *testing.T) {
				t.Parallel()
				testOps(t, ty)
			})
		}
	}
}

func testOps(t *testing.T, ty hdl.Type) {
	w := ty.Width
	shrk, shlk := max(1, w/3), max(1, w/5)
	m := hdl.NewModule(hdl.Name("ops", ty))
	in := opIns{a: m.Input("a", ty), b: m.Input("b", ty), sh: m.Input("sh", hdl.UInt(13)),
		shw: m.Input("shw", hdl.UInt(70)), sel: m.Input("sel", hdl.Bool), shrk: shrk, shlk: shlk}
	types := map[string]hdl.Type{}
	var used []opCase
	for _, c := range opCases {
		if !c.ok(w) {
			continue
		}
		e := c.build(in)
		m.Output("y_"+c.name, e.Type).Set(e)
		types[c.name] = e.Type
		used = append(used, c)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(int64(w)*2 + int64(len(ty.Short()))))
	iters := 60
	if w > 1000 {
		iters = 12
	}
	for it := range iters {
		e := opEnv{t: ty, a: randBits(r, w), b: randBits(r, w), sh: randShift(r, w, 13),
			shw: randShift(r, w, 70), sel: big.NewInt(int64(r.Intn(2))), shrk: shrk, shlk: shlk}
		if it%5 == 0 {
			e.b = new(big.Int).Set(e.a) // equal operands for the comparisons
		}
		e.av, e.bv = ty.Interpret(e.a), ty.Interpret(e.b)
		for name, v := range map[string]*big.Int{"a": e.a, "b": e.b, "sh": e.sh, "shw": e.shw, "sel": e.sel} {
			if err := s.PokeBig(name, v); err != nil {
				t.Fatal(err)
			}
		}
		got, want := map[string]string{}, map[string]string{}
		for _, c := range used {
			rt := types[c.name]
			g, err := s.PeekBig("y_" + c.name)
			if err != nil {
				t.Fatal(err)
			}
			got[c.name] = g.Text(16)
			want[c.name] = rt.Bits(c.ref(e)).Text(16)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s iteration %d, a=%#x b=%#x sh=%d shw=%#x sel=%d (-want +got):\n%s",
				ty, it, e.a, e.b, e.sh, e.shw, e.sel, diff)
		}
	}
}

// TestWideArithmeticSpotChecks pins a few hand-computed results at the
// widths the simulator must get right beyond 64 bits.
func TestWideArithmeticSpotChecks(t *testing.T) {
	tests := []struct {
		w      int
		signed bool
		op     string
		a, b   string // hex; negative in signed value notation
		want   string // result bits, hex
	}{
		{65, false, "add", "1ffffffffffffffff", "1", "20000000000000000"},
		{65, true, "add", "-1", "-1", "3fffffffffffffffe"},
		{128, false, "mul", "ffffffffffffffffffffffffffffffff", "ffffffffffffffffffffffffffffffff", "fffffffffffffffffffffffffffffffe00000000000000000000000000000001"},
		{128, true, "mul", "-1", "-1", "1"},
		{200, true, "lt", "-1", "0", "1"},
		{200, false, "lt", "ffffffffffffffffffffffffffffffffffffffffffffffffff", "0", "0"},
	}
	for _, tc := range tests {
		ty := hdl.Type{Width: tc.w, Signed: tc.signed}
		t.Run(fmt.Sprintf("%s_%s", ty.Short(), tc.op), func(t *testing.T) {
			m := hdl.NewModule(hdl.Name("spot", ty, tc.op))
			a, b := m.Input("a", ty), m.Input("b", ty)
			var y *hdl.Expr
			switch tc.op {
			case "add":
				y = a.Add(b)
			case "mul":
				y = a.Mul(b)
			case "lt":
				y = a.Lt(b)
			}
			m.Output("y", y.Type).Set(y)
			s, err := New(hdl.MustElaborate(m))
			if err != nil {
				t.Fatal(err)
			}
			for name, x := range map[string]string{"a": tc.a, "b": tc.b} {
				v, _ := new(big.Int).SetString(x, 16)
				if err := s.PokeBig(name, v); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.PeekBig("y")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Text(16)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
