package npu

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/check"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	got := []int{c.Rows, c.Cols, c.ElemWidth, c.AccWidth, c.Rows, c.StateDepth, c.Cols, c.PsumDepth, c.Queues}
	if diff := cmp.Diff([]int{16, 16, 8, 32, 16, 4096, 16, 512, 2}, got); diff != "" {
		t.Errorf("default: 16×16 int8/int32, state 16 × 4096, psum 16 × 512, 2 queues (-want +got):\n%s", diff)
	}
	// The derived block configurations agree with each other.
	if s, p := c.SRAM(), c.Planar(); s.State.Partitions != p.Lanes || s.Psum.Partitions != p.PsumLanes || s.State.Depth != p.StateDepth {
		t.Errorf("sram %+v and planar %+v disagree", s, p)
	}
	if c.TaskMgr().ParamBits < c.PlanarParams().Width || c.TaskMgr().ParamBits < c.NEParams().Width {
		t.Errorf("param_bits %d cannot carry the planar (%d) or NE (%d) params", c.TaskMgr().ParamBits, c.PlanarParams().Width, c.NEParams().Width)
	}
	// The planar lookup table is there by default, and 16-bit elements
	// need it left out.
	if !c.Planar().LUT {
		t.Error("the default planar engine has no lookup table")
	}
	c.ElemWidth, c.AccWidth, c.PlanarLUT = 16, 32, false
	if err := c.Validate(); err != nil {
		t.Errorf("16-bit elements without the planar table: %v", err)
	}
}

