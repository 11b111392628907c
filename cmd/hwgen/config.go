package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/internal/check"
)

// blockConfigs is the configuration of every block, as JSON sees it. The
// NPU top (a later issue) will own one struct embedding these.
type blockConfigs struct {
	Systolic systolic.Config `json:"systolic"`
	Planar   planar.Config   `json:"planar"`
	SRAM     sram.Config     `json:"sram"`
	TaskMgr  taskmgr.Config  `json:"taskmgr"`
}

type configCmd struct {
	Descriptors bool   `help:"Print the task-descriptor layout (a Markdown table generated from its one Go definition) instead of the configuration."`
	File        string `name:"config" help:"Start from this JSON configuration instead of the defaults (fields left out keep their defaults)." type:"existingfile"`
}

func (c *configCmd) Help() string {
	return `Prints the default configuration of every block as JSON (edit it and
pass blocks' parts to --config of emit/sim), or with --descriptors the task
descriptor layout the task manager decodes and the compiler encodes.`
}

func (c *configCmd) Run() error {
	cfg := blockConfigs{Systolic: systolic.DefaultConfig(), Planar: planar.DefaultConfig(), SRAM: sram.DefaultConfig(), TaskMgr: taskmgr.DefaultConfig()}
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
	for _, err := range []error{cfg.Systolic.Check("systolic"), cfg.Planar.Check("planar"), check.All(cfg.SRAM.State.Check("sram.state"), cfg.SRAM.Psum.Check("sram.psum")), cfg.TaskMgr.Check("taskmgr")} {
		if err != nil {
			return usageError{err}
		}
	}
	if c.Descriptors {
		lay, err := taskmgr.NewLayout(cfg.TaskMgr)
		if err != nil {
			return usageError{err}
		}
		fmt.Print(lay.Markdown())
		return nil
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(cfg)
}
