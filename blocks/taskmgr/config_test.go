package taskmgr_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify/simtest"
	"github.com/hwgen/hwgen/verilog"
)

func TestConfigValidate(t *testing.T) {
	if err := taskmgr.DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	cases := []struct {
		name string
		edit func(*taskmgr.Config)
		want []string // every error message fragment
	}{
		{"no queues", func(c *taskmgr.Config) { c.Queues = 0 }, []string{"queues = 0 is not allowed: must be in 1..8"}},
		{"queue depth not a power of two", func(c *taskmgr.Config) { c.QueueDepth = 12 }, []string{"queue_depth = 12 is not allowed: must be a power of two in 2..1024"}},
		{"window too small", func(c *taskmgr.Config) { c.Window = 2 }, []string{"window = 2 is not allowed: must be a power of two in 4..1024"}},
		{"ids too narrow for the window", func(c *taskmgr.Config) { c.IDBits = 6 }, []string{"id_bits = 6 is not allowed: must be in 7..32"}},
		{"deps", func(c *taskmgr.Config) { c.MaxDeps = 9 }, []string{"max_deps = 9 is not allowed: must be in 1..8"}},
		{"several at once", func(c *taskmgr.Config) { c.EngineSlots, c.Outstanding, c.AddrBits, c.FlagBits = 0, 9, 65, 0 },
			[]string{"engine_slots = 0", "outstanding = 9", "addr_bits = 65", "flag_bits = 0"}},
		{"operand widths", func(c *taskmgr.Config) { c.DimBits, c.ParamBits = 0, 1000 }, []string{"dim_bits = 0", "param_bits = 1000"}},
		{"ne targets", func(c *taskmgr.Config) { c.NETargets = 9 }, []string{"ne_targets = 9 is not allowed: must be in 1..8"}},
		{"target field outside param", func(c *taskmgr.Config) { c.NETargets, c.NETargetOffset = 4, 30 },
			[]string{"ne_target_offset = 30 is not allowed: must be in 0..29: the 3-bit target field must lie inside the 32 param bits"}},
		{"queue words not a power of two", func(c *taskmgr.Config) { c.QueueWords = 3 },
			[]string{"queue_words = 3 is not allowed: must be a power of two in 1..16"}},
		{"queue words too many", func(c *taskmgr.Config) { c.QueueWords = 32 }, []string{"queue_words = 32 is not allowed"}},
		{"queue words of register queues", func(c *taskmgr.Config) { c.Lean, c.QueueDepth, c.QueueWords = true, 2, 4 },
			[]string{"queue_words = 4 is not allowed: must be 0 or 1 with lean and queue_depth 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := taskmgr.DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !errors.Is(err, check.ErrConfig) {
				t.Fatalf("Validate = %v, want a check.ErrConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := taskmgr.Build(c); !errors.Is(err, check.ErrConfig) {
				t.Errorf("Build accepted the config: %v", err)
			}
			if _, err := taskmgr.NewLayout(c); !errors.Is(err, check.ErrConfig) {
				t.Errorf("NewLayout accepted the config: %v", err)
			}
		})
	}
}

// An embedding configuration gets its own field paths.
func TestConfigCheckPath(t *testing.T) {
	c := taskmgr.DefaultConfig()
	c.Window, c.IDBits = 48, 40
	err := c.Check("npu.taskmgr")
	for _, w := range []string{"npu.taskmgr.window = 48", "npu.taskmgr.id_bits = 40"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Check error %v lacks %q", err, w)
		}
	}
}

