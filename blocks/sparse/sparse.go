package sparse

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// UnitInputs and UnitOutputs are a unit's own ports; the engine prefixes
// them with u<i>_. The weight and table write ports (w_wr_*, t_wr_*) are
// shared: one load writes every unit's copy.
var (
	UnitInputs  = []string{"go", "task_in", "in_wr_en", "in_wr_set", "in_wr_addr", "in_wr_data", "rd_en", "rd_bank", "rd_addr", "rd_clear"}
	UnitOutputs = []string{"ready", "done", "in_wr_ready", "rd_data", "mults", "busy_cycles", "stall_cycles"}
	sharedPorts = []string{"w_wr_en", "w_wr_addr", "w_wr_data", "t_wr_en", "t_wr_addr", "t_wr_data"}
)

// UnitPort is the engine's name of unit i's port.
func UnitPort(i int, port string) string { return fmt.Sprintf("u%d_%s", i, port) }

// Build builds the sparse engine: Units compute units, each statically
// bound to its own memory unit, sharing the weight and table load ports.
func Build(c Config) (*hdl.Module, error) {
	unitMod, err := BuildUnit(c)
	if err != nil {
		return nil, err
	}
	top := hdl.NewModule(Name(c))
	shared := map[string]*hdl.Signal{}
	for _, name := range sharedPorts {
		shared[name] = top.Input(name, unitMod.Port(name).Type)
	}
	for i := range c.Units {
		inst := top.Instance(fmt.Sprintf("unit%d", i), unitMod)
		for name, s := range shared {
			inst.Connect(name, s)
		}
		for _, name := range UnitInputs {
			inst.Connect(name, top.Input(UnitPort(i, name), unitMod.Port(name).Type))
		}
		for _, name := range UnitOutputs {
			top.Output(UnitPort(i, name), unitMod.Port(name).Type).Set(inst.Out(name))
		}
	}
	return top, nil
}
