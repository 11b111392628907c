package compiler

// Channel layouts and shared storage: how Concat and PermuteChannels
// cost nothing where they can.
//
// A value's channels lie in the slots of its place: slot s is partition
// s mod part of channel tile ⌊s/part⌋. Most values are dense (channel c
// in slot c), but a layout may permute the channels and leave holes:
//
//   - PermuteChannels is a view: the same place under another channel
//     order. A conv reading it takes the order into its weights (weight
//     row r of a tile is whatever channel its slot holds), a pool,
//     eltwise or reduce works slot by slot and hands the order on, and a
//     depthwise conv keeps it (each output channel in its input's slot),
//     so a channel shuffle before a depthwise conv moves nothing.
//   - Concat places its parts in one storage, each part from a channel
//     tile of its own (a part of 24 channels on 16 partitions takes two
//     tiles, the second half empty): the producers write their tiles of
//     the concatenation directly, and since no two parts share a tile,
//     not even a line of external memory, the storage may live in the
//     state buffer or in external memory alike. A concat whose parts
//     already lie in a storage (DenseNet: every layer's concat extends
//     the one before) extends it.
//
// A copy happens only where a consumer needs the channels in order and
// the layout has them otherwise: an eltwise of two operands in different
// layouts (unless one can be produced in the other's: a conv's output
// and a graph input take any layout, layoutPass), a transpose or GEMM
// operand, a grouped conv on permuted channels when the permutation
// would scatter its groups over more tiles than a copy costs
// (conv_relayout.go), and concat parts that cannot be produced in place
// (graph inputs, parts placed elsewhere). The copy of a permutation is
// a 1×1 conv of 0/1 weights (the NE moves channels across partitions);
// the copy of a part is a DMA or planar copy of its tiles.

// layout says where a value's channels lie: channel c in slot slot[c]
// (nil: slot c), in a place of ⌈slots/part⌉ channel tiles.
type layout struct {
	slot  []int
	slots int
}

func (l *layout) slotOf(c int) int {
	if l.slot == nil {
		return c
	}
	return l.slot[c]
}

func (l *layout) dense() bool { return l.slot == nil }

func (l *layout) equal(m *layout) bool {
	if l.slots != m.slots {
		return false
	}
	for c := range max(len(l.slot), len(m.slot)) {
		if l.slotOf(c) != m.slotOf(c) {
			return false
		}
	}
	return true
}

// chans is the inverse: the channel of every slot, -1 for a hole (nil
// for a dense layout).
func (l *layout) chans() []int {
	if l.dense() {
		return nil
	}
	out := make([]int, l.slots)
	for i := range out {
		out[i] = -1
	}
	for c, s := range l.slot {
		out[s] = c
	}
	return out
}

// lay is v's layout (dense unless the layout pass gave it another).
func (c *ctx) lay(v *Value) *layout {
	if l := c.lays[v]; l != nil {
		return l
	}
	return &layout{slots: v.p}
}

// tileMask is the mask of the partitions of tile t (of part) that hold
// one of v's channels.
func (c *ctx) tileMask(v *Value, t, part int) uint64 {
	l := c.lay(v)
	if l.dense() {
		return laneMask(validLanes(v.p, part, t))
	}
	var m uint64
	for _, s := range l.slot {
		if s/part == t {
			m |= 1 << uint(s%part)
		}
	}
	return m
}

// unionMask is the mask of the partitions that hold a channel in any of
// v's tiles (one mask for a task over all tiles).
func (c *ctx) unionMask(v *Value, part int) uint64 {
	l := c.lay(v)
	if l.dense() {
		return laneMask(min(part, v.p))
	}
	var m uint64
	for _, s := range l.slot {
		m |= 1 << uint(s%part)
	}
	return m
}

// storage is a place several values share: the parts of concats and
// the concats themselves, each from its first channel tile.
type storage struct {
	key     *Value // the value whose live count stands for the storage
	part, f int
	tiles   int
	members map[*Value]int // value → its first tile
	taken   map[int]bool   // tiles a part is produced or copied into
	pl      *place         // allocated when the first member is produced
}

