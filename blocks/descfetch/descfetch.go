package descfetch

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// CounterBits is the width of the fetched and replaced counters.
const CounterBits = 32

// Queue register numbers on qr_reg.
const (
	RegBase = 0 // line address of ring entry 0
	RegTail = 1 // descriptors written so far (a pointer)
	RegHead = 2 // descriptors committed so far (host restart only)
)

// Build generates the front end for cfg. See the package documentation for
// its ports and behaviour.
func Build(cfg Config) (*hdl.Module, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("descfetch: %w", err)
	}
	b := &builder{cfg: cfg, m: hdl.NewModule(cfg.name())}
	b.build()
	return b.m, nil
}

type builder struct {
	cfg Config
	m   *hdl.Module
}

func (b *builder) build() {
	c, m := b.cfg, b.m
	q, pw, qw, aw, beats := c.Queues, c.PtrWidth(), c.QueueWidth(), c.AddrWidth, c.Beats()

	qrValid := m.Input("qr_valid", hdl.Bool)
	qrQueue := m.Input("qr_queue", hdl.UInt(qw))
	qrReg := m.Input("qr_reg", hdl.UInt(2))
	qrData := m.Input("qr_data", hdl.UInt(c.DataWidth()))
	xReady := m.Input("x_ready", hdl.Bool)
	xRValid := m.Input("x_rvalid", hdl.Bool)
	xRData := m.Input("x_rdata", hdl.UInt(c.LineWidth))
	cmdRoom := m.Input("cmd_room", hdl.UInt(q))
	cmdReady := m.Input("cmd_ready", hdl.Bool)

	// The fetcher: busy from the start of a fetch to its commit; cur is
	// the queue it serves, req and rcv the lines requested and received
	// for it. Its descriptor is always head[cur]: head only moves by its
	// own commit (or by a host write the host must not make meanwhile).
	cw := hdl.ClogWidth(beats + 1)
	busy := m.Reg("busy", hdl.Bool, 0)
	cur := m.Reg("cur", hdl.UInt(qw), 0)
	req := m.Reg("req", hdl.UInt(cw), 0)
	rcv := m.Reg("rcv", hdl.UInt(cw), 0)
	// owed counts responses of abandoned fetches still to come. Between
	// two commits the fetcher only ever moves to a lower-numbered queue,
	// so at most Q-1 fetches of B lines are abandoned before the next
	// commit, and a commit needs every earlier response in.
	ow := hdl.ClogWidth((q-1)*beats + 1)
	owed := m.Reg("owed", hdl.UInt(ow), 0)

	bases := make([]*hdl.Signal, q)
	heads := make([]*hdl.Signal, q)
	tails := make([]*hdl.Signal, q)
	for i := range q {
		bases[i] = m.Reg(fmt.Sprintf("base%d", i), hdl.UInt(aw), 0)
		tails[i] = m.Reg(fmt.Sprintf("tail%d", i), hdl.UInt(pw), 0)
		heads[i] = m.Reg(fmt.Sprintf("head%d", i), hdl.UInt(pw), 0)
	}

	// Candidates and the pick: the lowest-numbered queue with an
	// unfetched descriptor and room for it.
	cand := make([]*hdl.Expr, q)
	for i := range q {
		cand[i] = tails[i].Ne(heads[i]).And(cmdRoom.Bit(i))
	}
	var pick hdl.Value = hdl.U(qw, uint64(q-1))
	for i := q - 2; i >= 0; i-- {
		pick = hdl.Mux(cand[i], hdl.U(qw, uint64(i)), pick)
	}
	some := cand[0]
	for _, e := range cand[1:] {
		some = some.Or(e)
	}
	pickW := m.Wire("pick", hdl.UInt(qw))
	pickW.Set(pick)
	pickValid := m.Wire("pick_valid", hdl.Bool)
	pickValid.Set(some)

	zero := func(w int) hdl.Value { return hdl.U(w, 0) }
	curHead := hdl.Pick(cur, values(heads), zero(pw))
	curBase := hdl.Pick(cur, values(bases), zero(aw))

	// The request port. x_valid and x_addr come from registers only and
	// change only when a request is accepted or the fetch ends, which
	// keeps the hold rule.
	xValid := busy.And(req.Lt(hdl.U(cw, uint64(beats))))
	slot := curHead.Trunc(c.RingBits).Mul(hdl.U(hdl.ClogWidth(beats+1), uint64(beats)))
	xAddr := curBase.Add(slot).Add(req).Resize(aw)
	accept := xValid.And(xReady)
	holding := xValid.And(xReady.Not())

	// Responses pay off owed ones first, then fill the entry in order.
	owing := owed.Ne(zero(ow))
	drain := xRValid.And(owing)
	take := xRValid.And(owing.Not()).And(busy)
	reqNext := req.Add(accept).Trunc(cw)
	rcvNext := rcv.Add(take).Trunc(cw)

	offer := busy.And(rcv.Eq(hdl.U(cw, uint64(beats))))
	commit := offer.And(cmdReady)
	// A commit wins over a replacement in the same cycle: the task manager
	// has taken the descriptor. Abandon only while no request is held.
	abandon := busy.And(commit.Not()).And(holding.Not()).And(pickValid).And(pickW.Lt(cur))
	start := busy.Not().And(pickValid)

	busy.SetNext(hdl.Mux(start, hdl.U(1, 1), hdl.Mux(commit, hdl.U(1, 0), busy)))
	restart := start.Or(abandon)
	cur.SetNext(pickW)
	cur.SetEnable(restart)
	req.SetNext(hdl.Mux(restart, zero(cw), reqNext))
	rcv.SetNext(hdl.Mux(restart, zero(cw), rcvNext))
	owedLeft := owed.Sub(drain).Trunc(ow)
	// On abandon, the lines requested (this cycle's acceptance included)
	// but not received (this cycle's response included) become owed.
	inFlight := reqNext.Sub(rcvNext).Trunc(cw)
	owed.SetNext(hdl.Mux(abandon, owedLeft.Add(inFlight).Resize(ow), owedLeft))

	// The entry: line k keeps descriptor bits [k·LW, (k+1)·LW), the last
	// line only the bits below W. Reset, so cmd_desc is defined (zero)
	// before the first fetch in four-state simulation too.
	lines := make([]hdl.Value, beats)
	for k := range beats {
		w := min(c.LineWidth, c.DescWidth-k*c.LineWidth)
		r := m.Reg(fmt.Sprintf("line%d", k), hdl.UInt(w), 0)
		r.SetNext(xRData.Trunc(w))
		r.SetEnable(take.And(rcv.Eq(hdl.U(cw, uint64(k)))))
		lines[beats-1-k] = r // Cat puts its first argument on top
	}

	// Queue records: host writes at the edge; a commit bumps head[cur].
	wr := func(i, reg int) *hdl.Expr {
		return qrValid.And(qrQueue.Eq(hdl.U(qw, uint64(i)))).And(qrReg.Eq(hdl.U(2, uint64(reg))))
	}
	for i := range q {
		base, tail, head := bases[i], tails[i], heads[i]
		base.SetNext(qrData.Resize(aw))
		base.SetEnable(wr(i, RegBase))
		tail.SetNext(qrData.Resize(pw))
		tail.SetEnable(wr(i, RegTail))
		// A host head write in the cycle of a commit to the same queue is
		// undefined by contract; here the host's value wins.
		mine := commit.And(cur.Eq(hdl.U(qw, uint64(i))))
		host := wr(i, RegHead)
		head.SetNext(hdl.Mux(host, qrData.Resize(pw), head.Add(hdl.U(1, 1)).Trunc(pw)))
		head.SetEnable(host.Or(mine))
	}

	fetched := m.Reg("fetched_count", hdl.UInt(CounterBits), 0)
	fetched.SetNext(fetched.Add(hdl.U(1, 1)).Trunc(CounterBits))
	fetched.SetEnable(commit)
	replaced := m.Reg("replaced_count", hdl.UInt(CounterBits), 0)
	replaced.SetNext(replaced.Add(hdl.U(1, 1)).Trunc(CounterBits))
	replaced.SetEnable(abandon)

	anyWork := busy.Or(owing)
	for i := range q {
		anyWork = anyWork.Or(tails[i].Ne(heads[i]))
	}

	m.Output("qr_head", hdl.UInt(pw)).Set(hdl.Pick(qrQueue, values(heads), zero(pw)))
	m.Output("x_valid", hdl.Bool).Set(xValid)
	m.Output("x_addr", hdl.UInt(aw)).Set(xAddr)
	m.Output("cmd_valid", hdl.Bool).Set(offer)
	m.Output("cmd_queue", hdl.UInt(qw)).Set(cur)
	m.Output("cmd_desc", hdl.UInt(c.DescWidth)).Set(hdl.Cat(lines...))
	m.Output("pending", hdl.Bool).Set(anyWork)
	m.Output("fetched", hdl.UInt(CounterBits)).Set(fetched)
	m.Output("replaced", hdl.UInt(CounterBits)).Set(replaced)
}

// values lists signals as operands, for hdl.Pick.
func values(sigs []*hdl.Signal) []hdl.Value {
	vs := make([]hdl.Value, len(sigs))
	for i, s := range sigs {
		vs[i] = s
	}
	return vs
}
