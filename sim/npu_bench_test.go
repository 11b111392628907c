package sim_test

import (
	"testing"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
)

// BenchmarkNewNPU128 builds, elaborates and partitions the 128×128 NPU's
// simulation top (go test ./sim -run X -bench NewNPU128 -benchtime 1x):
// the cost of getting a simulator of the largest NPU, whose target is
// 10 s in all.
func BenchmarkNewNPU128(b *testing.B) {
	c := npu.DefaultConfig()
	c.Rows, c.Cols = 128, 128
	var build, elab, part time.Duration
	for range b.N {
		t0 := time.Now()
		m, err := npu.BuildSim(c)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		d, err := hdl.Elaborate(m)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := sim.New(d); err != nil {
			b.Fatal(err)
		}
		build, elab, part = build+t1.Sub(t0), elab+t2.Sub(t1), part+time.Since(t2)
	}
	n := float64(b.N)
	b.ReportMetric(build.Seconds()/n, "s-build")
	b.ReportMetric(elab.Seconds()/n, "s-elaborate")
	b.ReportMetric(part.Seconds()/n, "s-sim.New")
}
