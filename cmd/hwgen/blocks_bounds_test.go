package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/blocks/descfetch"
	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/blocks/taskmgr"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
)

// boundsBlock is a configurable block as the bounds test sees it: its
// default configuration as JSON and its check, on a JSON overlay of it.
type boundsBlock struct {
	name     string
	defaults map[string]json.RawMessage
	validate func(overlay map[string]json.RawMessage) error
}

func newBoundsBlock[C any](name string, def func() C, validate func(C) error) boundsBlock {
	raw, err := json.Marshal(def())
	if err != nil {
		panic(err)
	}
	var defaults map[string]json.RawMessage
	if err := json.Unmarshal(raw, &defaults); err != nil {
		panic(err)
	}
	return boundsBlock{name: name, defaults: defaults, validate: func(overlay map[string]json.RawMessage) error {
		c := def()
		b, _ := json.Marshal(overlay)
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		return validate(c)
	}}
}

// candidates are the values tried for an integer field: every small
// value and every power of two with its neighbours, which covers the
// bounds the checks use.
func candidates() []int {
	set := map[int]bool{}
	for v := -1; v <= 72; v++ {
		set[v] = true
	}
	for k := 0; k <= 26; k++ {
		set[1<<k-1], set[1<<k], set[1<<k+1] = true, true, true
	}
	var vs []int
	for v := range set {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}

// bounds is the smallest and the largest value of field the check
// accepts with every other field at its default; ok is false when it
// accepts none. Between the largest accepted candidate and the next
// candidate a contiguous range is searched for its end.
func (b boundsBlock) bounds(field string) (lo, hi int, ok bool) {
	accepts := func(v int) bool {
		return b.validate(map[string]json.RawMessage{field: json.RawMessage(fmt.Sprint(v))}) == nil
	}
	vs := candidates()
	last := -1
	for i, v := range vs {
		if accepts(v) {
			if !ok {
				lo, ok = v, true
			}
			hi, last = v, i
		}
	}
	if ok && last+1 < len(vs) && accepts(hi+1) {
		a, r := hi+1, vs[last+1] // accepted, rejected
		for r-a > 1 {
			if m := (a + r) / 2; accepts(m) {
				a = m
			} else {
				r = m
			}
		}
		hi = a
	}
	return lo, hi, ok
}

// TestAcceptedConfigsElaborate sets each field of each configurable block
// to the smallest and the largest value its check accepts (every other
// field at its default) and elaborates the block through the same path
// as hwgen emit verilog: every configuration the check lets through must
// build. A value just outside the bounds must be refused by a
// configuration error that names a field. Every extreme elaborates in
// well under two seconds (the whole table in about three), so none is
// left out; a slow one is logged.
func TestAcceptedConfigsElaborate(t *testing.T) {
	table := []boundsBlock{
		newBoundsBlock("npu", npu.DefaultConfig, npu.Config.Validate),
		newBoundsBlock("systolic", systolic.DefaultConfig, systolic.Config.Validate),
		newBoundsBlock("statebuf", func() stateBlock { return stateBlock{StateConfig: sram.DefaultConfig().State} }, stateBlock.Validate),
		newBoundsBlock("psumbuf", func() psumBlock { return psumBlock{PsumConfig: sram.DefaultConfig().Psum} }, psumBlock.Validate),
		newBoundsBlock("planar", planar.DefaultConfig, planar.Config.Validate),
		newBoundsBlock("taskmgr", taskmgr.DefaultConfig, taskmgr.Config.Validate),
		newBoundsBlock("sparse", sparse.DefaultConfig, sparse.Config.Validate),
		newBoundsBlock("descfetch", descfetch.DefaultConfig, descfetch.Config.Validate),
	}
	for _, b := range table {
		var fields []string
		for f := range b.defaults {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		for _, field := range fields {
			var settings []string
			if string(b.defaults[field]) == "true" || string(b.defaults[field]) == "false" {
				settings = []string{"true", "false"}
			} else {
				lo, hi, ok := b.bounds(field)
				if !ok {
					t.Errorf("%s: no value of %s is accepted with the other fields at their defaults", b.name, field)
					continue
				}
				settings = []string{fmt.Sprint(lo), fmt.Sprint(hi)}
				for _, out := range []int{lo - 1, hi + 1} {
					err := b.validate(map[string]json.RawMessage{field: json.RawMessage(fmt.Sprint(out))})
					if err == nil && out == hi+1 && hi == 1<<26+1 {
						continue // unbounded above within the candidates
					}
					// The error may name another field whose bound depends on
					// this one (elem_width 17 needs acc_width ≥ 34).
					var fe *check.FieldError
					if !errors.As(err, &fe) || !strings.Contains(err.Error(), "is not allowed") {
						t.Errorf("%s: %s = %d (outside %d..%d): got %v, want a configuration error naming a field", b.name, field, out, lo, hi, err)
					}
				}
			}
			for _, v := range settings {
				set := field + "=" + v
				start := time.Now()
				m, err := blocks[b.name].build(blockFlags{Set: []string{set}})
				if err == nil {
					_, err = hdl.Elaborate(m)
				}
				if err != nil {
					t.Errorf("%s --set %s: the check accepts it but it does not elaborate: %v", b.name, set, err)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Logf("%s --set %s: %v to elaborate", b.name, set, d.Round(time.Millisecond))
				}
			}
		}
	}
}
