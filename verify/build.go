package verify

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verilog"
)

// VerilatorFlags are the semantics the Go simulator matches: two-state,
// everything initialised to zero. -Wall makes any lint warning a build
// failure, so every cross-check is also a lint check. -fno-dfg turns off
// Verilator 5.006's DFG optimizer, which miscompiles some signed
// comparisons of reductions (pinned by the fuzz regression
// verilator_dfg_signed_compare).
var VerilatorFlags = []string{"-Wall", "--x-assign", "0", "--x-initial", "0", "-fno-dfg"}

// memoryAccessFlags let the stimulus harness reach every memory array
// directly, as the root class member top__DOT__inst__DOT__mem (see
// verilatorName). --public-flat-rw makes the arrays public, but only a
// module Verilator inlines has its variables in the root class; it leaves a
// large module with several instances on its own (the harness then does not
// compile), so --flatten inlines every module, however deep and however
// often instanced.
//
// Making only the memory arrays public (a control file of public_flat_rw
// lines) halves the generated C++, but then Verilator 5.006 optimises
// more and got four fuzz designs wrong under every flag set tried
// (BENCHMARKS.md, "Making only the memories public: tried, not kept";
// TestFuzzRegressions verilator_with_only_memories_public).
var memoryAccessFlags = []string{"--public-flat-rw", "--flatten"}

// Build is a compiled Verilator model of a design with the stimulus harness.
type Build struct {
	Binary string // path of the harness executable
	Dir    string // cache directory holding it
	Key    string // content hash of what was built (the directory's name)
	Cached bool   // true when no compilation was needed
}

// CacheDir is where builds are kept by default: $HWGEN_CACHE_DIR, or
// hwgen/verilator in the user cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("HWGEN_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set HWGEN_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "hwgen", "verilator"), nil
}

// buildMu keeps this process to one Verilator build at a time; the file
// lock does the same across processes (go test runs packages in parallel).
var buildMu sync.Mutex

// BuildVerilator compiles d's emitted Verilog and the harness, or returns
// the cached build with the same content hash (Verilog, harness, flags and
// Verilator version). The stimulus is not part of it: the harness reads
// it at run time.
func BuildVerilator(d *hdl.Design, opt BuildOptions) (*Build, error) {
	if _, err := toolchain.Find("verilator"); err != nil {
		return nil, err
	}
	version, err := toolchain.Run("", "verilator", "--version")
	if err != nil {
		return nil, err
	}
	files := verilog.Emit(d)
	inputs, outputs := stim.Ports(d)
	var mems []Memory
	flags := append(append([]string(nil), VerilatorFlags...), opt.flags()...)
	if !opt.NoMemoryAccess {
		mems = Memories(d)
		if err := checkMemoryNames(mems); err != nil {
			return nil, err
		}
		if len(mems) > 0 {
			flags = append(flags, memoryAccessFlags...)
		}
	}
	harness := harnessCPP(d.Top.Name, d.Info[d.Top].UsesClock, inputs, outputs, mems)

	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%q\n", version, harness, flags)
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	key := fmt.Sprintf("%s-%x", d.Top.Name, h.Sum(nil)[:12])
	cache := opt.CacheDir
	if cache == "" {
		if cache, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	final := filepath.Join(cache, key)
	bin := filepath.Join(final, "obj", "Vharness")
	if _, err := os.Stat(bin); err == nil {
		return &Build{Binary: bin, Dir: final, Key: key, Cached: true}, nil
	}

	buildMu.Lock()
	defer buildMu.Unlock()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, fmt.Errorf("create build cache: %w", err)
	}
	unlock, err := lockFile(filepath.Join(cache, "build.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil { // another process built it meanwhile
		return &Build{Binary: bin, Dir: final, Key: key, Cached: true}, nil
	}

	tmp, err := os.MkdirTemp(cache, "."+key+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var vfiles []string
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return nil, err
		}
		if strings.HasSuffix(f.Name, ".v") {
			vfiles = append(vfiles, f.Name)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "harness.cpp"), []byte(harness), 0o644); err != nil {
		return nil, err
	}
	args := []string{"--cc", "--exe", "--build", "-j", "2", "--top-module", d.Top.Name,
		"-Mdir", "obj", "-o", "Vharness"}
	args = append(args, flags...)
	args = append(args, vfiles...)
	args = append(args, "harness.cpp")
	if _, err := toolchain.Run(tmp, "verilator", args...); err != nil {
		return nil, fmt.Errorf("verilator build of %s: %w", d.Top.Name, err)
	}
	if err := os.Rename(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("store build in cache: %w", err)
	}
	return &Build{Binary: bin, Dir: final, Key: key}, nil
}

// BuildOptions tune the Verilator build.
type BuildOptions struct {
	// OptLevel is the C++ optimisation level (default 1: builds are slow on
	// small machines and -O1 runs nearly as fast for test-sized designs);
	// negative means -O0 (the fastest build, for models that run only a
	// few hundred cycles, as fuzz packs do).
	OptLevel int
	// NoTrace leaves out VCD support, for benchmarks.
	NoTrace bool
	// NoMemoryAccess leaves out memory preloading and dumping, and with
	// them the flags that make every memory public and flatten the design
	// (they cost the model speed), for benchmarks.
	NoMemoryAccess bool
	// CacheDir keeps the build; empty means CacheDir().
	CacheDir string
}

func (o BuildOptions) flags() []string {
	lvl := o.OptLevel
	switch {
	case lvl == 0:
		lvl = 1
	case lvl < 0:
		lvl = 0
	}
	f := []string{
		"-MAKEFLAGS", fmt.Sprintf("OPT_FAST=-O%d", lvl),
		"-MAKEFLAGS", fmt.Sprintf("OPT_SLOW=-O%d", min(lvl, 1)),
		"-MAKEFLAGS", fmt.Sprintf("OPT_GLOBAL=-O%d", lvl),
	}
	if lvl >= 2 {
		// g++ 12.2's SLP vectorizer (on from -O2) miscompiles the C++
		// Verilator 5.006 writes for a count of comparisons, such as
		// "(0 == a) + (0 == b)" under width masks: it adds the vector
		// compares' all-ones lanes as they are (four zero bytes counted
		// as 252). TestFuzzRegressions' gcc_slp_count_of_compares pins it.
		f = append(f, "-CFLAGS", "-fno-tree-slp-vectorize")
	}
	if !o.NoTrace {
		f = append(f, "--trace")
	}
	return f
}

// lockFile takes an exclusive advisory lock, waiting for it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open build lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("take build lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
