package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// Machine describes where the measurements ran: CPU model and count,
// memory, Go and the simulators' versions.
func Machine() string {
	cpu, mem := "", ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb int64
			if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
				mem = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
				break
			}
		}
		f.Close()
	}
	parts := []string{fmt.Sprintf("%d CPUs", runtime.NumCPU())}
	if cpu != "" {
		parts[0] += " (" + cpu + ")"
	}
	if mem != "" {
		parts = append(parts, mem)
	}
	parts = append(parts, fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH))
	if out, err := toolchain.Run("", "verilator", "--version"); err == nil {
		parts = append(parts, firstLine(out))
	}
	if out, err := toolchain.Run("", "iverilog", "-V"); err == nil || out != "" {
		parts = append(parts, firstLine(out))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
