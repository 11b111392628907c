package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// runNet quantizes m (with opts), runs it on the reference machine for
// x, checks the golden models bit for bit and returns the net and the
// dequantized output with the largest |dequantized − float|.
func runNet(t *testing.T, m *onnx.Model, x *onnx.Array, calib []*onnx.Array, opts ...Option) (*Net, *compiler.Program, *onnx.Array, float64) {
	t.Helper()
	cfg := npu.DefaultConfig()
	float, err := m.Graph.Run(map[string]*onnx.Array{m.Graph.Inputs[0].Name: x})
	if err != nil {
		t.Fatal(err)
	}
	net, err := Quantize(m, calib, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
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
		t.Fatalf("(-golden +machine):\n%s", d)
	}
	deq, err := net.Dequantize(got[out])
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, v := range float[out].Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-v)))
	}
	return net, p, deq, worst
}

// tinyConv is tiny cut after its Conv: the Conv (own bias) is the graph
// output [1,2,4,4], so an int32 output has channels on axis 1 of a
// feature map.
func tinyConv() *onnx.Model {
	m := tiny()
	m.Graph.Nodes = m.Graph.Nodes[:1]
	m.Graph.Outputs[0].Name = "c"
	return m
}

// With Int32Output the last layer (MatMul + bias, or a Conv with its
// bias) leaves as int32 and dequantizes per channel to within the int8
// output's own tolerance of float, closer than int8; a Relu last keeps
// the output int8.
func TestInt32Output(t *testing.T) {
	x := tinyInput()
	relu := tinyConv()
	relu.Graph.Nodes = append(relu.Graph.Nodes, &onnx.Node{Name: "relu", OpType: "Relu", Inputs: []string{"c"}, Outputs: []string{"r"}})
	relu.Graph.Outputs[0].Name = "r"
	for _, tc := range []struct {
		name  string
		model func() *onnx.Model
		int32 bool
	}{
		{"matmul", tiny, true},
		{"conv", tinyConv, true},
		{"relu last", func() *onnx.Model { return relu }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net8, _, _, worst8 := runNet(t, tc.model(), x, []*onnx.Array{x})
			net, p, _, worst := runNet(t, tc.model(), x, []*onnx.Array{x}, Int32Output())
			if net.Int32Output() != tc.int32 {
				t.Fatalf("Int32Output() = %v, want %v", net.Int32Output(), tc.int32)
			}
			b, _ := p.Output(net.Output())
			if got := b.Digits > 0; got != tc.int32 {
				t.Errorf("output binding int32 %v (%d digits), want %v", got, b.Digits, tc.int32)
			}
			if !tc.int32 {
				if worst != worst8 {
					t.Errorf("int8 kept: error %g, the int8 lowering's %g", worst, worst8)
				}
				return
			}
			t.Logf("max |out − float|: int8 %.4g (step %.4g), int32 %.4g (steps %.3g)", worst8, net8.OutputScale(), worst, net.OutputSteps())
			if worst > worst8 || worst > tolerance*net8.OutputScale() {
				t.Errorf("int32 error %g, int8 error %g (step %g): want int32 no worse and within %d int8 steps", worst, worst8, net8.OutputScale(), tolerance)
			}
			if l := net.Layers[len(net.Layers)-1]; !l.Int32 {
				t.Errorf("last layer %+v not marked int32", l)
			}
		})
	}
}

// mnist-7 with int32 logits: the reference machine, the golden models and
// the Go simulator agree bit for bit, the class is the float one, and the
// logits are within the int8 output's tolerance of float.
func TestMnistInt32(t *testing.T) {
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	x := loadArray(t, mnistInput)
	net8, _, deq8, worst8 := runNet(t, m, x, calibration(x))
	net, p, deq, worst := runNet(t, m, x, calibration(x), Int32Output())
	if !net.Int32Output() {
		t.Fatal("mnist-7's last layer (MatMul + Add) did not become int32")
	}
	if a := onnx.Argmax(deq.Data); a != 2 {
		t.Errorf("argmax %d, want 2", a)
	}
	t.Logf("int8 logits  %v, max |int8 − float| %.3f", deq8.Data, worst8)
	t.Logf("int32 logits %v, max |int32 − float| %.3f", deq.Data, worst)
	if worst > tolerance*net8.OutputScale() {
		t.Errorf("int32 logits %.3f from float: more than %d int8 output steps of %.2f", worst, tolerance, net8.OutputScale())
	}
	cfg := npu.DefaultConfig()
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
}

