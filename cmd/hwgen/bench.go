package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hwgen/hwgen/bench"
)

type benchCmd struct {
	Design          []string `help:"Built-in design(s) to measure." default:"array4,array16"`
	GoCycles        int      `help:"Cycles per Go-simulator timing run." default:"100000"`
	VerilatorCycles int      `help:"Cycles per Verilator timing run." default:"1000000"`
	IcarusCycles    int      `help:"Cycles of the Icarus run (also the length over which all three must agree)." default:"5000"`
	Repeats         int      `help:"Timing runs per side; the median is reported." default:"3"`
}

func (c *benchCmd) Help() string {
	return `Runs each design on the Go simulator, on Verilator (built -O2, without
trace) and on Icarus Verilog, with the same in-process xorshift64 stimulus,
checks that all three end with the same outputs, and prints a Markdown
table of cycles per second (the median of --repeats runs). A fresh
Verilator build is timed too, for the time-to-first-result column.`
}

func (c *benchCmd) Run() error {
	for _, n := range []struct {
		flag string
		v    int
	}{{"--go-cycles", c.GoCycles}, {"--verilator-cycles", c.VerilatorCycles}, {"--icarus-cycles", c.IcarusCycles}, {"--repeats", c.Repeats}} {
		if n.v < 1 {
			return usagef("%s: %d is not allowed; give a positive number", n.flag, n.v)
		}
	}
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
	fmt.Printf("Go %s, %s/%s, %d CPUs; command: hwgen bench %s\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), strings.Join(os.Args[2:], " "))
	fmt.Print(bench.Markdown(rows, cfg))
	return nil
}
