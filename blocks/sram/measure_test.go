package sram

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// TestMeasure prints the figures of BENCHMARKS.md as Markdown:
//
//	HWGEN_MEASURE=1 go test ./blocks/sram -run TestMeasure -v
func TestMeasure(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "HWGEN_MEASURE", "measure")
	tooltest.Need(t, "yosys")
	cfg := DefaultConfig()
	var out strings.Builder
	fmt.Fprintf(&out, "\n### Logic (Yosys 0.23 `synth`, default configuration, arrays as black-box macros)\n\n")
	fmt.Fprintf(&out, "| module | what | cells | by type |\n|---|---|---:|---|\n")
	state := build(t, "state", cfg.State, cfg.Psum, true)
	psum := build(t, "psum", cfg.State, cfg.Psum, true)
	own := cfg.State
	own.DMAReadPort = true
	sdir, _ := writeVerilog(t, state)
	pdir, _ := writeVerilog(t, psum)
	odir, _ := writeVerilog(t, build(t, "state", own, cfg.Psum, true))
	ro := cfg.Psum
	ro.WritePriority, ro.ReadOutPort = true, true
	rdir, _ := writeVerilog(t, build(t, "psum", cfg.State, ro, true))
	rows := []struct{ dir, module, what string }{
		{sdir, "sb_bank_4096x8_r4w2_macro", "one state-buffer bank: port steering for 4 read and 2 write clients, response lanes"},
		{sdir, "sram_arb_4_16", "state-buffer read arbiter (4 clients x 16 banks, shared by all banks)"},
		{sdir, "sram_arb_2_16", "state-buffer write arbiter (2 clients x 16 banks)"},
		{pdir, "psum_lane_512_s32_macro", "one psum partition: accumulate path (forwarding, 32-bit add, write-back), read-out"},
		{pdir, "sram_arb_2_16", "psum read-port arbiter (accumulate vs read-out x 16 partitions)"},
		{odir, "sb_bank_4096x8_r3w2o1_macro", "with dma_read_port: one bank, 3 read clients on the shared port, dmar on its own (a 2R1W macro)"},
		{odir, "sram_arb_3_16", "with dma_read_port: the read arbiter of the 3 remaining clients"},
		{rdir, "psum_lane_512_s32_macro_ro", "with read_out_port: one psum partition, the read-out on its own read port (a 2R1W macro)"},
	}
	for _, r := range rows {
		total, types := synthCells(t, r.dir, r.module)
		fmt.Fprintf(&out, "| `%s` | %s | %d | %s |\n", r.module, r.what, total, types)
	}

	fmt.Fprintf(&out, "\n### Sustained accesses under contention (Go simulator, default configuration, random traffic of the unit tests)\n\n")
	fmt.Fprintf(&out, "Rate = probability that an idle client presents a new request each cycle (1.0: every client always has one).\n\n")
	fmt.Fprintf(&out, "| buffer | rate | cycles | requests accepted / cycle | bank-port operations / cycle (max) | per client (requests / cycle) | longest wait (cycles, per client) | run speed (Go sim + reference model) |\n|---|---:|---:|---:|---:|---|---|---:|\n")
	for _, rate := range []float64{0.5, 1} {
		t0 := time.Now()
		res := runState(t, state, cfg.State, 4000, 21, randomState(cfg.State, rate))
		el := time.Since(t0)
		up := float64(res.upCycles)
		var per []string
		total := 0
		for c, name := range stateClientNames(cfg.State) {
			per = append(per, fmt.Sprintf("%s %.2f", name, float64(res.accepted[c])/up))
			total += res.accepted[c]
		}
		fmt.Fprintf(&out, "| state 16x4096x8 | %.1f | %d | %.2f | read %.1f, write %.1f (16, 16) | %s | %v | %.0fk cycles/s |\n",
			rate, res.upCycles, float64(total)/up, float64(res.bankReads)/up, float64(res.bankWrites)/up,
			strings.Join(per, ", "), res.maxWait, up/el.Seconds()/1000)
	}
	for _, rate := range []float64{0.5, 1} {
		t0 := time.Now()
		res := runPsum(t, psum, cfg.Psum, 4000, 22, randomPsum(cfg.Psum, rate))
		el := time.Since(t0)
		up := float64(res.upCycles)
		fmt.Fprintf(&out, "| psum 16x512xs32 | %.1f | %d | %.2f | read %.1f, write %.1f (16, 16) | wr %.2f (%.2f accumulating), rd %.2f, clr %d commands / %d zeroing cycles | %v | %.0fk cycles/s |\n",
			rate, res.upCycles, float64(res.accepted[psWr]+res.accepted[psRd])/up, float64(res.bankReads)/up, float64(res.bankWrites)/up,
			float64(res.accepted[psWr])/up, float64(res.accWrites)/up, float64(res.accepted[psRd])/up, res.accepted[psClr], res.clearing,
			res.maxWait[:2], up/el.Seconds()/1000)
	}
	fmt.Print(out.String())
}

// synthCells synthesizes one module of an emitted design with every SRAM
// macro read as a black box, and returns its cell count without the macro
// instance and the count by cell type.
func synthCells(t *testing.T, dir, module string) (int, string) {
	t.Helper()
	macros, _ := filepath.Glob(filepath.Join(dir, "hwgen_sram_*.v"))
	var script strings.Builder
	for _, m := range macros {
		fmt.Fprintf(&script, "read_verilog -lib %s; ", filepath.Base(m))
	}
	fmt.Fprintf(&script, "read_verilog %s.v; synth -top %s; check -assert; tee -q -o stat_%s.txt stat", module, module, module)
	if _, err := toolchain.Run(dir, "yosys", "-q", "-p", script.String()); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat_"+module+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	total, types := toolchain.CellSummary(string(stat), "hwgen_sram_")
	if total == 0 {
		t.Fatalf("no cells found for %s", module)
	}
	return total, types
}
