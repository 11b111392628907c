package sparserun

import (
	"math/big"

	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler/sparseconv"
)

// op is one step of a unit's program.
type op struct {
	kind  int // opClear, opConv, opReadOut
	pass  int
	chunk int
	load  int // conv: the load that fills its buffer set
	set   int
}

const (
	opClear = iota
	opConv
	opReadOut
)

// load is one chunk written into one buffer set; it may start once the
// conv task that last read that set has finished.
type load struct {
	chunk, set int
	after      int // index in ops of that conv (−1: none)
}

// unitDriver drives one unit: a loader writing its entries, one per
// cycle, into the buffer set the next conv task reads while the other
// set computes, and an executor starting the unit's tasks in order and
// reading its planes out.
type unitDriver struct {
	r     *runner
	i     int
	u     sparseconv.Unit
	ops   []op
	loads []load

	next      int // the op running or to start
	inTask    bool
	startedAt int

	reading       bool
	readAddr, due int // next address to read; the address read last cycle (−1: none)

	ld, at int // the load in progress and its next entry
	planes sparseconv.Planes
	end    int
}

func newUnitDriver(r *runner, i int) *unitDriver {
	u := r.p.Units[i]
	d := &unitDriver{r: r, i: i, u: u, planes: make(sparseconv.Planes, r.p.Passes), end: -1, due: -1}
	d.ops = append(d.ops, op{kind: opClear})
	lastUse := [2]int{-1, -1}
	for t := range r.p.Passes {
		for k := range u.Chunks {
			o := op{kind: opConv, pass: t, chunk: k}
			if len(u.Chunks) == 1 {
				// A single chunk stays in set 0 for every pass.
				if t == 0 {
					d.loads = append(d.loads, load{chunk: 0, set: 0, after: -1})
				}
			} else {
				o.set, o.load = len(d.loads)%2, len(d.loads)
				d.loads = append(d.loads, load{chunk: k, set: o.set, after: lastUse[o.set]})
				lastUse[o.set] = len(d.ops)
			}
			d.ops = append(d.ops, o)
		}
		d.ops = append(d.ops, op{kind: opReadOut, pass: t})
	}
	return d
}

func (d *unitDriver) port(name string) string { return hw.UnitPort(d.i, name) }

func (d *unitDriver) finished() bool { return d.end >= 0 }

// step decides this cycle's inputs of the unit.
func (d *unitDriver) step(weightsIn bool) {
	if d.finished() {
		return
	}
	r := d.r
	r.poke(d.port("go"), 0)
	r.poke(d.port("rd_en"), 0)
	d.stepLoad()
	ready := r.peek(d.port("ready")) != 0
	if d.due >= 0 {
		d.planes[d.ops[d.next].pass][d.due] = r.p.LanesOf(r.peekBig(d.port("rd_data")))
		d.due = -1
	}
	if d.inTask && r.cycle > d.startedAt && ready {
		d.inTask = false
		d.next++
	}
	if d.reading && d.readAddr == len(d.planes[d.ops[d.next].pass]) {
		d.reading = false
		d.next++
	}
	if d.inTask || !ready {
		return
	}
	if d.next == len(d.ops) {
		d.end = r.cycle
		return
	}
	o := d.ops[d.next]
	switch {
	case o.kind == opReadOut:
		if !d.reading {
			d.reading, d.readAddr = true, 0
			d.planes[o.pass] = make([][]int64, d.u.OH*d.u.OW)
		}
		r.poke(d.port("rd_en"), 1)
		r.poke(d.port("rd_clear"), 1)
		r.poke(d.port("rd_addr"), uint64(d.readAddr))
		d.due = d.readAddr
		d.readAddr++
	case o.kind == opClear:
		d.start(r.p.ClearTask(d.i))
	case o.kind == opConv && weightsIn && d.begun(o.load):
		d.start(r.p.ConvTask(d.i, o.pass, o.chunk, o.set))
	}
}

func (d *unitDriver) start(task *big.Int) {
	d.r.poke(d.port("go"), 1)
	d.r.pokeBig(d.port("task_in"), task)
	d.inTask, d.startedAt = true, d.r.cycle
}

// stepLoad writes the next entry of the load in progress.
func (d *unitDriver) stepLoad() {
	r := d.r
	r.poke(d.port("in_wr_en"), 0)
	if d.ld == len(d.loads) {
		return
	}
	l := d.loads[d.ld]
	if l.after >= 0 && d.next <= l.after {
		return // its set is still read
	}
	ch := d.u.Chunks[l.chunk]
	r.poke(d.port("in_wr_en"), 1)
	r.poke(d.port("in_wr_set"), uint64(l.set))
	r.poke(d.port("in_wr_addr"), uint64(d.at))
	r.pokeBig(d.port("in_wr_data"), d.u.Entries[ch.Lo+d.at])
	d.at++
	if ch.Lo+d.at == ch.Hi {
		d.ld, d.at = d.ld+1, 0
	}
}

// begun says load n has written (at the latest at this cycle's edge) its
// first entry, which resets its set's fill level: a conv task offered now
// runs behind the load.
func (d *unitDriver) begun(n int) bool { return d.ld > n || d.ld == n && d.at > 0 }
