package isa

import "fmt"

// Mem is an address space of the NPU that a task reads or writes.
type Mem uint8

// The address spaces. Addresses are lines (external memory), state
// addresses (all partitions), weight rows and psum entries (all
// partitions). A task touching some partitions of an address is taken to
// touch all of them.
const (
	MemExt Mem = iota
	MemState
	MemWeight
	MemPsum
	MemSparseEntries // the sparse engine's buffer sets
	MemSparseWeights // its weight memory (every unit's copy)
	MemSparseTable   // its channel table (every unit's copy)
	MemSparseAcc     // its accumulators
	NumMems
)

var memNames = [...]string{"ext", "state", "weight", "psum", "sparse_entries", "sparse_weights", "sparse_table", "sparse_acc"}

func (m Mem) String() string {
	if int(m) < len(memNames) {
		return memNames[m]
	}
	return fmt.Sprintf("mem%d", m)
}

// Span is the address range [Lo, Hi) of one address space.
type Span struct {
	Mem    Mem
	Lo, Hi int
}

// Overlaps reports whether s and o share an address.
func (s Span) Overlaps(o Span) bool { return s.Mem == o.Mem && s.Lo < o.Hi && o.Lo < s.Hi }

func (s Span) String() string { return fmt.Sprintf("%s[%d,%d)", s.Mem, s.Lo, s.Hi) }

// Offsets moves addresses: a task's address in memory m becomes
// address + Offsets[m] (Relocate).
type Offsets [NumMems]int
