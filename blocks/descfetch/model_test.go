package descfetch

import (
	"fmt"
	"math/big"
)

// model is the cycle-level reference of the front end, written from the
// behaviour the package documentation promises rather than from the
// netlist: one fetch at a time with its lines requested and received,
// responses owed by abandoned fetches, and the queue records.
type model struct {
	cfg              Config
	base, tail, head []uint64

	busy     bool // a fetch or offer is in progress
	cur      int  // its queue
	req, rcv int  // its lines requested, received
	lines    []*big.Int
	owed     int // responses of abandoned fetches still to come

	fetched, replaced uint64
	discarded         int // responses of abandoned fetches dropped (not a port)
}

// inputs are one cycle's input ports.
type inputs struct {
	qrValid  bool
	qrQueue  int
	qrReg    int
	qrData   uint64
	xReady   bool
	xRValid  bool
	xRData   *big.Int
	cmdRoom  uint64
	cmdReady bool
}

// outputs are one cycle's output ports, comparable with cmp.Diff (the
// descriptor as hex).
type outputs struct {
	QrHead   uint64
	XValid   bool
	XAddr    uint64
	CmdValid bool
	CmdQueue int
	CmdDesc  string
	Pending  bool
	Fetched  uint64
	Replaced uint64
}

func newModel(cfg Config) *model {
	md := &model{cfg: cfg, base: make([]uint64, cfg.Queues), tail: make([]uint64, cfg.Queues),
		head: make([]uint64, cfg.Queues), lines: make([]*big.Int, cfg.Beats())}
	for k := range md.lines {
		md.lines[k] = new(big.Int)
	}
	return md
}

func mask(bits int) uint64 { return 1<<bits - 1 }

// bigMask is 2^bits - 1.
func bigMask(bits int) *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
}

// pick is the lowest-numbered queue with an unfetched descriptor and room.
func (md *model) pick(room uint64) (int, bool) {
	for q := range md.cfg.Queues {
		if md.tail[q] != md.head[q] && room>>q&1 == 1 {
			return q, true
		}
	}
	return 0, false
}

// desc is the entry: line k holds bits [k·LW, (k+1)·LW).
func (md *model) desc() *big.Int {
	d := new(big.Int)
	for k := len(md.lines) - 1; k >= 0; k-- {
		d.Lsh(d, uint(md.cfg.LineWidth)).Or(d, md.lines[k])
	}
	return d
}

func (md *model) outputs(in inputs) outputs {
	c := md.cfg
	o := outputs{
		XValid:   md.busy && md.req < c.Beats(),
		CmdValid: md.busy && md.rcv == c.Beats(),
		CmdQueue: md.cur,
		CmdDesc:  md.desc().Text(16),
		Pending:  md.busy || md.owed > 0,
		Fetched:  md.fetched,
		Replaced: md.replaced,
	}
	if in.qrQueue < c.Queues {
		o.QrHead = md.head[in.qrQueue]
	}
	slot := md.head[md.cur] & mask(c.RingBits)
	o.XAddr = (md.base[md.cur] + slot*uint64(c.Beats()) + uint64(md.req)) & mask(c.AddrWidth)
	for q := range c.Queues {
		o.Pending = o.Pending || md.tail[q] != md.head[q]
	}
	return o
}

// step clocks the model with the cycle's inputs. It reports a response
// that nobody asked for (a fault of the memory model of the bench) and an
// owed count beyond what the hardware counter holds.
func (md *model) step(in inputs) error {
	c := md.cfg
	o := md.outputs(in)
	commit := o.CmdValid && in.cmdReady
	held := o.XValid && !in.xReady
	p, ok := md.pick(in.cmdRoom)
	abandon := md.busy && !commit && !held && ok && p < md.cur

	if in.xRValid {
		switch {
		case md.owed > 0:
			md.owed--
			md.discarded++
		case md.busy && md.rcv < md.req:
			w := min(c.LineWidth, c.DescWidth-md.rcv*c.LineWidth)
			md.lines[md.rcv] = new(big.Int).And(in.xRData, bigMask(w))
			md.rcv++
		default:
			return fmt.Errorf("response with no request outstanding (busy %v, req %d, rcv %d)", md.busy, md.req, md.rcv)
		}
	}
	if o.XValid && in.xReady {
		md.req++
	}

	if in.qrValid && in.qrQueue < c.Queues {
		switch in.qrReg {
		case RegBase:
			md.base[in.qrQueue] = in.qrData & mask(c.AddrWidth)
		case RegTail:
			md.tail[in.qrQueue] = in.qrData & mask(c.PtrWidth())
		case RegHead:
			md.head[in.qrQueue] = in.qrData & mask(c.PtrWidth())
		}
	}
	switch {
	case commit:
		if !(in.qrValid && in.qrQueue == md.cur && in.qrReg == RegHead) {
			md.head[md.cur] = (md.head[md.cur] + 1) & mask(c.PtrWidth())
		}
		md.busy = false
		md.fetched = (md.fetched + 1) & mask(CounterBits)
	case abandon:
		md.owed += md.req - md.rcv
		md.cur, md.req, md.rcv = p, 0, 0
		md.replaced = (md.replaced + 1) & mask(CounterBits)
	case !md.busy && ok:
		md.busy, md.cur, md.req, md.rcv = true, p, 0, 0
	}
	if bound := (c.Queues - 1) * c.Beats(); md.owed > bound {
		return fmt.Errorf("%d responses owed, more than (queues-1)·beats = %d", md.owed, bound)
	}
	return nil
}
