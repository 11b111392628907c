package sim

// Graph helpers for the orderings: strongly connected components and a
// min-heap.

// sccs numbers the strongly connected components of the graph (Tarjan,
// iterative: register chains can be long).
func sccs(succ [][]int32) (comp []int32, n int32) {
	N := len(succ)
	index := make([]int32, N)
	low := make([]int32, N)
	on := make([]bool, N)
	comp = make([]int32, N)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var next int32
	type frame struct{ v, e int32 }
	for root := range N {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{int32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if int(f.e) < len(succ[v]) {
				w := succ[v][f.e]
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					comp[w] = n
					if w == v {
						break
					}
				}
				n++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
		}
	}
	return comp, n
}

// minHeap is a heap of ids ordered by key[id].
type minHeap struct {
	key []int32
	a   []int32
}

func (h *minHeap) len() int { return len(h.a) }

func (h *minHeap) push(x int32) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.key[h.a[p]] <= h.key[h.a[i]] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.a) && h.key[h.a[l]] < h.key[h.a[m]] {
			m = l
		}
		if r < len(h.a) && h.key[h.a[r]] < h.key[h.a[m]] {
			m = r
		}
		if m == i {
			return top
		}
		h.a[m], h.a[i] = h.a[i], h.a[m]
		i = m
	}
}
