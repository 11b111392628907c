package descfetch

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/verify/simtest"
)

// response is a read the memory model owes, due in a given cycle.
type response struct {
	due  int
	data *big.Int
}

// bench drives the front end closed-loop on the Go simulator, through a
// recording driver (so a run can replay on Verilator), next to the
// reference model: a host that fills rings and moves tails, an external
// memory of random acceptance and latency, and a task manager of random
// room and readiness.
type bench struct {
	t   *testing.T
	cfg Config
	dr  *simtest.Driver
	rng *rand.Rand
	md  *model

	mem       map[uint64]*big.Int // external memory image: line -> bits
	bases     []uint64            // ring base per queue
	hostTail  []uint64            // per queue: the tail pointer the host wrote last
	written   [][]string          // per queue: descriptors written to the ring, in order (hex)
	committed [][]string          // per queue: descriptors seen at cmd_valid && cmd_ready
	resp      []response          // reads accepted, not yet answered, in order
	lastDue   int
	room      uint64 // cmd_room, sticky so queues have phases with and without room
	quiet     int    // cycles left in which a queue's room is forced off (a head rewrite)
	quietQ    int
	pendingQR *inputs // the second write of a head rewrite, for the next cycle
	cycle     int
	heads     int  // head rewrites done
	burst     bool // the host is writing descriptors
	held      bool // last cycle's request was refused: it must be presented again
	heldAddr  uint64
}

func newBench(t *testing.T, cfg Config, seed uint64) *bench {
	t.Helper()
	m, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{t: t, cfg: cfg, dr: simtest.NewModule(t, m), rng: rand.New(rand.NewPCG(seed, 99)),
		md: newModel(cfg), mem: map[uint64]*big.Int{}, hostTail: make([]uint64, cfg.Queues),
		written: make([][]string, cfg.Queues), committed: make([][]string, cfg.Queues)}
	b.placeRings()
	b.dr.Reset(2)
	return b
}

// placeRings puts the Q rings at random, non-overlapping places of the
// line space, in order with random gaps, starting anywhere, so a ring may
// wrap past the top address.
func (b *bench) placeRings() {
	c := b.cfg
	ring := uint64(1<<c.RingBits) * uint64(c.Beats())
	space := uint64(1) << c.AddrWidth
	spare := space - ring*uint64(c.Queues)
	if ring*uint64(c.Queues) > space {
		b.t.Fatalf("bench config: %d rings of %d lines do not fit %d lines", c.Queues, ring, space)
	}
	at := b.rng.Uint64N(space)
	for range c.Queues {
		gap := b.rng.Uint64N(spare/uint64(c.Queues) + 1)
		spare -= gap
		at = (at + gap) & mask(c.AddrWidth)
		b.bases = append(b.bases, at)
		at = (at + ring) & mask(c.AddrWidth)
	}
}

// randBits is a random number of n bits.
func (b *bench) randBits(n int) *big.Int {
	v := new(big.Int)
	for i := 0; i < n; i += 32 {
		v.Lsh(v, 32).Or(v, new(big.Int).SetUint64(uint64(b.rng.Uint32())))
	}
	return v.And(v, bigMask(n))
}

// junk fills the bits of a pointer or address write above the used ones,
// which the design must ignore.
func (b *bench) junk(v uint64, used int) uint64 {
	return (v | b.rng.Uint64()<<used) & mask(b.cfg.DataWidth())
}

