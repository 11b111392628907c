package sim

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"plugin"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hwgen/hwgen/hdl"
)

// Options select how NewWith builds a simulator.
type Options struct {
	// Compiled generates Go source for the netlist (genPartSource: a
	// function per supernode and per sink group), builds it with the go
	// command as a plugin and runs it in place of the interpreter's
	// settle and edge. The build is cached by content hash, so only the
	// first run of a design pays for it (a few seconds on the 16×16 NPU).
	// It needs the go command of the toolchain this program was built
	// with, and cgo (plugins do). Behaviour is identical to the
	// interpreter's, which takes over while a VCD trace is on.
	Compiled bool
	// Event selects the per-register simulator, the partitioned one's
	// predecessor: every node and every register is scheduled on its
	// own (with Compiled, generated code evaluates fan-out-free trees).
	// It computes the same values, slower on busy designs; it is kept to
	// bisect a mismatch. HWGEN_SIM=event in the environment selects it
	// for every simulator of the program.
	Event bool
	// CacheDir holds the compiled plugins; "" means CacheDir().
	CacheDir string
}

// CacheDir is where compiled simulators are kept: $HWGEN_CACHE_DIR/gosim,
// or hwgen/gosim in the user cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("HWGEN_CACHE_DIR"); d != "" {
		return filepath.Join(d, "gosim"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("sim: no cache directory (set HWGEN_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "hwgen", "gosim"), nil
}

// NewWith compiles d for simulation as New does and, with opt.Compiled,
// also builds (or loads from the cache) its generated Go code.
func NewWith(d *hdl.Design, opt Options) (*Sim, error) {
	mode := modeParts
	if opt.Event || envSim("event") {
		mode = modeLevels
		if opt.Compiled {
			mode = modeTrees
		}
	}
	s, err := newSim(d, mode)
	if err != nil || !opt.Compiled {
		return s, err
	}
	if err := s.bindPlugin(opt); err != nil {
		return nil, err
	}
	return s, nil
}

// Compiled reports whether the simulator runs generated code.
func (s *Sim) Compiled() bool { return s.plug != nil }

// envSim reports whether HWGEN_SIM, a comma-separated list, holds word.
func envSim(word string) bool {
	for _, w := range strings.Split(os.Getenv("HWGEN_SIM"), ",") {
		if strings.TrimSpace(w) == word {
			return true
		}
	}
	return false
}

// pluginCode holds the entry points of generated code bound to one Sim.
type pluginCode struct {
	settle func() uint64 // returns the node evaluations it made
	edge   func() uint64 // returns the sink visits it made; nil: interpreted
}

// The Bind functions of the two kinds of generated code: per-register
// (genSource) and partitioned (genPartSource).
type (
	bindFunc     = func(v, d, sd []uint64, wide func(int32) bool) func() uint64
	bindPartFunc = func(v, b []uint64, z8 []uint8, z16 []uint16, z32 []uint32, wide func(int32) bool, visit func(int32), mems []any) (func() uint64, func() uint64)
)

// plugins caches the Bind function of every plugin this process loaded,
// by content key: Go loads a plugin once per process, wherever it lies.
var plugins sync.Map // key -> plugin.Symbol

// bindPlugin builds (or takes from the cache) the plugin of s's generated
// code and binds it to s, whose settle (and edge) it then runs.
func (s *Sim) bindPlugin(opt Options) error {
	src := genSource
	if s.parts != nil {
		src = genPartSource
	}
	sym, so, err := loadPlugin(s, src(s), opt)
	if err != nil {
		return err
	}
	switch bind := sym.(type) {
	case bindFunc:
		if s.parts == nil {
			s.plug = &pluginCode{settle: bind(s.v, s.dirty, s.sdirty, s.evalWideNode)}
			return nil
		}
	case bindPartFunc:
		if s.parts != nil {
			settle, edge := bind(s.v, s.bits, s.cl.c8, s.cl.c16, s.cl.c32, s.evalWideNode, s.visitSink, s.memWords())
			s.plug = &pluginCode{settle: settle, edge: edge}
			return nil
		}
	}
	return fmt.Errorf("sim: compiled simulator %s: Bind has type %T", so, sym)
}

// memWords is, per memory, the words generated code reads and writes in
// place: for a one-word memory its []uint8, []uint16, []uint32 or
// []uint64; nil for wider ones, which it leaves to the interpreter.
func (s *Sim) memWords() []any {
	out := make([]any, len(s.mems))
	for i, m := range s.mems {
		switch {
		case m.nw != 1:
		case m.d8 != nil:
			out[i] = m.d8
		case m.d16 != nil:
			out[i] = m.d16
		case m.d32 != nil:
			out[i] = m.d32
		default:
			out[i] = m.data
		}
	}
	return out
}

// visitSink visits sink j at an edge out of reset, for generated code.
func (s *Sim) visitSink(j int32) { s.visit(j, &s.sinks[j], false) }

// hostFlags are the build flags of this program that a plugin must share.
func hostFlags() []string {
	var flags []string
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			switch {
			case st.Key == "-race" && st.Value == "true":
				flags = append(flags, "-race")
			case st.Key == "-trimpath" && st.Value == "true":
				flags = append(flags, "-trimpath")
			case st.Key == "-asan" && st.Value == "true":
				flags = append(flags, "-asan")
			case st.Key == "-msan" && st.Value == "true":
				flags = append(flags, "-msan")
			}
		}
	}
	return flags
}

