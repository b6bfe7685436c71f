package router

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

func init() {
	localCommands["balancerStatus"] = handler{fn: balancerStatus, adminOnly: true}
	localCommands["balancerStart"] = handler{fn: balancerMode("full"), adminOnly: true}
	localCommands["balancerStop"] = handler{fn: balancerMode("off"), adminOnly: true}
	localCommands["balancerCollectionStatus"] = handler{fn: balancerCollectionStatus, adminOnly: true}
	localCommands["configureCollectionBalancing"] = handler{fn: configureCollectionBalancing, adminOnly: true}
}

// balancerStatusFields are what balancerStatus answers: MongoDB's mode,
// inBalancerRound and numBalancerRounds, and relaydb's lastError and
// lastMoves (the migrations of the last round).
var balancerStatusFields = []string{"mode", "inBalancerRound", "numBalancerRounds", "lastError", "lastMoves"}

// balancerStatus forwards to the config server primary, where the
// balancer runs, as mongos does (_configsvrBalancerStatus): mode is
// config.settings' (on by default), the rounds are those of the
// balancer on the current config primary (they start again from 0 on a
// new primary, as MongoDB's). sh.isBalancerRunning() and sh.status()
// read it.
func balancerStatus(c *call) (bson.D, error) {
	reply, err := configRunner{c.r}.Run(c.ctx, "admin", bson.D{{Key: "_configsvrBalancerStatus", Value: int32(1)}})
	if err != nil {
		return nil, err
	}
	out := bson.D{}
	for _, f := range balancerStatusFields {
		if v, ok := bsonx.Get(reply, f); ok {
			out = append(out, bson.E{Key: f, Value: v})
		}
	}
	return out, nil
}

// balancerMode is balancerStart ("full") and balancerStop ("off"), as
// sh.startBalancer/sh.stopBalancer send them: the mode is recorded in
// config.settings (sh.getBalancerState and sh.status read it), which the
// balancer reads at the start of each round. balancerStop then waits,
// as MongoDB's does, until no round is in progress (bounded by the
// request's maxTimeMS and by stopWaitLimit), so nothing moves after it
// answers.
func balancerMode(mode string) func(c *call) (bson.D, error) {
	return func(c *call) (bson.D, error) {
		if err := c.useMetadataWriteConcern(); err != nil {
			return nil, err
		}
		if err := c.r.meta.SetBalancerMode(c.ctx, mode); err != nil || mode != "off" {
			return bson.D{}, err
		}
		return bson.D{}, waitRoundEnd(c)
	}
}

// stopWaitLimit bounds balancerStop's wait for a round in progress (a
// round's own limit is ten minutes); stopPoll is its polling pause.
const (
	stopWaitLimit = 10 * time.Minute
	stopPoll      = 50 * time.Millisecond
)

// waitRoundEnd polls the config primary's balancer until it is not in a
// round.
func waitRoundEnd(c *call) error {
	ctx, cancel := context.WithTimeout(c.ctx, stopWaitLimit)
	defer cancel()
	for {
		reply, err := configRunner{c.r}.Run(ctx, "admin", bson.D{{Key: "_configsvrBalancerStatus", Value: int32(1)}})
		if err != nil {
			return err
		}
		if in, _ := bsonx.Get(reply, "inBalancerRound"); in != true {
			return nil
		}
		select {
		case <-ctx.Done():
			return mongoerr.New(mongoerr.ExceededTimeLimit, "balancerStop: a balancer round is still in progress")
		case <-time.After(stopPoll):
		}
	}
}

// balancerCollectionStatus forwards {balancerCollectionStatus: "db.c"}
// to the config server primary (_configsvrBalancerCollectionStatus), as
// mongos does; sh.balancerCollectionStatus() sends it.
func balancerCollectionStatus(c *call) (bson.D, error) {
	ns, ok := c.cmd[0].Value.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'balancerCollectionStatus' is the wrong type '%s', expected type 'string'", typeName(c.cmd[0].Value))
	}
	reply, err := configRunner{c.r}.Run(c.ctx, "admin", bson.D{{Key: "_configsvrBalancerCollectionStatus", Value: ns}})
	if err != nil {
		return nil, err
	}
	out := bson.D{}
	for _, f := range []string{"chunkSize", "balancerCompliant", "firstComplianceViolation"} {
		if v, ok := bsonx.Get(reply, f); ok {
			out = append(out, bson.E{Key: f, Value: v})
		}
	}
	return out, nil
}

// maxCollectionChunkSizeMB bounds configureCollectionBalancing's
// chunkSize (MongoDB's 1..1024 MB).
const maxCollectionChunkSizeMB = 1024

// configureCollectionBalancing is MongoDB's {configureCollectionBalancing:
// "db.c", chunkSize: MB}: the collection's own chunk size, kept as
// config.collections maxChunkSizeBytes (0 removes it: the cluster's
// chunksize applies again), written with the client's write concern made
// majority; the balancer reads it at its next round.
// enableAutoMerger is accepted and ignored (relaydb merges no chunks);
// defragmentCollection: true is refused (IllegalOperation): relaydb has
// no defragmentation. TODO(#14): chunk merging and defragmentation.
func configureCollectionBalancing(c *call) (bson.D, error) {
	ns, ok := c.cmd[0].Value.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'configureCollectionBalancing' is the wrong type '%s', expected type 'string'", typeName(c.cmd[0].Value))
	}
	if d, _ := bsonx.Get(c.cmd, "defragmentCollection"); d == true {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "defragmentCollection is not supported by relaydb")
	}
	wc, err := configsvr.MajorityWriteConcern(c.cmd)
	if err != nil {
		return nil, err
	}
	if wc == nil {
		wc = bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(metadataWriteTimeoutMS)}}
	}
	v, has := bsonx.Get(c.cmd, "chunkSize")
	if !has {
		return bson.D{}, nil
	}
	mb, isNum := bsonx.AsInt64(v)
	if !isNum || mb < 0 || mb > maxCollectionChunkSizeMB {
		return nil, mongoerr.New(mongoerr.BadValue, "chunkSize must be an integer between 0 and %d MB, not %v", maxCollectionChunkSizeMB, v)
	}
	u := bson.D{{Key: "$set", Value: bson.D{{Key: "maxChunkSizeBytes", Value: mb << 20}}}}
	if mb == 0 {
		u = bson.D{{Key: "$unset", Value: bson.D{{Key: "maxChunkSizeBytes", Value: 1}}}}
	}
	reply, err := configRunner{c.r}.Run(c.ctx, configsvr.DB, bson.D{
		{Key: "update", Value: configsvr.CollectionsColl},
		{Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: ns}}}, {Key: "u", Value: u}}}},
		{Key: "writeConcern", Value: wc},
	})
	if err == nil {
		err = configsvr.WriteError(reply)
	}
	if err != nil {
		return nil, err
	}
	if n, _ := bsonx.Get(reply, "n"); int64Of(n) == 0 { // no config.collections entry
		return nil, mongoerr.New(mongoerr.NamespaceNotSharded, "Collection %s is not sharded.", ns)
	}
	return bson.D{}, nil
}

// metadataWriteTimeoutMS bounds configureCollectionBalancing's majority
// wait when the client gives no write concern.
const metadataWriteTimeoutMS = 60000

func int64Of(v any) int64 {
	n, _ := bsonx.AsInt64(v)
	return n
}
