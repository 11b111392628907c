package examples

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

var bigZero = big.NewInt(0)

// PE is one weight-stationary processing element. While load is high the
// weight register takes w_in (and passes its old value down as w_out, so
// weights shift into a column from the top). Otherwise x passes right and
// the partial sum p_in + x*w passes down, each through a register.
func PE(in, acc hdl.Type) *hdl.Module {
	m := hdl.NewModule(hdl.Name("ws_pe", in, acc))
	x := m.Input("x_in", in)
	p := m.Input("p_in", acc)
	wIn := m.Input("w_in", in)
	load := m.Input("load", hdl.Bool)

	w := m.Reg("w", in, 0)
	w.SetNext(wIn)
	w.SetEnable(load)
	xr := m.Reg("x", in, 0)
	xr.SetNext(x)
	pr := m.Reg("p", acc, 0)
	pr.SetNext(p.Add(x.Mul(w)).Trunc(acc.Width))

	m.Output("x_out", in).Set(xr)
	m.Output("p_out", acc).Set(pr)
	m.Output("w_out", in).Set(w)
	return m
}

// WSArray is a rows x cols weight-stationary array of PE. Row r takes
// x_r from the left (the caller skews rows by r cycles); column c produces
// out_c = sum over r of x_r * W[r][c] at the bottom. Loading: hold load high
// for rows cycles while presenting w_c; the value presented first ends up
// in the bottom row.
func WSArray(rows, cols int, in, acc hdl.Type) *hdl.Module {
	m := hdl.NewModule(hdl.Name("ws_array", fmt.Sprintf("%dx%d", rows, cols), in, acc))
	pe := PE(in, acc)
	load := m.Input("load", hdl.Bool)
	xs := make([]hdl.Value, rows)
	for r := range xs {
		xs[r] = m.Input(fmt.Sprintf("x_%d", r), in)
	}
	ws := make([]hdl.Value, cols)
	for c := range ws {
		ws[c] = m.Input(fmt.Sprintf("w_%d", c), in)
	}
	ps := make([]hdl.Value, cols)
	for c := range ps {
		ps[c] = hdl.Const(acc, bigZero)
	}
	for r := 0; r < rows; r++ {
		x := xs[r]
		for c := 0; c < cols; c++ {
			u := m.Instance(fmt.Sprintf("pe_%d_%d", r, c), pe)
			u.Connect("x_in", x).Connect("p_in", ps[c]).Connect("w_in", ws[c]).Connect("load", load)
			x, ps[c], ws[c] = u.Out("x_out"), u.Out("p_out"), u.Out("w_out")
		}
	}
	for c := 0; c < cols; c++ {
		m.Output(fmt.Sprintf("out_%d", c), acc).Set(ps[c])
	}
	return m
}
