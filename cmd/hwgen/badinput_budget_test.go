package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// checkBadFast is checkBad with a time bound: a refusal comes before the
// allocation it refuses, so it takes well under a second even on a
// loaded machine.
func checkBadFast(t *testing.T, cases []badCase) {
	t.Helper()
	start := time.Now()
	checkBad(t, cases)
	if per := time.Since(start) / time.Duration(len(cases)); per > 2*time.Second {
		t.Errorf("refusals took %v each; want well under a second", per)
	}
}

// sparseNPY writes a .npy header for shape and dtype, and extends the
// file to hold its data without writing it (a sparse file: the test
// costs no disk).
func sparseNPY(t *testing.T, path, descr string, shape []int, elem int64) string {
	t.Helper()
	npyFile(t, path, descr, false, shape, nil)
	n := elem
	for _, d := range shape {
		n *= int64(d)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()+n); err != nil {
		t.Fatal(err)
	}
	return path
}

// Sizes checked on every input, against one budget: the output tensor,
// the padding, the cycles of a testbench, the values of a .npy file, a
// refusal's own advice followed.
func TestBadSizes(t *testing.T) {
	dir := t.TempDir()
	big := sparseNPY(t, filepath.Join(dir, "big.npy"), "|i1", []int{32768, 32768}, 1) // 1 GiB of int8: 8 GiB as int64
	checkBadFast(t, []badCase{
		{"output never counted", []string{"sim", "--op", "gemm", "--m", "400000", "--k", "1", "--n", "400000"},
			[]string{"gemm 400000×1×400000", "needs about", "output y [400000 400000]", "the limit is", "smaller"}},
		{"padding", []string{"sim", "--op", "conv2d", "--h", "8", "--w", "8", "--pad", "100000"},
			[]string{"pad 100000", "padded input [16 200008 200008]"}},
		{"the refusal's advice followed", []string{"sim", "--m", "8000", "--k", "8000", "--n", "8000", "--set", "ext_addr_width=24", "--max-memory", "8G"},
			[]string{"gemm 8000×8000×8000", "needs about", "(--max-memory)"}},
		{"a small run under a small limit", []string{"sim", "--max-memory", "64M"}, []string{"gemm 64×64×64", "the limit is 67.1 MB (--max-memory)"}},
		{"testbench cycles", []string{"emit", "testbench", "--top", "mac", "--cycles", "100000000", "-o", filepath.Join(dir, "tb")},
			[]string{"a testbench of mac_s8_s32 over 100000000 cycles", "needs about"}},
		{"a valid 1 GiB int8 array", []string{"sim", "--op", "transpose", "--in", "a=" + big, "--set", "ext_addr_width=24", "--set", "rows=64", "--set", "cols=64"},
			[]string{"transpose 32768×32768", "input a [32768 32768]", "needs about"}},
		{"a model's program", []string{"run", "--model", mnistModel, "--max-memory", "60M"}, []string{"mnist-7.onnx on the NPU needs about", "the limit is 62.9 MB (--max-memory)"}},
		{"a model's batches", []string{"run", "--model", mnistModel, "--data", "mnist", "--images", "64", "--batch", "64", "--max-memory", "70M"},
			[]string{"64 copies of its"}},
		{"an unreadable limit", []string{"sim", "--max-memory", "lots"}, []string{"--max-memory", `size "lots" is not allowed`}},
	})
}

// Files are read through a size limit before they are parsed, streams
// included; a wrong shape is refused by the header before the data.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go feed(fifo)                                                                          // an endless writer, as `yes > fifo`
	wide := sparseNPY(t, filepath.Join(dir, "wide.npy"), "<f4", []int{1, 1, 28, 20000}, 4) // 2.2 GB of the wrong shape
	checkBadFast(t, []badCase{
		{"workload /dev/zero", []string{"sim", "--workload", "/dev/zero"}, []string{"--workload", "/dev/zero", "not a regular file", "a workload (JSON)"}},
		{"config /dev/zero", []string{"sim", "--config", "/dev/zero"}, []string{"--config", "a configuration (JSON)"}},
		{"model /dev/zero", []string{"run", "--model", "/dev/zero"}, []string{"--model", "an ONNX model"}},
		{"merge /dev/zero", []string{"merge", "/dev/zero"}, []string{"/dev/zero", "a shard result file"}},
		{"workload FIFO", []string{"sim", "--workload", fifo}, []string{fifo, "not a regular file"}},
		{"input of the wrong shape", []string{"run", "--model", mnistModel, "--input", wide}, []string{"--input " + wide, "shape [1 1 28 20000]", "needs [1 1 28 28]"}},
	})
}

