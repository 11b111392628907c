package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"
)

// A sweep is the cartesian product of configuration values that hwgen
// explore runs: each --set FIELD=V1,V2,... lists the values of one field
// of the NPU configuration.

// sweepField is one field of a sweep and its values, as given.
type sweepField struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// sweep is the fields in the order given; the first varies slowest.
type sweep []sweepField

// npuFields are the JSON names of the NPU configuration's fields, in
// the order 'hwgen config' prints them.
func npuFields() []string {
	var names []string
	t := reflect.TypeFor[npu.Config]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// parseSweep reads the --set lists. An unknown field, a field set twice,
// an empty or repeated value and a value of the wrong type are usage
// errors naming the field and the value; whether a value is allowed
// together with the others is the configuration's Validate, per point.
func parseSweep(sets []string) (sweep, error) {
	fields := npuFields()
	var s sweep
	for _, arg := range sets {
		name, list, ok := strings.Cut(arg, "=")
		if !ok || name == "" || list == "" {
			return nil, usagef("--set %q: want FIELD=V1,V2,... (a field of 'hwgen config' and its values)", arg)
		}
		if !slices.Contains(fields, name) {
			return nil, usagef("--set %s: %s is not a field of the NPU configuration (allowed: %s)", arg, name, strings.Join(fields, ", "))
		}
		if slices.ContainsFunc(s, func(f sweepField) bool { return f.Name == name }) {
			return nil, usagef("--set %s: %s is set twice (allowed: one --set %s=V1,V2,... with all its values)", arg, name, name)
		}
		f := sweepField{Name: name}
		for v := range strings.SplitSeq(list, ",") {
			switch {
			case v == "":
				return nil, usagef("--set %s: an empty value in the list of %s (allowed: values separated by single commas)", arg, name)
			case slices.Contains(f.Values, v):
				return nil, usagef("--set %s: %s = %s is listed twice (allowed: each value once)", arg, name, v)
			}
			if _, err := configure(npu.DefaultConfig, blockFlags{Set: []string{name + "=" + v}}); err != nil {
				return nil, err
			}
			f.Values = append(f.Values, v)
		}
		s = append(s, f)
	}
	return s, nil
}

// points is the product of the values: each point is one FIELD=VALUE per
// field, the last field varying fastest.
func (s sweep) points() [][]string {
	pts := [][]string{nil}
	for _, f := range s {
		var next [][]string
		for _, p := range pts {
			for _, v := range f.Values {
				next = append(next, append(slices.Clip(p), f.Name+"="+v))
			}
		}
		pts = next
	}
	return pts
}

// shown are the indexes of the fields that tell the points apart: those
// with more than one value, or every field when none varies.
func (s sweep) shown() []int {
	var idx, all []int
	for i, f := range s {
		all = append(all, i)
		if len(f.Values) > 1 {
			idx = append(idx, i)
		}
	}
	if idx == nil {
		return all
	}
	return idx
}

// pointValues is a point's values as a JSON object of its fields.
func pointValues(point []string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, kv := range point {
		name, v, _ := strings.Cut(kv, "=")
		m[name] = setValue(v)
	}
	return m
}
