package repl

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// peer is what the I/O layer knows of another member, for replSetGetStatus.
// Peers live in Coordinator.mu.peers and are guarded by c.mu.
type peer struct {
	inflight          bool
	lastHeartbeat     time.Time // last heartbeat answer received
	lastHeartbeatRecv time.Time // last heartbeat request received from it
	reply             topology.HeartbeatReply
	health            bool
	upSince           time.Time
	lastErr           string
}

// peerLocked returns member id's peer record, creating it. REQUIRES: c.mu.
func (c *Coordinator) peerLocked(id int) *peer {
	p := c.mu.peers[id]
	if p == nil {
		p = &peer{reply: topology.HeartbeatReply{State: topology.StateUnknown, SyncSource: -1}}
		c.mu.peers[id] = p
	}
	return p
}

// sendHeartbeatsLocked sends replSetHeartbeat to every target that has no
// heartbeat in flight. REQUIRES: c.mu.
func (c *Coordinator) sendHeartbeatsLocked(targets []int) {
	cfg := c.mu.topo.Config()
	req := bson.D{
		{Key: "replSetHeartbeat", Value: cfg.Name},
		{Key: "configVersion", Value: cfg.Version}, {Key: "configTerm", Value: cfg.Term},
		{Key: "hbv", Value: int32(1)}, {Key: "from", Value: c.opts.Self},
		{Key: "fromId", Value: int32(c.mu.topo.SelfID())}, {Key: "term", Value: c.mu.topo.Term()},
	}
	if ids := c.mu.topo.DirectReaders(); ids != nil {
		req = append(req, bson.E{Key: directReadersField, Value: int32s(ids)})
	}
	timeout := cfg.HeartbeatInterval() * 2
	for _, id := range targets {
		i := cfg.MemberIndex(id)
		p := c.peerLocked(id)
		if i < 0 || p.inflight {
			continue
		}
		p.inflight = true
		c.sendHeartbeat(id, cfg.Members[i].Host, req, timeout, true)
	}
}

// sendHeartbeat sends req to member id; a failure within timeout is
// retried once when retry is set. It needs no lock.
func (c *Coordinator) sendHeartbeat(id int, host string, req bson.D, timeout time.Duration, retry bool) {
	start := c.now()
	c.opts.Transport.Send(host, req, timeout, func(reply bson.D, err error) {
		elapsed := c.now().Sub(start)
		if err != nil && retry && elapsed < timeout {
			// One immediate retry, as MongoDB: a pooled connection may be
			// stale after the peer restarted.
			c.sendHeartbeat(id, host, req, timeout-elapsed, false)
			return
		}
		c.heartbeatDone(id, host, reply, err, elapsed)
	})
}

// heartbeatDone hands a heartbeat's answer (or failure) to the topology.
func (c *Coordinator) heartbeatDone(id int, host string, reply bson.D, err error, rtt time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.peerLocked(id)
	p.inflight = false
	if err != nil {
		if p.health {
			c.log.Info("heartbeat failed", "member", host, "err", err)
		}
		p.health, p.lastErr = false, err.Error()
		c.eventLocked(func(now time.Time) []topology.Action { return c.mu.topo.HeartbeatFailed(now, id) })
		return
	}
	r := parseHeartbeatReply(reply, id, rtt)
	if !p.health {
		p.upSince = c.now()
	}
	p.health, p.lastErr, p.lastHeartbeat, p.reply = true, "", c.now(), r
	if cfgDoc, ok := bsonx.Get(reply, "config"); ok {
		c.learnConfigLocked(cfgDoc, host)
	}
	c.eventLocked(func(now time.Time) []topology.Action { return c.mu.topo.HeartbeatResponse(now, r) })
	c.notifyLocked() // other members' positions count for w:N
}

