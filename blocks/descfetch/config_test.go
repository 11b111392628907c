package descfetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// Each bad value is reported with its JSON field, the value and the
// allowed range, all at once when several are bad.
func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"no queues", func(c *Config) { c.Queues = 0 }, []string{"queues = 0 is not allowed: must be in 1..8"}},
		{"nine queues", func(c *Config) { c.Queues = 9 }, []string{"queues = 9 is not allowed: must be in 1..8"}},
		{"narrow descriptor", func(c *Config) { c.DescWidth = 7 }, []string{"desc_width = 7 is not allowed: must be in 8..4096"}},
		{"wide descriptor", func(c *Config) { c.DescWidth = 4097 }, []string{"desc_width = 4097 is not allowed: must be in 8..4096"}},
		{"narrow line", func(c *Config) { c.LineWidth = 4 }, []string{"line_width = 4 is not allowed: must be in 8..4096"}},
		{"short address", func(c *Config) { c.AddrWidth = 3 }, []string{"addr_width = 3 is not allowed: must be in 4..40"}},
		{"long address", func(c *Config) { c.AddrWidth = 41 }, []string{"addr_width = 41 is not allowed: must be in 4..40"}},
		{"no ring", func(c *Config) { c.RingBits = 0 }, []string{"ring_bits = 0 is not allowed: must be in 1..16"}},
		{"huge ring", func(c *Config) { c.RingBits = 17 }, []string{"ring_bits = 17 is not allowed: must be in 1..16"}},
		{"several at once", func(c *Config) { c.Queues, c.LineWidth, c.RingBits = -1, 5000, 20 },
			[]string{"queues = -1", "line_width = 5000", "ring_bits = 20"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !errors.Is(err, check.ErrConfig) {
				t.Fatalf("Validate = %v, want a check.ErrConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, err := Build(c); err == nil || !errors.Is(err, check.ErrConfig) {
				t.Errorf("Build = %v, want the validation error", err)
			}
		})
	}
	if err := (Config{}).Check("npu.descfetch"); err == nil || !strings.Contains(err.Error(), "npu.descfetch.queues = 0") {
		t.Errorf("Check with a path = %v, want the field under npu.descfetch", err)
	}
}

// The JSON names are snake_case and round-trip.
func TestConfigJSON(t *testing.T) {
	c := DefaultConfig()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), `{"queues":2,"desc_width":271,"line_width":128,"addr_width":16,"ring_bits":4}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var back Config
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Derived sizes and module names: every parameter changes the name.
func TestDerived(t *testing.T) {
	cases := []struct {
		cfg                     Config
		beats, ptr, queue, data int
		name                    string
	}{
		{DefaultConfig(), 3, 5, 1, 16, "descfetch_q2_w271_l128_a16_r4"},
		{Config{Queues: 1, DescWidth: 8, LineWidth: 8, AddrWidth: 4, RingBits: 4}, 1, 5, 1, 5, "descfetch_q1_w8_l8_a4_r4"},
		{Config{Queues: 5, DescWidth: 12, LineWidth: 16, AddrWidth: 6, RingBits: 2}, 1, 3, 3, 6, "descfetch_q5_w12_l16_a6_r2"},
		{Config{Queues: 8, DescWidth: 256, LineWidth: 128, AddrWidth: 40, RingBits: 16}, 2, 17, 3, 40, "descfetch_q8_w256_l128_a40_r16"},
	}
	for _, tc := range cases {
		c := tc.cfg
		got := []any{c.Beats(), c.PtrWidth(), c.QueueWidth(), c.DataWidth(), c.name()}
		want := []any{tc.beats, tc.ptr, tc.queue, tc.data, tc.name}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v: beats, pointer, queue, data widths and name (-want +got):\n%s", c, diff)
		}
	}
}

// The ports are those of the package documentation, with the widths it
// gives, in two configurations.
func TestPorts(t *testing.T) {
	cases := []struct {
		cfg  Config
		want []string
	}{
		{DefaultConfig(), []string{"in qr_valid 1", "in qr_queue 1", "in qr_reg 2", "in qr_data 16", "in x_ready 1",
			"in x_rvalid 1", "in x_rdata 128", "in cmd_room 2", "in cmd_ready 1", "out qr_head 5", "out x_valid 1",
			"out x_addr 16", "out cmd_valid 1", "out cmd_queue 1", "out cmd_desc 271", "out pending 1",
			"out fetched 32", "out replaced 32"}},
		{Config{Queues: 5, DescWidth: 12, LineWidth: 16, AddrWidth: 4, RingBits: 6}, []string{"in qr_valid 1",
			"in qr_queue 3", "in qr_reg 2", "in qr_data 7", "in x_ready 1", "in x_rvalid 1", "in x_rdata 16",
			"in cmd_room 5", "in cmd_ready 1", "out qr_head 7", "out x_valid 1", "out x_addr 4", "out cmd_valid 1",
			"out cmd_queue 3", "out cmd_desc 12", "out pending 1", "out fetched 32", "out replaced 32"}},
	}
	for _, tc := range cases {
		m, err := Build(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range m.Ports {
			dir := "in"
			if p.Kind == hdl.Output {
				dir = "out"
			}
			got = append(got, fmt.Sprintf("%s %s %d", dir, p.Name, p.Width()))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s ports (-want +got):\n%s", m.Name, diff)
		}
	}
}
