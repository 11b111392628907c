package systolic

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// counters adds mac_count (MACs of valid vectors: R·C per vector) and,
// with zero skipping, skip_count (MACs whose input element or weight was
// zero, so the PE added 0 and its multiplier held).
//
// Rather than summing a skip bit from every PE every cycle (an R·C-input
// population count), the skips are counted per row as a vector enters
// the row: a zero element skips all C PEs of the row, a non-zero element
// skips as many as the row has zero weights, a number counted once when
// the row's weights are loaded and swapped with them. The totals are the
// same as counting PE by PE; they are complete R+1 cycles after a vector
// is taken (mac_count 1 cycle after), before its output leaves the array.
func counters(m *hdl.Module, cfg Config, valid *hdl.Expr, tv, ts chain, rowZ, wzPort, rowLd []*hdl.Expr) {
	R, C, n := cfg.Rows, cfg.Cols, cfg.CounterWidth
	// A taken vector is registered before it is counted: the counter's
	// enable would otherwise hang off the in_valid input through the
	// feeder.
	took := m.Reg("mac_add", hdl.Bool, 0)
	took.SetNext(valid)
	macs := m.Reg("mac_cnt", hdl.UInt(n), 0)
	macs.SetNext(macs.Add(hdl.U(n, uint64(R*C))).Trunc(n))
	macs.SetEnable(took)
	m.Output("mac_count", hdl.UInt(n)).Set(macs)
	if !cfg.ZeroSkip {
		return
	}

	cw := hdl.ClogWidth(C + 1) // 0..C
	zeroCount := sumTree(wzPort).Resize(cw)
	all := hdl.U(cw, uint64(C)) // after reset every weight is zero
	terms := make([]*hdl.Expr, R)
	for r := 0; r < R; r++ {
		sh := m.Reg(fmt.Sprintf("zw_sh_%d", r), hdl.UInt(cw), int64(C))
		sh.SetNext(zeroCount)
		sh.SetEnable(rowLd[r])
		act := m.Reg(fmt.Sprintf("zw_act_%d", r), hdl.UInt(cw), int64(C))
		act.SetNext(sh)
		act.SetEnable(ts.at(r))
		zw := hdl.Mux(ts.at(r), sh, act) // the swapping vector already uses the new weights
		term := hdl.Mux(rowZ[r], all, zw)
		terms[r] = hdl.Mux(tv.at(r), term, hdl.U(cw, 0))
	}
	// The cycle's skips are registered before they are added: the sum
	// starts at the feeder's zero flags, and the 48-bit carry chain after
	// it was the zero-skipping array's critical path.
	sum := sumTree(terms)
	pending := m.Reg("skip_add", sum.Type, 0)
	pending.SetNext(sum)
	skips := m.Reg("skip_cnt", hdl.UInt(n), 0)
	skips.SetNext(skips.Add(pending).Trunc(n))
	m.Output("skip_count", hdl.UInt(n)).Set(skips)
}

// sumTree adds unsigned values in a balanced tree, each level one bit
// wider, so nothing is lost.
func sumTree(vs []*hdl.Expr) *hdl.Expr {
	for len(vs) > 1 {
		var next []*hdl.Expr
		for i := 0; i+1 < len(vs); i += 2 {
			next = append(next, vs[i].Add(vs[i+1]))
		}
		if len(vs)%2 == 1 {
			next = append(next, vs[len(vs)-1])
		}
		vs = next
	}
	return vs[0]
}
