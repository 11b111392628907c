package sram

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// arbiter builds the lane arbiter shared by the buffers: n clients each
// ask for a set of lanes (banks) with valid_i and mask_i; a client is
// granted (ready_i) only when it gets every lane it asks for, so a vector
// access is atomic, and clients asking for disjoint lanes are granted in
// the same cycle.
//
// Allocation is greedy in a rotating priority order starting at client
// ptr: each client in turn is granted if its lanes are still free. The
// next ptr is the first client in the current order that asked and was
// refused (ptr holds if nobody was refused). The client at ptr is always
// granted, and ptr moves strictly towards any refused client without
// passing it, so a client holding valid waits at most n-1 cycles: round
// robin among the clients that actually conflict, no starvation, and no
// lane idles while a client that could use it waits (greedy).
//
// en gates every grant (the buffers hold it low during and just after
// reset); ptr only moves when en is high.
func arbiter(n, lanes int) *hdl.Module {
	m := hdl.NewModule(hdl.Name("sram_arb", n, lanes))
	en := m.Input("en", hdl.Bool)
	valid := make([]*hdl.Signal, n)
	mask := make([]*hdl.Signal, n)
	for i := range n {
		valid[i] = m.Input(fmt.Sprintf("valid_%d", i), hdl.Bool)
		mask[i] = m.Input(fmt.Sprintf("mask_%d", i), hdl.UInt(lanes))
	}
	pw := hdl.ClogWidth(n)
	ptr := m.Reg("ptr", hdl.UInt(pw), 0)
	zero := hdl.U(lanes, 0)

	// grant[k][i]: client i is granted when the order starts at k.
	grant := make([][]*hdl.Expr, n)
	for k := range n {
		grant[k] = make([]*hdl.Expr, n)
		var used *hdl.Expr
		for j := range n {
			i := (k + j) % n
			g := &valid[i].Expr
			if used != nil {
				g = g.And(mask[i].And(used).OrR().Not())
			}
			grant[k][i] = g
			if j < n-1 {
				take := hdl.Mux(g, mask[i], zero)
				if used == nil {
					used = take
				} else {
					used = used.Or(take)
				}
			}
		}
	}
	at := make([]*hdl.Expr, n) // at[k]: the order starts at k
	for k := 1; k < n; k++ {
		at[k] = ptr.Eq(hdl.U(pw, uint64(k)))
	}
	pick := func(opts []*hdl.Expr) *hdl.Expr {
		r := opts[0]
		for k := 1; k < n; k++ {
			r = hdl.Mux(at[k], opts[k], r)
		}
		return r
	}
	granted := make([]*hdl.Expr, n)
	blocked := make([]*hdl.Expr, n)
	for i := range n {
		col := make([]*hdl.Expr, n)
		for k := range n {
			col[k] = grant[k][i]
		}
		granted[i] = pick(col)
		blocked[i] = valid[i].And(granted[i].Not())
		ready := en.And(granted[i])
		m.Output(fmt.Sprintf("ready_%d", i), hdl.Bool).Set(ready)
		m.Output(fmt.Sprintf("gnt_%d", i), hdl.UInt(lanes)).Set(hdl.Mux(ready, mask[i], zero))
	}
	// next[k]: the first refused client in the order starting at k, else k.
	next := make([]*hdl.Expr, n)
	for k := range n {
		r := hdl.U(pw, uint64(k))
		for j := n - 1; j >= 1; j-- {
			i := (k + j) % n
			r = hdl.Mux(blocked[i], hdl.U(pw, uint64(i)), r)
		}
		next[k] = r
	}
	ptr.SetNext(pick(next))
	ptr.SetEnable(en)
	return m
}
