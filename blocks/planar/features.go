package planar

import (
	"strings"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The optional post features (isaplanar.Features): an engine without
// one builds no logic for it, and its fn check flags a task that uses
// it (ErrFn), as for a lut task without the table.

// featureTag marks the module names of an engine lacking features:
// _no<initials> of each missing feature in table order (pool_avg pa,
// eltwise_mul em, postfn p), nothing for the full engine.
func featureTag(name string, c Config) string {
	var b strings.Builder
	for _, f := range isaplanar.Features {
		if f.Missing(c.Sizes) {
			for _, w := range strings.Split(f.Name, "_") {
				b.WriteByte(w[0])
			}
		}
	}
	if b.Len() == 0 {
		return name
	}
	return name + "_no" + b.String()
}

// featureBad is the fn check of the missing features: the task uses one.
func (cb *ctl) featureBad() *hdl.Expr {
	c, q, fnW, postW := cb.c, cb.q, cb.fnW, cb.postW
	bad := hdl.U(1, 0)
	fnIs := func(fn isaplanar.Fn) *hdl.Expr { return q["fn"].Eq(hdl.U(fnW, uint64(fn))) }
	if c.NoPoolAvg {
		bad = bad.Or(cb.isPool.And(fnIs(isaplanar.FnPoolAvg)))
	}
	if c.NoEltwiseMul {
		bad = bad.Or(cb.isElt.And(fnIs(isaplanar.FnMul)))
	}
	if c.NoPostFn {
		post := q["post"]
		bad = bad.Or(cb.isRed.And(post.Eq(hdl.U(postW, uint64(isaplanar.PostSqrt))).Or(post.Eq(hdl.U(postW, uint64(isaplanar.PostRecip))))))
	}
	return bad
}

// windowWidth is a pooling window's value width: w (a sum's), or an
// extended element without average pooling (a maximum or minimum is an
// element), so the line buffer's word narrows too.
func (c Config) windowWidth(w int) int {
	if c.NoPoolAvg {
		return c.ExtWidth()
	}
	return w
}
