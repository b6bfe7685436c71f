package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// A collMod converting an index of a sharded collection to unique (index:
// {..., unique: true}) first runs as a dry run on every shard: if any shard
// holds duplicates, or refuses, no shard converts (as MongoDB: the answer is
// CannotConvertIndexToUnique with every shard's violations). Only then is the
// command sent for real. Each shard holds its write lock only for its own
// check, so a shard's index is prepareUnique throughout: no new duplicate can
// appear between the dry run and the conversion.
// TODO(#14): a unique index on a sharded collection must have the shard key
// as a prefix (MongoDB refuses prepareUnique otherwise); not checked.

// violationsError is 359 with the violations gathered from the shards.
type violationsError struct {
	err        *mongoerr.Error
	violations bson.A
}

func (e *violationsError) Error() string { return e.err.Error() }

// Unwrap returns the client-visible error.
func (e *violationsError) Unwrap() error { return e.err }

// ExtraInfo returns the violations, serialized after codeName.
func (e *violationsError) ExtraInfo() bson.D {
	return bson.D{{Key: "violations", Value: e.violations}}
}

// convertsToUnique reports whether cmd is a collMod {index: {unique:
// true}} (a dry run included: its answer gathers every shard's
// violations too).
func convertsToUnique(cmd bson.D) bool {
	idx, _ := bsonx.Get(cmd, "index")
	doc, _ := idx.(bson.D)
	u, _ := bsonx.Get(doc, "unique")
	return u == true
}

// checkUniqueOnShards runs c's collMod as a dry run on shards ids when it
// converts an index to unique; nil when every shard holding the
// collection can convert.
func (r *Router) checkUniqueOnShards(c *call, ids []string) error {
	if !convertsToUnique(c.cmd) {
		return nil
	}
	dry := append(withoutField(withoutField(c.cmd, "dryRun"), "writeConcern"), bson.E{Key: "dryRun", Value: true})
	var first *mongoerr.Error
	var all bson.A
	for _, sr := range r.sendAll(c, ids, false, func(string) bson.D { return dry }) {
		switch {
		case sr.err == nil || mongoerr.Is(sr.err, mongoerr.NamespaceNotFound):
		case mongoerr.Is(sr.err, mongoerr.CannotConvertIndexToUnique):
			v, _ := bsonx.Get(sr.reply, "violations")
			arr, _ := v.(bson.A)
			all = append(all, arr...)
			if first == nil {
				first = mongoerr.From(sr.err)
			}
		default:
			return sr.err
		}
	}
	if first == nil {
		return nil
	}
	return &violationsError{err: first, violations: all}
}
