package compiler

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// TestMeasureMappings prints the figures of docs/notes/npu-utilization.md
// ("ImageNet-class CNNs"): the array utilization the compiler's mapping
// gives (useful MACs over NEVectors·Rows·Cols, before stalls) for
// grouped and depthwise convs, the first layers, and a DenseNet-121-like
// graph at 224×224 with its compile time.
//
//	HWGEN_MEASURE=1 go test ./compiler -run TestMeasureMappings -v
func TestMeasureMappings(t *testing.T) {
	if os.Getenv("HWGEN_MEASURE") == "" {
		t.Skip("set HWGEN_MEASURE=1")
	}
	cfg := npu.DefaultConfig()
	rc := int64(cfg.Rows * cfg.Cols)
	layer := func(name string, c, h, co, k, s, pad, groups int, taps TapMapping, shuffle int) {
		rng := rand.New(rand.NewPCG(1, 1))
		g := NewGraph()
		x := g.Input("x", randTensor(rng, -128, 127, c, h, h))
		if shuffle > 0 {
			x = g.ChannelShuffle(g.Conv2D(x, randTensor(rng, -8, 8, c, c, 1, 1), Conv{Requant: golden.Requant{Scale: 1, Shift: 8}}), shuffle)
		}
		y := g.Conv2D(x, randTensor(rng, -8, 8, co, c/groups, k, k), Conv{Stride: s, PadH: pad, PadW: pad, Groups: groups, Taps: taps, Requant: golden.Requant{Scale: 1, Shift: 8}})
		g.Output("y", y)
		p, err := CompileWith(cfg, g, Options{GrowExt: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The layer's vectors include its relayout (labelled after it),
		// not the conv before a shuffle.
		label := y.producer.label
		vec := p.NEVectors()[label]
		fmt.Printf("| %s | %d | %d | %.1f%% |\n", name, p.LayerMACs[label], vec, 100*float64(p.LayerMACs[label])/float64(vec*rc))
	}
	fmt.Println("| layer | useful MACs | array vectors | utilization |")
	layer("dense 1×1, 240 → 240, 28×28", 240, 28, 240, 1, 1, 0, 1, TapsAuto, 0)
	layer("AlexNet conv2: 96 → 256, 5×5, 2 groups, 27×27", 96, 27, 256, 5, 1, 2, 2, TapsAuto, 0)
	layer("ShuffleNet g=3 GConv 240 → 60 (groups of 80 → 20), 28×28", 240, 28, 60, 1, 1, 0, 3, TapsAuto, 0)
	layer("ShuffleNet g=3 GConv 60 → 240 (groups of 20 → 80), 28×28", 60, 28, 240, 1, 1, 0, 3, TapsAuto, 0)
	layer("ShuffleNet g=4 GConv 272 → 68 (groups of 68 → 17), 28×28", 272, 28, 68, 1, 1, 0, 4, TapsAuto, 0)
	layer("ShuffleNet g=8 GConv 384 → 96 (groups of 48 → 12), 28×28", 384, 28, 96, 1, 1, 0, 8, TapsAuto, 0)
	layer("groups of 8 channels, 256 → 256, 1×1, 14×14", 256, 14, 256, 1, 1, 0, 32, TapsAuto, 0)
	layer("depthwise 3×3, 64 channels, 28×28 (block diagonal)", 64, 28, 64, 3, 1, 1, 64, TapsDirect, 0)
	layer("depthwise 3×3, 64 channels, 28×28, on the windows (taps.go)", 64, 28, 64, 3, 1, 1, 64, TapsWindows, 0)
	layer("depthwise 3×3, 60 channels, 28×28 (block diagonal)", 60, 28, 60, 3, 1, 1, 60, TapsDirect, 0)
	layer("depthwise 3×3, 60 channels, 28×28, on the windows", 60, 28, 60, 3, 1, 1, 60, TapsWindows, 0)
	layer("depthwise 3×3 stride 2, 240 channels, 28×28 → 14×14", 240, 28, 240, 3, 2, 1, 240, TapsDirect, 0)
	layer("depthwise 3×3 after a shuffle (g=3), 60 channels, 28×28", 60, 28, 60, 3, 1, 1, 60, TapsAuto, 3)
	layer("GConv g=4 1×1 after a shuffle, 64 → 64, 28×28 (folded)", 64, 28, 64, 1, 1, 0, 4, TapsAuto, 4)
	layer("GConv g=4 3×3 after a shuffle, 64 → 64, 28×28 (relayout + conv)", 64, 28, 64, 3, 1, 1, 4, TapsAuto, 4)
	layer("ResNet-50 conv1: 3 → 64, 7×7 stride 2, 224×224 (taps)", 3, 224, 64, 7, 2, 3, 1, TapsAuto, 0)
	layer("ResNet-50 conv1, direct", 3, 224, 64, 7, 2, 3, 1, TapsDirect, 0)
	layer("AlexNet conv1: 3 → 64, 11×11 stride 4, 224×224 (taps)", 3, 224, 64, 11, 4, 2, 1, TapsAuto, 0)
	layer("VGG conv1_1: 3 → 64, 3×3, 224×224 (taps)", 3, 224, 64, 3, 1, 1, 1, TapsAuto, 0)
	layer("conv 64×112×112 → 64, 3×3", 64, 112, 64, 3, 1, 1, 1, TapsAuto, 0)

	g := denseNet(rand.New(rand.NewPCG(1, 2)), 224, 32, 64, 1000, []int{6, 12, 24, 16})
	t0 := time.Now()
	p, err := CompileWith(cfg, g, Options{GrowExt: true})
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(t0)
	vec := p.NEVectors()
	var macs, vectors int64
	kinds := map[string][2]int64{}
	for _, op := range g.nodes {
		if op.kind != opConv && op.kind != opGEMM {
			continue
		}
		kind := fmt.Sprintf("%s %dx%d -> %dx%d", op.kind, op.weights.Shape[len(op.weights.Shape)-1], op.weights.Shape[len(op.weights.Shape)-1], op.out.h, op.out.w)
		k := kinds[kind]
		k[0] += p.LayerMACs[op.label]
		k[1] += vec[op.label]
		kinds[kind] = k
	}
	for _, v := range vec {
		vectors += v
	}
	macs = p.MACs
	fmt.Printf("DenseNet-121-like 224×224: compile %v, %s, ext_addr_width %d; utilization %.1f%% (%d MACs, %d vectors)\n",
		wall.Round(time.Millisecond), p.Summary(), p.Config.ExtAddrWidth, 100*float64(macs)/float64(vectors*rc), macs, vectors)
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("  %-28s %5.1f%%\n", k, 100*float64(kinds[k][0])/float64(kinds[k][1]*rc))
	}
}
