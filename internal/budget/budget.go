// Package budget is the one memory budget of every size hwgen is asked
// for: a command estimates, from shapes alone, what a request will
// allocate (its tensors, the simulator's recording, a waveform's disk
// space) and refuses it in one line before anything is allocated when it
// exceeds the limit. A refused request costs a second and a few
// megabytes; an accepted one that does not fit would cost minutes and end
// in the runtime's "out of memory" trace, which names nothing the user
// can change.
//
// The limit is a share of the machine's memory (Default), or what
// --max-memory says (SetLimit). Estimates are deliberately generous: a
// refusal of real work that would have fitted is a nuisance the flag
// fixes; an accepted request that kills the process is worse.
package budget

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Share is the part of the machine's memory the default limit allows:
// the machine is shared (teammates, CI, the OS page cache), and Go's
// collector needs headroom above the live heap.
const Share = 0.5

var limit atomic.Int64 // 0: Default()

// SetLimit sets the limit in bytes (0 restores the default).
func SetLimit(bytes int64) { limit.Store(bytes) }

// Limit is the limit in bytes and where it comes from, for messages.
func Limit() (int64, string) {
	if n := limit.Load(); n > 0 {
		return n, "--max-memory"
	}
	return Default()
}

// Default is Share of the machine's memory: the smaller of MemTotal
// (/proc/meminfo) and a cgroup's memory.max, the limit a container is
// killed at. Without /proc (not Linux) it is 4 GiB.
func Default() (int64, string) {
	total, src := machineMemory()
	if total <= 0 {
		return 4 << 30, "4 GiB: the machine's memory is unknown; --max-memory to change"
	}
	return int64(float64(total) * Share), fmt.Sprintf("half of %s, %s; --max-memory to change", Format(total), src)
}

// machineMemory is the memory the process may use and where that figure
// comes from.
func machineMemory() (int64, string) {
	total := meminfo("MemTotal")
	src := "this machine's memory"
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total <= 0 || n < total) {
			total, src = n, "the cgroup's memory.max"
		}
	}
	return total, src
}

// meminfo reads one field of /proc/meminfo in bytes (0 when absent).
func meminfo(field string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// ParseSize reads a size: a number of bytes with an optional unit (K, M,
// G, T, as powers of 1024, with or without "B" or "iB"), e.g. 512M, 8GiB,
// 1.5G, 1000000.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := 1.0
	if t != "" {
		if i := strings.IndexByte("KMGT", t[len(t)-1]); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v) || v*mult < 1<<20 || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is not allowed: want 1M or more, e.g. 512M, 8G", s)
	}
	return int64(v * mult), nil
}

// Format writes bytes as GB or MB (powers of 1000, as disk and memory
// tools print them).
func Format(b int64) string {
	switch f := float64(b); {
	case f >= 1e12:
		return fmt.Sprintf("%.1f TB", f/1e12)
	case f >= 1e9:
		return fmt.Sprintf("%.1f GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.1f MB", f/1e6)
	}
	return fmt.Sprintf("%d bytes", b)
}

// Item is one part of an estimate.
type Item struct {
	What  string  // e.g. "output y [400000 400000]"
	Bytes float64 // float: products of hostile dims overflow int64
}

// Estimate adds up what a request will allocate.
type Estimate struct {
	Subject string // the request, e.g. "gemm 400000×1×400000"
	Items   []Item
}

// Add adds n things of per bytes each.
func (e *Estimate) Add(what string, n, per float64) {
	e.Items = append(e.Items, Item{What: what, Bytes: n * per})
}

// Total is the estimate in bytes.
func (e *Estimate) Total() float64 {
	t := 0.0
	for _, it := range e.Items {
		t += it.Bytes
	}
	return t
}

// Largest is the item of the most bytes.
func (e *Estimate) Largest() Item {
	var l Item
	for _, it := range e.Items {
		if it.Bytes > l.Bytes {
			l = it
		}
	}
	return l
}

// Error is a request over the limit.
type Error struct {
	Subject string
	Need    float64
	Limit   int64
	Source  string // where the limit comes from
	Largest Item
}

func (e *Error) Error() string {
	fit := e.Need / float64(e.Limit)
	return fmt.Sprintf("%s needs about %s of memory, mostly %s (%s); the limit is %s (%s): it fits when about %s smaller",
		e.Subject, Format(sat(e.Need)), e.Largest.What, Format(sat(e.Largest.Bytes)), Format(e.Limit), e.Source, times(fit))
}

// times writes a factor as "3×" or "2.1e+06×".
func times(f float64) string {
	if f < 1e6 {
		return fmt.Sprintf("%.0f×", math.Ceil(f))
	}
	return fmt.Sprintf("%.1e×", f)
}

// sat is b as an int64, saturated.
func sat(b float64) int64 {
	if b >= math.MaxInt64 || math.IsInf(b, 1) || math.IsNaN(b) {
		return math.MaxInt64
	}
	return int64(b)
}

// Check returns an *Error when the estimate exceeds the limit.
func (e *Estimate) Check() error {
	lim, src := Limit()
	if need := e.Total(); need > float64(lim) || math.IsNaN(need) {
		return &Error{Subject: e.Subject, Need: need, Limit: lim, Source: src, Largest: e.Largest()}
	}
	return nil
}

// Is reports whether err is a budget refusal (an *Error or a *FileError).
func Is(err error) bool {
	var be *Error
	var fe *FileError
	return errors.As(err, &be) || errors.As(err, &fe)
}
