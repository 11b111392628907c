package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/export"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// reference writes the inputs and the reference machine's outputs for
// them into --ref, after checking them against the golden models. The
// export is one image's model, so a model of batch N > 1 gets a reference
// per image, in --ref/image_k: its inputs ([1,...]) and outputs, run
// through the one program compiled for one image.
func (c *quantizeCmd) reference(cfg npu.Config, net *lower.Net, xs map[string]*onnx.Array) error {
	images, dirs := []map[string]*onnx.Array{xs}, []string{c.Ref}
	if n := net.Batch(); n > 1 {
		var err error
		if images, err = net.Images(xs); err != nil {
			return modelErr(c.Model, err)
		}
		dirs = make([]string, n)
		for k := range dirs {
			dirs[k] = filepath.Join(c.Ref, fmt.Sprintf("image_%d", k))
		}
	}
	g, err := net.GraphOf(images[0])
	if err != nil {
		return modelErr(c.Model, err)
	}
	prog, err := compiler.CompileWith(cfg, g, growExt)
	if err != nil {
		return usageError{fmt.Errorf("compile %s for %s: %w", filepath.Base(c.Model), cfg.Name(), err)}
	}
	for k, im := range images {
		if err := c.referenceImage(cfg, net, prog, im, dirs[k]); err != nil {
			if len(images) > 1 {
				return fmt.Errorf("image %d: %w", k, err)
			}
			return err
		}
	}
	return nil
}

// referenceImage runs prog on one image's inputs xs, checks the
// reference machine against the golden models of the image's graph and
// writes the inputs and outputs into dir.
func (c *quantizeCmd) referenceImage(cfg npu.Config, net *lower.Net, prog *compiler.Program, xs map[string]*onnx.Array, dir string) error {
	g, err := net.GraphOf(xs)
	if err != nil {
		return modelErr(c.Model, err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		return err
	}
	in, err := imageInputs(net, prog, xs)
	if err != nil {
		return modelErr(c.Model, err)
	}
	p := *prog
	p.Image = slices.Clone(prog.Image)
	for name, t := range in {
		if err := p.SetInput(name, t); err != nil {
			return err
		}
	}
	got, _, err := compiler.Interpret(&p)
	if err != nil {
		return fmt.Errorf("reference machine: %w", err)
	}
	out := net.Output()
	if err := same(out, "the golden models", ref[out], "the reference machine", got[out]); err != nil {
		return err
	}
	deq, err := net.Dequantize(got[out])
	if err != nil {
		return err
	}
	raw, typ, kind := export.RawOutput(net), golden.S(cfg.ElemWidth), "int8"
	if net.Int32Output() {
		typ, kind = compiler.Int32, "int32"
	}
	type file struct {
		name  string
		write func(path string) error
	}
	var files []file
	var inPaths []string // the inputs' files, for run.js
	for k, in := range net.Inputs() {
		name := "input.npy"
		if len(net.Inputs()) > 1 {
			name = fmt.Sprintf("input_%d.npy", k)
		}
		x := xs[in]
		files = append(files, file{name, func(p string) error { return writeFloatNPY(p, x) }})
		inPaths = append(inPaths, shown(filepath.Join(dir, name)))
	}
	files = append(files,
		file{raw + ".npy", func(p string) error { return writeNPY(p, got[out], typ) }},
		file{out + ".npy", func(p string) error { return writeFloatNPY(p, deq) }})
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	ins := modelInputs(c.Model, inputFiles(c.Input), c.Calib, "", c.Config) // the output names are known now
	if err := checkNoClobber(ins, append([]flagPath{{"-o", c.Output}}, inDir("--ref", dir, names...)...)); err != nil {
		return err
	}
	for _, f := range files {
		if err := f.write(filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("--ref: %w", err)
		}
	}
	on := "the input"
	if len(net.Inputs()) > 1 {
		on = "the inputs " + strings.Join(net.Inputs(), ", ")
	}
	if net.Batch() > 1 {
		on = fmt.Sprintf("image %s of the batch", strings.TrimPrefix(filepath.Base(dir), "image_"))
	}
	fmt.Printf("npu       %s %s %v on %s (the compiler's reference machine, equal to the golden models)\n", kind, out, shortList(got[out].Data, func(v int64) string { return fmt.Sprint(v) }), on)
	fmt.Printf("reference %s: %s\n", shown(dir), strings.Join(names, ", "))
	fmt.Printf("compare   node scripts/ort/run.js %s %s --expect %s=%s\n", shown(c.Output), strings.Join(inPaths, ","),
		raw, shown(filepath.Join(dir, raw+".npy")))
	return nil
}