func parseHeartbeatReply(d bson.D, id int, rtt time.Duration) topology.HeartbeatReply {
	r := topology.HeartbeatReply{From: id, RTT: rtt, SyncSource: -1, State: topology.StateUnknown}
	for _, f := range d {
		switch f.Key {
		case "state":
			r.State = topology.MemberState(asInt(f.Value))
		case "term":
			r.Term = asInt(f.Value)
		case "configVersion":
			r.ConfigVersion = asInt(f.Value)
		case "configTerm":
			r.ConfigTerm = asInt(f.Value)
		case "opTime":
			r.Applied = parseOpTime(f.Value)
		case "durableOpTime":
			r.Durable = parseOpTime(f.Value)
		case "writtenOpTime":
			r.Written = parseOpTime(f.Value)
		case "lastOpCommitted":
			r.CommitPoint = parseOpTime(f.Value)
		case "syncSourceId":
			r.SyncSource = int(asInt(f.Value))
		case "electionTime":
			r.ElectionTime = topology.OpTime{TS: tsOf(f.Value)}
		case directReadersField:
			r.DirectReaders = parseIDs(f.Value)
		}
	}
	return r
}

func tsOf(v any) bson.Timestamp {
	ts, _ := v.(bson.Timestamp)
	return ts
}

// handleHeartbeat answers replSetHeartbeat. A sender with a newer config
// makes this member fetch it (this is how members without a config learn
// theirs); a sender with an older one gets ours in the reply.
func (c *Coordinator) handleHeartbeat(cmd bson.D) (bson.D, error) {
	setName, _ := cmd[0].Value.(string)
	from, _ := lookupString(cmd, "from")
	their := topology.Config{Version: lookupInt(cmd, "configVersion"), Term: lookupInt(cmd, "configTerm")}
	c.mu.Lock()
	defer c.mu.Unlock()
	if setName != c.opts.SetName {
		return nil, mongoerr.New(codeInconsistentReplicaSetNames,
			"Our set name of %s does not match name %s reported by remote node", c.opts.SetName, setName)
	}
	if c.mu.topo == nil {
		if their.Version > 0 && from != "" {
			c.fetchConfigLocked(from)
		}
		return nil, mongoerr.New(mongoerr.NotYetInitialized, "Received heartbeat while not yet initialized")
	}
	cfg := c.mu.topo.Config()
	if id := int(lookupInt(cmd, "fromId")); cfg.MemberIndex(id) >= 0 {
		c.peerLocked(id).lastHeartbeatRecv = c.now()
	}
	if their.Newer(cfg) && from != "" {
		c.fetchConfigLocked(from)
	}
	if v, ok := bsonx.Get(cmd, directReadersField); ok {
		id, ids := int(lookupInt(cmd, "fromId")), parseIDs(v)
		c.eventLocked(func(now time.Time) []topology.Action { return c.mu.topo.LearnDirectReaders(now, id, ids) })
	}
	reply := c.heartbeatReplyLocked()
	if cfg.Newer(their) {
		reply = append(reply, bson.E{Key: "config", Value: configDoc(cfg)})
	}
	return reply, nil
}

// heartbeatReplyLocked is our answer to a heartbeat. REQUIRES: c.mu, a
// topology.
func (c *Coordinator) heartbeatReplyLocked() bson.D {
	hb := c.mu.topo.Heartbeat()
	now := bson.NewDateTimeFromTime(c.now())
	d := bson.D{
		{Key: "set", Value: c.mu.topo.Config().Name},
		{Key: "state", Value: int32(hb.State)},
		{Key: "term", Value: hb.Term},
		{Key: "configVersion", Value: int32(hb.ConfigVersion)},
		{Key: "configTerm", Value: int32(hb.ConfigTerm)},
		{Key: "syncingTo", Value: c.mu.syncHost},
		{Key: "syncSourceId", Value: int32(hb.SyncSource)},
		{Key: "durableOpTime", Value: opTimeDoc(maxOp(hb.Durable, c.mu.durable))},
		{Key: "durableWallTime", Value: now},
		{Key: "opTime", Value: opTimeDoc(hb.Applied)},
		{Key: "wallTime", Value: now},
		{Key: "writtenOpTime", Value: opTimeDoc(hb.Written)},
		{Key: "writtenWallTime", Value: now},
		{Key: "lastOpCommitted", Value: opTimeDoc(hb.CommitPoint)},
	}
	if hb.State == topology.StatePrimary {
		d = append(d, bson.E{Key: "electionTime", Value: bson.Timestamp{T: uint32(c.mu.electedAt.Unix()), I: 1}},
			bson.E{Key: "electionId", Value: electionID(c.mu.electionTerm)})
	}
	if hb.DirectReaders != nil {
		d = append(d, bson.E{Key: directReadersField, Value: int32s(hb.DirectReaders)})
	}
	return d
}

