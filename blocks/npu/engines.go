package npu

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// Several neural engines (Config.Engines > 1; doc.go, "Several neural
// engines"): the top has one NE, state buffer, psum buffer and weight
// buffer per engine, and the shared blocks (DMA engines, planar engine)
// reach every slice through the routers below. The task manager still
// sees one "ne" engine; the dispatcher hands each NE task to the engine
// it names (or the first free one) and gives the task manager the done
// pulses in dispatch order.

// whole is c as the shared blocks see it: one address space over all
// slices (each depth times 2^SliceBits), the slice in the high bits.
func (c Config) whole() Config {
	w, s := c, uint(c.SliceBits())
	w.StateDepth <<= s
	w.PsumDepth <<= s
	w.WeightDepth <<= s
	return w
}

// route steers one client's request to the slice its address's high bits
// name. valid, addr (lo+sl bits) and the slices' readies (grants: only
// high with their valid) give each slice's valid and the slice-relative
// address; a request to a slice that does not exist (index ≥ engines,
// possible when engines is not a power of two) is accepted at once, its
// write dropped and its read answered with zeros. It returns the
// client's ready, its rvalid (one cycle after acceptance, as every
// buffer answers) and the slice of the read accepted in the previous
// cycle (whose data is the response).
type route struct {
	hit     []*hdl.Expr // per slice: the request goes there
	lo      *hdl.Expr   // slice-relative address
	ready   *hdl.Expr
	rvalid  *hdl.Signal
	rslice  *hdl.Signal
	present *hdl.Expr // the slice index names an engine
}

func (b *top) newRoute(name string, valid, addr *hdl.Expr, lo int) *route {
	m, N, sl := b.m, b.c.Engines, b.c.SliceBits()
	sel := addr.Slice(lo+sl-1, lo)
	r := &route{lo: addr.Slice(lo-1, 0)}
	for i := range N {
		r.hit = append(r.hit, sel.Eq(hdl.U(sl, uint64(i))))
	}
	r.present = hdl.U(1, 1)
	if N < 1<<uint(sl) {
		r.present = sel.Lt(hdl.U(sl, uint64(N)))
	}
	r.rslice = m.Reg(name+"_rslice", hdl.UInt(sl), 0)
	r.rslice.SetNext(sel)
	r.rvalid = m.Reg(name+"_rvalid_r", hdl.Bool, 0)
	return r
}

// finish sets the client's ready from the slices' grants.
func (r *route) finish(valid *hdl.Expr, grants []*hdl.Expr) {
	ready := valid.And(r.present.Not())
	for _, g := range grants {
		ready = ready.Or(g)
	}
	r.ready = ready
	r.rslice.SetEnable(valid.And(ready))
	r.rvalid.SetNext(valid.And(ready))
}

// pick is the response lane of the slice read in the previous cycle (0
// when it was no slice).
func (r *route) pick(lanes []*hdl.Expr) *hdl.Expr {
	vs := make([]hdl.Value, len(lanes))
	for i, l := range lanes {
		vs[i] = l
	}
	return hdl.Pick(r.rslice, vs, hdl.Const(lanes[0].Type, new(big.Int)))
}

// routeState joins a shared client (DMA or planar, port prefix on en) to
// the state buffers' client port of every slice.
func (b *top) routeState(client string, en *hdl.Instance, prefix string, write bool) {
	R, aw := b.c.Rows, log2(b.c.StateDepth)
	valid := &en.Out(prefix + "_valid").Expr
	r := b.newRoute(prefix, valid, &en.Out(prefix+"_addr").Expr, aw)
	var grants []*hdl.Expr
	for i, sb := range b.sbs {
		sb.Connect(client+"_valid", valid.And(r.hit[i])).Connect(client+"_addr", r.lo).
			Connect(client+"_mask", en.Out(prefix+"_mask"))
		grants = append(grants, &sb.Out(client+"_ready").Expr)
		if write {
			for p := range R {
				sb.Connect(fmt.Sprintf("%s_wdata_%d", client, p), en.Out(fmt.Sprintf("%s_wdata_%d", prefix, p)))
			}
		}
	}
	r.finish(valid, grants)
	en.Connect(prefix+"_ready", r.ready)
	b.ready(prefix, r.ready)
	if write {
		return
	}
	if en.Module.Port(prefix+"_rvalid") != nil {
		en.Connect(prefix+"_rvalid", r.rvalid)
	}
	for p := range R {
		var lanes []*hdl.Expr
		for _, sb := range b.sbs {
			lanes = append(lanes, &sb.Out(fmt.Sprintf("%s_rdata_%d", client, p)).Expr)
		}
		en.Connect(fmt.Sprintf("%s_rdata_%d", prefix, p), r.pick(lanes))
	}
}

