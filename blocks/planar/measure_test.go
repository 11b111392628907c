package planar

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// TestMeasure writes BENCHMARKS.md:
//
//	HWGEN_MEASURE=1 go test ./blocks/planar -run TestMeasure -v
func TestMeasure(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "HWGEN_MEASURE", "measure")
	tooltest.Need(t, "yosys")
	c := DefaultConfig()
	var out strings.Builder
	fmt.Fprintf(&out, "# blocks/planar measurements\n\nReproduce (Go simulator, Yosys 0.23; about 10 s):\n\n")
	fmt.Fprintf(&out, "```sh\nHWGEN_MEASURE=1 go test ./blocks/planar -run TestMeasure -v\n```\n\n")
	fmt.Fprintf(&out, "Default configuration (%d lanes, int%d elements, int%d psums, %d-bit scales, state buffer depth %d, psum depth %d, "+
		"windows up to %dx%d, line buffer %d), with the real state and psum buffers of blocks/sram.\n\n",
		c.Lanes, c.ElemWidth, c.AccWidth, c.ScaleWidth, c.StateDepth, c.PsumDepth, c.MaxKernel, c.MaxKernel, c.LineDepth)

	full := uint64(1)<<uint(c.Lanes) - 1
	tasks := []namedTask{
		{"writeback 16 x 512", isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: full, Src: 0, Dst: 2048, H: 16, W: 32}},
		{"act 16 x 512 (scale, bias, shift, relu)", isaplanar.Task{Op: isaplanar.OpAct, Mask: full, Src: 0, Dst: 2048, H: 16, W: 32, Scale: 77, Bias: 5, Shift: 8, Relu: true}},
		{"eltwise add, two 1024-element tensors", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: full, Src: 0, Src2: 1024, Dst: 2048, H: 32, W: 32, Scale: 1}},
		{"eltwise mul by a scalar, 1024 elements", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnMul, Mask: full, Src: 0, Dst: 2048, H: 32, W: 32, Scale: 1, ScalarOperand: true, Scalar: 3}},
		{"reduce sum of 2048 elements", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: full, Src: 0, Dst: 4000, H: 32, W: 64, Scale: 1, Shift: 11}},
		{"max pool 2x2 s2 of 32x64", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: full, Src: 0, Dst: 2048, H: 32, W: 64, KH: 2, KW: 2, Stride: 2, Scale: 1}},
		{"avg pool 3x3 s1 pad1 of 32x64", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolAvg, Mask: full, Src: 0, Dst: 2048, H: 32, W: 64, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Scale: 455, Shift: 12}},
		{"max pool 8x8 s8 of 32x64", isaplanar.Task{Op: isaplanar.OpPool, Fn: isaplanar.FnPoolMax, Mask: full, Src: 0, Dst: 2048, H: 32, W: 64, KH: 8, KW: 8, Stride: 8, Scale: 1}},
		{"loadparams", isaplanar.Task{Op: isaplanar.OpLoadParams, Mask: full, Src: 100}},
		{"eltwise add of one value per partition (broadcast), 1024 elements", isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: full, Src: 0, Src2: 1024, Dst: 2048, H: 32, W: 32, Scale: 1, Broadcast: true}},
		{"column sums of 32x64 (reduce across rows)", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnRowSum, Mask: full, Src: 0, Dst: 4000, H: 32, W: 64, Scale: 1, Shift: 5}},
		{"reduce sum of 2048 elements, then sqrt", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: full, Src: 0, Dst: 4000, H: 32, W: 64, Scale: 64, Bias: 300000, Post: isaplanar.PostSqrt}},
		{"reduce sum of 2048 elements, then recip", isaplanar.Task{Op: isaplanar.OpReduce, Fn: isaplanar.FnSum, Mask: full, Src: 0, Dst: 4000, H: 32, W: 64, Scale: 1, Bias: 300000, Shift: c.RecipShift() - 24, Post: isaplanar.PostRecip}},
		{"loadtable (256 entries, 16 rows)", isaplanar.Task{Op: isaplanar.OpLoadTable, Mask: full, Src: 3000}},
		{"eltwise lookup (add 0, lut), 1024 elements", isaplanar.Task{Op: isaplanar.OpEltwise, Mask: full, Src: 0, Dst: 2048, H: 32, W: 32, Scale: 1, ScalarOperand: true, Lut: true}},
		// (below the psum scratch the other clients write: the last task's
		// output stays to be checked)
		{"act 16 x 480 with lut", isaplanar.Task{Op: isaplanar.OpAct, Mask: full, Src: 0, Dst: 2048, H: 15, W: 32, Scale: 77, Bias: 5, Shift: 8, Lut: true}},
	}
	fmt.Fprintf(&out, "### Cycles per task\n\nFrom acceptance to the done pulse. Formula: `Config.Cycles` (package documentation). "+
		"Contention: the other clients of both buffers (PE-array, weight-load and DMA reads, DMA writes, PE-array psum writes, clears) "+
		"each start a request with probability 0.5 in every cycle they are idle.\n\n")
	fmt.Fprintf(&out, "| task | reads | writes | formula | measured, quiet | elements / cycle, quiet | measured, contention |\n|---|---:|---:|---:|---:|---:|---:|\n")
	quiet := newBench(t, c, 71, 0)
	busy := newBench(t, c, 72, 0.5)
	t0 := time.Now()
	for _, nt := range tasks {
		if err := nt.t.Validate(c.Sizes); err != nil {
			t.Fatal(err)
		}
		rq, rb := quiet.run(nt.t), busy.run(nt.t)
		quiet.expect(nt.t)
		busy.expect(nt.t)
		if rq.cycles != c.Cycles(nt.t) {
			t.Errorf("%s: %d cycles, formula %d", nt.name, rq.cycles, c.Cycles(nt.t))
		}
		fmt.Fprintf(&out, "| %s | %d | %d | %d | %d | %.2f | %d |\n", nt.name, rq.reads, rq.writes, c.Cycles(nt.t), rq.cycles,
			float64(max(rq.reads, rq.writes))/float64(rq.cycles), rb.cycles)
	}
	quiet.checkMemory("measure")
	busy.checkMemory("measure")
	simCycles := quiet.cyc + busy.cyc + measureSrc2Port(t, &out, c, tasks[2])
	fmt.Fprintf(&out, "\nGo simulator: %d cycles of the test top (engine and both buffers) in %.1f s, %.0fk cycles/s.\n",
		simCycles, time.Since(t0).Seconds(), float64(simCycles)/time.Since(t0).Seconds()/1000)

	dir, _, _ := emitDir(t, c)
	fmt.Fprintf(&out, "\n### Logic (Yosys 0.23 generic `synth`, default configuration)\n\n")
	fmt.Fprintf(&out, "| module | what | cells | by type |\n|---|---|---:|---|\n")
	for _, r := range []struct{ module, what string }{
		{laneName(c), fmt.Sprintf("one lane: input FIFO, eltwise ALU, reduction (plane and columns), horizontal pool filter, vertical filter, %dx%d gain, sqrt/recip unit, rounding, saturation, output FIFO, parameters", c.XWidth(), c.ScaleWidth)},
		{Name(c), "the controller: task register and checks (three small multipliers: H·W, OH·OW, OH·stride), reader, plane walker, writer (lanes, line buffers and the table as black boxes)"},
		{lutTable(c).Name, fmt.Sprintf("the lookup table: %d x %d array, %d write ports (loadtable, one per lane), %d registered read ports", c.TableEntries(), c.ElemWidth, c.TableLanes(), c.Lanes)},
	} {
		total, types := synthCells(t, dir, r.module, []string{laneName(c), lineBufName(c), lutTable(c).Name})
		fmt.Fprintf(&out, "| `%s` | %s | %d | %s |\n", r.module, r.what, total, types)
	}
	fmt.Fprintf(&out, "\nEach lane also has a line buffer of %d x %d bits (`%s`, an inferable array).\n", c.LineDepth, lineWidth(c), lineBufName(c))
	fmt.Print(out.String()) // copied into the repository's BENCHMARKS.md
}

