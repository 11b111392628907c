package sparse

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/hwgen/hwgen/hdl"
)

// accumulator is the scatter stage's state the unit's control needs.
type accumulator struct {
	banks   []*hdl.Memory
	drained *hdl.Expr   // no product on its way to the accumulator
	nz      *hdl.Signal // multiplications performed this cycle
	wEn     []*hdl.Expr // write requests, in priority order
	wBank   []*hdl.Expr // the bank each writes
	wAddr   []*hdl.Expr
	wData   []*hdl.Expr
}

// scatter is the back of the unit. m1: the weight record meets the entry:
// the lanes' products are formed and their output pixel found, x + (K−1−w)
// in the full correlation, i.e. (row − ky, col − kx) in the valid one,
// kept when it lies on the stride's grid inside the oh × ow plane (the
// crop), and its accumulator read. m2: the read data (or, when m2 hits the
// entry m3 wrote in the previous cycle, that sum: the read returned the
// data before that write) plus the products is written back. Every lane
// of a record lands on the same entry, so one read and one write port
// serve all the multipliers and a cycle never has two products for one
// accumulator of a lane.
func (u *unit) scatter(w *weightStage) *accumulator {
	c, m := u.c, u.m
	p, aw, iw := c.Lanes, c.AccWidth, c.IndexWidth
	acc := &accumulator{}
	for b := range c.AccBanks {
		mem := m.Memory(fmt.Sprintf("acc%d", b), c.AccDepth, hdl.UInt(p*aw))
		if c.Macros {
			mem.AsMacro()
		}
		acc.banks = append(acc.banks, mem)
	}

	// m1: where the products land.
	signed := func(e *hdl.Expr) *hdl.Expr { return hdl.Cat(hdl.U(1, 0), e).AsSInt() }
	ky, kx := Get(u.wrec, &w.data.Expr, "ky"), Get(u.wrec, &w.data.Expr, "kx")
	ty := signed(&w.row.Expr).Sub(signed(ky))
	tx := signed(&w.col.Expr).Sub(signed(kx))
	zero := hdl.S(2, 0)
	ok := w.valid.And(ty.Ge(zero)).And(tx.Ge(zero))
	oy, oky := u.onGrid(ty.Slice(iw-1, 0))
	ox, okx := u.onGrid(tx.Slice(iw-1, 0))
	ok = ok.And(oky).And(okx).And(oy.Lt(u.oh)).And(ox.Lt(u.ow))
	aaw := c.AccAddrWidth()
	addr := m.Wire("m1_addr", hdl.UInt(aaw))
	// Resize: with small index widths the product is narrower than the
	// accumulator address (it fits, acc_depth bounds it from above).
	addr.Set(oy.Mul(u.ow).Add(ox).Resize(aaw))

	m2v := m.Reg("m2_valid", hdl.Bool, 0)
	m2v.SetNext(ok)
	m2a := m.Reg("m2_addr", hdl.UInt(aaw), 0)
	m2a.SetNext(addr)
	var prods []*hdl.Signal
	nz := hdl.U(1, 0)
	for j := range p {
		wj := Get(u.wrec, &w.data.Expr, fmt.Sprintf("w%d", j))
		pr := m.Reg(fmt.Sprintf("m2_prod%d", j), hdl.SInt(c.ValueWidth+c.WeightWidth), 0)
		pr.SetNext(w.value.Mul(wj))
		prods = append(prods, pr)
		nz = nz.Add(wj.Ne(hdl.S(c.WeightWidth, 0)))
	}
	nzw := bits.Len(uint(p))
	acc.nz = m.Reg("m2_mults", hdl.UInt(nzw), 0)
	acc.nz.SetNext(hdl.Mux(w.valid, nz.Resize(nzw), hdl.U(nzw, 0)))

	// Each bank's one read port: the scatter while a task runs on the
	// bank, the read-out otherwise (so one bank is read out while the
	// unit computes into the other).
	rdEn := m.Input("rd_en", hdl.Bool)
	rdBank := m.Input("rd_bank", hdl.UInt(1))
	rdAddr := m.Input("rd_addr", hdl.UInt(aaw))
	rdClear := m.Input("rd_clear", hdl.Bool)
	var reads []hdl.Value
	for b, mem := range acc.banks {
		scatters := u.running.And(u.bank.Eq(hdl.U(1, uint64(b))))
		reads = append(reads, mem.Read(fmt.Sprintf("acc%d_rd", b), hdl.Mux(scatters, addr, rdAddr)))
	}
	rdBankR := m.Reg("rd_bank_r", hdl.UInt(1), 0) // the bank read last cycle
	rdBankR.SetNext(rdBank)
	noBank := hdl.Const(hdl.UInt(p*aw), new(big.Int))
	m.Output("rd_data", hdl.UInt(p*aw)).Set(hdl.Pick(rdBankR, reads, noBank))
	rd := hdl.Pick(u.bank, reads, noBank)

	// m2: add and write back, forwarding m3's write.
	m3v := m.Reg("m3_valid", hdl.Bool, 0)
	m3a := m.Reg("m3_addr", hdl.UInt(aaw), 0)
	m3s := m.Reg("m3_sum", hdl.UInt(p*aw), 0)
	fwd := m3v.And(m3a.Eq(m2a))
	old := hdl.Mux(fwd, m3s, rd)
	var sums []hdl.Value
	for j := p - 1; j >= 0; j-- {
		o := old.Slice(j*aw+aw-1, j*aw).AsSInt()
		sums = append(sums, o.Add(prods[j]).Trunc(aw))
	}
	sum := hdl.Cat(sums...)
	m3v.SetNext(m2v)
	m3a.SetNext(m2a)
	m3s.SetNext(sum)
	acc.drained = w.valid.Not().And(m2v.Not())

	// Writes: the scatter, else the clear task (both on the task's
	// bank), else a read-out that clears what it read (on a bank no task
	// runs on).
	readOut := rdEn.And(rdClear).And(u.running.And(u.bank.Eq(rdBank)).Not())
	acc.wEn = []*hdl.Expr{&m2v.Expr, nil, readOut}
	acc.wBank = []*hdl.Expr{&u.bank.Expr, &u.bank.Expr, &rdBank.Expr}
	acc.wAddr = []*hdl.Expr{&m2a.Expr, nil, &rdAddr.Expr}
	acc.wData = []*hdl.Expr{sum, hdl.U(p*aw, 0), hdl.U(p*aw, 0)}
	return acc
}