// writeDescriptors puts n new descriptors into queue q's ring at the
// host's tail and returns the write that publishes them.
func (b *bench) writeDescriptors(q, n int) inputs {
	c := b.cfg
	for range n {
		d := b.randBits(c.DescWidth)
		b.written[q] = append(b.written[q], d.Text(16))
		slot := b.hostTail[q] & mask(c.RingBits)
		for k := range c.Beats() {
			line := new(big.Int).Rsh(d, uint(k*c.LineWidth))
			line.And(line, bigMask(c.LineWidth))
			if used := c.DescWidth - k*c.LineWidth; used < c.LineWidth {
				// The last line's bits past the descriptor are not its.
				line.Or(line, new(big.Int).Lsh(b.randBits(c.LineWidth-used), uint(used)))
			}
			b.mem[(b.bases[q]+slot*uint64(c.Beats())+uint64(k))&mask(c.AddrWidth)] = line
		}
		b.hostTail[q] = (b.hostTail[q] + 1) & mask(c.PtrWidth())
	}
	return inputs{qrValid: true, qrQueue: q, qrReg: RegTail, qrData: b.junk(b.hostTail[q], c.PtrWidth())}
}

// host picks this cycle's queue-record port: base writes first, then new
// descriptors, head rewrites of empty idle queues, and writes that must
// be ignored.
func (b *bench) host(feed bool) inputs {
	c := b.cfg
	qw := c.QueueWidth()
	idle := inputs{qrQueue: b.rng.IntN(1 << qw), qrReg: b.rng.IntN(4), qrData: b.rng.Uint64() & mask(c.DataWidth())}
	if b.cycle < c.Queues {
		q := b.cycle
		return inputs{qrValid: true, qrQueue: q, qrReg: RegBase, qrData: b.junk(b.bases[q], c.AddrWidth)}
	}
	if b.pendingQR != nil {
		in := *b.pendingQR
		b.pendingQR = nil
		return in
	}
	if !feed {
		return idle
	}
	// The host writes descriptors in bursts, so rings also run empty.
	if b.rng.Float64() < 0.01 {
		b.burst = !b.burst
	}
	q := b.rng.IntN(c.Queues)
	empty := b.md.tail[q] == b.md.head[q] && !(b.md.busy && b.md.cur == q)
	switch r := b.rng.Float64(); {
	case r < 0.05 && empty && b.quiet == 0:
		// A new program at pointer x of an empty ring: head, then tail,
		// with the task manager's room for q off meanwhile so the half
		// written record is never a candidate.
		x := b.rng.Uint64() & mask(c.PtrWidth())
		b.hostTail[q] = x
		b.quiet, b.quietQ = 2, q
		b.pendingQR = &inputs{qrValid: true, qrQueue: q, qrReg: RegTail, qrData: b.junk(x, c.PtrWidth())}
		b.heads++
		return inputs{qrValid: true, qrQueue: q, qrReg: RegHead, qrData: b.junk(x, c.PtrWidth())}
	case r < 0.15 && b.burst:
		// The host learns the free space from qr_head.
		b.dr.Poke("qr_queue", uint64(q))
		head := b.dr.Peek("qr_head")
		used := (b.hostTail[q] - head) & mask(c.PtrWidth())
		free := 1<<c.RingBits - int(used)
		if free == 0 {
			return idle
		}
		return b.writeDescriptors(q, 1+b.rng.IntN(free))
	case r < 0.2:
		// Reserved register, or a queue past the last: no effect.
		if in := idle; in.qrReg == 3 || in.qrQueue >= c.Queues {
			in.qrValid = true
			return in
		}
	}
	return idle
}

// inputs builds the cycle's inputs, pokes them and returns them.
func (b *bench) inputs(feed bool) inputs {
	c := b.cfg
	in := b.host(feed)
	for q := range c.Queues {
		if b.rng.Float64() < 0.08 {
			b.room ^= 1 << q
		}
	}
	in.cmdRoom = b.room
	if b.quiet > 0 {
		in.cmdRoom &^= 1 << b.quietQ
		b.quiet--
	}
	in.cmdReady = b.rng.Float64() < 0.6
	in.xReady = b.rng.Float64() < 0.6
	in.xRData = b.randBits(c.LineWidth) // junk unless a response is due
	if len(b.resp) > 0 && b.resp[0].due == b.cycle {
		in.xRValid, in.xRData = true, b.resp[0].data
		b.resp = b.resp[1:]
	}

	b.dr.PokeBool("qr_valid", in.qrValid)
	b.dr.Poke("qr_queue", uint64(in.qrQueue))
	b.dr.Poke("qr_reg", uint64(in.qrReg))
	b.dr.Poke("qr_data", in.qrData)
	b.dr.PokeBool("x_ready", in.xReady)
	b.dr.PokeBool("x_rvalid", in.xRValid)
	b.dr.PokeBig("x_rdata", in.xRData)
	b.dr.Poke("cmd_room", in.cmdRoom)
	b.dr.PokeBool("cmd_ready", in.cmdReady)
	return in
}

