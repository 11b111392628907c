package main

import (
	"os"
	"path/filepath"
)

// An output written onto an input destroys what the user asked to read:
// `hwgen quantize --model m.onnx -o m.onnx` would replace the float model
// with its quantized copy. Every command that writes files lists its
// inputs and the files its outputs will write, and any output that
// resolves to an input (through symlinks, "..", hard links: compared by
// os.SameFile) or to another output is refused before the run.

// flagPath is a file named by a flag.
type flagPath struct{ flag, path string }

// inDir lists the files of an output directory a command writes, under
// the flag that names the directory.
func inDir(flag, dir string, names ...string) []flagPath {
	var fs []flagPath
	if dir == "" {
		return nil
	}
	for _, n := range names {
		fs = append(fs, flagPath{flag, filepath.Join(dir, n)})
	}
	return fs
}

// checkNoClobber refuses an output that is an input or another output.
// Paths not given ("") are skipped; an output that does not exist yet
// cannot be an existing input, but may still be another output.
func checkNoClobber(ins, outs []flagPath) error {
	type seen struct {
		flagPath
		st os.FileInfo
	}
	var inputs []seen
	for _, in := range ins {
		if in.path == "" {
			continue
		}
		if st, err := os.Stat(in.path); err == nil && st.Mode().IsRegular() {
			inputs = append(inputs, seen{in, st})
		}
	}
	written := map[string]string{}
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		if st, err := os.Stat(out.path); err == nil {
			for _, in := range inputs {
				if os.SameFile(st, in.st) {
					return usagef("%s %s: is the input %s %s; writing it would destroy it: give another file", out.flag, out.path, in.flag, in.path)
				}
			}
		}
		key := resolved(out.path)
		if prev, ok := written[key]; ok {
			return usagef("%s %s: %s writes the same file; give each output its own", out.flag, out.path, prev)
		}
		written[key] = out.flag
	}
	return nil
}

// resolved is path made absolute with its directory's symlinks resolved:
// two spellings of one output file give the same string.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// modelInputs are the files a model run reads: the model, its input or
// test input, the calibration set, a folder of inputs, the configuration.
func modelInputs(model string, inputs, calib []string, inputsDir, config string) []flagPath {
	ins := []flagPath{{"--model", model}, {"--config", config}}
	for _, p := range inputs {
		ins = append(ins, flagPath{"--input", p})
	}
	if model != "" {
		ins = append(ins, flagPath{"the test input", testInput(model)})
	}
	for _, p := range calib {
		ins = append(ins, flagPath{"--calib", p})
	}
	if inputsDir != "" {
		entries, _ := os.ReadDir(inputsDir)
		for _, e := range entries {
			ins = append(ins, flagPath{"--inputs", filepath.Join(inputsDir, e.Name())})
		}
	}
	return ins
}

// runOutputs are the files hwgen run may write.
func (c *runCmd) outputs() []flagPath {
	outs := []flagPath{{"--timeline", c.Timeline}, {"--vcd", c.VCD}, {"--result", c.Result}}
	return append(outs, inDir("--out", c.Out, "logits.npy", "logits_int32.npy", "logits_int8.npy")...)
}

// simPaths are the files hwgen sim reads (the --in files of the workload
// w, its file, the configuration) and writes.
func (c *simCmd) paths(in map[string]string) ([]flagPath, []flagPath) {
	ins := []flagPath{{"--workload", c.Workload}, {"--config", c.Config}}
	for name, p := range in {
		ins = append(ins, flagPath{"--in " + name, p})
	}
	outs := []flagPath{{"--timeline", c.Timeline}, {"--vcd", c.VCD}}
	return ins, append(outs, inDir("--out", c.Out, "y.npy", "y.golden.npy")...)
}
