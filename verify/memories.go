package verify

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verilog"
)

// Memory is one memory of a design, by its dotted path from the top
// (the same path sim.MemRead takes).
type Memory struct {
	Path  string
	Depth int
	Type  hdl.Type
	Macro bool // emitted as an SRAM macro instance (the array is inside it)
}

// MemWord is one memory word to preload.
type MemWord struct {
	Path  string
	Addr  int
	Value *big.Int
}

// Memories lists every memory of d in hierarchy order.
func Memories(d *hdl.Design) []Memory {
	var out []Memory
	var walk func(m *hdl.Module, prefix string)
	walk = func(m *hdl.Module, prefix string) {
		for _, mem := range m.Mems {
			out = append(out, Memory{Path: prefix + mem.Name, Depth: mem.Depth, Type: mem.Type, Macro: mem.Macro})
		}
		for _, in := range m.Insts {
			walk(in.Module, prefix+in.Name+".")
		}
	}
	walk(d.Top, "")
	return out
}

// verilatorName is the member of the Verilator root class that holds a
// memory under --public-flat-rw and --flatten (memoryAccessFlags).
func verilatorName(top string, m Memory) string {
	name := top + "__DOT__" + strings.ReplaceAll(m.Path, ".", "__DOT__")
	if m.Macro {
		name += "__DOT__" + verilog.MacroMemoryName
	}
	return name
}

// checkMemoryNames rejects paths Verilator would mangle: it escapes "__"
// inside user names, which the harness does not reproduce.
func checkMemoryNames(mems []Memory) error {
	for _, m := range mems {
		for _, part := range strings.Split(m.Path, ".") {
			if strings.Contains(part, "__") {
				return fmt.Errorf("memory %s: names containing \"__\" cannot be reached in the Verilator model; rename it", m.Path)
			}
		}
	}
	return nil
}

// writeMemInit writes preload words as "index addr hexvalue" lines.
func writeMemInit(path string, mems []Memory, words []MemWord) error {
	index := map[string]int{}
	for i, m := range mems {
		index[m.Path] = i
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, mw := range words {
		i, ok := index[mw.Path]
		if !ok {
			f.Close()
			return fmt.Errorf("memory preload: no memory %q (memories: %v)", mw.Path, memPaths(mems))
		}
		m := mems[i]
		if mw.Addr < 0 || mw.Addr >= m.Depth {
			f.Close()
			return fmt.Errorf("memory preload: address %d outside %s (depth %d)", mw.Addr, m.Path, m.Depth)
		}
		if mw.Value.Sign() < 0 && !m.Type.Fits(mw.Value) || mw.Value.Sign() >= 0 && mw.Value.BitLen() > m.Type.Width {
			f.Close()
			return fmt.Errorf("memory preload: value %s does not fit %s (%s)", mw.Value, m.Path, m.Type)
		}
		fmt.Fprintf(w, "%d %d %x\n", i, mw.Addr, m.Type.Bits(mw.Value))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func memPaths(mems []Memory) []string {
	var p []string
	for _, m := range mems {
		p = append(p, m.Path)
	}
	return p
}

// readMemDump reads "index addr hexvalue" lines into per-memory words.
func readMemDump(path string, mems []Memory) ([][]string, error) {
	out := make([][]string, len(mems))
	for i, m := range mems {
		out[i] = make([]string, m.Depth)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var i, addr int
		var hex string
		if _, err := fmt.Sscanf(sc.Text(), "%d %d %s", &i, &addr, &hex); err != nil || i < 0 || i >= len(mems) || addr < 0 || addr >= mems[i].Depth {
			return nil, fmt.Errorf("memory dump: bad line %q", sc.Text())
		}
		out[i][addr] = hex
	}
	return out, sc.Err()
}
