package workload

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// opFields lists, per operation, the shape and option fields it reads;
// any other field set is a mistake (it would be silently ignored). Seed
// and inputs apply to every operation.
var opFields = map[string][]string{
	"gemm":      {"m", "k", "n", "shift", "relu", "zeros"},
	"transpose": {"m", "n", "zeros"},
	"conv2d":    {"c", "h", "w", "cout", "kernel", "stride", "pad", "shift", "relu", "zeros", "spread"},
	"pool":      {"c", "h", "w", "kernel", "stride", "pad", "pool", "zeros"},
	// Eltwise requantizes with a fixed shift (mul: 7, the others: 0).
	"eltwise": {"c", "h", "w", "fn", "relu", "zeros"},
	"reduce":  {"c", "h", "w", "fn", "post", "shift", "relu", "zeros"},
	// The net's convolutions are 3×3 with ReLU; relu applies to its FC.
	"net": {"c", "h", "w", "cout", "n", "shift", "relu", "zeros"},
}

// Fields lists the fields op reads (besides seed and inputs).
func Fields(op string) []string { return opFields[op] }

// setFields lists the fields of w that are set (non-zero), by JSON name.
func (w Workload) setFields() map[string]any {
	set := map[string]any{}
	for name, v := range map[string]int{"m": w.M, "k": w.K, "n": w.N, "c": w.C, "h": w.H, "w": w.W, "cout": w.Cout,
		"kernel": w.Kernel, "stride": w.Stride, "shift": w.Shift, "zeros": w.Zeros} {
		if v != 0 {
			set[name] = v
		}
	}
	if w.Pad != nil {
		set["pad"] = *w.Pad
	}
	if w.Pool != "" {
		set["pool"] = w.Pool
	}
	if w.Fn != "" {
		set["fn"] = w.Fn
	}
	if w.Post != "" {
		set["post"] = w.Post
	}
	if w.Relu {
		set["relu"] = true
	}
	if w.Spread != "" && w.Spread != "all" {
		set["spread"] = w.Spread
	}
	return set
}

// CheckFields names the first field set that w's operation does not
// read; call it before WithDefaults.
func (w Workload) CheckFields() error {
	fields, ok := opFields[w.Op]
	if !ok {
		return nil // Validate names the op
	}
	set := w.setFields()
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !slices.Contains(fields, n) {
			return fmt.Errorf("workload: %s = %v does not apply to %s (it takes %s)", n, set[n], w.Op, strings.Join(fields, ", "))
		}
	}
	return nil
}

// dims points, per tensor, at the field each dimension of its shape
// comes from (nil: a dimension that follows from others); it mirrors
// InputShapes.
func (w *Workload) dims() map[string][]*int {
	switch w.Op {
	case "gemm":
		return map[string][]*int{"a": {&w.M, &w.K}, "b": {&w.K, &w.N}}
	case "transpose":
		return map[string][]*int{"a": {&w.M, &w.N}}
	case "conv2d":
		return map[string][]*int{"x": {&w.C, &w.H, &w.W}, "w": {&w.Cout, &w.C, &w.Kernel, &w.Kernel}}
	case "pool", "reduce":
		return map[string][]*int{"x": {&w.C, &w.H, &w.W}}
	case "eltwise":
		if w.UnaryElt() {
			return map[string][]*int{"a": {&w.C, &w.H, &w.W}}
		}
		return map[string][]*int{"a": {&w.C, &w.H, &w.W}, "b": {&w.C, &w.H, &w.W}}
	case "net":
		return map[string][]*int{"x": {&w.C, &w.H, &w.W}, "w1": {&w.Cout, &w.C, nil, nil}, "w2": {&w.Cout, &w.Cout, nil, nil}, "fc": {nil, &w.N}}
	}
	return nil
}

// ShapesFrom sets every shape field that is still zero from the shapes
// of the tensors given (by name, in name order), so that a workload
// given as files needs no shape flags. A shape that then disagrees is
// InputShapes' to report.
func (w *Workload) ShapesFrom(shapes map[string][]int) {
	dims := w.dims()
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fields, shape := dims[n], shapes[n]
		if len(fields) != len(shape) {
			continue
		}
		for i, f := range fields {
			if f != nil && *f == 0 && shape[i] > 0 {
				*f = shape[i]
			}
		}
	}
}

// MinExtLines is a lower bound of the external-memory lines of rows
// elements the workload's input tensors take (saturating at MaxInt64):
// cheap to compute before any tensor is allocated, so that a workload
// far too large for the memory is refused at once.
func (w Workload) MinExtLines(rows int) int64 {
	var total float64
	for _, shape := range w.InputShapes() {
		n := 1.0
		for _, d := range shape {
			n *= float64(d)
		}
		total += math.Ceil(n / float64(rows))
	}
	if total >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(total)
}
