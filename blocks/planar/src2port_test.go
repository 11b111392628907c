package planar

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwgen/hwgen/internal/tooltest"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// withSrc2 is c with the second read port (src2_port).
func withSrc2(c Config) Config {
	c.Src2Port = true
	return c
}

// src2Configs are the engines with the second read port the tests run:
// a post unit per lane, passes (2 of 4 and 1 of 4), deep_pipeline with
// and without passes, the table, and unsigned elements.
func src2Configs() []Config {
	return []Config{
		withSrc2(smallConfig()), withSrc2(withUnits(lutConfig(), 2)), withSrc2(withUnits(lutConfig(), 1)),
		withSrc2(deep(smallConfig())), withSrc2(withUnits(deep(lutConfig()), 2)), withSrc2(withLUT(unsignedConfig())),
	}
}

// With the second read port every eltwise table task (two tensors,
// scalar, broadcast, unary) and random tasks of every operation match
// the golden models with exact cycle counts and reads (a two-tensor
// eltwise still reads 2·H·W vectors, half of them on plr2).
func TestSrc2Port(t *testing.T) {
	for _, c := range src2Configs() {
		t.Run(Name(c), func(t *testing.T) {
			ts := randomTasks(91, c, 60, 60)
			if c.StateDepth >= smallConfig().StateDepth {
				ts = append(append(eltTasks(), lanesSuite(c, 91, 0)...), ts...)
			}
			runSuite(t, newBench(t, c, 91, 0), ts, true)
		})
	}
}

// The cycles of a two-tensor eltwise with the port: one read cycle per
// element, as a scalar eltwise (N + 10 with one pass, N + 17 with
// deep_pipeline), against 2N + 10 (2N + 17) without; every other task's
// cycles are unchanged. The hardware's are TestSrc2Port's.
func TestSrc2PortCycles(t *testing.T) {
	two := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: all4, Src: 0, Src2: 64, Dst: 128, H: 3, W: 5, Scale: 1}
	scalar := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: all4, Src: 0, Dst: 128, H: 3, W: 5, Scale: 1, ScalarOperand: true}
	bcast := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: all4, Src: 0, Src2: 64, Dst: 128, H: 3, W: 5, Scale: 1, Broadcast: true}
	act := isaplanar.Task{Op: isaplanar.OpAct, Mask: 7, Src: 0, Dst: 128, H: 3, W: 5, Scale: 1}
	pool := isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: all4, Src: 0, Dst: 128, H: 6, W: 6, KH: 2, KW: 2, Stride: 2, Scale: 1}
	type row struct{ Two, Scalar, Bcast, Act, Pool int }
	cycles := func(c Config) row {
		return row{c.Cycles(two), c.Cycles(scalar), c.Cycles(bcast), c.Cycles(act), c.Cycles(pool)}
	}
	for _, tc := range []struct {
		c         Config
		want, was row
	}{
		// N = 15: two tensors N + 10 = 25 (was 2N + 10 = 40).
		{smallConfig(), row{25, 25, 26, 25, 47}, row{40, 25, 26, 25, 47}},
		// deep_pipeline: +2 checks, +3 outputs, +2 eltwise.
		{deep(smallConfig()), row{32, 32, 33, 30, 58}, row{47, 32, 33, 30, 58}},
		// 2 passes of n: 2(n − 1) + 1.
		{withUnits(smallConfig(), 2), row{49, 49, 51, 49, 93}, row{79, 49, 51, 49, 93}},
	} {
		if d := cmp.Diff(tc.want, cycles(withSrc2(tc.c))); d != "" {
			t.Errorf("%s with src2_port (-want +got):\n%s", Name(tc.c), d)
		}
		if d := cmp.Diff(tc.was, cycles(tc.c)); d != "" {
			t.Errorf("%s without (-want +got):\n%s", Name(tc.c), d)
		}
	}
}

// Steady state with the port: each element more of a two-tensor
// eltwise costs one cycle, not two.
func TestSrc2PortThroughput(t *testing.T) {
	b := newBench(t, withSrc2(smallConfig()), 92, 0)
	mk := func(n int) isaplanar.Task {
		return withID(isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnSub, Mask: all4, Src: 0, Src2: 64, Dst: 128, H: 1, W: n})
	}
	small, large := mk(16), mk(48)
	r1, r2 := b.run(small), b.run(large)
	b.expect(small)
	b.expect(large)
	b.checkMemory("throughput")
	if got := r2.cycles - r1.cycles; got != 32 {
		t.Errorf("32 more elements took %d more cycles, want 32", got)
	}
}

// The port serves only the eltwise: refused without it, naming the
// field.
func TestSrc2PortConfig(t *testing.T) {
	c := withSrc2(smallConfig())
	c.NoEltwise = true
	err := c.Validate()
	const want = "src2_port = true is not allowed: the second read port serves only a two-tensor eltwise: it needs the eltwise (no_eltwise false)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("src2_port with no_eltwise: error %v, want %q", err, want)
	}
	if err := withSrc2(smallConfig()).Validate(); err != nil {
		t.Errorf("src2_port: %v", err)
	}
}

// The port with passes under contention, with bad tasks, replayed on
// Verilator (4 lanes, 2 post units, the table).
func TestCrossCheckSrc2Port(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := withSrc2(withUnits(lutConfig(), 2))
	b := newBench(t, c, 93, 0.5)
	runSuite(t, b, append(eltTasks(), lanesSuite(c, 93, 30)...), false)
	runBadTasks(t, b, c)
	b.quiesce()
	b.crossCheck()
}