func (s *storage) free(t0, n int) bool {
	for t := t0; t < t0+n; t++ {
		if s.taken[t] {
			return false
		}
	}
	return true
}

func (s *storage) take(t0, n int) {
	for t := t0; t < t0+n; t++ {
		s.taken[t] = true
	}
	s.tiles = max(s.tiles, t0+n)
}

// root follows views (reshapes, transposed GEMM results, permutations)
// to the value that owns the storage.
func (c *ctx) root(v *Value) *Value {
	for {
		switch {
		case v.alias != nil:
			v = v.alias
		case c.viewOf[v] != nil:
			v = c.viewOf[v]
		default:
			return v
		}
	}
}

// key is the value whose live count and place stand for v's storage.
func (c *ctx) key(v *Value) *Value {
	r := c.root(v)
	if s := c.stor[r]; s != nil {
		return s.key
	}
	return r
}

// layoutPass gives every value its layout and plans the shared
// storages: permutations become views, concats storages, and layouts
// flow through the ops that work slot by slot. A binary eltwise whose
// operands differ asks for the other's layout where an operand can take
// it (a conv result or a graph input), and the pass runs again.
func (c *ctx) layoutPass(g *Graph) {
	pref := map[*Value]*layout{}
	for range 4 {
		c.lays, c.viewOf, c.stor, c.copyParts = map[*Value]*layout{}, map[*Value]*Value{}, map[*Value]*storage{}, map[*node][]int{}
		for v, l := range pref {
			c.lays[v] = l
		}
		changed := false
		for _, n := range g.nodes {
			if c.layoutNode(n, pref) {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	c.views = map[*Value][]*Value{}
	for _, v := range g.values {
		if r := c.root(v); r != v {
			c.views[r] = append(c.views[r], v)
		}
	}
}

// layoutNode lays out n's result; it reports whether it asked for a
// new preferred layout (pref) of an operand.
func (c *ctx) layoutNode(n *node, pref map[*Value]*layout) bool {
	in := func(i int) *layout { return c.lay(n.in[i]) }
	keep := func() {
		if l := in(0); !l.dense() && c.partOf(n.in[0]) == c.partOf(n.out) {
			c.lays[n.out] = l
		}
	}
	switch n.kind {
	case opPermute:
		c.viewOf[n.out] = n.in[0]
		l := in(0)
		slot := make([]int, len(n.perm))
		for i, p := range n.perm {
			slot[i] = l.slotOf(p)
		}
		c.lays[n.out] = &layout{slot: slot, slots: l.slots}
	case opView:
		if !n.viewT {
			keep() // a flatten: the channels stay where they are
		}
	case opConcat:
		c.planConcat(n)
	case opConv:
		if pref[n.out] == nil && n.conv.Groups == n.in[0].p && n.out.p == n.in[0].p {
			keep() // depthwise: each output channel in its input's slot
		}
	case opPool, opReduce, opUpsample:
		keep()
	case opEltwise:
		if len(n.in) == 1 {
			keep()
			return false
		}
		a, b := in(0), in(1)
		if vec := n.in[1]; n.channel && vec.producer == nil && c.lays[vec] == nil && !a.dense() {
			c.lays[vec], b = a, a // a graph input vector takes a's layout
		}
		if a.equal(b) {
			keep()
			return false
		}
		if n.channel {
			return false // both copied into channel order (lowerEltwise)
		}
		for _, x := range []struct {
			v *Value
			l *layout
		}{{n.in[1], a}, {n.in[0], b}} {
			if free := x.v.producer == nil || x.v.producer.kind == opConv; free && pref[x.v] == nil && c.stor[x.v] == nil && c.partOf(x.v) == c.partOf(n.out) {
				pref[x.v] = x.l
				return true
			}
		}
	}
	return false
}

// planConcat places concat n's parts: in the storage an earlier concat
// put some of them in (at the same relative tiles), else a new one;
// every part from a channel tile of its own. A part is produced in
// place when it can be (placeable) and its tiles are free, else copied
// in by the concat (copyParts); when a part's tiles in the earlier
// storage hold another value, the concat takes a storage of its own.
func (c *ctx) planConcat(n *node) {
	out := n.out
	part := c.partOf(out)
	offs := make([]int, len(n.in)+1)
	for i, v := range n.in {
		offs[i+1] = offs[i] + ceilDiv(c.layIn(v, part).slots, part)
	}
	st := &storage{key: out, part: part, f: out.f, members: map[*Value]int{}, taken: map[int]bool{}}
	base := 0
	for i, v := range n.in {
		r := c.root(v)
		if s := c.stor[r]; s != nil && c.partOf(v) == part && s.members[r]-offs[i] >= 0 {
			st, base = s, s.members[r]-offs[i]
			break
		}
	}
	// Decide every part first, so a conflict leaves st untouched.
	const there, inPlace, copied = 0, 1, 2
	how := make([]int, len(n.in))
	taken := map[int]bool{}
	for i, v := range n.in {
		at, tiles := base+offs[i], offs[i+1]-offs[i]
		r := c.root(v)
		if c.stor[r] == st && st.members[r] == at {
			continue // placed there by an earlier concat
		}
		for t := at; t < at+tiles; t++ {
			if st.taken[t] || taken[t] {
				c.planConcatAlone(n)
				return
			}
			taken[t] = true
		}
		how[i] = copied
		if c.placeable(v, part) {
			how[i] = inPlace
		}
	}
	for i, v := range n.in {
		at, tiles := base+offs[i], offs[i+1]-offs[i]
		switch how[i] {
		case inPlace:
			st.members[v], c.stor[v] = at, st
		case copied:
			c.copyParts[n] = append(c.copyParts[n], i)
		}
		if how[i] != there {
			st.take(at, tiles)
		}
	}
	st.tiles = max(st.tiles, base+offs[len(n.in)])
	st.members[out], c.stor[out] = base, st
	c.lays[out] = concatLayout(c, n, part)
}

// planConcatAlone places concat n in a storage of its own, producing
// in place the parts that can be and copying the rest.
func (c *ctx) planConcatAlone(n *node) {
	part := c.partOf(n.out)
	st := &storage{key: n.out, part: part, f: n.out.f, members: map[*Value]int{}, taken: map[int]bool{}}
	at := 0
	for i, v := range n.in {
		tiles := ceilDiv(c.layIn(v, part).slots, part)
		if c.placeable(v, part) {
			st.members[v], c.stor[v] = at, st
		} else {
			c.copyParts[n] = append(c.copyParts[n], i)
		}
		st.take(at, tiles)
		at += tiles
	}
	st.members[n.out], c.stor[n.out] = 0, st
	c.lays[n.out] = concatLayout(c, n, part)
}

// concatLayout is the layout of concat n: part i's channels in its own
// tiles, after the tiles of the parts before it.
func concatLayout(c *ctx, n *node, part int) *layout {
	l := &layout{}
	dense := true
	tile := 0
	for _, v := range n.in {
		lv := c.layIn(v, part)
		for ch := 0; ch < v.p; ch++ {
			s := tile*part + lv.slotOf(ch)
			dense = dense && s == len(l.slot)
			l.slot = append(l.slot, s)
		}
		tile += ceilDiv(lv.slots, part)
	}
	l.slots = tile * part
	if dense {
		return &layout{slots: n.out.p} // every part but the last fills its tiles
	}
	return l
}

// placeable reports whether v can be produced straight into a storage
// of part partitions: a result of a conv, pool, eltwise or upsample of its own
// (not a view, not in another storage), in tiles of that size.
func (c *ctx) placeable(v *Value, part int) bool {
	p := v.producer
	if p == nil || v.alias != nil || c.viewOf[v] != nil || c.stor[v] != nil || v.isInt32 || c.partOf(v) != part {
		return false
	}
	switch p.kind {
	case opConv, opPool, opEltwise, opUpsample:
		return true
	}
	return false
}
