package repl

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// status handles replSetGetStatus.
func (c *Coordinator) status() (bson.D, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, notInitialized()
	}
	s := c.load()
	now := c.now()
	members := bson.A{}
	for _, m := range s.cfg.Members {
		if m.ID == s.selfID {
			members = append(members, c.selfStatus(s, m, now))
		} else {
			members = append(members, c.peerStatus(s, m, now))
		}
	}
	applied := s.applied
	return bson.D{
		{Key: "set", Value: s.cfg.Name},
		{Key: "date", Value: bson.NewDateTimeFromTime(now)},
		{Key: "myState", Value: int32(s.state)},
		{Key: "term", Value: s.term},
		{Key: "syncSourceHost", Value: s.syncHost},
		{Key: "syncSourceId", Value: int32(s.syncID)},
		{Key: "heartbeatIntervalMillis", Value: s.cfg.HeartbeatInterval().Milliseconds()},
		{Key: "majorityVoteCount", Value: int32(s.cfg.MajorityVoteCount())},
		{Key: "writeMajorityCount", Value: int32(s.cfg.WriteMajority())},
		{Key: "votingMembersCount", Value: int32(s.cfg.Voters())},
		{Key: "optimes", Value: bson.D{
			{Key: "lastCommittedOpTime", Value: opTimeDoc(s.commitPoint)},
			{Key: "lastCommittedWallTime", Value: tsDate(s.commitPoint.TS)},
			{Key: "readConcernMajorityOpTime", Value: opTimeDoc(s.commitPoint)},
			{Key: "appliedOpTime", Value: opTimeDoc(applied)},
			{Key: "durableOpTime", Value: opTimeDoc(s.durable)},
			{Key: "writtenOpTime", Value: opTimeDoc(applied)},
			{Key: "lastAppliedWallTime", Value: tsDate(applied.TS)},
			{Key: "lastDurableWallTime", Value: tsDate(s.durable.TS)},
		}},
		{Key: "members", Value: members},
	}, nil
}

func (c *Coordinator) selfStatus(s *snapshot, m topology.MemberConfig, now time.Time) bson.D {
	d := bson.D{
		{Key: "_id", Value: int32(m.ID)}, {Key: "name", Value: m.Host},
		{Key: "health", Value: 1.0}, {Key: "state", Value: int32(s.state)},
		{Key: "stateStr", Value: s.state.String()},
		{Key: "uptime", Value: int64(now.Sub(c.started).Seconds())},
		{Key: "optime", Value: opTimeDoc(s.applied)}, {Key: "optimeDate", Value: tsDate(s.applied.TS)},
		{Key: "optimeDurable", Value: opTimeDoc(s.durable)}, {Key: "optimeDurableDate", Value: tsDate(s.durable.TS)},
		{Key: "optimeWritten", Value: opTimeDoc(s.applied)},
		{Key: "syncSourceHost", Value: s.syncHost}, {Key: "syncSourceId", Value: int32(s.syncID)},
		{Key: "infoMessage", Value: ""},
	}
	if s.state == topology.StatePrimary {
		d = append(d, bson.E{Key: "electionTime", Value: bson.Timestamp{T: uint32(s.electedAt.Unix()), I: 1}},
			bson.E{Key: "electionDate", Value: bson.NewDateTimeFromTime(s.electedAt)})
	}
	return append(d, bson.E{Key: "configVersion", Value: int32(s.cfg.Version)},
		bson.E{Key: "configTerm", Value: s.cfg.Term}, bson.E{Key: "self", Value: true},
		bson.E{Key: "lastHeartbeatMessage", Value: ""})
}

// peerStatus is member m's entry in replSetGetStatus. REQUIRES: c.mu.
func (c *Coordinator) peerStatus(s *snapshot, m topology.MemberConfig, now time.Time) bson.D {
	p := c.peerLocked(m.ID)
	r := p.reply
	down := c.mu.downstream[m.ID]
	applied, durable := maxOp(r.Applied, down.Applied), maxOp(r.Durable, down.Durable)
	state, health, uptime := topology.StateDown, 0.0, int64(0)
	if p.health {
		state, health, uptime = r.State, 1.0, int64(now.Sub(p.upSince).Seconds())
	} else if p.lastHeartbeat.IsZero() && p.lastErr == "" {
		state = topology.StateUnknown
	}
	stateStr := state.String()
	if state == topology.StateDown {
		stateStr = "(not reachable/healthy)"
	}
	return bson.D{
		{Key: "_id", Value: int32(m.ID)}, {Key: "name", Value: m.Host},
		{Key: "health", Value: health}, {Key: "state", Value: int32(state)},
		{Key: "stateStr", Value: stateStr}, {Key: "uptime", Value: uptime},
		{Key: "optime", Value: opTimeDoc(applied)}, {Key: "optimeDurable", Value: opTimeDoc(durable)},
		{Key: "optimeWritten", Value: opTimeDoc(maxOp(r.Written, down.Written))},
		{Key: "optimeDate", Value: tsDate(applied.TS)}, {Key: "optimeDurableDate", Value: tsDate(durable.TS)},
		{Key: "lastHeartbeat", Value: bson.NewDateTimeFromTime(p.lastHeartbeat)},
		{Key: "lastHeartbeatRecv", Value: bson.NewDateTimeFromTime(p.lastHeartbeatRecv)},
		{Key: "pingMs", Value: r.RTT.Milliseconds()},
		{Key: "lastHeartbeatMessage", Value: p.lastErr},
		{Key: "syncSourceHost", Value: s.memberHost(r.SyncSource)},
		{Key: "syncSourceId", Value: int32(r.SyncSource)},
		{Key: "infoMessage", Value: ""},
		{Key: "configVersion", Value: int32(r.ConfigVersion)}, {Key: "configTerm", Value: r.ConfigTerm},
	}
}