// routePsum joins the planar engine's psum read-out to every slice's
// psum buffer.
func (b *top) routePsum(pl *hdl.Instance) {
	C, pw := b.c.Cols, log2(b.c.PsumDepth)
	valid := &pl.Out("rd_valid").Expr
	r := b.newRoute("rd", valid, &pl.Out("rd_addr").Expr, pw)
	var grants []*hdl.Expr
	for i, pb := range b.pbs {
		pb.Connect("rd_valid", valid.And(r.hit[i])).Connect("rd_addr", r.lo).Connect("rd_mask", pl.Out("rd_mask"))
		grants = append(grants, &pb.Out("rd_ready").Expr)
	}
	r.finish(valid, grants)
	pl.Connect("rd_ready", r.ready).Connect("rd_rvalid", r.rvalid)
	b.ready("rd", r.ready)
	for k := range C {
		var lanes []*hdl.Expr
		for _, pb := range b.pbs {
			lanes = append(lanes, &pb.Out(fmt.Sprintf("rd_data_%d", k)).Expr)
		}
		pl.Connect(fmt.Sprintf("rd_data_%d", k), r.pick(lanes))
	}
}

func (b *top) ready(name string, r *hdl.Expr) {
	if b.routedReady == nil {
		b.routedReady = map[string]*hdl.Expr{}
	}
	b.routedReady[name] = r
}

// dispatchTarget is one engine behind a dispatcher: it takes the task
// offered to it while ready, and pulses done once per finished task.
type dispatchTarget struct{ ready, done *hdl.Expr }

// dispatch stands for several engines as one engine of the task manager
// (the NEs as "ne", the sparse units as "sparse"; prefix names its
// signals): it offers the task (valid) to the target sel names (a value
// ≥ len(targets): the lowest-numbered target that can take a task), is
// ready when that target is, and turns the targets' done pulses into
// in-order done pulses: a FIFO holds the target of every dispatched,
// unfinished task in dispatch order, a counter per target its done pulses
// not yet passed on, and the FIFO head's target's done (this cycle's
// pulse or a counted one) is passed on, at most one per cycle. The done
// output is a function of registers only when every target's done is
// (the task manager's bypass needs that). depth bounds the dispatched,
// unfinished tasks: the task manager's outstanding bound, so the FIFO
// never overflows. It returns the ready and done for the task manager and
// each target's valid.
func (b *top) dispatch(prefix string, valid, sel *hdl.Expr, targets []dispatchTarget, depth int) (*hdl.Expr, *hdl.Expr, []*hdl.Expr) {
	m, N := b.m, len(targets)
	iw := hdl.ClogWidth(N) // a target index
	o := b.offer(prefix, valid, sel, targets)
	ready, target, valids, fire := o.ready, o.target, o.valids, o.fire

	// The FIFO of target indices in dispatch order.
	pw := hdl.ClogWidth(depth)
	wp := m.Reg(prefix+"_order_wp", hdl.UInt(pw), 0)
	rp := m.Reg(prefix+"_order_rp", hdl.UInt(pw), 0)
	cnt := m.Reg(prefix+"_order_n", hdl.UInt(hdl.ClogWidth(depth+1)), 0)
	slots := make([]*hdl.Signal, depth)
	wrap := func(p *hdl.Signal) *hdl.Expr {
		inc := p.Add(hdl.U(1, 1)).Trunc(pw)
		if depth == 1<<uint(pw) {
			return inc
		}
		return hdl.Mux(p.Eq(hdl.U(pw, uint64(depth-1))), hdl.U(pw, 0), inc)
	}
	order := make([]hdl.Value, depth)
	for k := range slots {
		slots[k] = m.Reg(fmt.Sprintf("%s_order_%d", prefix, k), hdl.UInt(iw), 0)
		slots[k].SetNext(target)
		slots[k].SetEnable(fire.And(wp.Eq(hdl.U(pw, uint64(k)))))
		order[k] = slots[k]
	}
	head := hdl.Pick(rp, order, hdl.U(iw, 0))
	nonEmpty := cnt.OrR()

	// Done pulses not yet passed on, per target.
	pend := make([]*hdl.Signal, N)
	cw := hdl.ClogWidth(depth + 1)
	has := make([]hdl.Value, N)
	for i, t := range targets {
		pend[i] = m.Reg(fmt.Sprintf("%s%d_done_pending", prefix, i), hdl.UInt(cw), 0)
		has[i] = pend[i].OrR().Or(t.done)
	}
	avail := hdl.Pick(head, has, hdl.U(1, 0))
	done := m.Wire(prefix+"_done_inorder", hdl.Bool)
	done.Set(nonEmpty.And(avail))
	for i, t := range targets {
		passed := done.And(head.Eq(hdl.U(iw, uint64(i))))
		pend[i].SetNext(pend[i].Add(t.done).Sub(passed).Trunc(cw))
	}
	wp.SetNext(wrap(wp))
	wp.SetEnable(fire)
	rp.SetNext(wrap(rp))
	rp.SetEnable(done)
	cnt.SetNext(cnt.Add(fire).Sub(done).Trunc(cnt.Width()))
	return ready, &done.Expr, valids
}

