package onnx

import (
	"bytes"
	"os"
	"testing"
)

// Load and Check take any bytes without panicking: a damaged model file
// is an error.
func FuzzLoad(f *testing.F) {
	mnist, err := os.ReadFile("testdata/mnist-7.onnx")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mnist)
	f.Add(mnist[:len(mnist)/2])
	f.Add(mnist[:200]) // the header and the first node
	f.Add([]byte{})
	f.Add([]byte("\x08\x07")) // ir_version 7, no graph
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		m.Check(FloatOps)
	})
}

// LoadTensor takes any bytes without panicking.
func FuzzLoadTensor(f *testing.F) {
	in, err := os.ReadFile("testdata/test_data_set_0/input_0.pb")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(in)
	f.Add(in[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		if tens, err := LoadTensor(bytes.NewReader(b)); err == nil {
			ArrayOf(tens)
		}
	})
}
