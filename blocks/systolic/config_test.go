package systolic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	got := []any{c.Rows, c.Cols, c.InputType(), c.WeightType(), c.PsumType(), c.ZeroSkip, c.Latency()}
	want := []any{16, 16, hdl.SInt(8), hdl.SInt(8), hdl.SInt(32), true, 32}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	// JSON round trip with the documented field names.
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rows", "cols", "input_width", "input_signed", "weight_width", "weight_signed", "psum_width", "entry_width", "counter_width", "zero_skip"} {
		if !strings.Contains(string(b), `"`+f+`"`) {
			t.Errorf("JSON %s lacks field %q", b, f)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back != c {
		t.Errorf("round trip gave %+v, %v", back, err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		want string // "" = valid
	}{
		{"1x1", func(c *Config) { c.Rows, c.Cols = 1, 1 }, ""},
		{"128x128", func(c *Config) { c.Rows, c.Cols = 128, 128 }, ""},
		{"no rows", func(c *Config) { c.Rows = 0 }, "rows = 0 is not allowed: must be in 1..128"},
		{"too many cols", func(c *Config) { c.Cols = 129 }, "cols = 129 is not allowed: must be in 1..128"},
		{"1-bit input", func(c *Config) { c.InputWidth = 1 }, "input_width = 1 is not allowed: must be in 2..32"},
		{"wide weight", func(c *Config) { c.WeightWidth = 33 }, "weight_width = 33 is not allowed: must be in 2..32"},
		{"psum narrower than a product", func(c *Config) { c.PsumWidth = 15 }, "psum_width = 15 is not allowed: must be in 16..64"},
		{"mixed product needs a bit more", func(c *Config) { c.InputSigned, c.PsumWidth = false, 16 }, "psum_width = 16 is not allowed: must be in 17..64"},
		{"u16xu16 in 32", func(c *Config) { c.InputWidth, c.WeightWidth, c.InputSigned, c.WeightSigned = 16, 16, false, false }, ""},
		{"psum too wide", func(c *Config) { c.PsumWidth = 65 }, "psum_width = 65 is not allowed: must be in 16..64"},
		{"no entries", func(c *Config) { c.EntryWidth = 0 }, "entry_width = 0 is not allowed: must be in 1..24"},
		{"counter", func(c *Config) { c.CounterWidth = 8 }, "counter_width = 8 is not allowed: must be in 16..64"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tc.name, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if !errors.Is(err, check.ErrConfig) {
			t.Errorf("%s: error does not wrap check.ErrConfig", tc.name)
		}
		if _, err := Build(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Build error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// Every bad field at once, named under the embedding path.
	c := Config{}
	err := c.Check("npu.systolic")
	for _, f := range []string{"rows", "cols", "input_width", "weight_width", "entry_width", "counter_width"} {
		if err == nil || !strings.Contains(err.Error(), "npu.systolic."+f+" = 0") {
			t.Errorf("Check of a zero config does not name npu.systolic.%s: %v", f, err)
		}
	}
}
