package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa/sparse"
)

type configCmd struct {
	Descriptors bool   `help:"Print the task-descriptor layout (a Markdown table generated from its one Go definition) and the NE and planar param layouts (with sparse_units > 0 also the sparse engine's param, DMA address and record layouts) instead of the configuration."`
	File        string `name:"config" help:"Start from this JSON configuration instead of the defaults (fields left out keep their defaults)." type:"existingfile"`
}

func (c *configCmd) Help() string {
	return `Prints the NPU's default configuration as JSON: edit it and pass it to
--config of emit, sim and verify (fields left out keep their defaults), or
change single fields with --set FIELD=VALUE. Every block's widths and depths
are derived from it. With --descriptors, prints the task descriptor layout
the task manager decodes and the compiler encodes, for that configuration.`
}

func (c *configCmd) Run() error {
	cfg, err := npuConfig(blockFlags{Config: c.File})
	if err != nil {
		return err
	}
	if c.Descriptors {
		lay, err := taskmgr.NewLayout(cfg.TaskMgr())
		if err != nil {
			return usageError{err}
		}
		fmt.Print(lay.Markdown())
		isa := cfg.Codec()
		fmt.Print("\n" + isa.NE.Markdown("ne (conv, gemm)") + "\n" + isa.Planar.Markdown("planar"))
		if cfg.SparseUnits > 0 {
			sp := cfg.Sparse()
			fmt.Print("\n" + isa.Sparse.Markdown("sparse (conv)"))
			for _, l := range []sparse.Layout{sp.LoadAddr(), sp.ReadAddr(), sp.Task(), sp.Entry(), sp.Weight(), sp.Table()} {
				fmt.Print("\n" + l.Markdown())
			}
		}
		return nil
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(cfg)
}