// logitStats is how a lowering of mnist-7 does on a set of inputs: the
// inputs whose top-1 is the float model's, the int8 logits at ±127/-128
// (saturated), and the mean and largest |dequantized − float|.
type logitStats struct {
	agree, saturated int
	mean, worst      float64
}

// mnistStats runs net's program on every input (reference machine).
func mnistStats(t *testing.T, m *onnx.Model, net *Net, inputs []*onnx.Array) logitStats {
	t.Helper()
	cfg := npu.DefaultConfig()
	g, err := net.Graph(inputs[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	var s logitStats
	n := 0
	for _, in := range inputs {
		fl, err := m.Graph.Run(map[string]*onnx.Array{m.Graph.Inputs[0].Name: in})
		if err != nil {
			t.Fatal(err)
		}
		f := fl[net.Output()]
		xq, err := net.QuantizeInput(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetInput(net.Input(), xq); err != nil {
			t.Fatal(err)
		}
		got, _, err := compiler.Interpret(p)
		if err != nil {
			t.Fatal(err)
		}
		q := got[net.Output()]
		deq, err := net.Dequantize(q)
		if err != nil {
			t.Fatal(err)
		}
		if onnx.Argmax(deq.Data) == onnx.Argmax(f.Data) {
			s.agree++
		}
		for i, v := range q.Data {
			if !net.Int32Output() && (v == 127 || v == -128) {
				s.saturated++
			}
			e := math.Abs(float64(deq.Data[i] - f.Data[i]))
			s.mean += e
			s.worst = max(s.worst, e)
			n++
		}
	}
	s.mean /= float64(n)
	return s
}

// Over the test digit moved by up to 3 pixels and scaled by 0.6..1.4
// (147 inputs), calibrated on the test digit alone as hwgen run is by
// default, int32 logits are closer to float than int8 ones on average
// and at worst, and classify no worse: int8 saturates logits beyond the
// calibrated range, int32 has no range to leave.
func TestMnistInt32Perturbed(t *testing.T) {
	tooltest.SkipHeavy(t, "147 mnist-7 runs in two modes")
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	x := loadArray(t, mnistInput)
	var inputs []*onnx.Array
	for dy := -3; dy <= 3; dy++ {
		for dx := -3; dx <= 3; dx++ {
			for _, gain := range []float32{0.6, 1, 1.4} {
				s := shifted(x, dy, dx)
				for i := range s.Data {
					s.Data[i] *= gain
				}
				inputs = append(inputs, s)
			}
		}
	}
	var stats [2]logitStats
	for i, opts := range [][]Option{nil, {Int32Output()}} {
		net, err := Quantize(m, []*onnx.Array{x}, npu.DefaultConfig(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		stats[i] = mnistStats(t, m, net, inputs)
	}
	s8, s32 := stats[0], stats[1]
	t.Logf("int8:  top-1 = float on %d/%d, %d saturated logits, mean |err| %.2f, max %.1f", s8.agree, len(inputs), s8.saturated, s8.mean, s8.worst)
	t.Logf("int32: top-1 = float on %d/%d, mean |err| %.2f, max %.1f", s32.agree, len(inputs), s32.mean, s32.worst)
	if s32.agree < s8.agree || s32.mean >= s8.mean || s32.worst >= s8.worst {
		t.Errorf("int32 (top-1 %d, mean %.2f, max %.1f) is not better than int8 (top-1 %d, mean %.2f, max %.1f)",
			s32.agree, s32.mean, s32.worst, s8.agree, s8.mean, s8.worst)
	}
}
