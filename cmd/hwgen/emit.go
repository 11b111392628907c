package main

import (
	"errors"
	"fmt"

	"github.com/hwgen/hwgen/verilog"
)

type emitCmd struct {
	Verilog   emitVerilogCmd   `cmd:"" help:"Write Verilog for a design: <module>.v per module and <top>.f, a file list."`
	Testbench emitTestbenchCmd `cmd:"" help:"Write a design with a self-checking Verilog testbench whose expected outputs come from the Go simulator."`
}

type emitVerilogCmd struct {
	Top string `help:"Built-in design or configurable block to emit (see 'hwgen designs'); the default NPU when not given." default:"npu"`
	blockFlags
	Out string `short:"o" help:"Output directory: empty, new, or an earlier hwgen output. The files of the earlier output are replaced (or removed when this one no longer has them); files hwgen did not write are kept, never overwritten; a failed run leaves the directory as it was." default:"rtl" type:"path"`
}

func (c *emitVerilogCmd) Run() error {
	if err := checkOutDir("-o", c.Out); err != nil { // a file named by -o is the caller's mistake (exit 2), found before elaborating
		return err
	}
	d, err := elaborateWith(c.Top, c.blockFlags)
	if err != nil {
		return err
	}
	files := verilog.Emit(d)
	if err := writeOutput(c.Out, files); err != nil {
		return err
	}
	fmt.Printf("wrote %d modules of %s to %s (file list %s.f)\n", len(files)-1, d.Top.Name, c.Out, d.Top.Name)
	return nil
}

// writeOutput writes an output directory; a directory that is not ours to
// replace is the caller's mistake (exit 2), anything else a failed run.
func writeOutput(dir string, files []verilog.File) error {
	if err := verilog.WriteDir(dir, files); err != nil {
		if errors.Is(err, verilog.ErrNotOurs) {
			return usageError{fmt.Errorf("-o: %w", err)}
		}
		return fmt.Errorf("write %s: %w", dir, err)
	}
	return nil
}
