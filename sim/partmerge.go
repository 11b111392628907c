package sim

import (
	"fmt"
	"slices"
	"strings"
)

// sourceCap bounds a supernode made by sources: merging costs no
// evaluation, only the size of the generated functions.
const sourceCap = 1024

// sources merges the classes that read the same things: the same node
// results of other classes, and registers of the same homes (sinkHomes:
// at an edge a sink group marks the union of its registers' readers, so
// readers of any of its registers are woken together). Such classes are
// woken by the same changes, so evaluating them together costs nothing
// more, and saves a dispatch each: the skew stages of an array, each
// enabled by the stage before it, become one supernode per line instead
// of one per stage. Classes with the same sources have no path between
// them (one reading the other would read a result the other does not),
// so merging them keeps the graph acyclic.
func (p *partitioner) sources() {
	b := p.b
	s := b.s
	n := len(p.uf)
	partOf := make([]int32, n)
	for i := range partOf {
		partOf[i] = p.find(int32(i))
	}
	home := b.sinkHomes(partOf, n)
	sinkOf := make(map[int32]int32, len(s.sinks))
	for i, k := range s.sinks {
		if k.kind != sinkWrite {
			sinkOf[k.slot] = int32(i)
		}
	}
	src := make([][]int64, n)
	for i, srcs := range b.nodeSrc {
		c := partOf[i]
		for _, sid := range srcs {
			switch u := s.producer[sid]; {
			case u >= 0 && partOf[u] != c:
				src[c] = append(src[c], int64(sid))
			case u >= 0 || b.isConst[sid]:
			default:
				if k, ok := sinkOf[sid]; ok {
					src[c] = append(src[c], -1-int64(home[k]))
				} else {
					src[c] = append(src[c], int64(sid))
				}
			}
		}
	}
	byKey := map[string]int32{}
	var key strings.Builder
	for c := range n {
		if partOf[c] != int32(c) || len(src[c]) == 0 {
			continue
		}
		key.Reset()
		for _, x := range slices.Compact(slices.Sorted(slices.Values(src[c]))) {
			fmt.Fprintf(&key, "%d,", x)
		}
		k := key.String()
		first, ok := byKey[k]
		if ok && p.size[p.find(first)]+p.size[c] <= sourceCap {
			p.union(first, int32(c))
			continue
		}
		byKey[k] = int32(c)
	}
}
