package compiler

import (
	"strings"

	"github.com/hwgen/hwgen/isa"
)

// NEVectors counts the input vectors the PE array streams per layer
// (the first word of the NE tasks' labels, as LayerMACs keys them):
// for each conv or GEMM task, its passes (channel tiles × kernel taps)
// times its output pixels, padding vectors included. Each vector is
// Rows·Cols multiply-accumulates of the array, so LayerMACs[l] /
// (NEVectors()[l]·Rows·Cols) is layer l's array utilization as the
// compiler mapped it, before any stall: the mapping's bound on what the
// hardware reaches (host.Result.Utilization measures the rest).
// Copies that run on the NE (relayout) count under the layer that asked
// for them.
func (p *Program) NEVectors() map[string]int64 {
	out := map[string]int64{}
	codec := p.Config.Codec()
	for i := range p.Tasks {
		t := &p.Tasks[i]
		if t.Desc.Engine != isa.NE {
			continue
		}
		task, err := codec.Decode(t.Desc)
		if err != nil {
			continue
		}
		cv, ok := task.(isa.Conv)
		if !ok {
			continue
		}
		layer, _, _ := strings.Cut(t.Label, " ")
		out[layer] += int64(cv.Tiles*cv.KH*cv.KW) * int64(cv.OH*cv.OW)
	}
	return out
}
