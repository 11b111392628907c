package main

import (
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/sbinet/npyio/npy"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	npyread "github.com/hwgen/hwgen/internal/npy"
)

// readNPY reads an integer .npy array (either byte order, C or Fortran
// order) as a tensor of elem (the NPU's element type): every value must
// fit it.
func readNPY(path string, elem golden.Int) (*golden.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, vals, err := npyread.ReadInts(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(h.Shape) == 0 {
		return nil, fmt.Errorf("%s: a scalar, want an array", path)
	}
	t := golden.New(h.Shape...)
	for i, v := range vals {
		if !elem.Fits(v) {
			return nil, fmt.Errorf("%s: element %d = %d does not fit the NPU's %s elements (%d..%d)", path, i, v, elem, elem.Min(), elem.Max())
		}
		t.Data[i] = v
	}
	return t, nil
}

// writeNPY writes t as an int8 (or, for wider elements, int32) .npy
// array of its shape, atomically.
func writeNPY(path string, t *golden.Tensor, elem golden.Int) error {
	kind := reflect.TypeOf(int8(0))
	if elem.Width > 8 {
		kind = reflect.TypeOf(int32(0))
	}
	return writeFileAtomic(path, func(w io.Writer) error {
		if err := npy.Write(w, nest(t.Shape, t.Data, kind)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// nest builds a nested array value of elem for shape from row-major
// data: npy.Write takes the shape from the array types, and arrays are
// fixed-size, so it writes the data as one block.
func nest[T int64 | float32](shape []int, data []T, elem reflect.Type) any {
	t := elem
	for i := len(shape) - 1; i >= 0; i-- {
		t = reflect.ArrayOf(shape[i], t)
	}
	v := reflect.New(t).Elem()
	var fill func(v reflect.Value, off, stride int)
	fill = func(v reflect.Value, off, stride int) {
		if v.Kind() != reflect.Array {
			v.Set(reflect.ValueOf(data[off]).Convert(elem))
			return
		}
		inner := stride / v.Len()
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), off+i*inner, inner)
		}
	}
	fill(v, 0, len(data))
	return v.Interface()
}

// readFloatNPY reads a float32 .npy array (an ONNX model's input).
func readFloatNPY(path string) (*onnx.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, v, err := npyread.ReadFloat32s(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := onnx.NewArray(h.Shape...)
	copy(a.Data, v)
	return a, nil
}

// writeFloatNPY writes a as a float32 .npy array of its shape, atomically.
func writeFloatNPY(path string, a *onnx.Array) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		if err := npy.Write(w, nest(a.Shape, a.Data, reflect.TypeOf(float32(0)))); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}
