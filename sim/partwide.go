package sim

import (
	"fmt"
	"strings"
)

// Multi-word operators in the generated code of the partitioned
// simulator: a mux, a zero extension, a slice and a concatenation are
// written out word by word; the others call back into the interpreter.

// wideNode writes the code of multi-word node j (v and b in scope) and
// reports whether it could: false leaves it to the interpreter.
func (g *gen) wideNode(j int32, ind string) bool {
	n := &g.s.nodes[j]
	nw := nwords(int(n.w))
	words := make([]string, nw)
	switch n.op {
	case wMux:
		for i := range words {
			words[i] = fmt.Sprintf("mux(v[%d], v[%d], v[%d])", n.a, int(n.b)+i, int(n.c)+i)
		}
	case wZext:
		an := nwords(int(n.aw))
		for i := range words {
			words[i] = "0"
			if i < an {
				words[i] = fmt.Sprintf("v[%d]", int(n.a)+i)
			}
		}
	case wSlice:
		words = g.sliceWords(n.a, int(n.aw), int(n.k), int(n.w))
	case wCat:
		words = g.catWords(g.s.cat[n.k:n.k+n.k2], int(n.w))
	default:
		return false
	}
	if top := topMask(int(n.w)); top != ^uint64(0) {
		words[nw-1] = fmt.Sprintf("(%s) & %#x", words[nw-1], top)
	}
	g.p("%s{\n", ind)
	for i, w := range words {
		g.p("%s\tx%d := uint64(%s)\n", ind, i, w)
	}
	if n.mk.hi > n.mk.lo {
		diff := make([]string, nw)
		for i := range diff {
			diff[i] = fmt.Sprintf("(x%d ^ v[%d])", i, int(n.dst)+i)
		}
		g.p("%s\tc := %s\n", ind, strings.Join(diff, " | "))
	}
	for i := range words {
		g.p("%s\tv[%d] = x%d\n", ind, int(n.dst)+i, i)
	}
	if n.mk.hi > n.mk.lo {
		g.p("%s\tif c != 0 {\n", ind)
		g.markRange(n.mk, ind+"\t\t")
		g.p("%s\t}\n", ind)
	}
	g.p("%s}\n", ind)
	return true
}

// sliceWords is bits lo..lo+w-1 of the aw-bit value at off, word by word
// (the top word still to be masked).
func (g *gen) sliceWords(off int32, aw, lo, w int) []string {
	an := nwords(aw)
	out := make([]string, nwords(w))
	for i := range out {
		q, r := lo>>6+i, lo&63
		e := fmt.Sprintf("v[%d]", int(off)+q)
		if r != 0 {
			e = fmt.Sprintf("v[%d]>>%d", int(off)+q, r)
			if q+1 < an {
				e = fmt.Sprintf("%s | v[%d]<<%d", e, int(off)+q+1, 64-r)
			}
		}
		out[i] = e
	}
	return out
}

// catWords is the concatenation of args (most significant first) into a
// w-bit value, word by word: each argument word shifted into the one or
// two result words it overlaps.
func (g *gen) catWords(args []catArg, w int) []string {
	terms := make([][]string, nwords(w))
	pos := w
	for _, a := range args {
		pos -= int(a.w)
		for j := range nwords(int(a.w)) {
			at := pos + 64*j
			q, r := at>>6, at&63
			x := fmt.Sprintf("v[%d]", int(a.off)+j)
			if r == 0 {
				terms[q] = append(terms[q], x)
				continue
			}
			terms[q] = append(terms[q], fmt.Sprintf("%s<<%d", x, r))
			if q+1 < len(terms) {
				terms[q+1] = append(terms[q+1], fmt.Sprintf("%s>>%d", x, 64-r))
			}
		}
	}
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = "0"
		if len(t) > 0 {
			out[i] = strings.Join(t, " | ")
		}
	}
	return out
}
