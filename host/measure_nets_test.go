package host

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// TestMeasureCNNLayers runs the layers of docs/notes/npu-utilization.md
// ("ImageNet-class CNNs") on the Go simulator of the default NPU,
// ext_addr_width grown to each program, and prints their cycles against
// the ideal (useful MACs / 256) and the compiler's mapping bound.
//
//	HWGEN_MEASURE=1 go test ./host -run TestMeasureCNNLayers -v -timeout 30m
func TestMeasureCNNLayers(t *testing.T) {
	if os.Getenv("HWGEN_MEASURE") == "" {
		t.Skip("set HWGEN_MEASURE=1")
	}
	type layer struct {
		name                        string
		c, h, co, k, s, pad, groups int
	}
	layers := []layer{
		{"conv 64×112×112 → 64, 3×3", 64, 112, 64, 3, 1, 1, 1},
		{"ResNet-50 conv1, 3×224×224 → 64, 7×7 stride 2 (taps)", 3, 224, 64, 7, 2, 3, 1},
		{"AlexNet conv2, 96×27×27 → 256, 5×5, 2 groups", 96, 27, 256, 5, 1, 2, 2},
		{"ShuffleNet GConv 240×28×28 → 60, 1×1, 3 groups", 240, 28, 60, 1, 1, 0, 3},
		{"depthwise 3×3, 64×56×56", 64, 56, 64, 3, 1, 1, 64},
		{"depthwise 3×3, 240×28×28", 240, 28, 240, 3, 1, 1, 240},
	}
	cfg := npu.DefaultConfig()
	for _, l := range layers {
		rng := rand.New(rand.NewPCG(1, 1))
		g := compiler.NewGraph()
		x := g.Input("x", randTensor(rng, l.c, l.h, l.h))
		y := g.Conv2D(x, randTensor(rng, l.co, l.c/l.groups, l.k, l.k), compiler.Conv{Stride: l.s, PadH: l.pad, PadW: l.pad, Groups: l.groups,
			Requant: golden.Requant{Scale: 1, Shift: 12}})
		g.Output("y", y)
		p, err := compiler.CompileWith(cfg, g, compiler.Options{GrowExt: true})
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		res, err := Run(cfg, p, WithoutStimulus())
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		want, err := g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Fatalf("%s (-golden +simulator):\n%s", l.name, d)
		}
		var vec int64
		for _, v := range p.NEVectors() {
			vec += v
		}
		fmt.Printf("| %s | %d | %d | %.1f%% | %.1f%% | %d | %v |\n", l.name, res.Cycles, p.Ideal,
			100*res.Utilization(), 100*float64(p.MACs)/float64(vec*int64(cfg.Rows*cfg.Cols)), p.Config.ExtAddrWidth, res.Wall.Round(1e8))
	}
}