// onGrid is t divided by the stride (a power of two), and whether t is a
// multiple of it.
func (u *unit) onGrid(t *hdl.Expr) (q, ok *hdl.Expr) {
	ok = hdl.U(1, 1)
	for k := MaxStrideLog2; k >= 1; k-- {
		low := t.Slice(min(k, t.Width())-1, 0).Eq(hdl.U(min(k, t.Width()), 0))
		ok = hdl.Mux(u.shift.Eq(hdl.U(2, uint64(k))), low, ok)
	}
	return t.Shr(u.shift), ok
}

// clear runs the clear task: one accumulator entry per cycle. It returns
// whether the task has cleared every entry, and wires the accumulator's
// write port.
func (u *unit) clear(acc *accumulator) *hdl.Expr {
	m := u.m
	cw := u.count.Width()
	n := m.Reg("clr", hdl.UInt(cw), 0)
	clearing := m.Wire("clearing", hdl.Bool)
	clearing.Set(u.running.And(u.isConv.Not()).And(n.Lt(u.count)))
	n.SetNext(hdl.Mux(u.start, hdl.U(cw, 0), hdl.Mux(clearing, n.Add(hdl.U(1, 1)).Trunc(cw), n)))
	aaw := u.c.AccAddrWidth()
	acc.wEn[1], acc.wAddr[1] = &clearing.Expr, n.Resize(aaw)

	for b, mem := range acc.banks {
		on := func(i int) *hdl.Expr { return acc.wEn[i].And(acc.wBank[i].Eq(hdl.U(1, uint64(b)))) }
		en, addr, data := on(2), acc.wAddr[2], acc.wData[2]
		for i := 1; i >= 0; i-- {
			en, addr, data = on(i).Or(en), hdl.Mux(on(i), acc.wAddr[i], addr), hdl.Mux(on(i), acc.wData[i], data)
		}
		mem.Write(addr, data, en)
	}
	return n.Eq(u.count)
}
