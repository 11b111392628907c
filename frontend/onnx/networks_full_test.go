//go:build networks

package onnx

import (
	"fmt"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// fullNetworks is set by the networks build tag (scripts/networks-float.sh):
// every network, at full size.
const fullNetworks = true

// All nine networks at 224×224, two seeds each, against ONNX Runtime; each
// line logged is one figure of docs/notes/networks.md. Run by
// scripts/networks-float.sh, not by CI (minutes, and gigabytes of weights).
func TestLightNetworksFull(t *testing.T) {
	node := onnxtest.NeedORT(t)
	for _, name := range lightNets {
		for _, seed := range []uint64{1, 2} {
			t.Run(fmt.Sprintf("%s seed %d", name, seed), func(t *testing.T) {
				m, data := lightModel(t, name, seed, 0)
				c, err := compareORT(t, node, m, data, inputOf(m, seed))
				if err != nil {
					t.Fatal(err)
				}
				gmac := float64(macs(m, c.env)) / 1e9
				t.Logf("network %s seed %d: max relative error %.2e, float executor %.2f s, %.2f GMAC (%.2f GMAC/s)",
					name, seed, c.relErr, c.took.Seconds(), gmac, gmac/c.took.Seconds())
				if c.relErr > ortTolerance {
					t.Errorf("largest difference from ONNX Runtime %.3g of the output range, want ≤ %g", c.relErr, ortTolerance)
				}
			})
		}
	}
}

// macs counts the multiply-adds of the network's Conv, Gemm and MatMul
// nodes from the shapes the executor computed: each output element of a
// Conv takes C/group·KH·KW, of a Gemm or MatMul K.
func macs(m *Model, env map[string]*Array) int64 {
	var n int64
	for _, nd := range m.Graph.Nodes {
		if len(nd.Inputs) < 2 {
			continue
		}
		y, w := env[nd.Outputs[0]], env[nd.Inputs[1]]
		if y == nil || w == nil {
			continue
		}
		switch nd.OpType {
		case "Conv":
			n += int64(numel(y.Shape)) * int64(numel(w.Shape[1:]))
		case "Gemm", "MatMul":
			k := w.Shape[max(len(w.Shape)-2, 0)]
			if nd.OpType == "Gemm" && nd.Int("transB", 0) != 0 {
				k = w.Shape[1]
			}
			n += int64(numel(y.Shape)) * int64(k)
		}
	}
	return n
}
