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
		fmt.Printf("%-8s %s\n", n, d.About)
	}
	return nil
}

// elaborate builds the built-in design called name.
func elaborate(name string) (*hdl.Design, error) {
	ex, err := examples.Lookup(name)
	if err != nil {
		return nil, usageError{fmt.Errorf("--top: %w", err)}
	}
	d, err := hdl.Elaborate(ex.Build())
	if err != nil {
		return nil, fmt.Errorf("elaborate %s: %w", name, err)
	}
	return d, nil
}