// A configuration comes back from its JSON form unchanged.
func TestConfigJSONRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Rows, c.Cols, c.ZeroSkip, c.ExtLatency = 8, 4, false, 7
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Every bad field is named with its value and what is allowed.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want []string
	}{
		{"rows", func(c *Config) { c.Rows = 0 }, []string{"rows = 0", "1..128"}},
		{"cols over rows", func(c *Config) { c.Cols = 32 }, []string{"cols = 32", "at most rows (16)"}},
		{"state depth", func(c *Config) { c.StateDepth = 1000 }, []string{"state_depth = 1000", "power of two"}},
		{"acc width", func(c *Config) { c.AccWidth = 8 }, []string{"acc_width = 8", "16..64"}},
		{"line depth", func(c *Config) { c.StateDepth, c.LineDepth = 32, 64 }, []string{"line_depth = 64", "state_depth (32)"}},
		{"latency", func(c *Config) { c.ExtLatency = 0 }, []string{"ext_latency = 0", "1..16"}},
		{"engine slots", func(c *Config) { c.EngineSlots = 9 }, []string{"engine_slots = 9", "1..8"}},
		{"several", func(c *Config) { c.Queues, c.Window = 0, 3 }, []string{"queues = 0", "window = 3"}},
		{"planar lanes", func(c *Config) { c.Rows, c.Cols, c.PlanarLanes = 8, 8, 16 }, []string{"planar_lanes = 16 is not allowed", "divisor of rows (8): one of [1 2 4 8], or 0 for the default (4 post units: the largest divisor of rows up to 4)"}},
		{"queue words", func(c *Config) { c.QueueWords = 6 }, []string{"queue_words = 6 is not allowed", "power of two in 1..16"}},
		{"queue words of register queues", func(c *Config) { c.LeanTaskMgr, c.QueueDepth, c.QueueWords = true, 2, 4 },
			[]string{"queue_words = 4 is not allowed: must be 0 or 1 with lean_taskmgr and queue_depth 2"}},
		{"planar table of 16-bit elements", func(c *Config) { c.ElemWidth = 16 }, []string{"planar_lut = true is not allowed", "elem_width must be at most 10 (it is 16)"}},
		{"planar read port with engines", func(c *Config) { c.PlanarReadPort, c.Engines = true, 2 },
			[]string{"planar_read_port = true is not allowed: needs engines = 1 (engines = 2): the second read port is wired to one state buffer, not through the routers"}},
		{"planar read port without eltwise", func(c *Config) { c.PlanarReadPort, c.PlanarEltwise = true, false },
			[]string{"planar_read_port = true is not allowed: serves only the two-tensor eltwise: it needs planar_eltwise = true"}},
		{"planar read port, dma read port, macros", func(c *Config) { c.PlanarReadPort, c.DMAReadPort, c.Macros = true, true, true },
			[]string{"planar_read_port = true is not allowed: with dma_read_port and macros a bank would need three read ports, and an SRAM macro has at most two: leave one of them out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.set(&c)
			err := c.Validate()
			if err == nil || !errors.Is(err, check.ErrConfig) {
				t.Fatalf("err = %v, want a configuration error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// planar_lanes reaches the planar engine and the instruction set: the
// post units, the passes, the module names and the planar cycle counts
// the compiler estimates with (isa.Sizes from ISA()).
func TestPlanarLanesConfig(t *testing.T) {
	type got struct {
		Units, Passes, Cycles int
		Name                  string
	}
	act := isaplanar.Task{Op: isaplanar.OpAct, Mask: 0xffff, Src: 0, Dst: 1024, H: 8, W: 8, Scale: 1}
	var gots []got
	for _, lanes := range []int{0, 16, 4, 1} {
		c := DefaultConfig()
		c.PlanarLanes = lanes
		s := c.ISA().Planar
		gots = append(gots, got{s.Units(), s.Passes(), c.Planar().Cycles(act), c.Name()})
	}
	want := []got{
		{4, 4, 4*73 + 1, "npu_16x16_e8a32_s4096p512w1024_pr_pl4"},
		{16, 1, 74, "npu_16x16_e8a32_s4096p512w1024_pr"},
		{4, 4, 4*73 + 1, "npu_16x16_e8a32_s4096p512w1024_pr_pl4"},
		{1, 16, 16*73 + 1, "npu_16x16_e8a32_s4096p512w1024_pr_pl1"},
	}
	if d := cmp.Diff(want, gots); d != "" {
		t.Errorf("planar_lanes (-want +got):\n%s", d)
	}
}

// planar_read_port reaches the state buffer (its plr2 client), the
// planar engine (src2_port) and the name, and halves the read cycles of
// a two-tensor eltwise in the cycle counts the compiler estimates with;
// other tasks keep theirs.
func TestPlanarReadPortConfig(t *testing.T) {
	type got struct {
		StatePort, Src2Port bool
		Add, Scalar         int
		Name                string
	}
	add := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: 0xffff, Src: 0, Src2: 512, Dst: 1024, H: 8, W: 8, Scale: 1}
	scalar := isaplanar.Task{Op: isaplanar.OpEltwise, Fn: isaplanar.FnAdd, Mask: 0xffff, Src: 0, Dst: 1024, H: 8, W: 8, Scale: 1, ScalarOperand: true}
	var gots []got
	for _, port := range []bool{false, true} {
		c := DefaultConfig()
		if err := json.Unmarshal([]byte(fmt.Sprintf(`{"planar_read_port": %v}`, port)), &c); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("planar_read_port %v: %v", port, err)
		}
		gots = append(gots, got{c.SRAM().State.PlanarReadPort, c.Planar().Src2Port, c.Planar().Cycles(add), c.Planar().Cycles(scalar), c.Name()})
	}
	// 4 passes of 2·64 + 10 = 138 reads-and-pipeline cycles (4·137 + 1),
	// with the port 64 + 10 = 74 (4·73 + 1), as the scalar eltwise.
	want := []got{
		{false, false, 4*137 + 1, 4*73 + 1, "npu_16x16_e8a32_s4096p512w1024_pr_pl4"},
		{true, true, 4*73 + 1, 4*73 + 1, "npu_16x16_e8a32_s4096p512w1024_pr_er_pl4"},
	}
	if d := cmp.Diff(want, gots); d != "" {
		t.Errorf("planar_read_port (-want +got):\n%s", d)
	}
}

// planar_lanes 0 is the largest divisor of rows up to
// DefaultPlanarLanes, so every row count has a valid default.
func TestDefaultPostUnits(t *testing.T) {
	rows := []int{1, 2, 3, 4, 5, 6, 8, 12, 16, 32}
	want := []int{1, 2, 3, 4, 1, 3, 4, 4, 4, 4}
	var got []int
	for _, r := range rows {
		c := DefaultConfig()
		c.Rows, c.Cols = r, r
		if err := c.Validate(); err != nil {
			t.Fatalf("rows %d: %v", r, err)
		}
		got = append(got, c.Planar().Units())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("post units by rows %v (-want +got):\n%s", rows, d)
	}
}

// Every optional planar feature is built by default and left out by its
// JSON field alone (false), in the planar engine's configuration and in
// the instruction set's sizes the compiler sees.
func TestPlanarFeaturesConfig(t *testing.T) {
	missing := func(s isaplanar.Sizes) []string {
		var ns []string
		for _, f := range isaplanar.Features {
			if f.Missing(s) {
				ns = append(ns, f.Name)
			}
		}
		return ns
	}
	if d := cmp.Diff([]string(nil), missing(DefaultConfig().Planar().Sizes)); d != "" {
		t.Errorf("the default NPU lacks planar features (-want +got):\n%s", d)
	}
	fields := []string{"planar_pool_avg", "planar_pool_min", "planar_eltwise", "planar_eltwise_mul", "planar_reduce", "planar_postfn"}
	var got []string
	for _, f := range isaplanar.Features {
		got = append(got, f.Field)
		c := DefaultConfig()
		if err := json.Unmarshal([]byte(`{"`+f.Field+`": false}`), &c); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s = false: %v", f.Field, err)
		}
		if d := cmp.Diff([]string{f.Name}, missing(c.Planar().Sizes)); d != "" {
			t.Errorf("%s = false: the planar engine lacks (-want +got):\n%s", f.Field, d)
		}
		if d := cmp.Diff([]string{f.Name}, missing(c.ISA().Planar)); d != "" {
			t.Errorf("%s = false: the instruction set's planar sizes lack (-want +got):\n%s", f.Field, d)
		}
	}
	if d := cmp.Diff(fields, got); d != "" {
		t.Errorf("the features' npu fields (-want +got):\n%s", d)
	}
}

// The planar checks are built by default and left out by planar_checks
// alone: the planar engine's configuration says so and nothing else
// changes.
func TestPlanarChecksConfig(t *testing.T) {
	c := DefaultConfig()
	if err := json.Unmarshal([]byte(`{"planar_checks": false}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("planar_checks = false: %v", err)
	}
	want := DefaultConfig().Planar()
	want.NoChecks = true
	if d := cmp.Diff(want, c.Planar()); d != "" {
		t.Errorf("planar_checks = false: the planar configuration (-want +got):\n%s", d)
	}
	if DefaultConfig().Planar().NoChecks {
		t.Error("the default NPU's planar engine has no checks")
	}
}

// perf_counters false takes the counters' ports off the NPU (one engine
// and several) and keeps the status and timeline ports.
func TestPerfCountersPorts(t *testing.T) {
	for _, engines := range []int{1, 2} {
		c := DefaultConfig()
		c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth, c.Engines = 4, 4, 256, 64, 64, engines
		c.PerfCounters = false
		m, err := Build(c)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range []string{"ne_busy_cycles", "ne_stall_cycles", "ne_completed", "dma_in_completed", "mac_count", "skip_count",
			"ne0_busy_cycles", "ne0_mac_count", "ne_start", "ne_start_id", "ne_done", "skipped", "err_code", "planar_err_code"} {
			if m.Port(p) != nil {
				got = append(got, p)
			}
		}
		want := []string{"ne_start", "ne_start_id", "ne_done", "skipped", "err_code", "planar_err_code"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%d engines: ports without perf_counters (-want +got):\n%s", engines, d)
		}
	}
}
