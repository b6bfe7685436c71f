package repl

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// pendingPositions are positions posted by goroutines that must not take
// mu (Syncer callbacks, the local oplog tail); the loop feeds them to the
// topology.
type pendingPositions struct {
	mu                      sync.Mutex
	written, applied, durbl topology.OpTime
	isStart, isDone         bool   // initial sync started / finished (sync_progress.go)
	behind                  string // a sync source found behind us (sync_progress.go)
}

// OnApplied records that the Syncer applied (and wrote) through op.
func (c *Coordinator) OnApplied(op topology.OpTime) {
	c.post(func(p *pendingPositions) { p.applied = maxOp(p.applied, op) })
}

// OnDurable records that this member's oplog is durable through op.
func (c *Coordinator) OnDurable(op topology.OpTime) {
	c.post(func(p *pendingPositions) { p.durbl = maxOp(p.durbl, op) })
}

func (c *Coordinator) post(f func(p *pendingPositions)) {
	c.pending.mu.Lock()
	f(&c.pending)
	c.pending.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// feedPending hands the posted positions to the topology.
func (c *Coordinator) feedPending() {
	c.pending.mu.Lock()
	p := pendingPositions{written: c.pending.written, applied: c.pending.applied, durbl: c.pending.durbl,
		isStart: c.pending.isStart, isDone: c.pending.isDone, behind: c.pending.behind}
	c.pending.written, c.pending.applied, c.pending.durbl = topology.OpTime{}, topology.OpTime{}, topology.OpTime{}
	c.pending.isStart, c.pending.isDone, c.pending.behind = false, false, ""
	c.pending.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return
	}
	now := c.now()
	c.feedInitialSyncLocked(now, p.isStart, p.isDone)
	if p.behind != "" {
		c.applyLocked(c.mu.topo.SourceBehind(now, p.behind))
	}
	if !p.written.IsZero() {
		c.applyLocked(c.mu.topo.LocalWrite(now, p.written))
	}
	if !p.applied.IsZero() {
		c.applyLocked(c.mu.topo.LocalApplied(now, p.applied))
		if c.mu.topo.State() == topology.StateStartup2 && !c.mu.initialSyncing {
			// An empty member that synced without cloning (no Syncer
			// initial sync reported) ends STARTUP2 at its first entry.
			c.applyLocked(c.mu.topo.SetFollowerState(now, topology.StateSecondary))
		}
	}
	if !p.durbl.IsZero() {
		c.mu.durable = maxOp(c.mu.durable, p.durbl)
		c.applyLocked(c.mu.topo.LocalDurable(now, p.durbl))
	}
	c.publishLocked()
	if c.reportNowLocked(&p) {
		c.kickReport()
	}
}

// reportNowLocked reports whether the positions just fed warrant a
// replSetUpdatePosition at once. A secondary's applied position alone does
// not when its durable one trails it: the sync loop reports the batch
// durable within one WAL sync, and that report carries both, so each
// batch costs the source one update instead of two. (The reporter's
// heartbeat-interval timer still sends whatever is pending.)
func (c *Coordinator) reportNowLocked(p *pendingPositions) bool {
	if p.applied.IsZero() || !p.durbl.IsZero() || p.isStart || p.isDone || p.behind != "" {
		return true
	}
	return !c.mu.durable.Less(p.applied)
}

// tailLocal follows this member's oplog: a writable primary's entries are
// reported with LocalWrite, and every entry, once synced, with
// LocalDurable.
func (c *Coordinator) tailLocal() {
	defer c.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-c.stop
		cancel()
	}()
	durKick := make(chan struct{}, 1)
	var durMu sync.Mutex
	var durCand topology.OpTime
	c.wg.Add(1)
	go c.durableLoop(ctx, durKick, &durMu, &durCand)
	t := localTail{after: c.cat.Oplog().Visible()}
	for {
		if err := c.cat.Oplog().Wait(ctx, t.after); err != nil {
			return
		}
		op, ok := c.noteLocal(&t)
		if !ok {
			continue
		}
		durMu.Lock()
		durCand = maxOp(durCand, op)
		durMu.Unlock()
		select {
		case durKick <- struct{}{}:
		default:
		}
	}
}

// localTail is where the follower of the local oplog is.
type localTail struct {
	after bson.Timestamp // the newest visible entry already noted
}

// noteLocal notes the entries made visible since the last call: a
// writable primary posts them as written. It returns the newest entry's
// OpTime, false if there is nothing new.
func (c *Coordinator) noteLocal(t *localTail) (topology.OpTime, bool) {
	v := c.cat.Oplog().Visible()
	if v == t.after {
		return topology.OpTime{}, false
	}
	t.after = v
	op, err := opTimeAt(c.cat, v)
	if err != nil {
		c.log.Error("cannot read own oplog", "err", err)
		return topology.OpTime{}, false
	}
	if c.load().writable {
		c.post(func(p *pendingPositions) { p.written = maxOp(p.written, op) })
	}
	return op, true
}

// durableLoop reports the newest visible entry durable once the WAL is
// synced. A secondary forces the sync (the primary's majority commit point
// waits for its durable position); a primary forces one only while
// write-concern waiters exist, and otherwise waits for the background
// journal flush (storage.journal.commitIntervalMs), as w:1 loads need no
// durable position promptly.
func (c *Coordinator) durableLoop(ctx context.Context, kick chan struct{}, mu *sync.Mutex, cand *topology.OpTime) {
	defer c.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		}
		mu.Lock()
		op := *cand
		mu.Unlock()
		if err := c.syncForDurable(ctx); err != nil {
			return
		}
		c.OnDurable(op)
	}
}

