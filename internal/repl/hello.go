package repl

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// HelloFields returns the replica-set fields of hello (isMaster when
// legacy), as the drivers' SDAM specification reads them.
func (c *Coordinator) HelloFields(legacy bool) bson.D {
	s := c.load()
	key := "isWritablePrimary"
	if legacy {
		key = "ismaster"
	}
	tv := bson.E{Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: c.processID}, {Key: "counter", Value: s.tvCounter}}}
	me, inConfig := s.self()
	if !s.hasConfig || !inConfig {
		return bson.D{{Key: key, Value: false}, {Key: "secondary", Value: false},
			{Key: "info", Value: "Does not have a valid replica set config"},
			{Key: "isreplicaset", Value: true}, tv}
	}
	hosts, passives, arbiters := hostLists(s.cfg)
	d := bson.D{{Key: "topologyVersion", Value: tv.Value}, {Key: "hosts", Value: hosts}}
	if len(passives) > 0 {
		d = append(d, bson.E{Key: "passives", Value: passives})
	}
	if len(arbiters) > 0 {
		d = append(d, bson.E{Key: "arbiters", Value: arbiters})
	}
	d = append(d, bson.E{Key: "setName", Value: s.cfg.Name}, bson.E{Key: "setVersion", Value: int32(s.cfg.Version)},
		bson.E{Key: key, Value: s.writable}, bson.E{Key: "secondary", Value: s.state == topology.StateSecondary})
	if s.primaryHost != "" {
		d = append(d, bson.E{Key: "primary", Value: s.primaryHost})
	}
	d = append(d, memberFlags(me)...)
	d = append(d, bson.E{Key: "me", Value: me.Host})
	if s.state == topology.StatePrimary {
		d = append(d, bson.E{Key: "electionId", Value: electionID(s.electionTerm)})
	}
	return append(d, bson.E{Key: "lastWrite", Value: lastWrite(s)})
}

// hostLists splits the config as SDAM wants it: electable visible data
// members, priority-0 visible data members, arbiters. Hidden and delayed
// members are in none.
func hostLists(cfg topology.Config) (hosts, passives, arbiters bson.A) {
	hosts, passives, arbiters = bson.A{}, bson.A{}, bson.A{}
	for _, m := range cfg.Members {
		switch {
		case m.ArbiterOnly:
			arbiters = append(arbiters, m.Host)
		case m.Hidden || m.SecondaryDelaySecs > 0:
		case m.Priority == 0:
			passives = append(passives, m.Host)
		default:
			hosts = append(hosts, m.Host)
		}
	}
	return hosts, passives, arbiters
}

func memberFlags(me topology.MemberConfig) bson.D {
	var d bson.D
	if me.ArbiterOnly {
		d = append(d, bson.E{Key: "arbiterOnly", Value: true})
	} else if me.Priority == 0 {
		d = append(d, bson.E{Key: "passive", Value: true})
	}
	if me.Hidden {
		d = append(d, bson.E{Key: "hidden", Value: true})
	}
	if len(me.Tags) > 0 {
		tags := bson.D{}
		for _, k := range sortedKeys(me.Tags) {
			tags = append(tags, bson.E{Key: k, Value: me.Tags[k]})
		}
		d = append(d, bson.E{Key: "tags", Value: tags})
	}
	return d
}

func lastWrite(s *snapshot) bson.D {
	return bson.D{
		{Key: "opTime", Value: opTimeDoc(s.applied)},
		{Key: "lastWriteDate", Value: tsDate(s.applied.TS)},
		{Key: "majorityOpTime", Value: opTimeDoc(s.commitPoint)},
		{Key: "majorityWriteDate", Value: tsDate(s.commitPoint.TS)},
	}
}

func tsDate(ts bson.Timestamp) bson.DateTime {
	return bson.NewDateTimeFromTime(time.Unix(int64(ts.T), 0))
}

// WaitTopologyChange blocks until the topologyVersion differs from
// (processID, counter) or ctx ends (awaitable hello).
func (c *Coordinator) WaitTopologyChange(ctx context.Context, processID bson.ObjectID, counter int64) {
	for {
		c.mu.Lock()
		ch := c.mu.changed
		c.mu.Unlock()
		if processID != c.processID || c.load().tvCounter != counter {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		}
	}
}

// CheckWrite fails with NotWritablePrimary unless this member is a
// writable primary; the local database is always writable.
func (c *Coordinator) CheckWrite(db string) error {
	if db == "local" || c.load().writable {
		return nil
	}
	return notPrimaryErr()
}

// CheckRead fails unless this member may serve a read: a writable primary
// always, a SECONDARY when the client allows secondaries.
func (c *Coordinator) CheckRead(secondaryOk bool) error {
	s := c.load()
	switch {
	case s.writable:
		return nil
	case !secondaryOk:
		return mongoerr.New(mongoerr.NotPrimaryNoSecondaryOk, "not primary and secondaryOk=false")
	case s.state == topology.StateSecondary || s.state == topology.StatePrimary:
		return nil
	}
	return mongoerr.New(mongoerr.NotPrimaryOrSecondary, "node is not in primary or recovering state")
}

// OpTimeFields returns $clusterTime and operationTime (the last applied
// entry's ts); nothing before a config exists.
func (c *Coordinator) OpTimeFields() bson.D {
	s := c.load()
	if !s.hasConfig {
		return nil
	}
	ts := s.applied.TS
	return bson.D{
		{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: ts}, {Key: "signature", Value: bson.D{
			{Key: "hash", Value: bson.Binary{Data: make([]byte, 20)}}, {Key: "keyId", Value: int64(0)}}}}},
		{Key: "operationTime", Value: ts},
	}
}
