package main

import (
	"fmt"
	"time"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

type verifyDesignsCmd struct {
	Design []string `help:"Built-in design(s) to check; default all (see 'hwgen designs')."`
	Cycles int      `help:"Cycles of random stimulus per design." default:"2000"`
	Seed   uint64   `help:"Seed of the random stimulus." default:"1"`
	Dir    string   `help:"Keep stimulus, traces and mismatch waveforms here (default: a temporary directory)." type:"path"`
}

func (c *verifyDesignsCmd) Help() string {
	return `Each design is emitted as Verilog, built with Verilator (--x-assign 0
--x-initial 0 -Wall; builds are cached by content hash), and run on the same
seeded random stimulus as the Go simulator. Every output is compared every
cycle; the first divergence is reported with cycle, port, both values and a
VCD from each side. One summary line per design; exit status 1 if any differ.`
}

func (c *verifyDesignsCmd) Run() error {
	if c.Cycles < 1 {
		return usagef("--cycles: %d is not allowed; give a positive number of cycles", c.Cycles)
	}
	names := c.Design
	if len(names) == 0 {
		names = examples.Names()
	}
	failed := 0
	for _, name := range names {
		d, err := elaborate(name)
		if err != nil {
			return err
		}
		opt := verify.Options{}
		if c.Dir != "" {
			opt.Dir = c.Dir + "/" + name
		}
		res, err := verify.CrossCheck(d, stim.Random(d, c.Cycles, c.Seed), opt)
		if err != nil {
			failed++
			fmt.Printf("FAIL %-8s %v\n", name, err)
			continue
		}
		cached := ""
		if res.Cached {
			cached = ", cached"
		}
		fmt.Printf("PASS %-8s %d cycles x %d outputs agree (build %v%s; run verilator %v, go %v)\n", name,
			res.Cycles, res.Outputs, res.BuildTime.Round(time.Millisecond), cached,
			res.VerilatorRun.Round(time.Millisecond), res.GoRun.Round(time.Millisecond))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d designs disagree with Verilator", failed, len(names))
	}
	return nil
}

// verifyCmd groups the cross-checks; with no subcommand it checks the
// built-in designs.
type verifyCmd struct {
	Designs verifyDesignsCmd `cmd:"" default:"withargs" help:"Cross-check the built-in designs against Verilator (the default)."`
	Fuzz    verifyFuzzCmd    `cmd:"" help:"Cross-check seeded random netlists against Verilator (reproduce a failure with --seed S --count 1)."`
}
