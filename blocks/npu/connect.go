package npu

import (
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// tieOff drives every input of inst not yet connected with 0: the
// clients a bench or a top does not use.
func tieOff(inst *hdl.Instance) {
	for _, p := range inst.Module.Ports {
		if p.Kind != hdl.Input {
			continue
		}
		if _, ok := inst.Inputs[p.Name]; !ok {
			inst.Connect(p.Name, hdl.Const(p.Type, new(big.Int)))
		}
	}
}
