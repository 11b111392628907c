package infer

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host/pipeline"
)

const (
	mnistModel = "../../frontend/onnx/testdata/mnist-7.onnx"
	mnistInput = "../../frontend/onnx/testdata/test_data_set_0/input_0.pb"
)

// images are the test digit and copies moved by a few pixels.
func images(t *testing.T) (*onnx.Model, []*onnx.Array) {
	t.Helper()
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := onnx.LoadTensorFile(mnistInput)
	if err != nil {
		t.Fatal(err)
	}
	x, err := onnx.ArrayOf(tt)
	if err != nil {
		t.Fatal(err)
	}
	xs := []*onnx.Array{x}
	for _, d := range [][2]int{{1, 0}, {0, 2}, {-2, 1}, {3, -1}} {
		y := onnx.NewArray(x.Shape...)
		for r := 0; r < 28; r++ {
			for c := 0; c < 28; c++ {
				if rr, cc := r-d[0], c-d[1]; rr >= 0 && rr < 28 && cc >= 0 && cc < 28 {
					y.Data[r*28+c] = x.Data[rr*28+cc]
				}
			}
		}
		xs = append(xs, y)
	}
	return m, xs
}

// TestRun: five images in batches of two (the last one short) through
// the pipeline and one device session give, image by image, the outputs
// of the single-image program on the reference machine; a NaN image fails
// its batch only; in lock step the three batches take 3+3−1 periods.
func TestRun(t *testing.T) {
	m, xs := images(t)
	cfg := npu.DefaultConfig()
	net, err := lower.Quantize(m, xs, cfg, lower.Int32Output())
	if err != nil {
		t.Fatal(err)
	}
	model, err := Compile(net, xs[0], cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Both batch programs were simulated and the faster kept.
	if len(model.Candidates) != 2 {
		t.Fatalf("%d candidates, want interleaved and copies", len(model.Candidates))
	}
	best := model.Candidates[0]
	for _, c := range model.Candidates {
		if c.Cycles <= 0 {
			t.Errorf("%s: %d cycles", c.Name, c.Cycles)
		}
		if c.Cycles < best.Cycles {
			best = c
		}
	}
	if model.Program != best.Program {
		t.Errorf("kept a program of more cycles than the %s one (%d)", best.Name, best.Cycles)
	}
	want := map[int][]float32{}
	for i, x := range xs {
		g, err := net.Graph(x)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compiler.Compile(cfg, g)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := compiler.Interpret(p)
		if err != nil {
			t.Fatal(err)
		}
		y, err := net.Dequantize(out[net.Output()])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = y.Data
	}
	for _, mode := range []pipeline.Mode{pipeline.FreeRunning, pipeline.LockStep} {
		t.Run(mode.String(), func(t *testing.T) {
			rs, rep, err := model.Run(context.Background(), xs, Options{Check: true, Pipeline: pipeline.Options{Mode: mode}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[int][]float32{}
			for _, r := range rs {
				if r.Err != nil {
					t.Fatalf("image %d: %v", r.Index, r.Err)
				}
				got[r.Index] = r.Logits.Data
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("logits (-single image +batched):\n%s", d)
			}
			if len(rep.Runs()) != 3 || rep.Cycles() <= 0 {
				t.Errorf("%d device runs, %d cycles; want 3 batches", len(rep.Runs()), rep.Cycles())
			}
			if mode == pipeline.LockStep && len(rep.Devices[0].Stats.Periods) != 3+3-1 {
				t.Errorf("%d periods, want 3 batches + 3 stages − 1 = 5", len(rep.Devices[0].Stats.Periods))
			}
		})
	}
	// Two devices: the first takes batch 0, the second batches 1 and 2.
	rs, rep, err := model.Run(context.Background(), xs, Options{Check: true, Devices: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]float32{}
	for i, r := range rs {
		if r.Err != nil || r.Index != i {
			t.Fatalf("result %d: image %d, error %v", i, r.Index, r.Err)
		}
		got[r.Index] = r.Logits.Data
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("logits on two devices (-single image +batched):\n%s", d)
	}
	type share struct{ First, Images, Runs int }
	var shares []share
	for _, dev := range rep.Devices {
		shares = append(shares, share{dev.First, dev.Images, len(dev.Runs)})
		if dev.Session == nil || dev.Session.Stimulus().Cycles() == 0 {
			t.Errorf("device %+v: no session recorded", dev)
		}
	}
	if d := cmp.Diff([]share{{0, 2, 1}, {2, 3, 2}}, shares); d != "" {
		t.Errorf("device shares (-want +got):\n%s", d)
	}
	if _, _, err := model.Run(context.Background(), xs, Options{Devices: 4}); err == nil || !strings.Contains(err.Error(), "4 devices for 3 batches") {
		t.Errorf("4 devices for 3 batches: error %v", err)
	}
	bad := append([]*onnx.Array(nil), xs...)
	nan := onnx.NewArray(xs[0].Shape...)
	copy(nan.Data, xs[0].Data)
	nan.Data[100] = float32(math.NaN())
	bad[2] = nan
	rs, _, err = model.Run(context.Background(), bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		failed := r.Index == 2 || r.Index == 3 // the NaN image's batch
		if failed != (r.Err != nil) {
			t.Errorf("image %d: error %v, want one only for the NaN image's batch", r.Index, r.Err)
		}
		if r.Err != nil && (!strings.Contains(r.Err.Error(), "stage pre") || !strings.Contains(r.Err.Error(), "NaN")) {
			t.Errorf("image %d: error %q, want the pre stage naming the NaN", r.Index, r.Err)
		}
		if !failed && !cmp.Equal(want[r.Index], r.Logits.Data) {
			t.Errorf("image %d: logits differ after the failed batch", r.Index)
		}
	}
}
