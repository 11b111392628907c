package npu

import (
	"github.com/hwgen/hwgen/blocks/descfetch"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
)

// DescFetch is the descriptor-fetch front end's configuration (used when
// DescRingBits > 0): one ring per task queue, descriptors of the task
// manager's layout width, read as external-memory lines.
func (c Config) DescFetch() descfetch.Config {
	return descfetch.Config{Queues: c.Queues, DescWidth: c.descWidth(), LineWidth: c.LineWidth(),
		AddrWidth: c.ExtAddrWidth, RingBits: c.DescRingBits}
}

// descWidth is the task manager's descriptor width.
func (c Config) descWidth() int {
	lay, err := taskmgr.NewLayout(c.TaskMgr())
	if err != nil {
		return 0
	}
	return lay.Width
}

// hostFront connects the task manager's command port to the host: the
// cmd_* port itself, or (DescRingBits > 0) the queue-record port qr_*
// of the descriptor-fetch front end, whose reads join dma_in's on the
// external port (returned: nil without rings).
func (b *top) hostFront(tmMod *hdl.Module) (*hdl.Instance, error) {
	c, m, tm := b.c, b.m, b.tm
	tm.Connect("err_clear", m.Input("err_clear", hdl.Bool))
	status := []string{"err_code", "err_id", "err_queue", "skipped"}
	if c.DescRingBits == 0 {
		tm.Connect("cmd_valid", m.Input("cmd_valid", hdl.Bool))
		tm.Connect("cmd_queue", m.Input("cmd_queue", tmMod.Port("cmd_queue").Type))
		tm.Connect("cmd_desc", m.Input("cmd_desc", hdl.UInt(b.lay.Width)))
		for _, p := range append([]string{"cmd_ready", "idle"}, status...) {
			m.Output(p, tm.Out(p).Type).Set(tm.Out(p))
		}
		return nil, nil
	}
	dfMod, err := descfetch.Build(c.DescFetch())
	if err != nil {
		return nil, err
	}
	df := m.Instance("df", dfMod)
	for _, p := range []string{"qr_valid", "qr_queue", "qr_reg", "qr_data"} {
		df.Connect(p, m.Input(p, dfMod.Port(p).Type))
	}
	m.Output("qr_head", dfMod.Port("qr_head").Type).Set(df.Out("qr_head"))
	tm.Connect("cmd_valid", df.Out("cmd_valid")).Connect("cmd_queue", df.Out("cmd_queue").Resize(tmMod.Port("cmd_queue").Type.Width)).
		Connect("cmd_desc", df.Out("cmd_desc"))
	df.Connect("cmd_ready", tm.Out("cmd_ready")).Connect("cmd_room", tm.Out("cmd_room"))
	for _, p := range status {
		m.Output(p, tm.Out(p).Type).Set(tm.Out(p))
	}
	m.Output("idle", hdl.Bool).Set(tm.Out("idle").And(df.Out("pending").Not()))
	m.Output("desc_fetched", hdl.UInt(32)).Set(df.Out("fetched"))
	m.Output("desc_replaced", hdl.UInt(32)).Set(df.Out("replaced"))
	return df, nil
}
