package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	localCommands["balancerStatus"] = handler{fn: balancerStatus, adminOnly: true}
	localCommands["balancerStart"] = handler{fn: balancerMode("full"), adminOnly: true}
	localCommands["balancerStop"] = handler{fn: balancerMode("off"), adminOnly: true}
	localCommands["balancerCollectionStatus"] = handler{fn: balancerCollectionStatus, adminOnly: true}
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
// balancer reads at the start of each round, so the change applies from
// the next round on (a round in flight finishes its migrations).
func balancerMode(mode string) func(c *call) (bson.D, error) {
	return func(c *call) (bson.D, error) {
		if err := c.useMetadataWriteConcern(); err != nil {
			return nil, err
		}
		return bson.D{}, c.r.meta.SetBalancerMode(c.ctx, mode)
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
