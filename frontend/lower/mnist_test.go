package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
)

const (
	mnistModel  = "../onnx/testdata/mnist-7.onnx"
	mnistInput  = "../onnx/testdata/test_data_set_0/input_0.pb"
	mnistOutput = "../onnx/testdata/test_data_set_0/output_0.pb"
)

func loadArray(t *testing.T, path string) *onnx.Array {
	t.Helper()
	x, err := onnx.LoadTensorFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := onnx.ArrayOf(x)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// shifted is the [1,1,H,W] image x moved by dy rows and dx columns, the
// uncovered border zero (the images' background).
func shifted(x *onnx.Array, dy, dx int) *onnx.Array {
	h, w := x.Shape[2], x.Shape[3]
	y := onnx.NewArray(x.Shape...)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			if sr, sc := r-dy, c-dx; sr >= 0 && sr < h && sc >= 0 && sc < w {
				y.Data[r*w+c] = x.Data[sr*w+sc]
			}
		}
	}
	return y
}

// calibration is the set the activation scales come from: the one real
// sample the repository has and its shifts by one and two pixels in the
// four directions. Shifted digits are still digits, so the activation
// ranges stay those of real inputs (random pixels would not be), and the
// set is deterministic; the scales are nonetheless fitted to this sample,
// so the agreement measured here says nothing about accuracy on a data set.
func calibration(x *onnx.Array) []*onnx.Array {
	set := []*onnx.Array{x}
	for _, d := range []int{1, 2} {
		set = append(set, shifted(x, d, 0), shifted(x, -d, 0), shifted(x, 0, d), shifted(x, 0, -d))
	}
	return set
}

// mnist quantizes mnist-7 and builds its graph for the test input; it
// returns the net, the graph, the compiled program and the float logits.
func mnist(t *testing.T, cfg npu.Config) (*Net, *compiler.Graph, *compiler.Program, *onnx.Array) {
	t.Helper()
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	in := loadArray(t, mnistInput)
	float, err := m.Graph.Run(map[string]*onnx.Array{m.Graph.Inputs[0].Name: in})
	if err != nil {
		t.Fatal(err)
	}
	net, err := Quantize(m, calibration(in), cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.Graph(in)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	return net, g, p, float[net.Output()]
}

// mnist-7 quantized to int8 runs on the reference machine: bit for bit
// the golden models' result, the float model's class, and logits close
// to the float ones.
func TestMnistReferenceMachine(t *testing.T) {
	cfg := npu.DefaultConfig()
	net, g, p, float := mnist(t, cfg)
	for _, l := range net.Layers {
		t.Logf("%-16s in scale %.4g out scale %.4g shift %d worst multiplier error %.2g", l.Node, l.InScale, l.OutScale, l.Shift, l.WorstRelErr)
	}
	got, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := net.Output()
	if d := cmp.Diff(ref[out], got[out]); d != "" {
		t.Fatalf("reference machine vs golden models (-golden +machine):\n%s", d)
	}
	deq, err := net.Dequantize(got[out])
	if err != nil {
		t.Fatal(err)
	}
	if a, fa := onnx.Argmax(deq.Data), onnx.Argmax(float.Data); a != fa || a != 2 {
		t.Errorf("argmax %d, float argmax %d, want both 2", a, fa)
	}
	var worst, peak float64
	for i := range float.Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-float.Data[i])))
		peak = max(peak, math.Abs(float64(float.Data[i])))
	}
	step := net.OutputScale()
	t.Logf("int8 logits %v", got[out].Data)
	t.Logf("dequantized %v", deq.Data)
	t.Logf("float       %v", float.Data)
	t.Logf("max |int8 − float| = %.1f = %.2f output steps (step %.2f) = %.2f%% of the largest logit %.0f",
		worst, worst/step, step, 100*worst/peak, peak)
	if worst > tolerance*step {
		t.Errorf("max |int8 − float| = %.1f, more than %d output steps of %.2f", worst, tolerance, step)
	}
}

// tolerance bounds the dequantized logits' error in output steps: half a
// step is the output's own rounding, and up to half a step more is left
// for the rounding of the input, the weights and every activation carried
// through the layers (the worst logit of the test input is 0.56 of a step
// off).
const tolerance = 1

// The same program on the Go simulator of the NPU gives the reference
// machine's logits bit for bit (in well under a second).
func TestMnistSimulator(t *testing.T) {
	cfg := npu.DefaultConfig()
	net, _, p, _ := mnist(t, cfg)
	want, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := host.Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[net.Output()], res.Outputs[net.Output()]); d != "" {
		t.Errorf("simulator vs reference machine (-machine +simulator):\n%s", d)
	}
	t.Logf("%s: %s (%v)", p.Summary(), res.Summary(), res.Wall)
}
