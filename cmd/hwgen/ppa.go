package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/ppa"
)

type ppaCmd struct {
	Top string `help:"Built-in design or configurable block to measure (see 'hwgen designs')." required:""`
	blockFlags
	Target    string  `help:"generic (Yosys cells and logic depth), ice40-hx8k or ice40-up5k (Yosys synth_ice40, then nextpnr-ice40 place and route)." default:"generic"`
	Seeds     *int    `help:"FPGA targets: place and route with placer seeds 1..N and report the median Fmax. Default 4." placeholder:"N"`
	Freq      float64 `help:"FPGA targets: the frequency (MHz) nextpnr's timing-driven placement aims at; Fmax is what it achieved." default:"100"`
	NoDSP     bool    `name:"no-dsp" help:"ice40-up5k: map multipliers to LUTs instead of its 8 SB_MAC16 DSP blocks."`
	JSON      bool    `name:"json" help:"Print the figures as JSON."`
	Breakdown bool    `help:"Also split the area by the top's instances (their whole subtrees) and its own logic, largest first: one more synthesis, keeping module boundaries, so the parts add up to somewhat more than the flattened totals. Printed also when the design does not fit."`
	WorkDir   string  `help:"Keep Yosys's and nextpnr's files (Verilog, netlists, logs, reports) in this directory instead of a temporary one." type:"path"`
}

// defaultSeeds is --seeds when not given.
const defaultSeeds = 4

func (c *ppaCmd) Run() error {
	seeds := defaultSeeds
	if c.Seeds != nil {
		if c.Target == ppa.Generic {
			return usagef("--seeds %d does not apply to --target generic (no place and route): give an FPGA target (%s) or leave it out", *c.Seeds, strings.Join(ppa.Targets()[1:], ", "))
		}
		seeds = *c.Seeds
	}
	if err := checkPPAFlags(c.Target, seeds, c.Freq); err != nil {
		return err
	}
	if err := findPPATools(c.Target); err != nil {
		return err
	}
	d, err := elaborateWith(c.Top, c.blockFlags)
	if err != nil {
		return err
	}
	dir := c.WorkDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hwgen-ppa-"); err != nil {
			return fmt.Errorf("ppa: %w", err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{fmt.Errorf("--work-dir: %w", err)}
	}
	r, err := ppa.Measure(d, ppa.Options{Target: c.Target, Seeds: seeds, FreqMHz: c.Freq, Dir: dir, NoDSP: c.NoDSP, Breakdown: c.Breakdown})
	var nf *ppa.NotFitError
	if errors.As(err, &nf) {
		if r != nil && len(r.Parts) > 0 && !c.JSON {
			printParts(r)
		}
		return fmt.Errorf("%s %w%s", d.Top.Name, err, synthesized(r))
	}
	if err != nil {
		return fmt.Errorf("ppa %s: %w", d.Top.Name, err)
	}
	if c.JSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(b))
		return nil
	}
	printPPA(r)
	return nil
}

// synthesized is what synthesis counted before place and route found
// the device too small, for the one-line "does not fit" error: the user
// sees how far off each resource is, not only the one that ran out.
func synthesized(r *ppa.Result) string {
	if r == nil || r.LUTs == 0 {
		return ""
	}
	return fmt.Sprintf(" (synthesized: LUT4 %d, carries %d, flip-flops %d, BRAM %d, DSP %d)", r.LUTs, r.Carries, r.FFs, r.BRAM, r.DSP)
}

func printPPA(r *ppa.Result) {
	fmt.Printf("%s on %s\n", r.Design, r.Target)
	if r.Target == ppa.Generic {
		fmt.Printf("  cells %d, flip-flops %d, memories %d (%d bits)\n", r.Cells, r.FFs, r.Memories, r.MemoryBits)
		fmt.Printf("  logic depth %d gates\n", r.LogicDepth)
	} else {
		fmt.Printf("  LUT4 %d, carries %d, flip-flops %d, BRAM %d, DSP %d (the design's own)\n", r.LUTs, r.Carries, r.FFs, r.BRAM, r.DSP)
		fmt.Printf("  logic cells placed %d of %d (with the wrapper)\n", r.LCsUsed, r.LCsAvailable)
		seeds := make([]string, len(r.SeedFmaxMHz))
		for i, f := range r.SeedFmaxMHz {
			seeds[i] = fmt.Sprintf("%.1f", f)
		}
		fmt.Printf("  Fmax %.1f MHz (median over seeds 1..%d: %s)\n", r.FmaxMHz, len(r.SeedFmaxMHz), strings.Join(seeds, ", "))
	}
	if p := r.Critical; p != nil {
		fmt.Printf("  critical path %s -> %s, %d logic levels", p.From, p.To, p.Levels)
		if p.DelayNS > 0 {
			fmt.Printf(", %.2f ns", p.DelayNS)
		}
		if p.Description != "" {
			fmt.Printf(" (%s)", p.Description)
		}
		fmt.Println()
	}
	printParts(r)
}

// printParts is the --breakdown table.
func printParts(r *ppa.Result) {
	if len(r.Parts) == 0 {
		return
	}
	fpga := r.Target != ppa.Generic
	total, wide := 0, len("instance")
	names := make([]string, len(r.Parts))
	for i, p := range r.Parts {
		if fpga {
			total += p.LUTs
		} else {
			total += p.Cells
		}
		names[i] = p.Instance
		if p.Instance != ppa.TopPart {
			names[i] += " (" + p.Module + ")"
		}
		wide = max(wide, len(names[i]))
	}
	fmt.Println("  area by instance (synthesized again with module boundaries kept):")
	if fpga {
		fmt.Printf("    %-*s %8s %8s %10s %5s %4s %7s\n", wide, "instance", "LUT4", "carries", "flip-flops", "BRAM", "DSP", "LUT4 %")
	} else {
		fmt.Printf("    %-*s %8s %10s %8s %7s\n", wide, "instance", "cells", "flip-flops", "memories", "cells %")
	}
	for i, p := range r.Parts {
		if fpga {
			fmt.Printf("    %-*s %8d %8d %10d %5d %4d %7s\n", wide, names[i], p.LUTs, p.Carries, p.FFs, p.BRAM, p.DSP, percent(p.LUTs, total))
		} else {
			fmt.Printf("    %-*s %8d %10d %8d %7s\n", wide, names[i], p.Cells, p.FFs, p.Memories, percent(p.Cells, total))
		}
	}
}

func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// checkPPAFlags rejects a target, a number of placer seeds or a target
// frequency that ppa.Measure cannot take (hwgen ppa, hwgen explore).
func checkPPAFlags(target string, seeds int, freq float64) error {
	if target != ppa.Generic {
		if _, ok := ppa.Devices[target]; !ok {
			return usagef("--target %q is not a target (allowed: %s)", target, strings.Join(ppa.Targets(), ", "))
		}
	}
	if seeds < 1 || seeds > 32 {
		return usagef("--seeds %d is not allowed: want 1..32", seeds)
	}
	if freq <= 0 || freq > 1000 {
		return usagef("--freq %g is not allowed: want a frequency in MHz, above 0 and at most 1000", freq)
	}
	return nil
}

// findPPATools fails when a tool that measuring on target needs is not
// installed: Yosys, and nextpnr-ice40 on an FPGA.
func findPPATools(target string) error {
	tools := []string{"yosys"}
	if target != ppa.Generic {
		tools = append(tools, "nextpnr-ice40")
	}
	for _, t := range tools {
		if _, err := toolchain.Find(t); err != nil {
			return fmt.Errorf("ppa: %w", err)
		}
	}
	return nil
}
