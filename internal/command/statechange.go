package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// notPrimaryCodes are MongoDB's NotPrimaryError category (error_codes.yml):
// the state-change errors after which a driver re-checks the member.
var notPrimaryCodes = map[mongoerr.Code]bool{
	mongoerr.NotWritablePrimary: true, mongoerr.NotPrimaryNoSecondaryOk: true, mongoerr.NotPrimaryOrSecondary: true,
	mongoerr.InterruptedDueToReplStateChange: true, mongoerr.PrimarySteppedDown: true,
}

// stateChangeFields returns {topologyVersion} for a reply whose error code
// or writeConcernError code (wcCode, 0 for none) is a NotPrimaryError, on
// a replica-set member, as mongod appends it (appendErrorLabelsAndTopologyVersion):
// the member's current {processId, counter}, equal to what its hello says.
// A driver (SDAM "error handling") then ignores the error as stale when it
// already knows that version, instead of marking the member Unknown and
// waiting for the next streaming hello (up to heartbeatFrequencyMS).
//
// Shutdown errors (ShutdownInProgress, InterruptedAtShutdown) get none, as
// mongod outside its quiesce mode, which relaydb does not have:
// TODO(#14): quiesce mode (shutdownTimeoutSecs, a bumped topologyVersion).
func (d *Dispatcher) stateChangeFields(code, wcCode mongoerr.Code) bson.D {
	if d.repl == nil || (!notPrimaryCodes[code] && !notPrimaryCodes[wcCode]) {
		return nil
	}
	tv, ok := bsonx.Get(d.repl.HelloFields(false), "topologyVersion")
	if !ok {
		return nil
	}
	return bson.D{{Key: "topologyVersion", Value: tv}}
}

// withWCETopologyVersion adds topologyVersion to a successful reply whose
// writeConcernError is a NotPrimaryError (a primary stepped down while
// waiting for the write concern).
func (d *Dispatcher) withWCETopologyVersion(reply bson.D) bson.D {
	if d.repl == nil {
		return reply
	}
	wce, _ := bsonx.Get(reply, "writeConcernError")
	wd, isDoc := wce.(bson.D)
	if !isDoc {
		return reply
	}
	if _, has := bsonx.Get(reply, "topologyVersion"); has {
		return reply
	}
	code, _ := bsonx.Get(wd, "code")
	n, _ := bsonx.AsInt64(code)
	return append(reply, d.stateChangeFields(mongoerr.OK, mongoerr.Code(n))...)
}
