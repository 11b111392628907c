package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// NetBits is the width of a descriptor's network field: enough for
// Networks networks (at least 1 bit), 0 without network IDs.
func (c Config) NetBits() int {
	if c.Networks == 0 {
		return 0
	}
	return max(1, hdl.ClogWidth(c.Networks))
}

// basePointers builds the base pointers of Config.Networks networks,
// written by the host through bp_valid, bp_net and bp_addr (an external
// line; a network number at or beyond Networks writes nothing), and
// returns a function that makes DMA engine e's operand absolute: its
// field plus its network's base pointer when the descriptor marks it
// memory-relative (kind, src_mem or dst_mem), modulo the external
// address width. Without networks the operand is the field itself.
func (b *top) basePointers() func(e, operand, kind string) *hdl.Expr {
	c, m, tm := b.c, b.m, b.tm
	xw := c.ExtAddrWidth
	plain := func(e, operand, _ string) *hdl.Expr { return tm.Out(e + "_" + operand).Resize(xw) }
	if c.Networks == 0 {
		return plain
	}
	nb := c.NetBits()
	bpValid := m.Input("bp_valid", hdl.Bool)
	bpNet := m.Input("bp_net", hdl.UInt(nb))
	bpAddr := m.Input("bp_addr", hdl.UInt(xw))
	bases := make([]hdl.Value, c.Networks)
	for n := range bases {
		r := m.Reg(fmt.Sprintf("net_base%d", n), hdl.UInt(xw), 0)
		r.SetNext(bpAddr)
		r.SetEnable(bpValid.And(bpNet.Eq(hdl.U(nb, uint64(n)))))
		bases[n] = r
	}
	return func(e, operand, kind string) *hdl.Expr {
		base := hdl.Pick(tm.Out(e+"_net"), bases, hdl.U(xw, 0))
		off := hdl.Mux(tm.Out(e+"_"+kind), base, hdl.U(xw, 0))
		return plain(e, operand, kind).Add(off).Trunc(xw)
	}
}