// measureSrc2Port adds the rows of the two-tensor eltwise two with the
// second read port (src2_port), and with 4 post units (post_lanes 4, the
// default NPU's) with and without it, and returns the cycles simulated.
func measureSrc2Port(t *testing.T, out *strings.Builder, c Config, two namedTask) int {
	t.Helper()
	cyc := 0
	for i, v := range []struct {
		what string
		c    Config
	}{{"src2_port", withSrc2(c)}, {"post_lanes 4", withUnits(c, 4)}, {"post_lanes 4, src2_port", withSrc2(withUnits(c, 4))}} {
		quiet, busy := newBench(t, v.c, uint64(73+2*i), 0), newBench(t, v.c, uint64(74+2*i), 0.5)
		rq, rb := quiet.run(two.t), busy.run(two.t)
		quiet.expect(two.t)
		busy.expect(two.t)
		quiet.checkMemory(v.what)
		busy.checkMemory(v.what)
		if rq.cycles != v.c.Cycles(two.t) {
			t.Errorf("%s, %s: %d cycles, formula %d", two.name, v.what, rq.cycles, v.c.Cycles(two.t))
		}
		fmt.Fprintf(out, "| %s, %s | %d | %d | %d | %d | %.2f | %d |\n", two.name, v.what, rq.reads, rq.writes, v.c.Cycles(two.t), rq.cycles,
			float64(max(rq.reads, rq.writes))/float64(rq.cycles), rb.cycles)
		cyc += quiet.cyc + busy.cyc
	}
	return cyc
}

func lineBufName(c Config) string { return lineBuffer(c).Name }

// synthCells synthesizes one module with the listed other modules read
// as black boxes, and returns its cell count and the count by type.
func synthCells(t *testing.T, dir, module string, boxes []string) (int, string) {
	t.Helper()
	var script strings.Builder
	for _, b := range boxes {
		if b != module {
			fmt.Fprintf(&script, "read_verilog -lib %s.v; ", b)
		}
	}
	fmt.Fprintf(&script, "read_verilog %s.v; synth -top %s; check -assert; tee -q -o stat_%s.txt stat", module, module, module)
	if _, err := toolchain.Run(dir, "yosys", "-q", "-p", script.String()); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat_"+module+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	total, types := toolchain.CellSummary(string(stat), "planar_")
	if total == 0 {
		t.Fatalf("no cells found for %s", module)
	}
	return total, types
}