// peek reads the design's outputs.
func (b *bench) peek() outputs {
	return outputs{
		QrHead:   b.dr.Peek("qr_head"),
		XValid:   b.dr.PeekBool("x_valid"),
		XAddr:    b.dr.Peek("x_addr"),
		CmdValid: b.dr.PeekBool("cmd_valid"),
		CmdQueue: int(b.dr.Peek("cmd_queue")),
		CmdDesc:  b.dr.PeekBig("cmd_desc").Text(16),
		Pending:  b.dr.PeekBool("pending"),
		Fetched:  b.dr.Peek("fetched"),
		Replaced: b.dr.Peek("replaced"),
	}
}

// cycleOnce runs one cycle: inputs, the design's outputs against the
// model's, the memory and the task manager reacting, the clock edge.
func (b *bench) cycleOnce(feed bool) outputs {
	b.t.Helper()
	in := b.inputs(feed)
	got := b.peek()
	if diff := cmp.Diff(b.md.outputs(in), got); diff != "" {
		b.t.Fatalf("cycle %d: outputs differ from the model (-model +design):\n%s", b.cycle, diff)
	}
	// The hold rule, checked apart from the model.
	if b.held && !(got.XValid && got.XAddr == b.heldAddr) {
		b.t.Fatalf("cycle %d: a refused request to line %#x was dropped or moved (x_valid %v, x_addr %#x)", b.cycle, b.heldAddr, got.XValid, got.XAddr)
	}
	b.held, b.heldAddr = got.XValid && !in.xReady, got.XAddr
	if got.CmdValid && in.cmdReady {
		b.committed[got.CmdQueue] = append(b.committed[got.CmdQueue], got.CmdDesc)
	}
	if got.XValid && in.xReady {
		line, ok := b.mem[got.XAddr]
		if !ok {
			b.t.Fatalf("cycle %d: read of line %#x, which holds no descriptor", b.cycle, got.XAddr)
		}
		due := max(b.cycle+1+b.rng.IntN(4), b.lastDue+1)
		b.resp = append(b.resp, response{due, line})
		b.lastDue = due
	}
	if err := b.md.step(in); err != nil {
		b.t.Fatalf("cycle %d: %v", b.cycle, err)
	}
	b.dr.Step(1)
	b.cycle++
	return got
}

// run feeds descriptors for cycles cycles, then drains until nothing is
// pending, and checks the end-to-end result.
func (b *bench) run(cycles int) outputs {
	b.t.Helper()
	for range cycles {
		b.cycleOnce(true)
	}
	var last outputs
	for drain := 0; ; drain++ {
		if drain > 20000 {
			b.t.Fatalf("still pending %d cycles after the host stopped", drain)
		}
		last = b.cycleOnce(false)
		if !last.Pending && len(b.resp) == 0 {
			break
		}
	}
	total := 0
	for q := range b.cfg.Queues {
		if diff := cmp.Diff(b.written[q], b.committed[q]); diff != "" {
			b.t.Errorf("queue %d: committed descriptors differ from those written to its ring (-written +committed):\n%s", q, diff)
		}
		total += len(b.written[q])
	}
	if last.Fetched != uint64(total) {
		b.t.Errorf("fetched = %d, want %d descriptors written", last.Fetched, total)
	}
	b.t.Logf("%d cycles, %d descriptors, %d replaced, %d responses discarded, %d head rewrites",
		b.cycle, total, last.Replaced, b.md.discarded, b.heads)
	return last
}
