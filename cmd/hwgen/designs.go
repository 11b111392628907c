package main

import (
	"fmt"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
)

type designsCmd struct{}

func (designsCmd) Run() error {
	for _, n := range examples.Names() {
		d, _ := examples.Lookup(n)
		fmt.Printf("%-9s %s\n", n, d.About)
	}
	for _, n := range blockNames() {
		fmt.Printf("%-9s %s\n", n, blocks[n].about)
	}
	return nil
}

// elaborate builds the built-in design called name.
func elaborate(name string) (*hdl.Design, error) { return elaborateWith(name, blockFlags{}) }

// elaborateWith builds a built-in example or a configurable block.
func elaborateWith(name string, f blockFlags) (*hdl.Design, error) {
	var top *hdl.Module
	if b, ok := blocks[name]; ok {
		m, err := b.build(f)
		if err != nil {
			return nil, err
		}
		top = m
	} else {
		if f.Config != "" || len(f.Set) > 0 {
			return nil, usagef("--config/--set: %s is not a configurable block (configurable: %v)", name, blockNames())
		}
		ex, err := examples.Lookup(name)
		if err != nil {
			return nil, usageError{fmt.Errorf("--top: %w (configurable blocks: %v)", err, blockNames())}
		}
		top = ex.Build()
	}
	d, err := hdl.Elaborate(top)
	if err != nil {
		return nil, fmt.Errorf("elaborate %s: %w", name, err)
	}
	return d, nil
}
