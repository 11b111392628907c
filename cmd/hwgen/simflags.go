package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/workload"
)

// Flags of hwgen sim that a run would ignore, and explicit zeros, are
// errors naming the flag: a silently ignored flag is a wrong answer to
// the question the user asked.

// given lists the workload flags given on the command line, by their
// workload field name, with their values.
func (f tensorFlags) given() map[string]any {
	g := map[string]any{}
	for name, p := range map[string]*int{"m": f.M, "k": f.K, "n": f.N, "c": f.C, "h": f.H, "w": f.W, "cout": f.Cout, "kernel": f.Kernel, "stride": f.Stride} {
		if p != nil {
			g[name] = *p
		}
	}
	if f.Pad != nil {
		g["pad"] = *f.Pad
	}
	if f.Shift != 0 {
		g["shift"] = f.Shift
	}
	if f.Zeros != 0 {
		g["zeros"] = f.Zeros
	}
	if f.Pool != "" {
		g["pool"] = f.Pool
	}
	if f.Fn != "" {
		g["fn"] = f.Fn
	}
	if f.Post != "" {
		g["post"] = f.Post
	}
	if f.Relu {
		g["relu"] = true
	}
	if f.Spread != "" && f.Spread != "all" {
		g["spread"] = f.Spread
	}
	return g
}

// sortedKeys are the keys of m, sorted.
func sortedKeys(m map[string]any) []string {
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// checkSizes rejects sizes of 0 or less (a padding below 0), naming the
// flag.
func (f tensorFlags) checkSizes() error {
	given := f.given()
	for _, name := range sortedKeys(given) {
		if v, ok := given[name].(int); ok && v <= 0 && name != "pad" {
			return usagef("--%s %d is not allowed: give a positive size, or leave the flag out for the default", name, v)
		}
		if v, ok := given[name].(int); ok && v < 0 {
			return usagef("--%s %d is not allowed: give 0 or more, or leave the flag out for the default", name, v)
		}
	}
	return nil
}

// checkOp rejects the shape flags the operation does not read.
func (f tensorFlags) checkOp() error {
	given := f.given()
	op := f.Op
	if op == "" {
		op = "gemm"
	}
	if fields := workload.Fields(op); fields != nil {
		for _, name := range sortedKeys(given) {
			if !slices.Contains(fields, name) {
				flag := fmt.Sprintf("--%s %v", name, given[name])
				if given[name] == true {
					flag = "--" + name
				}
				return usagef("%s does not apply to --op %s: it takes --%s", flag, op, strings.Join(fields, ", --"))
			}
		}
	}
	return nil
}

// checkFlags rejects explicit zeros and flags that the run would ignore,
// naming the flag.
func (c *simCmd) checkFlags() error {
	f := c.workloadFlags
	given := f.given()
	if err := f.checkSizes(); err != nil {
		return err
	}
	if f.Engines != nil && *f.Engines <= 0 {
		return usagef("--engines %d is not allowed: give a positive number of engines, or leave the flag out for the configuration's", *f.Engines)
	}
	if f.Units != nil && *f.Units < 1 {
		return usagef("--units %d is not allowed: give 1 or more sparse units, or leave the flag out for the configuration's", *f.Units)
	}
	if c.Cycles != nil && *c.Cycles < 1 {
		return usagef("--cycles %d is not allowed: give a positive number of cycles", *c.Cycles)
	}
	if c.Top != "" {
		ignored := sortedKeys(given)
		for flag, set := range map[string]bool{"op": f.Op != "", "workload": f.Workload != "", "in": len(f.In) > 0, "out": f.Out != "",
			"timeline": f.Timeline != "", "engines": f.Engines != nil, "engine": f.Engine != "go",
			"accel": f.Accel != "npu", "units": f.Units != nil} {
			if set {
				ignored = append(ignored, flag)
			}
		}
		if len(ignored) > 0 {
			sort.Strings(ignored)
			return usagef("--%s does not apply to --top (it simulates %s with random stimulus): leave it out, or drop --top to run a workload", ignored[0], c.Top)
		}
		return nil
	}
	if c.Check {
		return usagef("--check applies to --top only (a workload run checks against Verilator with --engine verilator)")
	}
	if c.Cycles != nil {
		return usagef("--cycles applies to --top only (a workload runs until its tasks are done)")
	}
	return f.checkOp()
}

// units is --units, or 0 for the configuration's.
func (f workloadFlags) units() int {
	if f.Units == nil {
		return 0
	}
	return *f.Units
}
