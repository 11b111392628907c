package main

import (
	"fmt"
	"time"

	"github.com/hwgen/hwgen/verify"
)

type verifyFuzzCmd struct {
	Seed   uint64 `help:"Seed of the first random design; design i uses seed+i for its netlist and its stimulus." default:"1"`
	Count  int    `help:"Number of random designs to check." default:"10"`
	Cycles int    `help:"Cycles of random stimulus per design." default:"1000"`
}

func (c *verifyFuzzCmd) Help() string {
	return `Each random design groups many random sub-circuits (every DSL operator at
widths 1..200, signed and unsigned, registers, memories, two levels of
hierarchy) into one module, which is emitted, built with Verilator (-Wall, so a
lint warning fails it) and cross-checked against the Go simulator on seeded
random stimulus. The first failure stops the run and names the seed that
reproduces it. The summary tallies operators x width class x signedness.`
}

func (c *verifyFuzzCmd) Run() error {
	if c.Count < 1 {
		return usagef("--count: %d is not allowed; give a positive number of designs", c.Count)
	}
	if c.Cycles < 1 {
		return usagef("--cycles: %d is not allowed; give a positive number of cycles", c.Cycles)
	}
	t0 := time.Now()
	cov, err := verify.Fuzz(c.Seed, c.Count, c.Cycles, func(st verify.FuzzStep) {
		cached := ""
		if st.Result.Cached {
			cached = ", cached"
		}
		fmt.Printf("PASS %d/%d %-12s seed %d: %d nodes, %d cycles x %d outputs agree (build %v%s; run verilator %v, go %v)\n",
			st.Index+1, c.Count, st.Design, st.Seed, st.Nodes, st.Result.Cycles, st.Result.Outputs,
			st.Result.BuildTime.Round(time.Millisecond), cached,
			st.Result.VerilatorRun.Round(time.Millisecond), st.Result.GoRun.Round(time.Millisecond))
	})
	if err != nil {
		fmt.Printf("FAIL %v\n", err)
	}
	if cov != nil && cov.Designs > 0 {
		fmt.Print(cov)
	}
	if err != nil {
		checked := 0
		if cov != nil {
			checked = cov.Designs
		}
		return fmt.Errorf("fuzz: design %d of %d disagrees or does not build (%d agreed before it)", checked+1, c.Count, checked)
	}
	fmt.Printf("all %d random designs agree with Verilator (%v)\n", c.Count, time.Since(t0).Round(time.Second))
	return nil
}
