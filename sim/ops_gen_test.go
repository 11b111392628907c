package sim

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/sim/internal/optab"
)

// ops_gen.go is what the operator table generates (go generate ./sim).
func TestOpsGenUpToDate(t *testing.T) {
	want, err := optab.Interpreter()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(optab.GenFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale; run go generate ./sim (-want +got):\n%s", optab.GenFile, diff)
	}
}
