package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/blocks/descfetch"
	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/budget"
	"github.com/hwgen/hwgen/internal/check"
)

// blockFlags configure a configurable block: its default configuration,
// overlaid by --config FILE, overlaid by each --set.
type blockFlags struct {
	Config string   `help:"JSON configuration of a configurable block (e.g. --top systolic); fields left out keep their defaults." type:"existingfile"`
	Set    []string `help:"Set one configuration field: JSON field name = JSON value, e.g. --set rows=8 --set zero_skip=false." sep:"none" placeholder:"FIELD=VALUE"`
}

type block struct {
	about string
	build func(f blockFlags) (*hdl.Module, error)
}

var blocks = map[string]block{
	"npu": {"the whole NPU: task manager, DMA, state/weight/psum buffers, PE array with its address generator, planar engine (--config, --set; fields of 'hwgen config')",
		configured(npu.DefaultConfig, npu.Build)},
	"npu_sim": {"the NPU with the external-memory model and host memory port that 'hwgen sim' runs (--config, --set)",
		configured(npu.DefaultConfig, npu.BuildSim)},
	"systolic": {"weight-stationary PE array: double-buffered weights, transpose, zero skipping (--config, --set)",
		configured(systolic.DefaultConfig, systolic.Build)},
	"statebuf": {"banked state buffer with arbitrated valid/ready clients (--config, --set; fields of sram's state config plus macros)",
		configured(func() stateBlock { return stateBlock{StateConfig: sram.DefaultConfig().State} }, stateBlock.build)},
	"planar": {"planar engine: activation/requantization, write-back, eltwise, pooling, reduction (--config, --set)",
		configured(planar.DefaultConfig, planar.Build)},
	"taskmgr": {"task manager: priority queues, dependency scoreboard, per-engine in-order dispatch (--config, --set)",
		configured(taskmgr.DefaultConfig, taskmgr.Build)},
	"sparse": {"sparse engine: compute units fed by double-buffered memory units of non-zero (value, index) entries, weight lists, scatter accumulators (--config, --set)",
		configured(sparse.DefaultConfig, sparse.Build)},
	"descfetch": {"descriptor-fetch front end: queue records over descriptor rings in external memory, a single-entry fetch queue with replacement by a higher-priority arrival (--config, --set)",
		configured(descfetch.DefaultConfig, descfetch.Build)},
	"psumbuf": {"psum (accumulator) buffer: overwrite/accumulate writes, read-out, region clear (--config, --set)",
		configured(func() psumBlock { return psumBlock{PsumConfig: sram.DefaultConfig().Psum} }, psumBlock.build)},
}

// stateBlock and psumBlock add the memory form to a buffer's own config,
// so --set macros=true works on the buffer alone.
type stateBlock struct {
	sram.StateConfig
	Macros bool `json:"macros"`
}

func (b stateBlock) build() (*hdl.Module, error) { return sram.StateBuffer(b.StateConfig, b.Macros) }

type psumBlock struct {
	sram.PsumConfig
	Macros bool `json:"macros"`
}

func (b psumBlock) build() (*hdl.Module, error) { return sram.PsumBuffer(b.PsumConfig, b.Macros) }

func blockNames() []string {
	var names []string
	for n := range blocks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// configured builds a block from its default config with the flags laid
// over it; unknown fields, wrongly typed values and invalid configurations
// are usage errors.
func configured[C any](def func() C, build func(C) (*hdl.Module, error)) func(blockFlags) (*hdl.Module, error) {
	return func(f blockFlags) (*hdl.Module, error) {
		cfg, err := configure(def, f)
		if err != nil {
			return nil, err
		}
		m, err := build(cfg)
		if errors.Is(err, check.ErrConfig) {
			return nil, usageError{err}
		}
		return m, err
	}
}

// configure is def() with --config and every --set laid over it; unknown
// fields and wrongly typed values are usage errors (validation is the
// builder's).
func configure[C any](def func() C, f blockFlags) (C, error) {
	cfg := def()
	overlay := func(src, value string, data []byte) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return usageError{fmt.Errorf("%s: %w", src, jsonFieldError(err, value))}
		}
		return nil
	}
	if f.Config != "" {
		data, err := budget.ReadFile(f.Config, "a configuration (JSON)", budget.JSONMax)
		if err != nil {
			return cfg, usageError{fmt.Errorf("--config: %w", err)}
		}
		if err := overlay("--config "+f.Config, "", data); err != nil {
			return cfg, err
		}
	}
	for _, s := range f.Set {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return cfg, usagef("--set %q: want FIELD=VALUE", s)
		}
		obj, _ := json.Marshal(map[string]json.RawMessage{name: setValue(value)})
		if err := overlay("--set "+s, value, obj); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// setValue is the JSON value of --set FIELD=VALUE: VALUE itself when it
// is JSON, else VALUE as a string (a bare word is a string).
func setValue(value string) json.RawMessage {
	if v := json.RawMessage(value); json.Valid(v) {
		return v
	}
	v, _ := json.Marshal(value)
	return v
}

// jsonFieldError says what a wrongly typed field allows, in the words of
// the configuration ("zero_skip = 1 is not allowed: want true or false")
// rather than Go's ("cannot unmarshal number into Go struct field").
// value is the value as given, when known.
func jsonFieldError(err error, value string) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := "a " + te.Type.String()
	switch te.Type.Kind() {
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "an integer"
	case reflect.String:
		want = "a string"
	case reflect.Struct, reflect.Map:
		want = "a JSON object"
	case reflect.Slice, reflect.Array:
		want = "a JSON array"
	}
	if value == "" {
		value = "a " + te.Value
	}
	if strings.Contains(value, ",") {
		// A list is what hwgen explore takes; sim and emit build one design.
		return fmt.Errorf("%s = %s is not allowed: want %s (to sweep several values, use hwgen explore --set %s=%s)", te.Field, value, want, te.Field, value)
	}
	return fmt.Errorf("%s = %s is not allowed: want %s", te.Field, value, want)
}
