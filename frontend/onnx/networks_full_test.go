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
				e, took, err := compareORTTimed(t, node, m, data, inputOf(m, seed))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("network %s seed %d: max relative error %.2e, float executor %.2f s", name, seed, e, took.Seconds())
				if e > ortTolerance {
					t.Errorf("largest difference from ONNX Runtime %.3g of the output range, want ≤ %g", e, ortTolerance)
				}
			})
		}
	}
}