var buildMu sync.Mutex

// loadPlugin returns the Bind symbol of s's generated code src, and the
// plugin's path, building the plugin unless the cache has it.
func loadPlugin(s *Sim, src string, opt Options) (plugin.Symbol, string, error) {
	flags := hostFlags()
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s %q\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, flags)
	h.Write([]byte(src))
	key := fmt.Sprintf("%x", h.Sum(nil)[:12])
	dir := opt.CacheDir
	if dir == "" {
		var err error
		if dir, err = CacheDir(); err != nil {
			return nil, "", err
		}
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s.top)
	final := filepath.Join(dir, name+"-"+key)
	so := filepath.Join(final, "sim.so")
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(so); err != nil {
		// Built even when this process has the same code loaded from
		// elsewhere: the cache directory asked for gets its copy.
		if err := buildPlugin(dir, final, key, src, flags); err != nil {
			return nil, "", err
		}
		pruneCache(dir, final)
	} else {
		now := time.Now()
		os.Chtimes(final, now, now) // recently used: pruned last
	}
	if b, ok := plugins.Load(key); ok {
		return b.(plugin.Symbol), so, nil
	}
	p, err := plugin.Open(so)
	if err != nil {
		return nil, "", fmt.Errorf("sim: load compiled simulator %s: %w", so, err)
	}
	sym, err := p.Lookup("Bind")
	if err != nil {
		return nil, "", fmt.Errorf("sim: compiled simulator %s: %w", so, err)
	}
	plugins.Store(key, sym)
	return sym, so, nil
}

// buildPlugin builds the plugin in a temporary directory next to final
// and renames it into place (a concurrent build of the same key is
// harmless: both produce the same file).
func buildPlugin(dir, final, key, src string, flags []string) error {
	gobin, err := goCommand()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sim: create cache: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The module path names the plugin: it must differ between designs, or
	// a process could not load two of them.
	mod := fmt.Sprintf("module hwgensim_%s\n\ngo 1.21\n", key)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "sim.go"), []byte(src), 0o644); err != nil {
		return err
	}
	args := append([]string{"build", "-buildmode=plugin"}, flags...)
	args = append(args, "-o", "sim.so", ".")
	cmd := exec.Command(gobin, args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sim: go build of the compiled simulator: %w\n%s", err, out)
	}
	if err := os.Rename(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(filepath.Join(final, "sim.so")); serr != nil {
			return fmt.Errorf("sim: store compiled simulator: %w", err)
		}
	}
	return nil
}

// goCommand finds the go command of the toolchain this program was built
// with: a plugin built by any other is refused at load time.
func goCommand() (string, error) {
	var cands []string
	if root := runtime.GOROOT(); root != "" {
		cands = append(cands, filepath.Join(root, "bin", "go"))
	}
	if p, err := exec.LookPath("go"); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		out, err := exec.Command(c, "env", "GOVERSION").Output()
		if err == nil && strings.TrimSpace(string(out)) == runtime.Version() {
			return c, nil
		}
	}
	return "", fmt.Errorf("sim: the compiled simulator needs the go command of %s (this program's toolchain); none found", runtime.Version())
}

// keepPlugins is how many compiled simulators the cache keeps; the least
// recently used go first.
const keepPlugins = 48

// pruneCache removes the least recently used plugins beyond keepPlugins,
// never keep (the one just built).
func pruneCache(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type ent struct {
		path string
		t    time.Time
	}
	var all []ent
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := e.Info(); err == nil {
			all = append(all, ent{filepath.Join(dir, e.Name()), info.ModTime()})
		}
	}
	if len(all) <= keepPlugins {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t.After(all[j].t) })
	for _, e := range all[keepPlugins:] {
		if e.path != keep {
			os.RemoveAll(e.path)
		}
	}
}
