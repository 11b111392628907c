package bench

import (
	"strings"
	"testing"
)

func TestElab(t *testing.T) {
	r := Elab(4, 4, 1)
	if r.Err != nil || r.Total() <= 0 || r.Bytes == 0 || r.Modules == 0 || r.PeakHeap == 0 || r.Allocated == 0 {
		t.Fatalf("%+v", r)
	}
	bad := Elab(4, 8, 1) // cols > rows is refused
	if bad.Err == nil {
		t.Fatalf("4x8 accepted")
	}
	md := MarkdownElab([]ElabRow{r, bad})
	if !strings.Contains(md, "| 4×4 |") || !strings.Contains(md, "| 4×8 | refused") {
		t.Errorf("table:\n%s", md)
	}
}
