package sparse

import (
	"testing"

	"github.com/hwgen/hwgen/hdl"
)

func TestElaborates(t *testing.T) {
	m, err := Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hdl.Elaborate(m); err != nil {
		t.Fatal(err)
	}
}
