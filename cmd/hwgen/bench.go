package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/hwgen/hwgen/bench"
)

type benchCmd struct {
	Design          []string `help:"Built-in design(s) to measure with random (xorshift64) stimulus (none: skip)." default:"array4,array16"`
	GoCycles        int      `help:"Cycles per Go-simulator timing run of the built-in designs." default:"100000"`
	VerilatorCycles int      `help:"Cycles per Verilator timing run of the built-in designs (past 65536, split into runs on fresh models)." default:"1000000"`
	IcarusCycles    int      `help:"Cycles of the Icarus run of the built-in designs (also the length over which all must agree)." default:"5000"`
	Repeats         int      `help:"Timing rounds per side; the median is reported." default:"5"`

	NPU         bool   `help:"Measure the NPU workload (a compiled GEMM on the benchmark NPU, then an idle stretch)." default:"true" negatable:""`
	Op          string `help:"NPU workload operation (as hwgen sim --op)." default:"gemm"`
	Idle        int    `help:"Idle cycles after the NPU workload." default:"20000"`
	NPUIcarus   int    `name:"npu-icarus-cycles" help:"Cycles of the NPU stimulus replayed on Icarus (-1: up to the end of the run phase, 0: skip)." default:"-1"`
	Fresh       bool   `help:"Time fresh (uncached) Verilator and compiled-Go builds of the NPU." default:"true" negatable:""`
	Elab        []int  `help:"Square NPU arrays (rows = cols) to build, elaborate and emit, in this order (none: skip)." default:"16,64,128"`
	ElabRepeats int    `help:"Timing runs per elaborated array; the median is reported." default:"3"`
}

func (c *benchCmd) Help() string {
	return `Measures, side by side in one run:

  - elaboration: npu.Build, hdl.Elaborate and verilog.Emit of NPUs of the
    --elab sizes, with the peak live heap and the process's peak RSS (run
    first, smallest first, so the RSS is that size's);
  - the built-in designs (--design): the Go simulator (interpreter and
    compiled), Verilator (-O2, no trace) and Icarus Verilog on the same
    xorshift64 stimulus, checked to end with the same outputs;
  - the NPU workload (--npu): the --op tensor operation compiled for the
    benchmark NPU and run through the simulation top's ports (hwgen sim's
    host), recorded and replayed on every simulator (all must end with the
    same outputs), timed per phase; then --idle idle cycles.

The benchmark NPU (also the elaborated ones) is the default with one planar
post unit per PE row and no psum read port (--set planar_lanes=16 --set
psum_read_port=false on 16 rows): the NPU the figures were first measured
on, kept so that they stay comparable.

Rates are cycles per second of CPU time, the median of --repeats rounds in
which the sides take turns; a fresh Verilator build and a fresh build of the
compiled Go simulator are timed for the time-to-first-result columns.`
}

func (c *benchCmd) Run() error {
	for _, n := range []struct {
		flag string
		v    int
	}{{"--go-cycles", c.GoCycles}, {"--verilator-cycles", c.VerilatorCycles}, {"--icarus-cycles", c.IcarusCycles}, {"--repeats", c.Repeats}, {"--elab-repeats", c.ElabRepeats}} {
		if n.v < 1 {
			return usagef("%s: %d is not allowed; give a positive number", n.flag, n.v)
		}
	}
	if c.Idle < 0 {
		return usagef("--idle: %d is not allowed; give 0 or more cycles", c.Idle)
	}
	for _, n := range c.Elab {
		if n < 1 {
			return usagef("--elab: %d is not allowed; give array sizes of at least 1", n)
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Machine: %s.\n\nCommand: `hwgen bench %s`\n", bench.Machine(), strings.Join(os.Args[2:], " "))

	if len(c.Elab) > 0 {
		var rows []bench.ElabRow
		for _, n := range c.Elab {
			fmt.Fprintf(os.Stderr, "elaborating the %dx%d NPU\n", n, n)
			rows = append(rows, bench.Elab(n, n, c.ElabRepeats))
		}
		fmt.Fprintf(&out, "\n### Elaboration and emission of the NPU\n\n%s", bench.MarkdownElab(rows))
	}

	if len(c.Design) > 0 {
		cfg := bench.Config{GoCycles: c.GoCycles, VerilatorCycles: c.VerilatorCycles, IcarusCycles: c.IcarusCycles,
			FirstResult: 100_000, Repeats: c.Repeats}
		var rows []bench.Row
		for _, name := range c.Design {
			d, err := elaborate(name)
			if err != nil {
				return err
			}
			row, err := bench.Run(name, d, cfg, os.Stderr)
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
		fmt.Fprintf(&out, "\n### Built-in designs, random stimulus\n\n%s", bench.Markdown(rows, cfg))
	}

	if c.NPU {
		w := bench.DefaultWorkload()
		w.Op.Op = c.Op
		w.Op = w.Op.WithDefaults()
		w.Idle = c.Idle
		cfg := bench.DefaultNPUConfig
		cfg.Repeats, cfg.IcarusCycles, cfg.FreshBuilds = c.Repeats, c.NPUIcarus, c.Fresh
		row, err := bench.RunNPU(w, cfg, os.Stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "\n### NPU workload\n\n%s", bench.MarkdownNPU(row))
	}
	fmt.Print(out.String())
	return nil
}
