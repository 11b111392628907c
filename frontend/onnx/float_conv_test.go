package onnx

import (
	"testing"
)

// convBench is a VGG-like 3×3 layer: 128 channels in and out on 56×56,
// 0.46 GMAC.
func convBench() (x, w, b *Array, n *Node) {
	n = &Node{Attrs: map[string]Attr{"pads": {Kind: AttrInts, Ints: []int64{1, 1, 1, 1}}}}
	return randomArray(1, 1, 128, 56, 56), randomArray(2, 128, 128, 3, 3), randomArray(3, 128), n
}

// BenchmarkConv times the float executor's Conv on a VGG-like layer; the
// MAC/s it reports is the figure that bounds a whole network's time.
func BenchmarkConv(bm *testing.B) {
	x, w, b, n := convBench()
	for bm.Loop() {
		if _, err := conv(x, w, b, n); err != nil {
			bm.Fatal(err)
		}
	}
	bm.ReportMetric(float64(128*128*9*56*56)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GMAC/s")
}
