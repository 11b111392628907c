package main

import (
	"fmt"
	"os"

	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/sim"
)

// vcdFilterFlags narrow a --vcd waveform (hwgen sim and run).
type vcdFilterFlags struct {
	VCDScope string `name:"vcd-scope" help:"With --vcd: trace only this instance and those below it, a dotted path below the top (e.g. npu.nec, the NE of the NPU's simulation top, or npu.nec.array; 'hwgen emit verilog' names the instances). The whole design when not given." placeholder:"PATH"`
	VCDDepth int    `name:"vcd-depth" help:"With --vcd: trace only this many levels of instances below --vcd-scope (0: its own signals only). Every level when not given." default:"-1" placeholder:"N"`
}

// check rejects the filter flags without --vcd.
func (f vcdFilterFlags) check(vcd string) error {
	if vcd != "" {
		return nil
	}
	switch {
	case f.VCDScope != "":
		return usagef("--vcd-scope %s applies to --vcd only: give --vcd FILE", f.VCDScope)
	case f.VCDDepth >= 0:
		return usagef("--vcd-depth %d applies to --vcd only: give --vcd FILE", f.VCDDepth)
	}
	return nil
}

func (f vcdFilterFlags) filter() sim.VCDFilter {
	return sim.VCDFilter{Scope: f.VCDScope, Depth: f.VCDDepth}
}

// vcdBound is an upper bound of the bytes a waveform of bits traced
// bits in signals codes takes per cycle: every signal changing on both
// clock edges, each change its bits, a space, its code and a newline.
func vcdBound(signals, bits int) float64 {
	const codeLen = 4
	return 2 * float64(bits+signals*(codeLen+2))
}

// hostOptions are the host options of a --vcd run; the size the trace
// may take for about cycles cycles is printed before the run.
func (f vcdFilterFlags) hostOptions(vcd string, cycles int64) []host.Option {
	if vcd == "" {
		return nil
	}
	return []host.Option{host.WithVCD(vcd), host.WithVCDFilter(f.filter()), host.WithVCDTraced(func(signals, bits int) {
		printVCDPlan(signals, bits, cycles, "the ideal")
	})}
}

// printVCDPlan prints what a waveform traces and the bound of its size
// per 1000 cycles and for cycles (a run's ideal cycle count, which it
// exceeds somewhat).
func printVCDPlan(signals, bits int, cycles int64, what string) {
	b := vcdBound(signals, bits)
	fmt.Printf("vcd       tracing %d signals (%d bits): up to %.1f MB per 1000 cycles, %s for %s %d cycles, if all changed on every clock edge (only changes are written: usually far less); --vcd-scope and --vcd-depth narrow it\n",
		signals, bits, b*1000/1e6, megabytes(b*float64(cycles)), what, cycles)
}

// vcdWritten prints the waveform's name and size.
func vcdWritten(path string) {
	size := ""
	if st, err := os.Stat(path); err == nil {
		size = " (" + megabytes(float64(st.Size())) + ")"
	}
	fmt.Printf("waveforms %s%s\n", path, size)
}

func megabytes(b float64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.1f GB", b/1e9)
	}
	return fmt.Sprintf("%.1f MB", b/1e6)
}
