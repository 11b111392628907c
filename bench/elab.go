package bench

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verilog"
)

// ElabRow is the cost of turning one NPU configuration into Verilog.
type ElabRow struct {
	Rows, Cols int
	Err        error         // the configuration is refused (or fails to build)
	Build      time.Duration // npu.Build: the DSL program constructing the netlist
	Elaborate  time.Duration // hdl.Elaborate: checks, widths, module dedup
	Emit       time.Duration // verilog.Emit
	Modules    int
	Bytes      int    // emitted Verilog
	PeakHeap   uint64 // highest live heap seen while building (sampled every millisecond)
	MaxRSS     uint64 // the process's peak resident set so far (getrusage), bytes
	Allocated  uint64 // bytes allocated in all
}

// Total is build + elaborate + emit.
func (r ElabRow) Total() time.Duration { return r.Build + r.Elaborate + r.Emit }

// Elab builds, elaborates and emits the rows × cols NPU of NPUOf, repeats times, and reports the median times
// and the memory of the first run. Measure the sizes in increasing order
// in a fresh process: MaxRSS is the process's peak so far.
func Elab(rows, cols, repeats int) ElabRow {
	row := ElabRow{Rows: rows, Cols: cols}
	c := NPUOf(rows, cols)
	if err := c.Validate(); err != nil {
		row.Err = err
		return row
	}
	var builds, elabs, emits []time.Duration
	for i := 0; i < max(repeats, 1); i++ {
		runtime.GC()
		var ms0 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		stop := samplePeakHeap()
		t0 := time.Now()
		m, err := npu.Build(c)
		if err != nil {
			stop()
			row.Err = err
			return row
		}
		t1 := time.Now()
		d, err := hdl.Elaborate(m)
		if err != nil {
			stop()
			row.Err = err
			return row
		}
		t2 := time.Now()
		files := verilog.Emit(d)
		t3 := time.Now()
		peak := stop()
		builds, elabs, emits = append(builds, t1.Sub(t0)), append(elabs, t2.Sub(t1)), append(emits, t3.Sub(t2))
		if i == 0 {
			var ms1 runtime.MemStats
			runtime.ReadMemStats(&ms1)
			row.Allocated = ms1.TotalAlloc - ms0.TotalAlloc
			row.PeakHeap = peak
			row.Modules = len(d.Modules)
			for _, f := range files {
				row.Bytes += len(f.Data)
			}
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				row.MaxRSS = uint64(ru.Maxrss) * 1024 // kilobytes on Linux
			}
		}
		runtime.KeepAlive(files)
	}
	row.Build, row.Elaborate, row.Emit = median(builds), median(elabs), median(emits)
	return row
}

// samplePeakHeap samples the live heap every millisecond until the
// returned function is called, which returns the highest value seen.
func samplePeakHeap() func() uint64 {
	const name = "/memory/classes/heap/objects:bytes"
	s := []metrics.Sample{{Name: name}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	read := func() {
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		read()
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// MarkdownElab renders elaboration measurements as a table.
func MarkdownElab(rows []ElabRow) string {
	var b strings.Builder
	b.WriteString("| NPU array | build (npu.Build) | elaborate | emit | total | modules | Verilog | peak live heap | peak RSS of the process | allocated |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		if r.Err != nil {
			fmt.Fprintf(&b, "| %d×%d | refused: %v | | | | | | | | |\n", r.Rows, r.Cols, r.Err)
			continue
		}
		fmt.Fprintf(&b, "| %d×%d | %.2f s | %.2f s | %.2f s | **%.2f s** | %d | %s | %s | %s | %s |\n", r.Rows, r.Cols,
			r.Build.Seconds(), r.Elaborate.Seconds(), r.Emit.Seconds(), r.Total().Seconds(), r.Modules,
			bytesOf(uint64(r.Bytes)), bytesOf(r.PeakHeap), bytesOf(r.MaxRSS), bytesOf(r.Allocated))
	}
	return b.String()
}

func bytesOf(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