// feed writes zeros to the FIFO until its reader goes away.
func feed(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}

// No output onto an input, however it is spelled; the input is left
// byte for byte as it was.
func TestNoOutputOntoInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	b, err := os.ReadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(model, b, 0o644)
	os.Symlink("m.onnx", filepath.Join(dir, "link.onnx"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	a := npyFile(t, filepath.Join(dir, "y.npy"), "|i1", false, []int{64, 64}, ramp(64*64))
	before := digests(t, model, a)
	checkBad(t, []badCase{
		{"quantize onto its model", []string{"quantize", "--model", model, "-o", model}, []string{"-o " + model, "is the input --model"}},
		{"through a symlink and ..", []string{"quantize", "--model", model, "-o", filepath.Join(dir, "sub", "..", "link.onnx")}, []string{"is the input --model " + model}},
		{"run result onto the model", []string{"run", "--model", model, "--data", "mnist", "--result", model}, []string{"--result", "is the input --model"}},
		{"run timeline onto the model", []string{"run", "--model", model, "--timeline", model}, []string{"--timeline", "is the input --model"}},
		{"sim timeline onto an input", []string{"sim", "--in", "a=" + a, "--timeline", a}, []string{"--timeline " + a, "is the input --in a"}},
		{"sim out folder holding an input", []string{"sim", "--in", "a=" + a, "--out", dir}, []string{"--out " + a, "is the input --in a"}},
		{"two outputs on one file", []string{"sim", "--timeline", filepath.Join(dir, "t.json"), "--vcd", filepath.Join(dir, "t.json")}, []string{"--vcd", "--timeline writes the same file"}},
	})
	if diff := cmp.Diff(before, digests(t, model, a)); diff != "" {
		t.Errorf("inputs changed (-before +after):\n%s", diff)
	}
}

func digests(t *testing.T, paths ...string) map[string][32]byte {
	t.Helper()
	d := map[string][32]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d[filepath.Base(p)] = sha256.Sum256(b)
	}
	return d
}

// Flags out of range or out of place, and the exit status of every
// output that is not a directory: one line, exit 2, before the run.
func TestBadFlagRanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	data := []string{"run", "--model", mnistModel, "--data", "mnist"}
	checkBadFast(t, []badCase{
		{"zero units", []string{"sim", "--op", "conv2d", "--accel", "sparse", "--units", "0"}, []string{"--units 0 is not allowed"}},
		{"negative clock", append(data, "--images", "8", "--batch", "4", "--clock-mhz=-100"), []string{"--clock-mhz -100 is not allowed", "above 0"}},
		{"clock without batch", append(data, "--clock-mhz", "500"), []string{"--clock-mhz applies to --batch only"}},
		{"lockstep without batch", append(data, "--lockstep"), []string{"--lockstep applies to --batch only"}},
		{"batch over the images", append(data, "--images", "10", "--batch", "64"), []string{"--batch 64 is more than the 10 images"}},
		{"seeds on the generic target", []string{"ppa", "--top", "mac", "--seeds", "2"}, []string{"--seeds 2 does not apply to --target generic"}},
		{"emit verilog onto a file", []string{"emit", "verilog", "--top", "mac", "-o", file}, []string{"-o " + file, "not a directory"}},
		{"emit testbench onto a file", []string{"emit", "testbench", "--top", "mac", "-o", file}, []string{"-o " + file, "not a directory"}},
		{"shard out of range", append(data, "--shard", "3/2", "--result", filepath.Join(dir, "r.json")), []string{"--shard", "3/2", "out of range"}},
		{"result not writable", append(data, "--result", "/proc/x.json"), []string{"--result /proc/x.json", "cannot write"}},
	})
}
