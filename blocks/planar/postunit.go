package planar

import (
	"github.com/hwgen/hwgen/hdl"
)

// postUnitCtl are the controller's strobes for the post function unit,
// the same in every lane (the iterations take a fixed number of cycles,
// whatever the data).
type postUnitCtl struct {
	load  *hdl.Signal // take v (the V register) and clear the state
	step  *hdl.Signal // one iteration: one result bit
	first *hdl.Signal // the first step: the reciprocal's numerator bit 2^K
	fix   *hdl.Signal // apply the reciprocal's sign
	sqrt  *hdl.Signal // square root (else reciprocal)
}

// postUnit is a lane's square root and reciprocal: one shared
// shift-subtract datapath, one result bit per step, on the magnitude of
// v (|v| < 2^magWidth). The result register holds u (Config.postSteps
// steps after the load, plus the sign cycle), as SInt(VWidth) for the
// shift and rounding stage.
//
//	sqrt  (digit by digit): rem = 4·rem + next two radicand bits; t = 4·root + 1;
//	      rem ≥ t: rem −= t, root = 2·root + 1; else root = 2·root     (radicand 0 for v < 0)
//	recip (restoring division of 2^K by |v|): rem = 2·rem + numerator bit;
//	      rem ≥ |v|: rem −= |v|, q = 2·q + 1; else q = 2·q               (|v| = 0: every bit 1)
func postUnit(m *hdl.Module, c Config, v *hdl.Signal, ctl postUnitCtl, data func(string, hdl.Type) *hdl.Signal) *hdl.Signal {
	vw, mw, sb := c.VWidth(), c.MagWidth(), c.SqrtBits()
	opw := 2 * sb         // the radicand, shifted out two bits per step (≥ mw)
	remw := max(mw, sb+2) // remainders: below |v| or 2·root+1
	cw := remw + 2        // the shifted remainder and the subtrahend
	neg := v.Bit(vw - 1)  // v < 0
	mag := hdl.Mux(neg, v.Neg(), v.Ext(vw+1)).Trunc(mw).AsUInt()

	rem := data("post_rem", hdl.UInt(remw))
	opd := data("post_opd", hdl.UInt(opw)) // radicand (sqrt) or divisor (recip)
	res := data("post_res", hdl.UInt(vw))  // root or quotient, then u
	sgn := data("post_neg", hdl.Bool)

	shifted := hdl.Mux(ctl.sqrt, hdl.Cat(rem, opd.Slice(opw-1, opw-2)), hdl.Cat(rem, ctl.first).Ext(cw))
	sub := hdl.Mux(ctl.sqrt, hdl.Cat(res.Slice(sb-1, 0), hdl.U(2, 1)).Ext(cw), opd.Ext(cw))
	diff := m.Wire("post_diff", hdl.UInt(cw+1))
	diff.Set(shifted.Sub(sub)) // bit cw: borrow (shifted < sub)
	ge := diff.Bit(cw).Not()

	load := hdl.Mux(ctl.sqrt, hdl.Mux(neg, hdl.U(mw, 0), mag), mag).Ext(opw)
	rem.SetNext(hdl.Mux(ctl.load, hdl.U(remw, 0), hdl.Mux(ge, diff.Trunc(remw), shifted.Trunc(remw))))
	rem.SetEnable(ctl.load.Or(ctl.step))
	opd.SetNext(hdl.Mux(ctl.load, load, hdl.Mux(ctl.sqrt, opd.ShlConst(2).Trunc(opw), opd)))
	opd.SetEnable(ctl.load.Or(ctl.step))
	sgn.SetNext(neg.And(ctl.sqrt.Not()))
	sgn.SetEnable(ctl.load)
	// The result has at most vw−1 bits (2^(K+1)−1), so the shift never
	// drops a set bit, and its negation fits vw bits.
	negated := hdl.U(vw, 0).Sub(res).Trunc(vw)
	res.SetNext(hdl.Mux(ctl.load, hdl.U(vw, 0),
		hdl.Mux(ctl.fix, hdl.Mux(sgn, negated, res), hdl.Cat(res.Slice(vw-2, 0), ge))))
	res.SetEnable(ctl.load.Or(ctl.step).Or(ctl.fix))
	return res
}