// offered is a task offered to several targets (offer).
type offered struct {
	ready, target, fire *hdl.Expr
	valids              []*hdl.Expr
}

// offer offers the task (valid) to the target sel names (a value ≥
// len(targets): the lowest-numbered target that can take a task): ready
// when that target is; target is its index, fire the cycle it takes the
// task, valids each target's offer.
func (b *top) offer(prefix string, valid, sel *hdl.Expr, targets []dispatchTarget) offered {
	m, N := b.m, len(targets)
	ew := sel.Width()
	iw := hdl.ClogWidth(N)
	var named *hdl.Expr = hdl.U(1, 1) // every value names a target
	if N < 1<<uint(ew) {
		named = sel.Lt(hdl.U(ew, uint64(N)))
	}
	// The first free target, one-hot, and its index.
	var anyFree *hdl.Expr = hdl.U(1, 0)
	var firstIx *hdl.Expr = hdl.U(iw, 0)
	first := make([]*hdl.Expr, N)
	for i, t := range targets {
		first[i] = t.ready.And(anyFree.Not())
		anyFree = anyFree.Or(t.ready)
	}
	for i := N - 1; i >= 0; i-- {
		firstIx = hdl.Mux(first[i], hdl.U(iw, uint64(i)), firstIx)
	}
	var namedFree *hdl.Expr = hdl.U(1, 0)
	for i, t := range targets {
		namedFree = namedFree.Or(sel.Eq(hdl.U(ew, uint64(i))).And(t.ready))
	}
	ready := m.Wire(prefix+"_dispatch_ready", hdl.Bool)
	ready.Set(hdl.Mux(named, namedFree, anyFree))
	target := m.Wire(prefix+"_dispatch_engine", hdl.UInt(iw))
	target.Set(hdl.Mux(named, sel.Resize(iw), firstIx))
	o := offered{ready: &ready.Expr, target: &target.Expr, fire: valid.And(ready), valids: make([]*hdl.Expr, N)}
	for i := range targets {
		o.valids[i] = valid.And(hdl.Mux(named, sel.Eq(hdl.U(ew, uint64(i))), first[i]))
	}
	return o
}

// dispatchNE is dispatch for the NEs: the NE param's engine field names
// the engine; it connects each NE's t_valid.
func (b *top) dispatchNE(engine *hdl.Expr) (*hdl.Expr, *hdl.Expr) {
	targets := make([]dispatchTarget, len(b.nes))
	for i, ne := range b.nes {
		targets[i] = dispatchTarget{ready: &ne.Out("t_ready").Expr, done: &ne.Out("done").Expr}
	}
	ready, done, valids := b.dispatch("ne", &b.tm.Out("ne_valid").Expr, engine, targets, b.c.TaskMgr().Outstanding)
	for i, ne := range b.nes {
		ne.Connect("t_valid", valids[i])
	}
	b.neValid = valids
	return ready, done
}

// neFree is the task manager's ne_free: which engines can take a task
// now (engine 0 in bit 0).
func (b *top) neFree() *hdl.Expr {
	free := make([]hdl.Value, len(b.nes))
	for i, ne := range b.nes {
		free[len(b.nes)-1-i] = ne.Out("t_ready")
	}
	return hdl.Cat(free...)
}

// engineCounters adds the per-engine ports ne<i>_start, ne<i>_done,
// ne<i>_busy_cycles, ne<i>_stall_cycles, ne<i>_mac_count,
// ne<i>_skip_count and the totals mac_count and skip_count (the counters
// with perf_counters only).
func (b *top) engineCounters(count func(string, *hdl.Expr)) {
	m, cw := b.m, b.c.CounterWidth
	var macs, skips *hdl.Expr
	for i, ne := range b.nes {
		p := fmt.Sprintf("ne%d_", i)
		m.Output(p+"start", hdl.Bool).Set(b.neValid[i].And(ne.Out("t_ready")))
		m.Output(p+"done", hdl.Bool).Set(ne.Out("done"))
		count(p+"busy_cycles", &ne.Out("busy").Expr)
		count(p+"stall_cycles", b.late(p+"stall", &ne.Out("stall").Expr))
		if !b.c.PerfCounters {
			continue
		}
		m.Output(p+"mac_count", hdl.UInt(cw)).Set(ne.Out("mac_count"))
		m.Output(p+"skip_count", hdl.UInt(cw)).Set(ne.Out("skip_count"))
		if macs == nil {
			macs, skips = &ne.Out("mac_count").Expr, &ne.Out("skip_count").Expr
		} else {
			macs, skips = macs.Add(ne.Out("mac_count")).Trunc(cw), skips.Add(ne.Out("skip_count")).Trunc(cw)
		}
	}
	if b.c.PerfCounters {
		m.Output("mac_count", hdl.UInt(cw)).Set(macs)
		m.Output("skip_count", hdl.UInt(cw)).Set(skips)
	}
}
