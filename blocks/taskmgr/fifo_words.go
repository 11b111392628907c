package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// wordQueueModule is queueModule with each descriptor kept as k words of
// ceil(width/k) bits in a memory of depth*k words (Config.QueueWords): the
// same bits in a memory k times deeper and k times narrower. A block RAM
// has a fixed width (16 bits on an iCE40) and many more rows than a queue
// has entries, so a wide shallow queue wastes most of each RAM; trading
// width for depth divides the RAM count by about k.
//
// Same ports as a lean queueModule (push, data, pop; valid, head,
// pending, full, level).
//
// Write side: the memory takes one word per cycle, so a push writes word
// 0 of data at once and parks the other k-1 words in a staging register
// that writes them in the next k-1 cycles; full is high meanwhile (the
// command port's cmd_ready drops for that queue only). A staging register
// rather than re-reading cmd_desc over k cycles because the command port
// is a plain valid/ready handshake: it accepts in one cycle and promises
// nothing about cmd_desc afterwards. It costs (k-1) words of flip-flops,
// about one descriptor, the same as the bypass register it replaces.
//
// Read side: the head is assembled from k reads. Words 0..k-2 shift into
// a head register as they arrive; word k-1 is the memory's read register
// itself, held there by reading its address again until the pop (as
// queueModule holds its head), so the head is valid in the cycle the last
// word arrives. Reads follow the writes word by word (a word can be read
// in the cycle after it was written), so a descriptor pushed into an
// empty queue is valid k+1 cycles after its push; a queue that stays
// filled delivers one descriptor every k cycles: the pop's cycle already
// reads the next descriptor's first word. Pushes also come at most one
// every k cycles per queue, so the two sides match.
//
// No bypass: a word is read only after it was written, and the memory is
// never read at an address written at the same edge.
func wordQueueModule(depth, width, k int) *hdl.Module {
	w := (width + k - 1) / k
	m := hdl.NewModule(hdl.Name("taskmgr_queue", fmt.Sprintf("%dx%d", depth, width), fmt.Sprintf("k%d", k)))
	push := m.Input("push", hdl.Bool)
	data := m.Input("data", hdl.UInt(width))
	pop := m.Input("pop", hdl.Bool)

	kb := log2(k)
	pw := log2(depth) + kb + 1 // word pointers with a wrap bit
	lw := hdl.ClogWidth(depth + 1)
	level := m.Reg("count", hdl.UInt(lw), 0) // entries pushed (written or being written) and not popped

	// Write side.
	wp := m.Reg("wp", hdl.UInt(pw), 0)       // next word to write
	drain := m.Reg("drain", hdl.UInt(kb), 0) // word of the staged descriptor written this cycle; 0: none
	draining := drain.Ne(hdl.U(kb, 0))
	padded := data.Ext(k * w)
	stage := m.Reg("stage", hdl.UInt((k-1)*w), 0)
	stage.SetNext(hdl.Mux(push, padded.Slice(k*w-1, w), stage.ShrConst(w)))
	stage.SetEnable(push.Or(draining))
	drain.SetNext(hdl.Mux(push, hdl.U(kb, 1), drain.Add(hdl.U(1, 1)).Trunc(kb)))
	drain.SetEnable(push.Or(draining))
	write := push.Or(draining)
	wp.SetNext(wp.Add(write).Trunc(pw))
	mem := m.Memory("words", depth*k, hdl.UInt(w))
	mem.Write(wp.Trunc(pw-1), hdl.Mux(draining, stage.Trunc(w), padded.Trunc(w)), write)

	// Read side.
	rp := m.Reg("rp", hdl.UInt(pw), 0)                     // next word to read
	nreq := m.Reg("nreq", hdl.UInt(hdl.ClogWidth(k+1)), 0) // words of the head read so far
	have := m.Reg("have", hdl.UInt(hdl.ClogWidth(k)), 0)   // words 0..k-2 of the head in the head register
	arrived := m.Reg("arrived", hdl.Bool, 0)               // the memory's read register holds a word read last cycle
	done := m.Reg("done", hdl.Bool, 0)                     // the head is complete and not popped
	lastArrives := arrived.And(have.Eq(hdl.U(have.Width(), uint64(k-1))))
	valid := m.Wire("valid_w", hdl.Bool)
	valid.Set(done.Or(lastArrives))
	read := m.Wire("read", hdl.Bool)
	read.Set(wp.Ne(rp).And(pop.Or(nreq.Lt(hdl.U(nreq.Width(), uint64(k))))))
	rp.SetNext(rp.Add(read).Trunc(pw))
	// Without a new read the read register re-reads the last word read:
	// the head's word k-1 stays on the output.
	word := mem.Read("word", hdl.Mux(read, rp, rp.Sub(hdl.U(1, 1)).Trunc(pw)).Trunc(pw-1))
	arrived.SetNext(read)
	nreq.SetNext(hdl.Mux(pop, hdl.U(nreq.Width(), 0), nreq).Add(read).Trunc(nreq.Width()))
	shift := arrived.And(have.Lt(hdl.U(have.Width(), uint64(k-1))))
	have.SetNext(hdl.Mux(pop, hdl.U(have.Width(), 0), have.Add(shift).Trunc(have.Width())))
	done.SetNext(valid.And(pop.Not()))
	hreg := m.Reg("head_words", hdl.UInt((k-1)*w), 0)
	if k == 2 {
		hreg.SetNext(word)
	} else {
		hreg.SetNext(hdl.Cat(word, hreg.Slice((k-1)*w-1, w)))
	}
	hreg.SetEnable(shift)

	level.SetNext(level.Add(push).Sub(pop).Trunc(lw))
	m.Output("valid", hdl.Bool).Set(valid)
	m.Output("head", hdl.UInt(width)).Set(hdl.Cat(word, hreg).Trunc(width))
	m.Output("pending", hdl.Bool).Set(level.Ne(hdl.U(lw, 0)))
	m.Output("full", hdl.Bool).Set(level.Eq(hdl.U(lw, uint64(depth))).Or(draining))
	m.Output("level", hdl.UInt(lw)).Set(level)
	return m
}
