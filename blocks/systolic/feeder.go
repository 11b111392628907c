package systolic

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// feeder is the array's front end. It takes one input vector per cycle
// from the port, or, after a transpose command, generates the one-hot
// vectors e_0 … e_{R'-1} itself (so no identity matrix is ever stored or
// moved), and computes each element's zero flag once for the whole row.
//
// Outputs (combinational; the array skews them):
//
//	f_valid, f_x_<r>, f_swap, f_entry, f_acc   the vector entering row 0 this cycle
//	f_z_<r>                                    (zero skipping) element r is zero or f_valid is 0
//	in_ready                                   a vector presented now is taken (0 while a transpose streams)
//	tr_ready                                   a transpose command presented now is taken
//
// A transpose command (tr_start) emits e_0 in the cycle it is taken, with
// the swap flag and entry tr_entry, then e_i with entry tr_entry+i in the
// following cycles up to i = tr_last. Input vectors have priority: a
// command waits while in_valid is high, so neither channel ever drops.
func feeder(cfg Config) *hdl.Module {
	R := cfg.Rows
	it, et := cfg.InputType(), cfg.EntryType()
	iw := hdl.ClogWidth(R)
	m := hdl.NewModule(hdl.Name("sa_feeder", R, it, et, skipTag(cfg.ZeroSkip)))

	inValid := m.Input("in_valid", hdl.Bool)
	xs := make([]*hdl.Signal, R)
	for r := range xs {
		xs[r] = m.Input(fmt.Sprintf("in_x_%d", r), it)
	}
	inEntry := m.Input("in_entry", et)
	inAcc := m.Input("in_acc", hdl.Bool)
	inSwap := m.Input("in_swap", hdl.Bool)
	trStart := m.Input("tr_start", hdl.Bool)
	trLast := m.Input("tr_last", hdl.UInt(iw))
	trEntry := m.Input("tr_entry", et)

	busy := m.Reg("busy", hdl.Bool, 0) // emitting e_1 … e_last
	idx := m.Reg("idx", hdl.UInt(iw), 0)
	last := m.Reg("last", hdl.UInt(iw), 0)
	entry := m.Reg("entry", et, 0)

	idle := busy.Not()
	m.Output("in_ready", hdl.Bool).Set(idle)
	m.Output("tr_ready", hdl.Bool).Set(idle.And(inValid.Not()))
	trGo := trStart.And(idle).And(inValid.Not())
	vecGo := inValid.And(idle)
	gen := m.Wire("gen", hdl.Bool) // this cycle's vector is generated
	gen.Set(busy.Or(trGo))

	// A block never has more than R rows: clamp tr_last (only possible
	// when R is not a power of two).
	lastIn := &trLast.Expr
	if R < 1<<iw {
		maxLast := hdl.U(iw, uint64(R-1))
		lastIn = hdl.Mux(trLast.Gt(maxLast), maxLast, trLast)
	}
	one := hdl.U(1, 1)
	busy.SetNext(hdl.Mux(busy, idx.Ne(last), lastIn.Ne(hdl.U(iw, 0))))
	busy.SetEnable(busy.Or(trGo))
	idx.SetNext(hdl.Mux(busy, idx.Add(one).Trunc(iw), hdl.U(iw, 1)))
	idx.SetEnable(busy.Or(trGo))
	last.SetNext(lastIn)
	last.SetEnable(trGo)
	curEntry := hdl.Mux(busy, entry, trEntry)
	entry.SetNext(curEntry.Add(one).Trunc(et.Width))
	entry.SetEnable(busy.Or(trGo))

	valid := gen.Or(vecGo)
	m.Output("f_valid", hdl.Bool).Set(valid)
	m.Output("f_swap", hdl.Bool).Set(hdl.Mux(gen, trGo, vecGo.And(inSwap)))
	m.Output("f_entry", et).Set(hdl.Mux(gen, curEntry, inEntry))
	m.Output("f_acc", hdl.Bool).Set(gen.Not().And(inAcc))

	hotIdx := hdl.Mux(busy, idx, hdl.U(iw, 0))
	zero := hdl.Const(it, big.NewInt(0))
	oneX := hdl.Const(it, big.NewInt(1))
	for r := 0; r < R; r++ {
		hot := hotIdx.Eq(hdl.U(iw, uint64(r)))
		x := m.Wire(fmt.Sprintf("x_%d", r), it)
		x.Set(hdl.Mux(gen, hdl.Mux(hot, oneX, zero), xs[r]))
		m.Output(fmt.Sprintf("f_x_%d", r), it).Set(x)
		if cfg.ZeroSkip {
			m.Output(fmt.Sprintf("f_z_%d", r), hdl.Bool).Set(valid.Not().Or(x.Eq(zero)))
		}
	}
	return m
}
