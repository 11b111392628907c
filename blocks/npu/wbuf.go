package npu

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// weightBuffer is the NE's weight store: WeightDepth rows of C weights,
// written by dma_in (one row per cycle, always accepted) and read by the
// NE's loader (data the cycle after the address). One writer and one
// reader, so no arbitration; the compiler orders a load after the NE
// tasks that still read the rows it overwrites.
func weightBuffer(c Config) *hdl.Module {
	ww, w := log2(c.WeightDepth), c.Cols*c.ElemWidth
	m := hdl.NewModule(hdl.Name("npu_weight_buffer", fmt.Sprintf("%dx%d", c.WeightDepth, w)))
	wv := m.Input("wr_valid", hdl.Bool)
	wa := m.Input("wr_addr", hdl.UInt(ww))
	wd := m.Input("wr_data", hdl.UInt(w))
	ra := m.Input("rd_addr", hdl.UInt(ww))
	rows := m.Memory("rows", c.WeightDepth, hdl.UInt(w))
	if c.Macros {
		rows = rows.AsMacro()
	}
	rows.Write(wa, wd, wv)
	m.Output("rd_data", hdl.UInt(w)).Set(rows.Read("rd_q", ra))
	return m
}
