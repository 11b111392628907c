package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/isa/sparse"
	"github.com/hwgen/hwgen/blocks/taskmgr"
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
	cfg := npu.DefaultConfig()
	if c.File != "" {
		data, err := os.ReadFile(c.File)
		if err != nil {
			return usageError{fmt.Errorf("--config: %w", err)}
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return usagef("--config %s: %v", c.File, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
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
