package onnx

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The nine ImageNet networks of testdata/light (README there), with
// seeded random weights, through the float executor. Whole 224×224
// networks take seconds to minutes each, so go test runs them only at a
// reduced input size where the graph allows it; scripts/networks-float.sh
// runs all nine at 224×224 (networks_full_test.go, build tag networks).

// lightNets are the networks' files, smallest first.
var lightNets = []string{
	"light_bvlc_alexnet", "light_zfnet512", "light_squeezenet", "light_vgg19", "light_inception_v1",
	"light_resnet50", "light_shufflenet", "light_inception_v2", "light_densenet121",
}

// lightModel loads a network with the random weights of seed and its
// input resized to hw×hw (0 keeps 224). The input of a last Softmax
// becomes an extra graph output, "logits", so that the comparison sees
// the scores before the Softmax flattens them.
func lightModel(t testing.TB, name string, seed uint64, hw int) (*Model, []byte) {
	t.Helper()
	m, err := LoadFile(filepath.Join("testdata", "light", name+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := RandomWeights(m, seed); err != nil {
		t.Fatal(err)
	}
	if hw > 0 {
		in := &m.Graph.Inputs[0]
		in.Shape = []Dim{in.Shape[0], in.Shape[1], {Size: int64(hw)}, {Size: int64(hw)}}
	}
	if last := m.Graph.Nodes[len(m.Graph.Nodes)-1]; last.OpType == "Softmax" {
		m.Graph.Outputs = append(m.Graph.Outputs, Value{Name: last.Inputs[0], DType: Float32})
	}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return m, data
}

// inputOf is a seeded random input of the model's (first) input shape.
func inputOf(m *Model, seed uint64) *Array {
	var shape []int
	for _, d := range m.Graph.Inputs[0].Shape {
		shape = append(shape, int(d.Size))
	}
	return randomArray(seed, shape...)
}

// bigFC are the networks whose fully connected layers hold over 50M
// weights: filling them takes seconds, so go test leaves them to the
// networks build.
var bigFC = map[string]bool{"light_bvlc_alexnet": true, "light_zfnet512": true, "light_vgg19": true}

// Every network loads, passes the float executor's check, and RandomWeights
// folds its stand-ins away (no ConstantOfShape, Unsqueeze of weights,
// Dropout or Sum left), the same for a seed and different across seeds.
func TestLightNetworksFold(t *testing.T) {
	for _, name := range lightNets {
		if bigFC[name] && !fullNetworks {
			continue
		}
		t.Run(name, func(t *testing.T) {
			m, a := lightModel(t, name, 1, 0)
			if err := m.Check(FloatOps); err != nil {
				t.Fatal(err)
			}
			for _, n := range m.Graph.Nodes {
				switch n.OpType {
				case "ConstantOfShape", "Unsqueeze", "Dropout", "Sum", "Identity":
					t.Errorf("node %q (%s) left after folding", n.Name, n.OpType)
				}
			}
			_, b := lightModel(t, name, 1, 0)
			_, c := lightModel(t, name, 2, 0)
			if !bytes.Equal(a, b) {
				t.Error("seed 1 twice gave different models")
			}
			if bytes.Equal(a, c) {
				t.Error("seeds 1 and 2 gave the same model")
			}
		})
	}
}

// ciNets are the networks go test compares with ONNX Runtime, each at the
// least input size its graph takes that still exercises every layer:
// SqueezeNet and DenseNet-121 end in a GlobalAveragePool, so any size
// whose pools fit works; ShuffleNet's channel shuffles reshape to fixed
// sizes, so it runs at 224×224 (a fraction of a second: grouped and
// depthwise convs are cheap).
var ciNets = []struct {
	name string
	hw   int
}{
	{"light_squeezenet", 96},
	{"light_densenet121", 64},
	{"light_shufflenet", 0},
}

// The float executor agrees with ONNX Runtime on whole networks with
// random weights, two seeds each.
func TestLightNetworksORT(t *testing.T) {
	node := onnxtest.NeedORT(t)
	for _, net := range ciNets {
		for _, seed := range []uint64{1, 2} {
			t.Run(fmt.Sprintf("%s %d seed %d", net.name, net.hw, seed), func(t *testing.T) {
				m, data := lightModel(t, net.name, seed, net.hw)
				c, err := compareORT(t, node, m, data, inputOf(m, seed))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("largest difference %.3g of the output range; float executor %v", c.relErr, c.took)
				if c.relErr > ortTolerance {
					t.Errorf("largest difference from ONNX Runtime %.3g of the output range, want ≤ %g", c.relErr, ortTolerance)
				}
			})
		}
	}
}
