package taskmgr_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/isa"
)

// The default layout, field by field: the contract with the compiler.
func TestDefaultLayout(t *testing.T) {
	lay := taskmgr.DefaultLayout()
	type fw struct {
		Name          string
		Offset, Width int
	}
	var got []fw
	for _, f := range lay.Fields {
		got = append(got, fw{f.Name, f.Offset, f.Width})
	}
	want := []fw{{"id", 0, 16}, {"engine", 16, 3}, {"op", 19, 4}, {"flags", 23, 4}, {"hold", 27, 1}, {"ndeps", 28, 3},
		{"dep0", 31, 16}, {"dep1", 47, 16}, {"dep2", 63, 16}, {"dep3", 79, 16},
		{"src", 95, 32}, {"aux", 127, 32}, {"dst", 159, 32}, {"d0", 191, 16}, {"d1", 207, 16}, {"d2", 223, 16}, {"param", 239, 32}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default layout (-want +got):\n%s", diff)
	}
	if lay.Width != 271 {
		t.Errorf("width %d, want 271", lay.Width)
	}
}

// The fields on each engine's port: every engine field without Lean;
// with it, the control fields and the operands of the engine's ops (the
// sparse engine with Sparse, and with two param words both of them).
func TestEngineFieldsOf(t *testing.T) {
	names := func(fs []taskmgr.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	full := withSparse()
	full.ParamBits, full.Partial, full.NetBits = 100, true, 1
	control := []string{"id", "op", "flags", "partial", "net", "src_mem", "dst_mem"}
	dma := append(control[:len(control):len(control)], "src", "dst", "d0", "d1", "d2")
	all := append(control[:len(control):len(control)], "src", "aux", "dst", "d0", "d1", "d2", "param0", "param1")
	for _, cfg := range []taskmgr.Config{full, lean(full)} {
		lay, err := taskmgr.NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		want := map[string][]string{}
		for _, def := range cfg.Engines() {
			got[def.Name] = names(lay.EngineFieldsOf(def.Engine))
			want[def.Name] = names(lay.EngineFields())
		}
		if cfg.Lean {
			want = map[string][]string{"dma_in": dma, "ne": all, "dma_out": dma, "sparse": all,
				"planar": append(control[:len(control):len(control)], "src", "aux", "dst", "d0", "d1", "param0", "param1")}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lean %v: fields by engine (-want +got):\n%s", cfg.Lean, diff)
		}
	}
}

// Every configuration's fields tile the descriptor without gaps or overlaps.
func TestLayoutTiles(t *testing.T) {
	for _, cfg := range []taskmgr.Config{taskmgr.DefaultConfig(), smallConfig(), minimalConfig(),
		{Queues: 8, QueueDepth: 1024, Window: 1024, MaxDeps: 8, EngineSlots: 8, Outstanding: 8, IDBits: 32, AddrBits: 64, DimBits: 64, ParamBits: 64, FlagBits: 16, NETargets: 1}} {
		lay, err := taskmgr.NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		at := 0
		for _, f := range lay.Fields {
			if f.Offset != at || f.Width < 1 {
				t.Errorf("%+v: field %s at %d width %d, want offset %d", cfg, f.Name, f.Offset, f.Width, at)
			}
			at += f.Width
		}
		if at != lay.Width {
			t.Errorf("%+v: fields cover %d bits, width says %d", cfg, at, lay.Width)
		}
	}
}

// Encode and Decode are inverse; Pack and Unpack are inverse.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []taskmgr.Config{taskmgr.DefaultConfig(), smallConfig()} {
		lay, err := taskmgr.NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range randomProgram(rng, lay, 0, 500, 1) {
			raw, err := lay.Encode(tk.desc)
			if err != nil {
				t.Fatal(err)
			}
			if raw.BitLen() > lay.Width {
				t.Fatalf("%s encodes to %d bits, layout is %d", tk.name, raw.BitLen(), lay.Width)
			}
			if diff := cmp.Diff(tk.desc, lay.Decode(raw), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s: decode(encode(d)) (-d +got):\n%s", tk.name, diff)
			}
			vals := lay.Unpack(raw)
			again, err := lay.Pack(vals)
			if err != nil || again.Cmp(raw) != 0 {
				t.Fatalf("%s: pack(unpack(bits)) = %x, %v; want %x", tk.name, again, err, raw)
			}
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	lay := taskmgr.DefaultLayout()
	cases := []struct {
		name string
		d    isa.Descriptor
		want string
	}{
		{"unknown engine", isa.Descriptor{ID: 1, Engine: 4}, "unknown engine 4"},
		{"unknown op", isa.Descriptor{ID: 2, Engine: isa.NE, Op: 7}, "engine ne has no operation 7"},
		{"sparse op without the sparse engine", isa.Descriptor{ID: 2, Engine: isa.DMAIn, Op: isa.DMAInLoadSparse}, "engine dma_in has no operation 3"},
		{"too many deps", isa.Descriptor{ID: 3, Deps: []uint64{1, 2, 3, 4, 5}}, "5 dependencies, max_deps is 4"},
		{"address too wide", isa.Descriptor{ID: 4, Src: 1 << 32}, "field src = 4294967296 does not fit 32 bits"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lay.Encode(tc.d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Encode error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := lay.Pack(map[string]uint64{"nope": 1}); err == nil {
		t.Errorf("Pack accepted an unknown field")
	}
	if _, err := lay.Pack(map[string]uint64{"engine": 8}); err == nil {
		t.Errorf("Pack accepted engine = 8 in 3 bits")
	}
}

// Task IDs and dependencies are sequence numbers: they encode modulo
// 2^id_bits, as the hardware counts them, so a program may run past
// 65,536 tasks a queue.
func TestEncodeWrapsIDs(t *testing.T) {
	lay := taskmgr.DefaultLayout()
	cases := []struct{ id, dep, wantID, wantDep uint64 }{
		{1<<16 + 5, 1<<16 + 3, 5, 3},
		{1 << 16, 1<<16 - 1, 0, 1<<16 - 1},
		{3<<16 + 1, 2<<16 + 65535, 1, 65535},
	}
	for _, tc := range cases {
		raw, err := lay.Encode(isa.Descriptor{ID: tc.id, Engine: isa.NE, Deps: []uint64{tc.dep}})
		if err != nil {
			t.Fatalf("ID %d: %v", tc.id, err)
		}
		got := lay.Decode(raw)
		if diff := cmp.Diff([]uint64{tc.wantID, tc.wantDep}, []uint64{got.ID, got.Deps[0]}); diff != "" {
			t.Errorf("ID %d dep %d: (id, dep) (-want +got):\n%s", tc.id, tc.dep, diff)
		}
	}
}

// Decode does not trust ndeps: a malformed count decodes as max_deps.
func TestDecodeMalformedCount(t *testing.T) {
	lay := taskmgr.DefaultLayout()
	raw, err := lay.Pack(map[string]uint64{"ndeps": 7, "dep0": 1, "dep3": 9})
	if err != nil {
		t.Fatal(err)
	}
	if got := lay.Decode(raw).Deps; !cmp.Equal(got, []uint64{1, 0, 0, 9}) {
		t.Errorf("deps %v", got)
	}
}

// LAYOUT.md is generated from the definition; HWGEN_UPDATE=1 rewrites it.
func TestLayoutDocUpToDate(t *testing.T) {
	const path = "LAYOUT.md"
	want := "# Task descriptor layout (default configuration)\n\n" +
		"Generated from `descriptorSpec` and `isa.Engines` by `TestLayoutDocUpToDate`" +
		" (`HWGEN_UPDATE=1 go test ./blocks/taskmgr -run LayoutDoc`); the same text as `taskmgr.DefaultLayout().Markdown()`.\n\n" +
		taskmgr.DefaultLayout().Markdown()
	if os.Getenv("HWGEN_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s is stale; regenerate with HWGEN_UPDATE=1 (-want +got):\n%s", path, diff)
	}
	for _, f := range taskmgr.DefaultLayout().Fields {
		if !strings.Contains(string(got), "| "+f.Name+" |") {
			t.Errorf("%s lacks field %s", path, f.Name)
		}
	}
}

// A param wider than 64 bits is carried as 64-bit words param0, param1, …
// and survives Encode/Decode.
func TestWideParam(t *testing.T) {
	cfg := taskmgr.DefaultConfig()
	cfg.ParamBits = 150
	lay, err := taskmgr.NewLayout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range lay.Fields[len(lay.Fields)-3:] {
		got = append(got, f.Name+":"+strconv.Itoa(f.Width))
	}
	if diff := cmp.Diff([]string{"param0:64", "param1:64", "param2:22"}, got); diff != "" {
		t.Errorf("param fields (-want +got):\n%s", diff)
	}
	d := isa.Descriptor{ID: 3, Engine: isa.Planar, Op: isa.PlanarPool, Param: []uint64{1<<63 | 5, 7, 1<<21 | 1}}
	bits, err := lay.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, lay.Decode(bits), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	d.Param[2] = 1 << 22
	if _, err := lay.Encode(d); err == nil || !strings.Contains(err.Error(), "param2") {
		t.Errorf("a param word past param_bits: err = %v, want one naming param2", err)
	}
}
