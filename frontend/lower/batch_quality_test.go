package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// The quality of a batch of 3 (each image's lowered values joined by
// StackValues, against the float executor's values of the whole batch)
// covers the same layers as one image's, with each layer's elements and
// saturated values the sums of the images' (each image measured on its
// own against the batch-1 model of the same weights), and the int32
// output's SQNR that of the images' dequantized outputs joined (Stack)
// against the batch's float output.
func TestBatchQuality(t *testing.T) {
	cfg := npu.DefaultConfig()
	const n = 3
	for seed := uint64(4); seed <= 5; seed++ {
		batch, one := loadModel(t, batchNet(seed, n)), loadModel(t, batchNet(seed, 1))
		x := &onnx.Array{Shape: []int{n, 2, 6, 6}, Data: newShapeRnd(seed+20).vals(1, false, n, 2, 6, 6)}
		float, err := batch.Graph.Execute(map[string]*onnx.Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		net, err := Quantize(batch, []*onnx.Array{x}, cfg, Int32Output())
		if err != nil {
			t.Fatal(err)
		}
		images, err := net.Images(map[string]*onnx.Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		var golds []map[string]*golden.Tensor
		var deqs []*onnx.Array
		type sum struct{ Elements, Saturated int }
		want := map[string]sum{}
		for _, im := range images {
			g, vals, err := net.GraphValuesOf(im)
			if err != nil {
				t.Fatal(err)
			}
			gold, err := g.ReferenceOf(cfg, vals)
			if err != nil {
				t.Fatal(err)
			}
			golds = append(golds, gold)
			deq, err := net.Dequantize(gold[net.Output()])
			if err != nil {
				t.Fatal(err)
			}
			deqs = append(deqs, deq)
			f1, err := one.Graph.Execute(im)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range net.Quality(gold, f1) {
				s := want[q.Name]
				want[q.Name] = sum{s.Elements + q.Elements, s.Saturated + q.Saturated}
			}
		}
		qs := net.Quality(net.StackValues(golds), float)
		got := map[string]sum{}
		for _, q := range qs {
			got[q.Name] = sum{q.Elements, q.Saturated}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("seed %d: layers' elements and saturation (-images summed +batch):\n%s", seed, d)
		}
		joined, err := net.Stack(deqs)
		if err != nil {
			t.Fatal(err)
		}
		y := float[net.Output()]
		wantSQNR := SQNR(y.Data, func(i int) float64 { return float64(joined.Data[i]) })
		last := qs[len(qs)-1]
		if !last.Int32 || last.Name != net.Output() || math.Abs(last.SQNR-wantSQNR) > 1e-9 || math.IsInf(wantSQNR, 0) {
			t.Errorf("seed %d: output quality %+v, want int32 %s with SQNR %.6f dB", seed, last, net.Output(), wantSQNR)
		}
	}
}
