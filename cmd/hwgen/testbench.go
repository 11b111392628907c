package main

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verilog"
)

type emitTestbenchCmd struct {
	Top string `help:"Built-in design to test (see 'hwgen designs')." default:"array4"`
	blockFlags
	Cycles int    `help:"Cycles of random stimulus (the first two hold reset)." default:"200"`
	Seed   uint64 `help:"Seed of the random stimulus; the same seed gives the same testbench." default:"1"`
	Out    string `short:"o" help:"Output directory: empty, new, or an earlier hwgen output. The files of the earlier output are replaced (or removed when this one no longer has them); files hwgen did not write are kept, never overwritten; a failed run leaves the directory as it was." default:"tb" type:"path"`
}

func (c *emitTestbenchCmd) Help() string {
	return `Writes the design's Verilog plus tb_<top>.v, a self-checking Verilog-2005
testbench, and its data tb_<top>_in.hex (stimulus) and tb_<top>_exp.hex
(outputs expected by the Go simulator), one line per cycle. Run it in the
output directory (or pass +tbdir=DIR); it prints "PASS <n> cycles", or
"FAIL cycle <c> port <name> expected <hex> got <hex>" and exits non-zero.`
}

func (c *emitTestbenchCmd) Run() error {
	if c.Cycles < 1 {
		return usagef("--cycles: %d is not allowed; give a positive number of cycles", c.Cycles)
	}
	if err := checkOutDir("-o", c.Out); err != nil {
		return err
	}
	d, err := elaborateWith(c.Top, c.blockFlags)
	if err != nil {
		return err
	}
	ins, outs := stim.Ports(d)
	bits := 0
	for _, p := range append(ins, outs...) {
		bits += p.Type.Width
	}
	if err := testbenchMemory(d.Top.Name, c.Cycles, len(ins)+len(outs), bits).Check(); err != nil {
		return err
	}
	files := verilog.Emit(d)
	var sources []string
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".v") {
			sources = append(sources, f.Name)
		}
	}
	tb, err := verify.Testbench(d, stim.Random(d, c.Cycles, c.Seed))
	if err != nil {
		return fmt.Errorf("emit testbench: %w", err)
	}
	files = append(files, tb...)
	if err := writeOutput(c.Out, files); err != nil {
		return err
	}
	dir := c.Out
	if dir == "" || strings.Trim(dir, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:@") != "" {
		dir = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'" // quoted for a POSIX shell
	}
	name := "tb_" + d.Top.Name
	fmt.Printf("wrote %s (%d cycles, seed %d) and %d modules of %s to %s\n",
		name, c.Cycles, c.Seed, len(sources), d.Top.Name, c.Out)
	fmt.Printf("run it with Icarus Verilog:\n  cd %s && iverilog -g2005 -o %s.vvp %s.v %s && vvp %s.vvp\n",
		dir, name, name, strings.Join(sources, " "), name)
	return nil
}
