package sram

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/check"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("default configuration invalid: %v", err)
	}
	want := Config{State: StateConfig{Partitions: 16, Depth: 4096, ElemWidth: 8}, Psum: PsumConfig{Partitions: 16, Depth: 512, AccWidth: 32}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
}

func TestConfigJSON(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"state":{"partitions":16,"depth":4096,"elem_width":8,"dma_read_port":false},"psum":{"partitions":16,"depth":512,"acc_width":32,"write_priority":false,"read_out_port":false},"macros":false}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var back Config
	if err := json.Unmarshal([]byte(strings.Replace(want, `"macros":false`, `"macros":true`, 1)), &back); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Macros = true
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Every bad field is reported with its JSON name, its value and what is
// allowed, all of them at once, as a check.ErrConfig.
func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want []string // one error line each, in order
	}{
		{"zero partitions", func(c *Config) { c.State.Partitions = 0 },
			[]string{"state.partitions = 0 is not allowed: must be a positive whole number"}},
		{"negative depth", func(c *Config) { c.State.Depth = -4 },
			[]string{"state.depth = -4 is not allowed: must be a positive whole number"}},
		{"state depth not a power of two", func(c *Config) { c.State.Depth = 3000 },
			[]string{"state.depth = 3000 is not allowed: must be a power of two in 2..1048576 (the address is log2(depth) bits, so every address names an entry)"}},
		{"depth one", func(c *Config) { c.Psum.Depth = 1 },
			[]string{"psum.depth = 1 is not allowed: must be a power of two in 2..65536 (addresses and clear regions wrap modulo the depth)"}},
		{"element width zero", func(c *Config) { c.State.ElemWidth = 0 },
			[]string{"state.elem_width = 0 is not allowed: must be a positive whole number"}},
		{"too many psum partitions", func(c *Config) { c.Psum.Partitions = 5000 },
			[]string{"psum.partitions = 5000 is not allowed: must be in 1..1024"}},
		{"everything wrong at once", func(c *Config) { *c = Config{Psum: PsumConfig{Depth: 100, AccWidth: -1}} },
			[]string{
				"state.partitions = 0 is not allowed: must be a positive whole number",
				"state.depth = 0 is not allowed: must be a positive whole number",
				"state.elem_width = 0 is not allowed: must be a positive whole number",
				"psum.partitions = 0 is not allowed: must be a positive whole number",
				"psum.depth = 100 is not allowed: must be a power of two in 2..65536 (addresses and clear regions wrap modulo the depth)",
				"psum.acc_width = -1 is not allowed: must be a positive whole number",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, check.ErrConfig) {
				t.Errorf("error %v is not a check.ErrConfig", err)
			}
			if diff := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// The generators refuse a bad configuration with the same field errors,
// and an embedding configuration can name the fields under its own path.
func TestGeneratorsValidate(t *testing.T) {
	_, err := StateBuffer(StateConfig{Partitions: 4, Depth: 10, ElemWidth: 8}, false)
	if !errors.Is(err, check.ErrConfig) || !strings.Contains(err.Error(), "state.depth = 10") {
		t.Errorf("StateBuffer: got %v, want a state.depth configuration error", err)
	}
	_, err = PsumBuffer(PsumConfig{Partitions: 4, Depth: 16, AccWidth: 0}, true)
	if !errors.Is(err, check.ErrConfig) || !strings.Contains(err.Error(), "psum.acc_width = 0") {
		t.Errorf("PsumBuffer: got %v, want a psum.acc_width configuration error", err)
	}
	err = StateConfig{Partitions: 0, Depth: 16, ElemWidth: 8}.Check("npu.sram.state")
	if err == nil || !strings.HasPrefix(err.Error(), "npu.sram.state.partitions = 0") {
		t.Errorf("Check with a path: got %v", err)
	}
}
