package systolic

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// Name is the module name of the array for cfg: every parameter that
// changes the hardware is in it.
func Name(cfg Config) string {
	return resetTag(stageTag(hdl.Name("systolic", fmt.Sprintf("%dx%d", cfg.Rows, cfg.Cols), cfg.InputType(), cfg.WeightType(),
		cfg.PsumType(), fmt.Sprintf("e%d", cfg.EntryWidth), fmt.Sprintf("n%d", cfg.CounterWidth), skipTag(cfg.ZeroSkip)), cfg.MulStage), cfg.NoDatapathReset)
}

// Build validates cfg and builds the PE array (ports and timing in the
// package documentation).
func Build(cfg Config) (*hdl.Module, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("systolic: %w", err)
	}
	return array(cfg), nil
}

func array(cfg Config) *hdl.Module {
	R, C := cfg.Rows, cfg.Cols
	it, wt, pt, et := cfg.InputType(), cfg.WeightType(), cfg.PsumType(), cfg.EntryType()
	zs := cfg.ZeroSkip
	m := hdl.NewModule(Name(cfg))

	// ---- ports ----
	inValid := m.Input("in_valid", hdl.Bool)
	inX := make([]*hdl.Signal, R)
	for r := range inX {
		inX[r] = m.Input(fmt.Sprintf("in_x_%d", r), it)
	}
	inEntry := m.Input("in_entry", et)
	inAcc := m.Input("in_acc", hdl.Bool)
	inSwap := m.Input("in_swap", hdl.Bool)
	trStart := m.Input("tr_start", hdl.Bool)
	trLast := m.Input("tr_last", hdl.UInt(hdl.ClogWidth(R)))
	trEntry := m.Input("tr_entry", et)
	ldValid := m.Input("ld_valid", hdl.Bool)
	ldRow := m.Input("ld_row", hdl.UInt(hdl.ClogWidth(R)))
	ldW := make([]*hdl.Signal, C)
	for c := range ldW {
		ldW[c] = m.Input(fmt.Sprintf("ld_w_%d", c), wt)
	}

	// ---- feeder: port vectors or generated one-hot vectors ----
	fd := m.Instance("feeder", feeder(cfg)).
		Connect("in_valid", inValid).Connect("in_entry", inEntry).Connect("in_acc", inAcc).
		Connect("in_swap", inSwap).Connect("tr_start", trStart).Connect("tr_last", trLast).Connect("tr_entry", trEntry)
	for r := range inX {
		fd.Connect(fmt.Sprintf("in_x_%d", r), inX[r])
	}
	m.Output("in_ready", hdl.Bool).Set(fd.Out("in_ready"))
	m.Output("tr_ready", hdl.Bool).Set(fd.Out("tr_ready"))

	// ---- tags: one shared delay line carries valid, swap, entry and acc
	// of every vector from the feeder to the output (R+C stages). Row r
	// taps valid and swap at stage r, which is when the vector enters it.
	L := cfg.Latency()
	tv := newChain(m, "tv", &fd.Out("f_valid").Expr, L, 0, nil)
	tagEn := func(j int) *hdl.Expr { return tv.at(j - 1) }
	ts := newChain(m, "ts", &fd.Out("f_swap").Expr, R-1, 0, nil)
	te := newChain(m, "te", &fd.Out("f_entry").Expr, L, 0, tagEn)
	ta := newChain(m, "ta", &fd.Out("f_acc").Expr, L, 0, tagEn)

	// ---- input skew: row r's element enters r cycles after row 0's ----
	rowX := make([]*hdl.Expr, R)
	rowZ := make([]*hdl.Expr, R)
	for r := 0; r < R; r++ {
		fx := &fd.Out(fmt.Sprintf("f_x_%d", r)).Expr
		if !zs {
			rowX[r] = newChain(m, fmt.Sprintf("skx%d", r), fx, r, 0, nil).at(r)
			continue
		}
		// The zero flag travels with the element; a zero element is not
		// shifted, so the skew registers do not toggle either.
		z := newChain(m, fmt.Sprintf("skz%d", r), &fd.Out(fmt.Sprintf("f_z_%d", r)).Expr, r, 1, nil)
		rowZ[r] = z.at(r)
		rowX[r] = newChain(m, fmt.Sprintf("skx%d", r), fx, r, 0, func(j int) *hdl.Expr { return z.at(j - 1).Not() }).at(r)
	}

	// ---- weight load: row ld_row of C weights per cycle. Column c takes
	// it c cycles later, like the data wavefront, so a PE's shadow weight
	// is written at the same offset from its swap as every other PE's.
	lv := newChain(m, "lv", &ldValid.Expr, C-1, 0, nil)
	colW := make([]*hdl.Expr, C)
	colZ := make([]*hdl.Expr, C)
	wzPort := make([]*hdl.Expr, C)
	zeroW := hdl.Const(wt, big.NewInt(0))
	for c := 0; c < C; c++ {
		en := func(j int) *hdl.Expr { return lv.at(j - 1) }
		colW[c] = newChain(m, fmt.Sprintf("ldw%d", c), &ldW[c].Expr, c, 0, en).at(c)
		if zs {
			wzPort[c] = ldW[c].Eq(zeroW)
			colZ[c] = newChain(m, fmt.Sprintf("ldz%d", c), wzPort[c], c, 1, en).at(c)
		}
	}
	rowLd := make([]*hdl.Expr, R)
	for r := 0; r < R; r++ {
		rowLd[r] = ldValid.And(ldRow.Eq(hdl.U(ldRow.Width(), uint64(r))))
	}

	// ---- the PE grid ----
	pe := PE(cfg)
	bottom := make([]*hdl.Expr, C)
	for c := range bottom {
		bottom[c] = hdl.Const(pt, big.NewInt(0))
	}
	for r := 0; r < R; r++ {
		x, s, ld, z := rowX[r], ts.at(r), rowLd[r], rowZ[r]
		for c := 0; c < C; c++ {
			u := m.Instance(fmt.Sprintf("pe_%d_%d", r, c), pe)
			u.Connect("x_in", x).Connect("s_in", s).Connect("p_in", bottom[c]).
				Connect("ld_in", ld).Connect("w_ld", colW[c])
			x, s, ld = &u.Out("x_out").Expr, &u.Out("s_out").Expr, &u.Out("ld_out").Expr
			if zs {
				u.Connect("z_in", z).Connect("wz_ld", colZ[c])
				z = &u.Out("z_out").Expr
			}
			bottom[c] = &u.Out("p_out").Expr
		}
	}

	// ---- deskew: column c's psum leaves the grid R+c+1 cycles after its
	// vector was taken; delay it to R+C, the latency of the last column.
	// A register loads only when its slot holds a valid vector (the tag
	// line says when), so empty slots do not toggle the deskew.
	m.Output("out_valid", hdl.Bool).Set(tv.at(L))
	m.Output("out_entry", et).Set(te.at(L))
	m.Output("out_acc", hdl.Bool).Set(ta.at(L))
	for c := 0; c < C; c++ {
		base := R + c + 1 + cfg.mulStages()
		d := newChain(m, fmt.Sprintf("dsk%d", c), bottom[c], C-1-c, 0, func(j int) *hdl.Expr { return tv.at(base + j - 1) })
		m.Output(fmt.Sprintf("out_psum_%d", c), pt).Set(d.at(C - 1 - c))
	}

	counters(m, cfg, &fd.Out("f_valid").Expr, tv, ts, rowZ, wzPort, rowLd)
	return m
}
