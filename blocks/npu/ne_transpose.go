package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// transpose builds the corner-turn grid: it reads the block column by
// column into the grid (phFill), then loads the grid's rows into the
// array's shadow weights (phLoad) for the one-hot stream (phStart).
func (b *neBuilder) transpose() {
	m, R, C, E, aw := b.m, b.R, b.C, b.E, b.aw
	accept := b.accept
	cw := hdl.ClogWidth(C)
	fcol := m.Reg("fcol", hdl.UInt(cw+1), 0) // next column to fill
	fillV := m.Reg("fill_v", hdl.Bool, 0)    // a column lands this cycle
	fillZ := m.Reg("fill_z", hdl.Bool, 0)    // ... as zeros (past the block)
	fillC := m.Reg("fill_c", hdl.UInt(cw+1), 0)
	fill := b.is(phFill)
	colInBlock := fcol.Ext(16).Lt(b.W)
	b.wlValid = fill.And(colInBlock)
	fillGo := fill.And(colInBlock.Not().Or(b.wlReady))
	m.Output("wl_valid", hdl.Bool).Set(b.wlValid)
	m.Output("wl_addr", hdl.UInt(aw)).Set(b.src.Add(fcol.Resize(aw)).Trunc(aw))
	m.Output("wl_mask", hdl.UInt(R)).Set(hdl.U(R, 1<<uint(R)-1))
	fcol.SetNext(hdl.Mux(accept, hdl.U(cw+1, 0), fcol.Add(hdl.U(1, 1)).Trunc(cw+1)))
	fcol.SetEnable(accept.Or(fillGo))
	fillV.SetNext(fillGo)
	fillZ.SetNext(colInBlock.Not())
	fillC.SetNext(fcol)
	b.grid = make([][]*hdl.Signal, R)
	for r := range R {
		b.grid[r] = make([]*hdl.Signal, C)
		for cc := range C {
			g := m.Reg(fmt.Sprintf("grid_%d_%d", r, cc), hdl.UInt(E), 0)
			g.SetNext(hdl.Mux(fillZ, hdl.U(E, 0), b.wlData[r]))
			g.SetEnable(fillV.And(fillC.Eq(hdl.U(cw+1, uint64(cc)))))
			b.grid[r][cc] = g
		}
	}
	b.fillDone = fill.And(fillGo).And(fcol.Eq(hdl.U(cw+1, uint64(C-1))))
	b.tload = b.is(phLoad)
	b.trow = m.Reg("trow", hdl.UInt(hdl.ClogWidth(R)), 0)
	b.trow.SetNext(hdl.Mux(b.tload, b.trow.Add(hdl.U(1, 1)).Trunc(b.trow.Width()), hdl.U(b.trow.Width(), 0)))
	b.tloadDone = b.tload.And(b.trow.Eq(b.lastRow))

	b.trStart = b.is(phStart)
	b.nrows = hdl.Mux(b.H.Gt(hdl.U(16, uint64(R))), hdl.U(16, uint64(R)), b.H) // the block's rows, at most R
}
