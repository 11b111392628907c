package planar

import (
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// unsignedConfig is a second small shape: unsigned 6-bit elements, two
// lanes, windows up to 3×3, an 8-entry line buffer.
func unsignedConfig() Config {
	return Config{Sizes: isaplanar.Sizes{Lanes: 2, PsumLanes: 2, ElemWidth: 6, ElemSigned: false, AccWidth: 12, ScaleWidth: 6,
		StateDepth: 128, PsumDepth: 32, MaxKernel: 3, LineDepth: 8}}
}

// deep is c with deep_pipeline.
func deep(c Config) Config {
	c.DeepPipeline = true
	return c
}

func allTables() []namedTask {
	var ts []namedTask
	for _, f := range []func() []namedTask{actTasks, eltTasks, reduceTasks, poolTasks} {
		ts = append(ts, f()...)
	}
	return ts
}

// Random tasks of every operation against the golden models, with exact
// cycle counts, on two configurations (Go simulator).
func TestRandomTasks(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 60
	}
	for _, c := range []Config{smallConfig(), unsignedConfig(), deep(smallConfig()), deep(unsignedConfig()), lutConfig(), deep(withLUT(unsignedConfig()))} {
		t.Run(Name(c), func(t *testing.T) {
			runSuite(t, newBench(t, c, 21, 0), randomTasks(21, c, n, 120), true)
		})
	}
}

// The small configuration with the lookup table and the real buffers,
// every table (the lut one too) and random tasks, with and without the
// other buffer clients competing; each run is replayed on Verilator
// (all outputs every cycle, all memories at the end).
func TestCrossCheckSmall(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := lutConfig()
	t.Run("quiet", func(t *testing.T) {
		b := newBench(t, c, 31, 0)
		runSuite(t, b, append(allTables(), lutTasks(c)...), true)
		b.crossCheck()
	})
	t.Run("contention", func(t *testing.T) {
		b := newBench(t, c, 32, 0.5)
		runSuite(t, b, append(append(allTables(), lutTasks(c)...), randomTasks(32, c, 40, 120)...), false)
		runBadTasks(t, b, c)
		b.quiesce()
		b.crossCheck()
	})
}

// deep_pipeline on the small configuration without the table: every
// table, random tasks and bad tasks under contention, replayed on
// Verilator.
func TestCrossCheckDeep(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := deep(smallConfig())
	b := newBench(t, c, 33, 0.5)
	runSuite(t, b, append(allTables(), randomTasks(33, c, 40, 120)...), false)
	runBadTasks(t, b, c)
	b.quiesce()
	b.crossCheck()
}

// runBadTasks runs c's bad tasks that can be encoded on b: each ends
// with its error code in Cycles' count, and none touches the buffers.
func runBadTasks(t *testing.T, b *bench, c Config) {
	t.Helper()
	for _, tc := range badTasks(c) {
		if tc.code == isaplanar.ErrField {
			continue // not encodable: the field does not fit its port
		}
		if res := b.run(tc.t); res.errCode != tc.code || res.cycles != c.Cycles(tc.t) {
			t.Errorf("%s: code %v in %d cycles, want %v in %d", tc.name, res.errCode, res.cycles, tc.code, c.Cycles(tc.t))
		}
	}
	b.checkMemory("after bad tasks")
}

// Unsigned elements with the table (indexed by the value itself), under
// contention, replayed on Verilator.
func TestCrossCheckUnsigned(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := withLUT(unsignedConfig())
	b := newBench(t, c, 41, 0.5)
	runSuite(t, b, randomTasks(41, c, 60, 60), false)
	b.quiesce()
	b.crossCheck()
}

// The default configuration (16 lanes, 4096-deep state buffer, 512-deep
// psum buffer, 64-entry line buffers) with its real buffers, under
// contention, replayed on Verilator.
func TestCrossCheckDefault(t *testing.T) {
	tooltest.SkipHeavy(t, "default-configuration Verilator build")
	tooltest.Need(t, "verilator")
	c := DefaultConfig()
	b := newBench(t, c, 51, 0.3)
	full := uint64(1)<<16 - 1
	big := []namedTask{
		{"writeback 16 partitions x 400", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: full, Src: 0, Dst: 2048, H: 20, W: 20}},
		{"act 16 x 504 half-even relu", isaplanar.Task{Op: isaplanar.OpAct, Mask: full, Src: 0, Dst: 2500, H: 8, W: 63, Scale: 300, Bias: -1000, Shift: 9, RoundEven: true, Relu: true}},
		{"avg pool 3x3 s2 pad1 of a 40x64 plane", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolAvg, Mask: full, Src: 0, Dst: 3100, H: 40, W: 64, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Scale: 455, Shift: 12}},
		{"min pool 3x3 s1 pad1 zero of 20x40", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMin, Mask: full, Src: 0, Dst: 3200, H: 20, W: 40, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Scale: 1}},
		{"max pool 2x2 s1 edge of 30x63", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: full, Src: 100, Dst: 2048, H: 30, W: 63, KH: 2, KW: 2, Stride: 1, PadH: 1, PadW: 1, PadEdge: true, Scale: 1}},
		{"max pool 3x3 s2 pad1 ignored of 24x50", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: full, Src: 0, Dst: 3300, H: 24, W: 50, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, PadIgnore: true, Scale: 1}},
		{"eltwise add of two 1000-element tensors", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: full, Src: 0, Src2: 1000, Dst: 2048, H: 10, W: 100, Scale: 1}},
		{"reduce sum of 2000 elements", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: full, Src: 0, Dst: 4000, H: 40, W: 50, Scale: 1, Shift: 6}},
	}
	runSuite(t, b, append(big, randomTasks(51, c, 30, 300)...), false)
	b.quiesce()
	b.crossCheck()
}
