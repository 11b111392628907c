package planar

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/internal/check"
)

// The default engine fits the default buffers of blocks/sram.
func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := sram.DefaultConfig()
	got := []int{c.Lanes, c.StateDepth, c.ElemWidth, c.PsumLanes, c.PsumDepth, c.AccWidth}
	want := []int{s.State.Partitions, s.State.Depth, s.State.ElemWidth, s.Psum.Partitions, s.Psum.Depth, s.Psum.AccWidth}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default engine vs default buffers (-sram +planar):\n%s", diff)
	}
	// Widths the documentation quotes.
	if c.XWidth() != 32 || c.VWidth() != 49 || c.MaxShift() != 48 || c.ParamWords() != 6 {
		t.Errorf("x %d, v %d bits, max shift %d, %d parameter words; want 32, 49, 48, 6", c.XWidth(), c.VWidth(), c.MaxShift(), c.ParamWords())
	}
}

func TestConfigJSON(t *testing.T) {
	c := smallConfig()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	c.LUT = true
	data, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"lanes":4`, `"psum_lanes":3`, `"elem_signed":true`, `"line_depth":16`, `"max_kernel":8`, `"lut":true`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("%s lacks %s", data, key)
		}
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		mod  func(*Config)
		want []string
	}{
		{func(c *Config) { c.Lanes = 0 }, []string{"lanes = 0 is not allowed: must be in 1..128"}},
		{func(c *Config) { c.Lanes = 129 }, []string{"lanes = 129"}},
		{func(c *Config) { c.PsumLanes = 17 }, []string{"psum_lanes = 17 is not allowed: must be in 1..16"}},
		{func(c *Config) { c.ElemWidth = 1 }, []string{"elem_width = 1 is not allowed: must be in 2..16"}},
		{func(c *Config) { c.ElemWidth, c.AccWidth = 16, 12 }, []string{"acc_width = 12 is not allowed: must be in 16..40"}},
		{func(c *Config) { c.AccWidth = 41 }, []string{"acc_width = 41"}},
		{func(c *Config) { c.ScaleWidth = 21 }, []string{"scale_width = 21 is not allowed: must be in 2..20"}},
		{func(c *Config) { c.StateDepth = 1000 }, []string{"state_depth = 1000 is not allowed: must be a power of two in 2..65536 (it must equal the state buffer's depth)"}},
		{func(c *Config) { c.PsumDepth = 1 << 17 }, []string{"psum_depth = 131072"}},
		{func(c *Config) { c.MaxKernel = 9 }, []string{"max_kernel = 9 is not allowed: must be in 2..8"}},
		{func(c *Config) { c.LineDepth = 0 }, []string{"line_depth = 0 is not allowed: must be in 1..4096"}},
		{func(c *Config) { c.Lanes, c.MaxKernel = 0, 1 }, []string{"lanes = 0", "max_kernel = 1"}},
		{func(c *Config) { c.ElemWidth, c.AccWidth = 11, 24 }, []string{"lut = true is not allowed: the lookup table has 2^elem_width entries: elem_width must be at most 10 (it is 11), or the table left out (false)"}},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !errors.Is(err, check.ErrConfig) {
			t.Errorf("%+v: error %v, want a configuration error", c, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c, err, w)
			}
		}
		if _, err := Build(c); err == nil || !strings.HasPrefix(err.Error(), "planar: ") {
			t.Errorf("Build accepted %+v: %v", c, err)
		}
	}
	wide := DefaultConfig()
	wide.ElemWidth, wide.AccWidth, wide.LUT = 16, 32, false
	if err := wide.Validate(); err != nil {
		t.Errorf("16-bit elements without the table: %v", err)
	}
	bad := DefaultConfig()
	bad.LineDepth = 0
	if err := bad.Check("npu.planar"); err == nil || !strings.Contains(err.Error(), "npu.planar.line_depth = 0") {
		t.Errorf("Check with a path: %v", err)
	}
}
