package main

import (
	"fmt"

	"github.com/hwgen/hwgen/verilog"
)

type emitCmd struct {
	Verilog emitVerilogCmd `cmd:"" help:"Write Verilog for a design: <module>.v per module and <top>.f, a file list."`
}

type emitVerilogCmd struct {
	Top string `help:"Built-in design to emit (see 'hwgen designs')." default:"array4"`
	Out string `short:"o" help:"Output directory. It is replaced as a whole, atomically: a failed run leaves it untouched." default:"rtl" type:"path"`
}

func (c *emitVerilogCmd) Run() error {
	d, err := elaborate(c.Top)
	if err != nil {
		return err
	}
	files := verilog.Emit(d)
	if err := verilog.WriteDir(c.Out, files); err != nil {
		return fmt.Errorf("emit verilog: %w", err)
	}
	fmt.Printf("wrote %d modules of %s to %s (file list %s.f)\n", len(files)-1, d.Top.Name, c.Out, d.Top.Name)
	return nil
}