// TopologyCounter is the topologyVersion counter hello reports: it changes
// with this member's state, term and config. The server ends an exhaust
// stream (a secondary's oplog stream) when it changes.
func (c *Coordinator) TopologyCounter() int64 { return c.load().tvCounter }

func (c *Coordinator) kickReport() {
	select {
	case c.report <- struct{}{}:
	default:
	}
}

// reporter sends replSetUpdatePosition (ours and our downstream members')
// to the sync source after progress and every heartbeat interval.
func (c *Coordinator) reporter() {
	defer c.wg.Done()
	for {
		interval := c.reportInterval()
		t := c.clk.NewTimer(interval)
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-c.report:
		case <-t.C():
		}
		t.Stop()
		host, cmd, ok := c.positionReport()
		if !ok {
			continue
		}
		// One report at a time: wait for its answer before the next.
		errc := make(chan error, 1)
		c.opts.Transport.Send(host, cmd, interval*2, func(_ bson.D, err error) { errc <- err })
		select {
		case <-c.stop:
			return
		case err := <-errc:
			c.reportDone(host, err)
		}
	}
}

func (c *Coordinator) reportInterval() time.Duration {
	if s := c.load(); s.hasConfig {
		return s.cfg.HeartbeatInterval()
	}
	return topology.DefaultHeartbeatInterval
}

// positionReport is the replSetUpdatePosition to send and where; false
// when this member has no one to report to.
func (c *Coordinator) positionReport() (string, bson.D, bool) {
	s := c.load()
	if s.syncHost == "" || s.state == topology.StatePrimary || s.selfID < 0 {
		return "", nil, false
	}
	return s.syncHost, c.updatePositionCmd(s), true
}

func (c *Coordinator) reportDone(host string, err error) {
	if err != nil {
		c.log.Debug("replSetUpdatePosition failed", "source", host, "err", err)
	}
}

func (c *Coordinator) updatePositionCmd(s *snapshot) bson.D {
	wall := c.now()
	entries := bson.A{positionDoc(s.selfID, s.cfg.Version, wall,
		position{Written: s.applied, Applied: s.applied, Durable: s.durable})}
	c.mu.Lock()
	for id, p := range c.mu.downstream {
		if s.cfg.MemberIndex(id) >= 0 {
			entries = append(entries, positionDoc(id, s.cfg.Version, wall, p))
		}
	}
	c.mu.Unlock()
	return bson.D{{Key: "replSetUpdatePosition", Value: int32(1)}, {Key: "optimes", Value: entries},
		{Key: "$replData", Value: bson.D{{Key: "term", Value: s.term}, {Key: "configVersion", Value: s.cfg.Version}}}}
}

func positionDoc(id int, cfgver int64, now time.Time, p position) bson.D {
	wall := bson.NewDateTimeFromTime(now)
	return bson.D{
		{Key: "durableOpTime", Value: opTimeDoc(p.Durable)}, {Key: "durableWallTime", Value: wall},
		{Key: "appliedOpTime", Value: opTimeDoc(p.Applied)}, {Key: "appliedWallTime", Value: wall},
		{Key: "writtenOpTime", Value: opTimeDoc(p.Written)}, {Key: "writtenWallTime", Value: wall},
		{Key: "memberId", Value: int32(id)}, {Key: "cfgver", Value: cfgver},
	}
}

// handleUpdatePosition records positions reported by members that sync
// from us (directly or through them) and forwards them upstream.
func (c *Coordinator) handleUpdatePosition(cmd bson.D) (bson.D, error) {
	term := lookupInt(cmd, "term")
	if rd, ok := bsonx.Get(cmd, "$replData"); ok {
		if d, isDoc := rd.(bson.D); isDoc {
			term = lookupInt(d, "term")
		}
	}
	arr, _ := bsonx.Get(cmd, "optimes")
	entries, _ := arr.(bson.A)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return bson.D{}, nil
	}
	self := c.mu.topo.SelfID()
	for _, e := range entries {
		d, _ := e.(bson.D)
		id := int(lookupInt(d, "memberId"))
		if d == nil || id == self {
			continue
		}
		p := parsePosition(d)
		old := c.mu.downstream[id]
		c.mu.downstream[id] = position{Written: maxOp(old.Written, p.Written),
			Applied: maxOp(old.Applied, p.Applied), Durable: maxOp(old.Durable, p.Durable)}
		c.applyLocked(c.mu.topo.UpdatePosition(c.now(), id, term, p.Written, p.Applied, p.Durable))
	}
	c.publishLocked()
	c.notifyLocked()
	c.kickReport()
	return bson.D{}, nil
}

func parsePosition(d bson.D) position {
	get := func(k string) topology.OpTime {
		v, _ := bsonx.Get(d, k)
		return parseOpTime(v)
	}
	p := position{Applied: get("appliedOpTime"), Durable: get("durableOpTime"), Written: get("writtenOpTime")}
	p.Written = maxOp(p.Written, p.Applied)
	return p
}

// syncForDurable makes everything written so far durable: at once when
// someone may be waiting for it, else with the next background flush.
func (c *Coordinator) syncForDurable(ctx context.Context) error {
	eng := c.cat.Engine()
	if c.load().state == topology.StatePrimary && c.waiting.Load() == 0 && !c.opts.Stepped {
		return eng.WaitBackgroundDurable(ctx)
	}
	return eng.SyncNow()
}
