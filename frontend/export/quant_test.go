package export

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/golden"
)

// chainModel is a model of one input, the chain add appends, and one
// output.
func chainModel(in, out onnxpb.TensorProto_DataType, inShape, outShape []int, add func(b *builder, x string) string) *onnxpb.ModelProto {
	b := newBuilder("chain")
	b.names["x"] = true
	b.g.Input = append(b.g.Input, value("x", in, inShape))
	y := b.exact("Identity", "y", []string{add(b, "x")})
	b.g.Output = append(b.g.Output, value(y, out, outShape))
	return model(b.g, "test chain")
}

// The input quantization on ONNX Runtime equals Net.QuantizeInput:
// ties rounded to even, the clamp at ±127 (not −128), on a net whose
// input scale is 0.5 exactly (so x/scale hits the ties) and on mnist-7's
// own scale with pseudo-random pixels.
func TestORTQuantizeInput(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	net, x := mnist(t, cfg)
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	calib := perturbed(x, 0.2, 0, 1)
	calib.Data[0] = 63.5 // the largest magnitude: scale 63.5/127 = 0.5
	half, err := lower.Quantize(m, []*onnx.Array{calib}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if half.InputScale() != 0.5 {
		t.Fatalf("input scale %v, want 0.5", half.InputScale())
	}
	ties := onnx.NewArray(x.Shape...)
	for i := range ties.Data {
		ties.Data[i] = float32(i-len(ties.Data)/2)*0.5 + 0.25 // x/0.5 = k + 1/2, from −392 to 391
	}
	for _, tc := range []struct {
		name string
		net  *lower.Net
		x    *onnx.Array
	}{
		{"ties, scale 0.5", half, ties},
		{"mnist-7's scale, noise", net, perturbed(x, 1.3, 300, 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.net.QuantizeInput(tc.x)
			if err != nil {
				t.Fatal(err)
			}
			mod := chainModel(onnxpb.TensorProto_FLOAT, onnxpb.TensorProto_INT8, tc.x.Shape, tc.x.Shape,
				func(b *builder, x string) string { return quantizeInput(b, x, tc.net.InputScale()) })
			got := runORT(t, node, mod, []npyArray{float32NPY(tc.x.Shape, tc.x.Data)})[0]["y"]
			if d := cmp.Diff(want.Data, ints(got.Data)); d != "" {
				t.Errorf("(-Net.QuantizeInput +ONNX Runtime):\n%s", d)
			}
			if lo, hi := minMax(want.Data); lo != -127 || hi != 127 {
				t.Errorf("quantized input spans %d..%d: the clamp at ±127 is not exercised", lo, hi)
			}
		})
	}
}

// The output dequantization on ONNX Runtime equals Net.Dequantize bit
// for bit for every int8 value.
func TestORTDequantize(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	net, _ := mnist(t, cfg)
	shape := net.OutputShape()
	var inputs []npyArray
	var want [][]uint32
	for v := int64(-128); v <= 127; {
		q := golden.New(shape...)
		for i := range q.Data {
			q.Data[i] = min(v, 127)
			v++
		}
		deq, err := net.Dequantize(q)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, int8NPY(shape, q.Data))
		want = append(want, bits32(deq.Data))
	}
	mod := chainModel(onnxpb.TensorProto_INT8, onnxpb.TensorProto_FLOAT, shape, shape,
		func(b *builder, q string) string {
			dequantize(b, q, "deq", []float64{net.OutputScale()}, []int64{})
			return "deq"
		})
	res := runORT(t, node, mod, inputs)
	for i := range inputs {
		if d := cmp.Diff(want[i], bits32(floats32(res[i]["y"].Data))); d != "" {
			t.Errorf("input %d (-Net.Dequantize +ONNX Runtime, float32 bits):\n%s", i, d)
		}
	}
}

func minMax(v []int64) (lo, hi int64) {
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
