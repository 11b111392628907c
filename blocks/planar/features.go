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
// pool_min pm, eltwise e, eltwise_mul em, reduce r, postfn p), nothing
// for the full engine.
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
// It decodes the op from the task register itself: without eltwise or
// reductions the datapath's isElt and isRed are constant 0.
func (cb *ctl) featureBad() *hdl.Expr {
	c, q, fnW, postW := cb.c, cb.q, cb.fnW, cb.postW
	bad := hdl.U(1, 0)
	fnIs := func(fn isaplanar.Fn) *hdl.Expr { return q["fn"].Eq(hdl.U(fnW, uint64(fn))) }
	if c.NoPoolAvg {
		bad = bad.Or(cb.isPool.And(fnIs(isaplanar.FnPoolAvg)))
	}
	if c.NoPoolMin {
		bad = bad.Or(cb.isPool.And(fnIs(isaplanar.FnPoolMin)))
	}
	if c.NoEltwise {
		bad = bad.Or(cb.eltOp)
	} else if c.NoEltwiseMul {
		bad = bad.Or(cb.isElt.And(fnIs(isaplanar.FnMul)))
	}
	if c.NoReduce {
		bad = bad.Or(cb.redOp)
	} else if c.NoPostFn {
		post := q["post"]
		bad = bad.Or(cb.isRed.And(post.Eq(hdl.U(postW, uint64(isaplanar.PostSqrt))).Or(post.Eq(hdl.U(postW, uint64(isaplanar.PostRecip))))))
	}
	return bad
}

// anyMissing reports whether c lacks an optional feature.
func (c Config) anyMissing() bool {
	for _, f := range isaplanar.Features {
		if f.Missing(c.Sizes) {
			return true
		}
	}
	return false
}

// hasPostUnit reports whether the lanes have the sqrt/recip unit: the
// post functions of the reductions, so neither may be left out.
func (c Config) hasPostUnit() bool { return !c.NoPostFn && !c.NoReduce }

// hasFnPort reports whether a lane reads the task's fn: the eltwise
// function, or min pooling's choice.
func (c Config) hasFnPort() bool { return !c.NoEltwise || !c.NoPoolMin }

// windowWidth is a pooling window's value width: w (a sum's), or an
// extended element without average pooling (a maximum or minimum is an
// element), so the line buffer's word narrows too.
func (c Config) windowWidth(w int) int {
	if c.NoPoolAvg {
		return c.ExtWidth()
	}
	return w
}