func TestConfigJSON(t *testing.T) {
	data, err := json.Marshal(taskmgr.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"queues":2,"queue_depth":16,"window":64,"max_deps":4,"engine_slots":2,"outstanding":2,"id_bits":16,"addr_bits":32,"dim_bits":16,"param_bits":32,"flag_bits":4,"round_robin":false,"ne_targets":1,"ne_target_offset":0,"sparse":false,"room_port":false,"partial":false,"net_bits":0,"lean":false,"queue_words":0}`
	if string(data) != want {
		t.Errorf("JSON %s\nwant %s", data, want)
	}
	var back taskmgr.Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(taskmgr.DefaultConfig(), back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Different configurations get different module names; the same one the
// same name (and byte-identical Verilog).
func TestModuleNames(t *testing.T) {
	names := map[string]taskmgr.Config{}
	base := smallConfig()
	edits := []func(*taskmgr.Config){func(*taskmgr.Config) {},
		func(c *taskmgr.Config) { c.Queues = 3 }, func(c *taskmgr.Config) { c.QueueDepth = 8 },
		func(c *taskmgr.Config) { c.Window = 32 }, func(c *taskmgr.Config) { c.MaxDeps = 3 },
		func(c *taskmgr.Config) { c.EngineSlots = 3 }, func(c *taskmgr.Config) { c.Outstanding = 3 },
		func(c *taskmgr.Config) { c.IDBits = 9 }, func(c *taskmgr.Config) { c.AddrBits = 13 },
		func(c *taskmgr.Config) { c.DimBits = 7 }, func(c *taskmgr.Config) { c.ParamBits = 6 },
		func(c *taskmgr.Config) { c.FlagBits = 3 }, func(c *taskmgr.Config) { c.Sparse = true },
		func(c *taskmgr.Config) { c.Lean = true }, func(c *taskmgr.Config) { c.QueueWords = 4 },
		func(c *taskmgr.Config) { c.QueueWords = 2 }}
	for _, edit := range edits {
		c := base
		edit(&c)
		m, err := taskmgr.Build(c)
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := names[m.Name]; dup {
			t.Errorf("%+v and %+v are both %s", prev, c, m.Name)
		}
		names[m.Name] = c
	}
	a, b := emit(t, smallConfig()), emit(t, smallConfig())
	if !cmp.Equal(a, b) {
		t.Errorf("two builds of one config emit different Verilog")
	}
	// queue_words 1 is the plain queue, byte for byte.
	one := smallConfig()
	one.QueueWords = 1
	if !cmp.Equal(a, emit(t, one)) {
		t.Errorf("queue_words 1 emits different Verilog from queue_words 0")
	}
}

func emit(t *testing.T, cfg taskmgr.Config) []verilog.File {
	t.Helper()
	m, err := taskmgr.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	return verilog.Emit(d)
}

// The emitted Verilog lints clean and synthesizes without latches or
// combinational loops, full, lean and with the queues in words.
func TestLintSynth(t *testing.T) {
	tooltest.Need(t, "verilator")
	tooltest.Need(t, "yosys")
	bothWays(t, smallConfig(), lintSynth)
}

func lintSynth(t *testing.T, cfg taskmgr.Config) {
	files := emit(t, cfg)
	dir := filepath.Join(t.TempDir(), "rtl")
	if err := verilog.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	var vs []string
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".v") {
			vs = append(vs, f.Name)
		}
	}
	m, _ := taskmgr.Build(cfg)
	if err := toolchain.Lint(dir, m.Name, vs); err != nil {
		t.Error(err)
	}
	stat, err := toolchain.Synth(dir, m.Name, vs)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("HWGEN_MEASURE") != "" {
		t.Log(stat)
	}
}

// The extremes of every range build, elaborate and come up in the
// simulator idle and ready.
func TestBuildExtremes(t *testing.T) {
	maxCfg := taskmgr.Config{Queues: 8, QueueDepth: 1024, Window: 1024, MaxDeps: 8, EngineSlots: 8, Outstanding: 8,
		IDBits: 32, AddrBits: 64, DimBits: 64, ParamBits: 64, FlagBits: 16, NETargets: 8, NETargetOffset: 60}
	maxWords := maxCfg
	maxWords.QueueWords = 16
	for _, cfg := range []taskmgr.Config{minimalConfig(), maxCfg, lean(minimalConfig()), lean(maxCfg), inWords(minimalConfig()), maxWords} {
		m, err := taskmgr.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d, err := hdl.Elaborate(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		dr := simtest.New(t, d)
		dr.Reset(2)
		for _, p := range []string{"idle", "cmd_ready"} {
			if v := dr.Peek(p); v != 1 {
				t.Errorf("%s: %s = %d after reset", m.Name, p, v)
			}
		}
		t.Logf("%s: %+v", m.Name, dr.Sim.Stats())
	}
}
