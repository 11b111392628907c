package host

import (
	"fmt"
	"math/big"
)

// ringFeeder submits a program through descriptor rings (npu config
// desc_ring_bits > 0): queue q's descriptors go, in program order, into a
// ring of 2^desc_ring_bits descriptors in external memory (after the
// program's own lines), each as Beats lines, and the host rings the
// doorbell by writing the queue record's tail through the qr_* port;
// the NPU's descriptor-fetch DMA reads them from there.
//
// Before the run's first cycle the host writes as many descriptors as the
// rings hold (the rings are empty then: the NPU is idle). In the run, a
// queue's tail is written from its release cycle on, one queue record
// write per cycle; a program longer than its ring is written on as the
// fetch frees entries (qr_head), one line per cycle through the host
// memory port (which takes that cycle from the NPU's requests).
type ringFeeder struct {
	h       *runner
	bits    []bitsOf // per task: its descriptor's lines
	qt      [][]int  // per queue: its tasks in program order
	ptr0    []uint64 // per queue: the ring pointer of this run's first task
	base    []int    // per queue: the ring's first line
	written []int    // per queue: this run's descriptors in the ring
	rung    []int    // per queue: descriptors submitted (tail written)
	slots   int      // descriptors per ring
	mod     uint64   // pointers count modulo 2^(desc_ring_bits+1)
	beats   int      // lines per descriptor

	cur, curLine int // the descriptor being written (-1: none) and its next line
}

// bitsOf is one descriptor cut into external lines.
type bitsOf []*big.Int

// RingBase is the first external line of queue q's descriptor ring for a
// program that uses ext lines of external memory, and the lines one ring
// takes.
func RingBase(lines, beats, ringBits, q int) (base, size int) {
	size = beats << ringBits
	return lines + q*size, size
}

func (h *runner) newRingFeeder(desc []*big.Int, qt [][]int, first []uint64) (*ringFeeder, error) {
	c := h.cfg
	dc := c.DescFetch()
	f := &ringFeeder{h: h, qt: qt, slots: 1 << c.DescRingBits, mod: 2 << c.DescRingBits, beats: dc.Beats(), cur: -1}
	lines := max(h.prog.ExtLines, len(h.prog.Image))
	lw := uint(c.LineWidth())
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), lw), big.NewInt(1))
	for _, d := range desc {
		var b bitsOf
		for k := 0; k < f.beats; k++ {
			b = append(b, new(big.Int).And(new(big.Int).Rsh(d, uint(k)*lw), mask))
		}
		f.bits = append(f.bits, b)
	}
	for q := range qt {
		base, size := RingBase(lines, f.beats, c.DescRingBits, q)
		if end := base + size; end > 1<<c.ExtAddrWidth {
			return nil, fmt.Errorf("host: the descriptor ring of queue %d ends at external line %d, after the program's %d lines; ext_addr_width = %d allows %d (use a smaller desc_ring_bits or a wider ext_addr_width)",
				q, end, lines, c.ExtAddrWidth, 1<<c.ExtAddrWidth)
		}
		f.base = append(f.base, base)
		f.ptr0 = append(f.ptr0, first[q]%f.mod)
	}
	f.written = make([]int, len(qt))
	f.rung = make([]int, len(qt))
	return f, nil
}

// line is the external line of pointer value p's beat k in queue q's ring.
func (f *ringFeeder) line(q int, p uint64, k int) int {
	return f.base[q] + int(p%uint64(f.slots))*f.beats + k
}

// preload writes the rings' first descriptors and every queue's base,
// before the run (one line or record per cycle).
func (f *ringFeeder) preload() error {
	for q := range f.qt {
		if err := f.record(q, 0, uint64(f.base[q])); err != nil {
			return err
		}
		f.h.rec.Step(1)
	}
	if err := f.h.poke("qr_valid", 0); err != nil {
		return err
	}
	for q, tasks := range f.qt {
		for f.written[q] < min(len(tasks), f.slots) {
			t := tasks[f.written[q]]
			for k, l := range f.bits[t] {
				if err := f.h.writeBits(f.line(q, f.ptr0[q]+uint64(f.written[q]), k), l); err != nil {
					return err
				}
				f.h.rec.Step(1)
			}
			f.written[q]++
		}
	}
	return f.h.poke("h_wr_valid", 0)
}

// record pokes a queue-record write (reg 0 base, 1 tail) for this cycle.
func (f *ringFeeder) record(q, reg int, v uint64) error {
	for _, p := range []struct {
		n string
		v uint64
	}{{"qr_valid", 1}, {"qr_queue", uint64(q)}, {"qr_reg", uint64(reg)}, {"qr_data", v}} {
		if err := f.h.poke(p.n, p.v); err != nil {
			return err
		}
	}
	return nil
}

// submitted counts the descriptors whose doorbell has been rung.
func (f *ringFeeder) submitted() int {
	n := 0
	for _, r := range f.rung {
		n += r
	}
	return n
}

// cycle sets this cycle's host pokes: the next line of a descriptor
// being written (or the start of another, where a ring has room) and
// one doorbell. The state advances as if the cycle's edge happened:
// the caller steps the simulation after sampling.
func (f *ringFeeder) cycle(cycle int) error {
	h := f.h
	if f.cur < 0 {
		if err := f.pickNext(); err != nil {
			return err
		}
	}
	if f.cur >= 0 {
		q := h.prog.Tasks[f.cur].Queue
		if err := h.writeBits(f.line(q, f.ptr0[q]+uint64(f.written[q]), f.curLine), f.bits[f.cur][f.curLine]); err != nil {
			return err
		}
		if f.curLine++; f.curLine == f.beats {
			f.written[q]++
			f.cur = -1
		}
	} else if err := h.poke("h_wr_valid", 0); err != nil {
		return err
	}
	for q := range f.qt {
		if f.rung[q] < f.written[q] && cycle >= h.opt.Release[q] {
			// Lines written this cycle commit at this edge; the fetch
			// reads them from the next cycle on, as the new tail allows.
			f.rung[q] = f.written[q]
			return f.record(q, 1, (f.ptr0[q]+uint64(f.rung[q]))%f.mod)
		}
	}
	return h.poke("qr_valid", 0)
}

// pickNext starts the earliest unwritten task of a queue whose ring has
// room, reading its head through qr_head.
func (f *ringFeeder) pickNext() error {
	h := f.h
	best := -1
	for q, tasks := range f.qt {
		if f.written[q] == len(tasks) {
			continue
		}
		if err := h.poke("qr_queue", uint64(q)); err != nil {
			return err
		}
		head, err := h.peek("qr_head")
		if err != nil {
			return err
		}
		used := (f.ptr0[q] + uint64(f.written[q]) + f.mod - head) % f.mod
		if used < uint64(f.slots) && (best < 0 || tasks[f.written[q]] < best) {
			best = tasks[f.written[q]]
		}
	}
	f.cur, f.curLine = best, 0
	return nil
}

// writeBits pokes a host memory write of one line for this cycle.
func (h *runner) writeBits(addr int, l *big.Int) error {
	if err := h.poke("h_wr_valid", 1); err != nil {
		return err
	}
	if err := h.poke("h_wr_addr", uint64(addr)); err != nil {
		return err
	}
	return h.rec.PokeBig("h_wr_data", l)
}
