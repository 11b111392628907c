package npu

import (
	"github.com/hwgen/hwgen/hdl"
)

// SimName is the simulation top's module name for c.
func (c Config) SimName() string { return c.Name() + "_sim" }

// BuildSim returns the simulation top: the NPU with the external-memory
// model on its external port. Its ports are the NPU's host, status and
// counter ports plus the host memory port (h_wr_valid, h_wr_addr,
// h_wr_data, h_rd_addr → h_rd_data) of the model (doc.go).
func BuildSim(c Config) (*hdl.Module, error) {
	npuMod, err := Build(c)
	if err != nil {
		return nil, err
	}
	m := hdl.NewModule(c.SimName())
	n := m.Instance("npu", npuMod)
	x := m.Instance("ext", extMem(c))
	for _, p := range []string{"x_req_valid", "x_req_write", "x_req_addr", "x_req_wdata"} {
		x.Connect(p, n.Out(p))
	}
	for _, p := range []string{"x_req_ready", "x_resp_valid", "x_resp_data"} {
		n.Connect(p, x.Out(p))
	}
	for _, p := range x.Module.Ports {
		if p.Kind == hdl.Input && len(p.Name) > 2 && p.Name[:2] == "h_" {
			x.Connect(p.Name, m.Input(p.Name, p.Type))
		}
	}
	m.Output("h_rd_data", x.Out("h_rd_data").Type).Set(x.Out("h_rd_data"))
	for _, p := range npuMod.Ports {
		switch {
		case p.Kind == hdl.Input && len(p.Name) > 2 && p.Name[:2] == "x_":
		case p.Kind == hdl.Input:
			n.Connect(p.Name, m.Input(p.Name, p.Type))
		case len(p.Name) > 2 && p.Name[:2] == "x_":
		default:
			m.Output(p.Name, p.Type).Set(n.Out(p.Name))
		}
	}
	return m, nil
}

// ExtMemPath is the simulator path of the external memory's array in the
// simulation top (for backdoor access).
const ExtMemPath = "ext.lines"
