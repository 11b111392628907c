package planar

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwgen/hwgen/internal/tooltest"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// withUnits is c with u post units (post_lanes).
func withUnits(c Config, u int) Config {
	c.PostLanes = u
	return c
}

// eightConfig is an 8-lane engine over a 6-partition psum buffer with
// the table, for a post-unit count that is neither 1 nor a half.
func eightConfig() Config {
	c := lutConfig()
	c.Lanes, c.PsumLanes = 8, 6
	return c
}

// lanesSuite is every table, the lookup tasks and random tasks (which
// load parameters and tables between the others); only random tasks on
// the unsigned engine, whose buffers the tables do not fit.
func lanesSuite(c Config, seed uint64, n int) []namedTask {
	ts := randomTasks(seed, c, n, 60)
	if c.StateDepth >= smallConfig().StateDepth {
		ts = append(allTables(), ts...)
	}
	if c.StateDepth >= smallConfig().StateDepth {
		// Masks that leave groups of partitions out: only their groups
		// get a pass (a later group alone, the first and the last).
		top := uint64(1) << uint(c.Lanes-1)
		ts = append(ts,
			namedTask{"act, the last psum partition alone", isaplanar.Task{Op: isaplanar.OpAct, Mask: 1 << uint(c.PsumLanes-1), Src: 3, Dst: 200, H: 3, W: 4, Scale: 5, Shift: 2}},
			namedTask{"max pool, the first and the last partition", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: 1 | top, Src: 10, Dst: 210, H: 4, W: 6, KH: 2, KW: 2, Stride: 2, Scale: 1}},
			namedTask{"loadparams, the last partition", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: top, Src: 50}},
			namedTask{"eltwise add, the last partition", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: top, Src: 20, Src2: 40, Dst: 220, H: 2, W: 5, Scale: 1}})
	}
	if c.LUT && c.StateDepth >= smallConfig().StateDepth {
		ts = append(ts, lutTasks(c)...)
	}
	return ts
}

// Fewer post units than partitions: every operation, per-lane
// parameters and the table against the golden models, with exact cycle
// counts and G passes' reads and writes (Go simulator).
func TestPostLanes(t *testing.T) {
	for _, c := range []Config{
		withUnits(lutConfig(), 1), withUnits(lutConfig(), 2), withUnits(deep(lutConfig()), 2),
		withUnits(withLUT(unsignedConfig()), 1), withUnits(eightConfig(), 2), withUnits(eightConfig(), 4),
	} {
		t.Run(Name(c), func(t *testing.T) {
			runSuite(t, newBench(t, c, 61, 0), lanesSuite(c, 61, 40), true)
		})
	}
}

// The passes' cycle formula: G·(n − 1) + 1 for a single pass of n, G
// the groups of partitions the mask names; a nop and a bad task as with
// one pass.
func TestPostLanesCycles(t *testing.T) {
	one, two := lutConfig(), withUnits(lutConfig(), 2)
	tasks := []isaplanar.Task{
		{Op: isaplanar.OpNop},
		{Op: isaplanar.OpAct, Mask: 7, Src: 0, Dst: 128, H: 3, W: 5, Scale: 1},
		{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: 15, Src: 0, Dst: 128, H: 6, W: 6, KH: 2, KW: 2, Stride: 2, Scale: 1},
		{Op: isaplanar.OpLoadTable, Mask: 15, Src: 0},
		{Op: isaplanar.OpAct, Mask: 2, Src: 0, Dst: 128, H: 3, W: 5, Scale: 1},    // one group: one pass
		{Op: isaplanar.OpReduce, Mask: 8, Src: 0, Dst: 128, H: 3, W: 5, Scale: 1}, // the last group alone
		{Op: isaplanar.OpAct, Mask: 1 << 5, H: 1, W: 1},                           // a bad mask
	}
	var got, want []int
	for _, tk := range tasks {
		n := one.Cycles(tk)
		w := 2*(n-1) + 1
		if tk.Op == isaplanar.OpNop || tk.Validate(one.Sizes) != nil || tk.Mask&3 == 0 || tk.Mask&12 == 0 {
			w = n
		}
		got, want = append(got, two.Cycles(tk)), append(want, w)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cycles with 2 post units (-want +got):\n%s", d)
	}
}

// post_lanes must divide lanes; the message names the field, the value
// and the divisors.
func TestPostLanesConfig(t *testing.T) {
	for _, tc := range []struct {
		units int
		want  string
	}{
		{0, ""}, {1, ""}, {2, ""}, {4, ""},
		{3, "post_lanes = 3 is not allowed: must be a divisor of lanes (4): one of [1 2 4], or 0 for lanes"},
		{8, "post_lanes = 8 is not allowed: must be a divisor of lanes (4): one of [1 2 4], or 0 for lanes"},
		{-1, "post_lanes = -1 is not allowed"},
	} {
		err := withUnits(smallConfig(), tc.units).Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("post_lanes %d: error %q, want %q", tc.units, got, tc.want)
		}
	}
}

// Post units 1 and 2 of a 4-lane engine and 2 of an 8-lane one under
// contention, with bad tasks (4 lanes), replayed on Verilator (4 post units is
// TestCrossCheckSmall).
func TestCrossCheckPostLanes(t *testing.T) {
	tooltest.Need(t, "verilator")
	for i, c := range []Config{withUnits(lutConfig(), 1), withUnits(lutConfig(), 2), withUnits(eightConfig(), 2)} {
		t.Run(Name(c), func(t *testing.T) {
			seed := uint64(81 + i)
			b := newBench(t, c, seed, 0.5)
			runSuite(t, b, lanesSuite(c, seed, 30), false)
			if c.Lanes == smallConfig().Lanes { // the bad tasks are a 4-lane engine's
				runBadTasks(t, b, c)
			} else {
				b.checkMemory("after passes")
			}
			b.quiesce()
			b.crossCheck()
		})
	}
}
