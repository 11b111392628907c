package npu

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/taskmgr"
)

// TestRingFirstLineCarriesDependencies: in a descriptor ring the lines
// of a descriptor are written into the fetch queue's entry in order, and
// the first carries everything the task manager checks and schedules
// by (ID, engine, op, flags, hold, partial, the network fields and the
// dependencies): on the default NPU with every option on, they end
// before the first operand, inside the first line.
func TestRingFirstLineCarriesDependencies(t *testing.T) {
	c := DefaultConfig()
	c.DescRingBits, c.PartialGating, c.Networks = 4, true, 16
	lay, err := taskmgr.NewLayout(c.TaskMgr())
	if err != nil {
		t.Fatal(err)
	}
	src, ok := lay.Field("src")
	if !ok {
		t.Fatal("no src field")
	}
	if src.Offset > c.LineWidth() {
		t.Errorf("the fields before src take %d bits, more than a %d-bit line", src.Offset, c.LineWidth())
	}
	if b := c.DescFetch().Beats(); b != (lay.Width+c.LineWidth()-1)/c.LineWidth() {
		t.Errorf("%d lines per descriptor for %d bits of %d-bit lines", b, lay.Width, c.LineWidth())
	}
}
