package systolic

import (
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// PE is one processing element of the array for cfg, which must be valid
// (Build validates it; see doc.go for the timing). Ports:
//
//	x_in, x_out    input element, passed right through xf
//	s_in, s_out    swap flag travelling with the element: the element is the first of a tile
//	p_in, p_out    partial sum, passed down through p: p = p_in + x·w
//	ld_in, ld_out  shadow-weight load enable, passed right (the load wavefront)
//	w_ld           the column's weight bus, taken into the shadow when ld_in is 1
//	z_in, z_out    (zero skipping) the element is zero, or no valid element
//	wz_ld          (zero skipping) w_ld is zero
//
// The element is registered before the multiplier (xm with zero
// skipping, xf without), so the multiplier's x operand comes from a flop
// that can hold, and the swap is taken in the same cycle the tile's first
// element arrives: the weight used one cycle later is already the new one.
func PE(cfg Config) *hdl.Module {
	it, wt, pt := cfg.InputType(), cfg.WeightType(), cfg.PsumType()
	m := hdl.NewModule(resetTag(stageTag(hdl.Name("sa_pe", it, wt, pt, skipTag(cfg.ZeroSkip)), cfg.MulStage), cfg.NoDatapathReset))
	data := func(name string, t hdl.Type) *hdl.Signal { return m.DataReg(name, t, !cfg.NoDatapathReset) }
	x := m.Input("x_in", it)
	s := m.Input("s_in", hdl.Bool)
	p := m.Input("p_in", pt)
	ld := m.Input("ld_in", hdl.Bool)
	wld := m.Input("w_ld", wt)

	// Shadow weight: written by the load wavefront while the active weight
	// computes; copied to the active weight when the swap flag passes.
	wsh := data("wsh", wt)
	wsh.SetNext(wld)
	wsh.SetEnable(ld)
	wa := data("wa", wt)
	wa.SetNext(wsh)

	xf := data("xf", it)
	xf.SetNext(x)
	sf := m.Reg("sf", hdl.Bool, 0)
	sf.SetNext(s)
	lf := m.Reg("lf", hdl.Bool, 0)
	lf.SetNext(ld)

	xop := &xf.Expr // multiplier operand
	var skip *hdl.Expr
	if cfg.ZeroSkip {
		z := m.Input("z_in", hdl.Bool)
		wzld := m.Input("wz_ld", hdl.Bool)
		// Zero flags of the shadow and active weights. After reset every
		// weight is zero, so the flags start at 1.
		wzs := m.Reg("wzs", hdl.Bool, 1)
		wzs.SetNext(wzld)
		wzs.SetEnable(ld)
		wza := m.Reg("wza", hdl.Bool, 1)
		wza.SetNext(wzs)
		wza.SetEnable(s)
		// The active weight register keeps its old value when the new
		// weight is zero: a zero never reaches the multiplier.
		wa.SetEnable(s.And(wzs.Not()))
		// A zero element is not forwarded either; z_out tells the right
		// neighbour to ignore the held value.
		xf.SetEnable(z.Not())
		zf := m.Reg("zf", hdl.Bool, 1)
		zf.SetNext(z)
		m.Output("z_out", hdl.Bool).Set(zf)
		// Operand isolation: xm takes the element only when this PE will
		// multiply it (element and weight non-zero); otherwise both
		// multiplier operands hold and the multiplier does not toggle.
		wzNext := hdl.Mux(s, wzs, wza) // weight-zero flag in the next cycle
		xm := data("xm", it)
		xm.SetNext(x)
		xm.SetEnable(z.Not().And(wzNext.Not()))
		xop = &xm.Expr
		skip = zf.Or(wza)
	} else {
		wa.SetEnable(s)
	}

	prod := product(xop, &wa.Expr, cfg)
	if skip != nil {
		// The adder adds 0 instead of the held operands' stale product.
		prod = hdl.Mux(skip, hdl.Const(prod.Type, big.NewInt(0)), prod)
	}
	if cfg.MulStage {
		// The product register: with zero skipping its next value is 0 or
		// the product, which a flip-flop with a synchronous reset takes
		// with no gate in front of it.
		pm := data("pm", prod.Type)
		pm.SetNext(prod)
		prod = &pm.Expr
	}
	pr := data("p", pt)
	pr.SetNext(wrapAdd(&p.Expr, prod, pt))

	m.Output("x_out", it).Set(xf)
	m.Output("s_out", hdl.Bool).Set(sf)
	m.Output("p_out", pt).Set(pr)
	m.Output("ld_out", hdl.Bool).Set(lf)
	return m
}

// product is x·w at full precision in the psum's signedness: with mixed
// signedness the unsigned operand is zero-extended by one bit and read as
// signed, so its value is kept.
func product(x, w *hdl.Expr, cfg Config) *hdl.Expr {
	if cfg.InputSigned != cfg.WeightSigned {
		if !cfg.InputSigned {
			x = x.Ext(x.Width() + 1).AsSInt()
		} else {
			w = w.Ext(w.Width() + 1).AsSInt()
		}
	}
	return x.Mul(w)
}

// wrapAdd is a+b modulo 2^t.Width, of type t (b no wider than t).
//
// The sum is formed on the bit patterns, as unsigned: the same value
// modulo 2^w, and it keeps Yosys from merging the multiplier into the
// adder as one $macc cell, which its maccmap builds with about half as
// many cells again as a separate multiplier and adder (int8×int8→int32:
// 1117 cells against 722).
func wrapAdd(a, b *hdl.Expr, t hdl.Type) *hdl.Expr {
	sum := a.AsUInt().Add(b.Resize(t.Width).AsUInt()).Trunc(t.Width)
	if t.Signed {
		return sum.AsSInt()
	}
	return sum
}

// resetTag marks the module name of a variant without datapath reset.
func resetTag(name string, noReset bool) string {
	if noReset {
		return name + "_nr"
	}
	return name
}

func skipTag(on bool) string {
	if on {
		return "zs"
	}
	return "dense"
}

// stageTag marks the module name of a PE with a product register.
func stageTag(name string, on bool) string {
	if on {
		return name + "_ms"
	}
	return name
}
