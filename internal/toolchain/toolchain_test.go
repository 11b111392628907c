package toolchain

import "testing"

func TestCellSummary(t *testing.T) {
	report := `
=== top ===

   Number of wires:                 12
   Number of cells:                  7
     $_AND_                          3
     $_DFF_P_                        2
     hwgen_sram_16x8                 1
     $_OR_                           1

`
	total, types := CellSummary(report, "hwgen_sram_")
	if total != 6 || types != "AND 3, DFF_P 2, OR 1" {
		t.Errorf("CellSummary = %d, %q; want 6, \"AND 3, DFF_P 2, OR 1\"", total, types)
	}
	if total, _ := CellSummary("no stat here"); total != 0 {
		t.Errorf("empty report counted %d cells", total)
	}
}
