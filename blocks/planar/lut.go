package planar

import (
	"fmt"
	"math/bits"

	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The lookup table (Config.LUT): one array of 2^E entries of E bits for
// the engine, shared by the lanes, each with a read port of its own.
// loadtable writes one entry per lane from each vector it reads (entry
// k from lane k mod L, the k div L-th read); a task with the lut flag
// sends each lane's result y through the table in one more stage, L,
// between the rounding and the output FIFO:
//
//	R → y (saturated, clamped or wrapped) → L: table[y − elem min], registered → output FIFO
//
// The index is y with its sign bit flipped (signed elements), so entry
// k is the result for the value min + k. The array is an inferable
// memory without reset, like the buffers: its content is undefined
// until the first loadtable. Each read port is registered (enabled by
// adv, so a stall holds it) and is the L stage itself.

// lutTag marks the module names of the variant with the table.
func lutTag(name string, c Config) string {
	if c.LUT {
		return name + "_lut"
	}
	return name
}

// knownOps is the number of op codes, from 0, the engine runs: every
// one, or every one but loadtable without the table. loadtable is the
// last op, so one compare (op ≥ knownOps) finds the unknown ones.
func (c Config) knownOps() int {
	if c.LUT {
		return int(isaplanar.NumOps)
	}
	return int(isaplanar.OpLoadTable)
}

func init() {
	if isaplanar.OpLoadTable != isaplanar.NumOps-1 {
		panic("planar: knownOps assumes loadtable is the last op")
	}
}

// lutStages is the cycles the lut stage adds to t: one with the flag on
// an operation with a post-processor.
func lutStages(t isaplanar.Task) int {
	switch t.Op {
	case isaplanar.OpAct, isaplanar.OpEltwise, isaplanar.OpPool, isaplanar.OpReduce:
		if t.Lut {
			return 1
		}
	}
	return 0
}

// lutTable is the table's module: the array, a write port for each lane
// holding entries (lanes 0..TableLanes−1) and a registered read port for
// every lane.
//
//	port       dir  type      meaning
//	we         in   1         loadtable: write row's entries
//	row        in   UInt(rw)  the row (the vector read) being written
//	wdata_p    in   UInt(E)   lane p's entry: table[row·L + p]
//	ren        in   1         adv: the read registers take their entries
//	raddr_p    in   UInt(E)   lane p's index
//	q_p        out  UInt(E)   table[raddr_p] of the last cycle with ren
//
// With L a power of two each lane's write address is row and p side by
// side (constant low bits: the synthesis keeps one row decode per
// entry); otherwise row·L + p, which a table row past 2^E skips.
func lutTable(c Config) *hdl.Module {
	if c.Passes() > 1 {
		return lutTablePasses(c)
	}
	E, L, T := c.ElemWidth, c.Lanes, c.TableEntries()
	m := hdl.NewModule(hdl.Name("planar_lut", fmt.Sprintf("%dx%d", T, E), fmt.Sprintf("r%d", L)))
	we := m.Input("we", hdl.Bool)
	row := m.Input("row", hdl.UInt(rowWidth(c)))
	ren := m.Input("ren", hdl.Bool)
	mem := m.Memory("entries", T, hdl.UInt(E))
	pow2 := L&(L-1) == 0
	for p := range c.TableLanes() {
		wdata := m.Input(fmt.Sprintf("wdata_%d", p), hdl.UInt(E))
		var addr *hdl.Expr
		en := &we.Expr
		switch {
		case c.TableRows() == 1:
			addr = hdl.U(E, uint64(p))
		case L == 1:
			addr = row.Resize(E)
		case pow2:
			lb := bits.Len(uint(L)) - 1
			addr = hdl.Cat(row.Resize(E-lb), hdl.U(lb, uint64(p)))
		default:
			w := E + 1
			a := row.Resize(w).Mul(hdl.U(w, uint64(L))).Trunc(w).Add(hdl.U(w, uint64(p))).Trunc(w)
			en = en.And(a.Lt(hdl.U(w, uint64(T))))
			addr = a.Trunc(E)
		}
		mem.Write(addr, wdata, en)
	}
	for p := range L {
		raddr := m.Input(fmt.Sprintf("raddr_%d", p), hdl.UInt(E))
		m.Output(fmt.Sprintf("q_%d", p), hdl.UInt(E)).Set(mem.ReadEnabled(fmt.Sprintf("q_r_%d", p), raddr, ren))
	}
	return m
}

// rowWidth is the width of the table module's row input.
func rowWidth(c Config) int { return max(1, hdl.ClogWidth(c.TableRows())) }

// lutControl places the table: the consumer's count is the row a loadtable
// writes, each lane's head its entry, each lane's result its index.
func (cb *ctl) lutControl(lanes []*hdl.Instance) {
	c, m := cb.c, cb.m
	tab := m.Instance("lut", lutTable(c))
	tab.Connect("we", cb.fire.And(cb.isLT)).Connect("row", cb.ck.Resize(rowWidth(c))).Connect("ren", cb.adv)
	if cb.G > 1 {
		tab.Connect("pass", cb.pass)
	}
	for p, ln := range lanes {
		if p < c.TableLanes() || cb.G > 1 {
			tab.Connect(fmt.Sprintf("wdata_%d", p), ln.Out("lut_wdata"))
		}
		tab.Connect(fmt.Sprintf("raddr_%d", p), ln.Out("lut_idx"))
		ln.Connect("lut_q", tab.Out(fmt.Sprintf("q_%d", p))).Connect("lut_on", cb.lutOn)
	}
}

// lookup is the lane's side of the table: its index (y, sign bit
// flipped for signed elements) and the entry it contributes to a
// loadtable (the element at the head of its input FIFO).
func (ln *laneBuilder) lookup() {
	if !ln.c.LUT {
		return
	}
	E, y := ln.E, ln.y
	idx := &y.Expr
	if ln.c.ElemSigned {
		idx = y.Xor(hdl.U(E, 1<<uint(E-1)))
	}
	ln.m.Output("lut_idx", hdl.UInt(E)).Set(idx)
	ln.m.Output("lut_wdata", hdl.UInt(E)).Set(ln.head.Slice(E-1, 0))
}

// lutTablePasses is the table of an engine with passes (U post units,
// G = L/U passes): U write ports and U read ports. A loadtable's pass g
// writes entries row·L + g·U + u from lane u (entry k still comes from
// partition k mod L); an entry past 2^E is skipped.
//
//	pass       in   UInt(log2 G)   the pass
//	(the others as lutTable's, for p < U)
func lutTablePasses(c Config) *hdl.Module {
	E, L, U, G, T := c.ElemWidth, c.Lanes, c.Units(), c.Passes(), c.TableEntries()
	m := hdl.NewModule(unitsTag(hdl.Name("planar_lut", fmt.Sprintf("%dx%d", T, E), fmt.Sprintf("r%d", L)), c))
	we := m.Input("we", hdl.Bool)
	row := m.Input("row", hdl.UInt(rowWidth(c)))
	pass := m.Input("pass", hdl.UInt(hdl.ClogWidth(G)))
	ren := m.Input("ren", hdl.Bool)
	mem := m.Memory("entries", T, hdl.UInt(E))
	w := hdl.ClogWidth(c.TableRows()*L) + 1
	sub := row.Resize(w).Mul(hdl.U(w, uint64(G))).Trunc(w).Add(pass.Resize(w)).Trunc(w) // the pass's U entries of the row
	for u := range U {
		wdata := m.Input(fmt.Sprintf("wdata_%d", u), hdl.UInt(E))
		a := sub.Mul(hdl.U(w, uint64(U))).Trunc(w).Add(hdl.U(w, uint64(u))).Trunc(w)
		mem.Write(a.Resize(E), wdata, we.And(a.Lt(hdl.U(w, uint64(T)))))
	}
	for u := range U {
		raddr := m.Input(fmt.Sprintf("raddr_%d", u), hdl.UInt(E))
		m.Output(fmt.Sprintf("q_%d", u), hdl.UInt(E)).Set(mem.ReadEnabled(fmt.Sprintf("q_r_%d", u), raddr, ren))
	}
	return m
}