// directReadersField carries a primary's direct-reader list (chainingMode
// "auto", relaydb's extension) in heartbeat requests and replies; MongoDB
// members ignore it.
const directReadersField = "relaydbDirectReaders"

func int32s(ids []int) bson.A {
	a := make(bson.A, len(ids))
	for i, id := range ids {
		a[i] = int32(id)
	}
	return a
}

// parseIDs reads an array of member _ids; anything else is an empty list.
func parseIDs(v any) []int {
	ids := []int{}
	if a, ok := v.(bson.A); ok {
		for _, x := range a {
			if n, ok := bsonx.AsInt64(x); ok {
				ids = append(ids, int(n))
			}
		}
	}
	return ids
}

func maxOp(a, b topology.OpTime) topology.OpTime {
	if a.Less(b) {
		return b
	}
	return a
}

// fetchConfigLocked asks host for its config in the background and
// installs it when newer. REQUIRES: c.mu.
func (c *Coordinator) fetchConfigLocked(host string) {
	if c.mu.fetchingCfg {
		return
	}
	c.mu.fetchingCfg = true
	cmd := bson.D{{Key: "replSetGetConfig", Value: int32(1)}}
	c.opts.Transport.Send(host, cmd, 5*time.Second, func(reply bson.D, err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.mu.fetchingCfg = false
		if err != nil {
			c.log.Info("cannot fetch config", "from", host, "err", err)
			return
		}
		if doc, ok := bsonx.Get(reply, "config"); ok {
			c.learnConfigLocked(doc, host)
		}
	})
}

// learnConfigLocked installs a config another member sent when it is
// newer than ours and names our set. REQUIRES: c.mu.
func (c *Coordinator) learnConfigLocked(v any, from string) {
	doc, _ := v.(bson.D)
	cfg, err := parseConfig(doc)
	if err != nil || cfg.Name != c.opts.SetName || cfg.Validate() != nil {
		c.log.Info("ignoring config from peer", "from", from, "err", err)
		return
	}
	if c.mu.topo != nil && !cfg.Newer(c.mu.topo.Config()) {
		return
	}
	if err := c.installConfigLocked(cfg); err != nil {
		c.log.Error("cannot install config from peer", "from", from, "err", err)
	}
}

// installConfigLocked persists cfg and hands it to the topology (creating
// it on the first config). REQUIRES: c.mu.
func (c *Coordinator) installConfigLocked(cfg topology.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), persistTimeout)
	defer cancel()
	if err := storeConfig(ctx, c.cat, cfg); err != nil {
		return err
	}
	if c.mu.topo == nil {
		if err := c.installLocked(cfg); err != nil {
			return err
		}
		if c.mu.topo.Applied().IsZero() {
			// An empty member syncs before it may stand (MongoDB's
			// STARTUP2, initial sync); its first applied entry ends it.
			c.eventLocked(func(now time.Time) []topology.Action {
				return c.mu.topo.SetFollowerState(now, topology.StateStartup2)
			})
		}
		c.eventLocked(func(now time.Time) []topology.Action { return c.mu.topo.Tick(now) })
		return nil
	}
	c.bumpLocked()
	c.eventLocked(func(now time.Time) []topology.Action { return c.mu.topo.ConfigChanged(now, cfg) })
	return nil
}

func lookupString(d bson.D, key string) (string, bool) {
	v, ok := bsonx.Get(d, key)
	s, isStr := v.(string)
	return s, ok && isStr
}

func lookupInt(d bson.D, key string) int64 {
	v, _ := bsonx.Get(d, key)
	return asInt(v)
}
