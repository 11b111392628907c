package verilog

import "fmt"

// usage records which bits of each named value are read, so that bits
// computed but never read can be handed to _unused_ok instead of
// triggering Verilator's UNUSEDSIGNAL.
type usage struct {
	order []string
	bits  map[string][]bool
	extra []string // whole expressions to waive (e.g. an unread memory)
}

func newUsage() *usage { return &usage{bits: map[string][]bool{}} }

func (u *usage) track(name string, width int) {
	if _, ok := u.bits[name]; !ok {
		u.order = append(u.order, name)
	}
	u.bits[name] = make([]bool, width)
}

func (u *usage) use(name string, hi, lo int) {
	b, ok := u.bits[name]
	if !ok {
		return // outputs are read outside the module
	}
	for i := lo; i <= hi; i++ {
		b[i] = true
	}
}

func (u *usage) useAll(name string) {
	if b, ok := u.bits[name]; ok {
		u.use(name, len(b)-1, 0)
	}
}

// unusedParts spells every run of unread bits, in declaration order.
func (u *usage) unusedParts() []string {
	var parts []string
	for _, name := range u.order {
		b := u.bits[name]
		if len(b) == 1 {
			if !b[0] {
				parts = append(parts, name)
			}
			continue
		}
		for lo := 0; lo < len(b); {
			if b[lo] {
				lo++
				continue
			}
			hi := lo
			for hi+1 < len(b) && !b[hi+1] {
				hi++
			}
			switch {
			case lo == 0 && hi == len(b)-1:
				parts = append(parts, name)
			case lo == hi:
				parts = append(parts, fmt.Sprintf("%s[%d]", name, lo))
			default:
				parts = append(parts, fmt.Sprintf("%s[%d:%d]", name, hi, lo))
			}
			lo = hi + 1
		}
	}
	return append(parts, u.extra...)
}
