package machine

import (
	"fmt"
	"math/bits"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// The golden models' operations of the function codes: the one mapping
// between what the hardware is told (Fn) and what the golden models
// compute. Eltwise functions pair by name (isa/planar's Fns and golden's
// EltOp), so a new function is one row in each table; the compiler maps
// the other way with EltFn, PoolFn and ReduceFn.
var (
	eltOps = func() map[planar.Fn]golden.EltOp {
		m := map[planar.Fn]golden.EltOp{}
		for _, d := range planar.FnsOf(planar.OpEltwise) {
			if op, err := golden.ParseEltOp(d.Name); err == nil {
				m[d.Fn] = op
			}
		}
		return m
	}()
	poolKinds   = map[planar.Fn]golden.PoolKind{planar.FnPoolMax: golden.PoolMax, planar.FnPoolAvg: golden.PoolAvg, planar.FnPoolMin: golden.PoolMin}
	reduceKinds = map[planar.Fn]golden.ReduceKind{planar.FnSum: golden.ReduceSum, planar.FnRedMax: golden.ReduceMax,
		planar.FnRowSum: golden.ReduceRowSum, planar.FnRowMax: golden.ReduceRowMax}
	// rowKinds: the reductions across rows as the column by column
	// plane reductions the model computes them with.
	rowKinds = map[planar.Fn]golden.ReduceKind{planar.FnRowSum: golden.ReduceSum, planar.FnRowMax: golden.ReduceMax}
	// postFns are the reductions' post functions, paired by name too.
	postFns = func() map[planar.Post]golden.PostFn {
		m := map[planar.Post]golden.PostFn{}
		for p := range planar.NumPosts {
			if g, err := golden.ParsePostFn(p.String()); err == nil {
				m[p] = g
			}
		}
		return m
	}()
)

// EltFn, PoolFn and ReduceFn are the function codes of golden operations.
func EltFn(op golden.EltOp) (planar.Fn, error)        { return fnOf("elementwise function", eltOps, op) }
func PoolFn(k golden.PoolKind) (planar.Fn, error)     { return fnOf("pooling kind", poolKinds, k) }
func ReduceFn(k golden.ReduceKind) (planar.Fn, error) { return fnOf("reduction", reduceKinds, k) }

func fnOf[K comparable](what string, m map[planar.Fn]K, k K) (planar.Fn, error) {
	for f, v := range m {
		if v == k {
			return f, nil
		}
	}
	return 0, fmt.Errorf("the planar engine has no %s %v", what, k)
}

// PlanarMemories are what planar tasks work on, lane by lane: the state buffer
// [lane][address], the psum buffer [partition][entry], the per-lane
// scale and bias that loadparams sets and per_lane acts use, and the
// engine's lookup table that loadtable sets and lut tasks read (2^E
// element values, entry k for the value elem min + k; nil is all zero:
// the hardware's table is undefined until the first loadtable).
type PlanarMemories struct {
	State, Psum [][]int64
	Scale, Bias []int64
	Table       []int64
}

// RunPlanar is the task-level model of the planar engine: it applies t
// to m with the golden models, exactly as the hardware does (t must pass
// Validate for c).
func RunPlanar(c planar.Sizes, t planar.Task, m *PlanarMemories) error {
	var lanes []int
	for p := range c.Lanes {
		if t.Mask>>uint(p)&1 == 1 {
			lanes = append(lanes, p)
		}
	}
	if t.Op == planar.OpNop || len(lanes) == 0 {
		return nil
	}
	switch t.Op {
	case planar.OpLoadParams:
		loadParams(c, t, m, lanes)
		return nil
	case planar.OpLoadTable:
		loadTable(c, t, m)
		return nil
	}
	res, err := planarResult(c, t, m, lanes)
	if err == nil && t.Lut && t.Op != planar.OpWriteBack {
		res, err = golden.Lookup(res, m.table(c), golden.Int{Width: c.ElemWidth, Signed: c.ElemSigned})
	}
	if err != nil {
		return fmt.Errorf("planar model of %s: %w", t.Op, err)
	}
	k := len(res.Data) / len(lanes)
	for i, p := range lanes {
		copy(m.State[p][t.Dst:], res.Data[i*k:(i+1)*k])
	}
	return nil
}

// planarTask runs a planar task on the machine's buffers (RunPlanar),
// counting its vector reads and writes.
func (m *Machine) planarTask(t planar.Task) error {
	if t.Op == planar.OpNop {
		return nil
	}
	if err := t.Validate(m.pcfg()); err != nil {
		return err
	}
	if m.OnTouch != nil {
		m.touchPlanar(t)
	}
	if err := RunPlanar(m.pcfg(), t, &m.planar); err != nil {
		return err
	}
	m.Stats.PlanarWrites += t.Writes() * bits.OnesCount64(t.Mask)
	m.Stats.PlanarReads += t.Reads(m.pcfg())
	return nil
}

// touchPlanar tells OnTouch of the addresses a planar task touches.
func (m *Machine) touchPlanar(t planar.Task) {
	n, srcMem := t.H*t.W, isa.MemState
	switch t.Op {
	case planar.OpAct, planar.OpWriteBack:
		srcMem = isa.MemPsum
	case planar.OpLoadParams, planar.OpLoadTable:
		n = t.Reads(m.pcfg())
	}
	for i := 0; i < n; i++ {
		m.touch(srcMem, t.Src+i, false)
	}
	// The second operand: a tensor, one element per lane (broadcast), or
	// nothing (a scalar, a unary function); the task knows which.
	for i := 0; i < t.Src2Elements(); i++ {
		m.touch(isa.MemState, t.Src2+i, false)
	}
	for i := 0; i < t.Writes(); i++ {
		m.touch(isa.MemState, t.Dst+i, true)
	}
}

// requant is the post-processor of t.
func requant(t planar.Task) golden.Requant {
	if t.Op == planar.OpWriteBack {
		return golden.Identity()
	}
	q := golden.Requant{Scale: t.Scale, Bias: t.Bias, Shift: t.Shift, Relu: t.Relu, Clamp: t.Clamp, Lo: t.Lo, Hi: t.Hi, Wrap: t.Wrap}
	if t.RoundEven {
		q.Rounding = golden.HalfEven
	}
	return q
}

// planarResult is the golden model of t on the lanes' planes, one row of
// the result per lane.
func planarResult(c planar.Sizes, t planar.Task, m *PlanarMemories, lanes []int) (*golden.Tensor, error) {
	out := golden.Int{Width: c.ElemWidth, Signed: c.ElemSigned}
	n, q := t.H*t.W, requant(t)
	plane := func(mem [][]int64, base int) *golden.Tensor {
		x := golden.New(len(lanes), n)
		for i, p := range lanes {
			copy(x.Data[i*n:], mem[p][base:base+n])
		}
		return x
	}
	switch t.Op {
	case planar.OpAct, planar.OpWriteBack:
		var sc, bi []int64
		if t.Op == planar.OpAct && t.PerLane {
			for _, p := range lanes {
				sc, bi = append(sc, m.Scale[p]), append(bi, m.Bias[p])
			}
		}
		return golden.Activate(plane(m.Psum, t.Src), sc, bi, q, out)
	case planar.OpEltwise:
		op, ok := eltOps[t.Fn]
		if !ok {
			return nil, fmt.Errorf("no elementwise function %d", t.Fn)
		}
		if t.ScalarOperand || op.Unary() {
			return golden.EltwiseScalar(op, plane(m.State, t.Src), t.Scalar, q, out)
		}
		if t.Broadcast {
			b := golden.New(len(lanes), n)
			for i, p := range lanes {
				for j := range n {
					b.Data[i*n+j] = m.State[p][t.Src2]
				}
			}
			return golden.Eltwise(op, plane(m.State, t.Src), b, q, out)
		}
		return golden.Eltwise(op, plane(m.State, t.Src), plane(m.State, t.Src2), q, out)
	case planar.OpPool:
		kind, ok := poolKinds[t.Fn]
		if !ok {
			return nil, fmt.Errorf("no pooling function %d", t.Fn)
		}
		x := plane(m.State, t.Src)
		x.Shape = []int{len(lanes), t.H, t.W}
		p := golden.Pooling{Kind: kind, KH: t.KH, KW: t.KW, Stride: t.Stride, PadH: t.PadH, PadW: t.PadW}
		switch {
		case t.PadEdge:
			p.Padding = golden.PadEdge
		case t.PadIgnore:
			p.Padding = golden.PadIgnore
		}
		return golden.Pool(x, p, q, out)
	case planar.OpReduce:
		x := plane(m.State, t.Src)
		kind, ok := reduceKinds[t.Fn]
		if rk, rows := rowKinds[t.Fn]; rows {
			x, kind, ok = columns(x, t.H, t.W), rk, true
		}
		if !ok {
			return nil, fmt.Errorf("no reduction %d", t.Fn)
		}
		post, ok := postFns[t.Post]
		if !ok {
			return nil, fmt.Errorf("no post function %d", t.Post)
		}
		return golden.ReducePost(x, kind, post, c.RecipShift(), q, out)
	}
	return nil, fmt.Errorf("unknown op %d", t.Op)
}

// columns regroups planes (one H×W plane per row of x) by column: row
// p·W+j of the result is column j of plane p, H values.
func columns(x *golden.Tensor, h, w int) *golden.Tensor {
	planes := x.Shape[0]
	res := golden.New(planes*w, h)
	for p := range planes {
		for y := range h {
			for j := range w {
				res.Data[(p*w+j)*h+y] = x.Data[(p*h+y)*w+j]
			}
		}
	}
	return res
}

// loadParams sets each lane's scale and bias from ParamWords elements at
// src: scale, then bias, little-endian in whole elements.
func loadParams(c planar.Sizes, t planar.Task, m *PlanarMemories, lanes []int) {
	ns := (c.ScaleWidth + c.ElemWidth - 1) / c.ElemWidth * c.ElemWidth
	for _, p := range lanes {
		var bits uint64
		for i := c.ParamWords() - 1; i >= 0; i-- {
			bits = bits<<uint(c.ElemWidth) | uint64(m.State[p][t.Src+i])&(1<<uint(c.ElemWidth)-1)
		}
		m.Scale[p] = signExtend(bits&(1<<uint(c.ScaleWidth)-1), c.ScaleWidth)
		m.Bias[p] = signExtend(bits>>uint(ns)&(1<<uint(c.AccWidth)-1), c.AccWidth)
	}
}

func signExtend(v uint64, w int) int64 {
	if v>>uint(w-1)&1 == 1 {
		return int64(v) - 1<<uint(w)
	}
	return int64(v)
}

// loadTable fills the lookup table from TableRows addresses at src:
// entry k from lane k mod L at src + k div L.
func loadTable(c planar.Sizes, t planar.Task, m *PlanarMemories) {
	table := m.table(c)
	for k := range table {
		table[k] = m.State[k%c.Lanes][t.Src+k/c.Lanes]
	}
	m.Table = table
}

// table is the lookup table, all zero until loaded.
func (m *PlanarMemories) table(c planar.Sizes) []int64 {
	if len(m.Table) != c.TableEntries() {
		m.Table = make([]int64, c.TableEntries())
	}
	return m.Table
}
