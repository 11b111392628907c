package verify

import (
	"fmt"
	"math/rand/v2"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// FuzzOptions shape the random designs of RandomDesign. Zero fields take
// the defaults, which are tuned so that one design uses every operator and
// builds with Verilator in a few seconds.
type FuzzOptions struct {
	// SubCircuits is the number of random sub-circuits in the top module,
	// each ending in an output port (default 14).
	SubCircuits int
	// Steps is the number of random operations per sub-circuit (default 10).
	Steps int
	// MaxWidth caps every value of the design (default and at most 200).
	MaxWidth int
	// Avoid leaves constructs out of the design: to step around a known,
	// reported bug while it is being fixed, or to narrow down a failure.
	// Nothing is left out silently: each avoided construct is tallied in
	// Coverage.Avoided and printed by Coverage.String, and a failure
	// report names the list.
	Avoid []Construct
}

// Construct names something RandomDesign can be told to leave out.
type Construct string

// Constructs that FuzzOptions.Avoid understands.
const (
	// ConstMaskedWrite: WriteMasked with a constant (or constant-folded)
	// mask or data.
	ConstMaskedWrite Construct = "constant mask or data of a masked write"
	// WideMaskedWrite: WriteMasked on a memory wider than 64 bits.
	WideMaskedWrite Construct = "masked write to a memory wider than 64 bits"
	// OneBitMaskedWrite: WriteMasked on a memory of 1-bit words.
	OneBitMaskedWrite Construct = "masked write to a memory of 1-bit words"
	// SelectOfFoldedConstant: Slice, Bit, Trunc or a sign extension of a
	// constant-only expression (a constant after Ext, Trunc, Slice, As*).
	SelectOfFoldedConstant Construct = "bit selection of a constant-only expression"
	// ConstAddressOutOfRange: a constant address (or one Verilator can
	// prove constant) >= depth on a memory whose depth is not a power of
	// two.
	ConstAddressOutOfRange Construct = "constant memory address (possibly out of range)"
	// UnsignedCompareConstant: an unsigned lt, le, gt or ge with a constant
	// operand, or one Verilator can prove constant (0 and all ones make
	// the comparison constant).
	UnsignedCompareConstant Construct = "unsigned comparison with a constant"
	// WideConstantShift: a shift by an amount wider than 32 bits that is
	// constant, or that Verilator can prove constant.
	WideConstantShift Construct = "shift by a constant amount wider than 32 bits"
	// NarrowShiftWideAmount: ShlWrap or Shr of a value of at most 64 bits
	// by an amount wider than 64 bits.
	NarrowShiftWideAmount Construct = "shift of at most 64 bits by an amount wider than 64 bits"
)

// Constructs lists every Construct, for help texts and tests.
func Constructs() []Construct {
	return []Construct{ConstMaskedWrite, WideMaskedWrite, OneBitMaskedWrite, SelectOfFoldedConstant,
		ConstAddressOutOfRange, UnsignedCompareConstant, WideConstantShift, NarrowShiftWideAmount}
}

func (o FuzzOptions) avoids(c Construct) bool {
	for _, a := range o.Avoid {
		if a == c {
			return true
		}
	}
	return false
}

func (o FuzzOptions) withDefaults() FuzzOptions {
	if o.SubCircuits <= 0 {
		o.SubCircuits = 14
	}
	if o.Steps <= 0 {
		o.Steps = 10
	}
	if o.MaxWidth <= 0 || o.MaxWidth > 200 {
		o.MaxWidth = 200
	}
	if o.MaxWidth < 8 {
		o.MaxWidth = 8
	}
	return o
}

// RandomDesign builds a random design from seed: a top module of random
// sub-circuits over inputs, registers (with and without enables, random
// reset values), memories (plain and masked writes, several write ports,
// reads with and without enable, power-of-two and other depths, some as
// SRAM macros) and two
// instances of a random child module, which itself instantiates a random
// grandchild. Every hdl operator appears, at widths 1..MaxWidth, signed and
// unsigned. The design always elaborates, is combinationally acyclic
// (values are only built from earlier values; registers and memories may
// feed back) and is the same for the same seed and options.
func RandomDesign(seed uint64, opts FuzzOptions) *hdl.Module {
	m, _ := randomDesign(seed, opts)
	return m
}

// FuzzTopName is the name of the top module of RandomDesign(seed, ...).
func FuzzTopName(seed uint64) string { return fmt.Sprintf("fuzz%d", seed) }

// randomDesign is RandomDesign that also reports which DSL constructs it
// used (counts by construct name), for the coverage report.
func randomDesign(seed uint64, opts FuzzOptions) (*hdl.Module, map[string]int) {
	opts = opts.withDefaults()
	r := rand.New(rand.NewPCG(seed, 0xf022_de51))
	side := rand.New(rand.NewPCG(seed, 0x51de))
	feat := map[string]int{}
	name := FuzzTopName(seed)

	// Grandchild: small, sometimes purely combinational.
	leafGen := newGen(r, hdl.NewModule(name+"_leaf"), opts, feat)
	leafGen.side = side
	leafGen.inputs(2+r.IntN(3), nil)
	stateful := r.IntN(3) != 0
	if stateful {
		leafGen.regs(1 + r.IntN(2))
		leafGen.memory()
	} else {
		feat["module without clock"]++
	}
	leafGen.body(2, 5)
	leafGen.finish()

	// Child: instantiates the grandchild once or twice.
	childGen := newGen(r, hdl.NewModule(name+"_child"), opts, feat)
	childGen.side = side
	childGen.inputs(3+r.IntN(3), nil)
	childGen.regs(1 + r.IntN(3))
	childGen.memory()
	for i := 0; i < 1+r.IntN(2); i++ {
		childGen.instance(leafGen.m)
	}
	childGen.body(3, 6)
	childGen.finish()

	// Top: the interesting widths always appear as inputs.
	top := newGen(r, hdl.NewModule(name), opts, feat)
	top.side = side
	top.isTop = true
	top.inputs(4+r.IntN(5), []int{1, 63, 64, 65, 128, 129, opts.MaxWidth})
	top.regs(4 + r.IntN(4))
	for i := 0; i < 2+r.IntN(2); i++ {
		top.memory()
	}
	top.instance(childGen.m)
	top.body(opts.SubCircuits/2, opts.Steps)
	top.instance(childGen.m) // the second use sees the first one's outputs
	if r.IntN(2) == 0 {
		top.instance(leafGen.m)
	}
	top.body(opts.SubCircuits-opts.SubCircuits/2, opts.Steps)
	top.finish()
	return top.m, feat
}

// opKinds are the generator's operations; each design draws them from a
// shuffled deck so that all of them appear in every design of sufficient
// size. Several map to the same hdl.Op (Shl and ShlWrap, Trunc and Resize).
var opKinds = []string{
	"not", "neg", "andr", "orr", "xorr", "add", "sub", "mul", "and", "or", "xor",
	"shlc", "shl", "shlwrap", "shr", "shrc",
	"eq", "ne", "lt", "le", "gt", "ge",
	"mux", "cat", "slice", "bit", "ext", "trunc", "resize", "assint", "asuint",
	"const", "wire",
}

// gen builds one module.
type gen struct {
	r       *rand.Rand
	m       *hdl.Module
	opts    FuzzOptions
	feat    map[string]int
	pool    []*hdl.Expr
	deck    []string
	regList []*hdl.Signal
	mems    []*fuzzMem
	n       map[string]int // next index per name prefix
	results []*hdl.Expr    // of every step
	side    *rand.Rand     // for choices added later, so that seeds keep their designs
	// isTop: the inputs are driven by the stimulus, never by constants.
	isTop bool
}

type fuzzMem struct {
	mem    *hdl.Memory
	writes int
}

func newGen(r *rand.Rand, m *hdl.Module, opts FuzzOptions, feat map[string]int) *gen {
	return &gen{r: r, m: m, opts: opts, feat: feat, n: map[string]int{}}
}

func (g *gen) name(prefix string) string {
	i := g.n[prefix]
	g.n[prefix]++
	return fmt.Sprintf("%s%d", prefix, i)
}

func (g *gen) add(x *hdl.Expr) *hdl.Expr {
	if constOnly(x) && g.avoid(SelectOfFoldedConstant) {
		return x // never reused, so nothing selects bits of it
	}
	g.pool = append(g.pool, x)
	return x
}

// ---- random widths, types and values ----

var specialWidths = []int{1, 1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 150, 199, 200}

// width draws a width in lo..hi, biased towards the word boundaries.
func (g *gen) width(lo, hi int) int {
	if hi > g.opts.MaxWidth {
		hi = g.opts.MaxWidth
	}
	if lo > hi {
		lo = hi
	}
	switch g.r.IntN(4) {
	case 0, 1:
		var cands []int
		for _, w := range specialWidths {
			if w >= lo && w <= hi {
				cands = append(cands, w)
			}
		}
		if len(cands) > 0 {
			return cands[g.r.IntN(len(cands))]
		}
	case 2:
		return lo + g.r.IntN(min(hi-lo+1, 16))
	}
	return lo + g.r.IntN(hi-lo+1)
}

func (g *gen) typ(hi int) hdl.Type {
	return hdl.Type{Width: g.width(1, hi), Signed: g.r.IntN(2) == 0}
}

// constant is a random constant of t (as a value of t, so it fits).
func (g *gen) constant(t hdl.Type) *hdl.Expr {
	g.feat["constant operand"]++
	return hdl.Const(t, t.Interpret(stim.RandomValue(g.r, t)))
}

// pick returns an earlier value, preferring recent ones so that cones get
// deep.
func (g *gen) pick() *hdl.Expr {
	if len(g.pool) == 0 {
		return g.constant(g.typ(g.opts.MaxWidth))
	}
	if g.r.IntN(2) == 0 {
		k := min(len(g.pool), 6)
		return g.pool[len(g.pool)-1-g.r.IntN(k)]
	}
	return g.pool[g.r.IntN(len(g.pool))]
}

// operand returns a value of exactly type t built from an earlier value
// (or, now and then, a constant).
func (g *gen) operand(t hdl.Type) *hdl.Expr {
	if g.r.IntN(12) == 0 {
		return g.constant(t)
	}
	return g.coerce(g.pick(), t)
}

// operandOfSign is an operand of signedness signed and a width in 1..hi,
// often exactly like (so both forms of binary operands are covered).
func (g *gen) operandOfSign(like hdl.Type, hi int) *hdl.Expr {
	if g.r.IntN(2) == 0 && like.Width <= hi {
		return g.operand(like)
	}
	return g.operand(hdl.Type{Width: g.width(1, hi), Signed: like.Signed})
}

// coerce converts v to t with a random choice of the DSL's conversions.
func (g *gen) coerce(v *hdl.Expr, t hdl.Type) *hdl.Expr {
	signFirst := g.r.IntN(2) == 0
	if signFirst {
		v = g.sign(v, t.Signed)
	}
	switch w := v.Width(); {
	case w < t.Width:
		if g.r.IntN(2) == 0 {
			g.feat["Ext"]++
			v = v.Ext(t.Width)
		} else {
			g.feat["Resize (widen)"]++
			v = v.Resize(t.Width)
		}
	case w > t.Width:
		switch g.r.IntN(3) {
		case 0:
			g.feat["Trunc"]++
			v = v.Trunc(t.Width)
		case 1:
			g.feat["Resize (narrow)"]++
			v = v.Resize(t.Width)
		default:
			lo := g.r.IntN(w - t.Width + 1)
			g.feat["Slice"]++
			v = v.Slice(lo+t.Width-1, lo)
		}
	}
	return g.sign(v, t.Signed)
}

func (g *gen) sign(v *hdl.Expr, signed bool) *hdl.Expr {
	switch {
	case signed && !v.Signed():
		g.feat["AsSInt"]++
		return v.AsSInt()
	case !signed && v.Signed():
		g.feat["AsUInt"]++
		return v.AsUInt()
	}
	return v
}

// boolean is a UInt(1) derived from an earlier value.
func (g *gen) boolean() *hdl.Expr {
	v := g.pick()
	switch g.r.IntN(6) {
	case 0:
		if v.Type == hdl.Bool {
			return v
		}
		fallthrough
	case 1:
		g.feat["Bit"]++
		return v.Bit(g.r.IntN(v.Width()))
	case 2:
		return v.OrR()
	case 3:
		return v.XorR()
	case 4:
		o := g.operand(v.Type)
		if !v.Signed() && g.avoid(UnsignedCompareConstant) {
			v, o = g.opaqueCompare(v, o)
		}
		return v.Lt(o)
	}
	return g.coerce(v, hdl.Bool)
}

// amount is an unsigned shift amount of a random width (up to the maximum:
// amounts wider than 64 bits are a corner worth covering).
func (g *gen) amount(shifted int) *hdl.Expr {
	w := 1 + g.r.IntN(8)
	if g.r.IntN(3) == 0 {
		w = g.width(1, g.opts.MaxWidth)
	}
	if shifted <= 64 && w > 64 && g.avoid(NarrowShiftWideAmount) {
		w = g.width(33, 64)
	}
	if w > 32 {
		return g.opaqueIf(WideConstantShift, hdl.UInt(w))
	}
	return g.operand(hdl.UInt(w))
}
