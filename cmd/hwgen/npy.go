package main

import (
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/sbinet/npyio/npy"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/budget"
	npyread "github.com/hwgen/hwgen/internal/npy"
)

// openNPY opens a .npy array and reads its header only: its shape can
// be compared and its memory counted before its data is read.
func openNPY(path string) (*os.File, npyread.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, npyread.Header{}, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, npyread.Header{}, fmt.Errorf("%s: is a directory", path)
	}
	h, err := npyread.ReadHeader(f)
	if err != nil {
		f.Close()
		return nil, h, fmt.Errorf("%s: %w", path, err)
	}
	if len(h.Shape) == 0 {
		f.Close()
		return nil, h, fmt.Errorf("%s: a scalar, want an array", path)
	}
	return f, h, nil
}

// checkNPYMemory refuses an array whose values (8 bytes each as int64,
// 4 as float32) would not fit the memory budget, before they are read.
func checkNPYMemory(path string, h npyread.Header, per float64) error {
	e := budget.Estimate{Subject: fmt.Sprintf("%s (%v %s)", path, h.Shape, h.Descr)}
	e.Add(fmt.Sprintf("its %d values", h.Len()), float64(h.Len()), per)
	return e.Check()
}

// readNPY reads an integer .npy array (either byte order, C or Fortran
// order) as a tensor of elem (the NPU's element type): every value must
// fit it. check, if not nil, sees the header's shape before the data is
// read.
func readNPY(path string, elem golden.Int, check func(shape []int) error) (*golden.Tensor, error) {
	f, h, err := openNPY(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if check != nil {
		if err := check(h.Shape); err != nil {
			return nil, err
		}
	}
	return npyData(path, f, h, elem)
}

// npyData reads the data of an integer array whose header was read from
// f, after checking its memory.
func npyData(path string, f io.Reader, h npyread.Header, elem golden.Int) (*golden.Tensor, error) {
	if err := checkNPYMemory(path, h, 8); err != nil {
		return nil, err
	}
	vals, err := h.Ints(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, v := range vals {
		if !elem.Fits(v) {
			return nil, fmt.Errorf("%s: element %d = %d does not fit the NPU's %s elements (%d..%d)", path, i, v, elem, elem.Min(), elem.Max())
		}
	}
	return &golden.Tensor{Shape: h.Shape, Data: vals}, nil
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

// readFloatNPY reads a float32 .npy array (an ONNX model's input);
// check, if not nil, sees the header's shape before the data is read.
func readFloatNPY(path string, check func(shape []int) error) (*onnx.Array, error) {
	f, h, err := openNPY(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if check != nil {
		if err := check(h.Shape); err != nil {
			return nil, err
		}
	}
	if err := checkNPYMemory(path, h, 4); err != nil {
		return nil, err
	}
	v, err := h.Float32s(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &onnx.Array{Shape: h.Shape, Data: v}, nil
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
