package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// checkDryRun parses collMod's dryRun (a bool; never logged).
func checkDryRun(v any, out *bool) error {
	b, ok := v.(bool)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collMod.dryRun' is the wrong type '%s', expected type 'bool'", bsonx.TypeAlias(v))
	}
	*out = b
	return nil
}

// collModDryRun answers collMod {index: {name|keyPattern, unique: true},
// dryRun: true} as MongoDB does: {} when the index could become unique,
// CannotConvertIndexToUnique (359) with its violations otherwise; nothing
// changes and nothing is logged.
func (c *Ctx) collModDryRun(coll string, changes bson.D) (bson.D, error) {
	var mod bson.D
	for _, ch := range changes {
		if ch.Key == "index" {
			mod, _ = ch.Value.(bson.D)
		}
	}
	if mod == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "dry run mode requires an valid index modification.")
	}
	if u, _ := bsonx.Get(mod, "unique"); u != true {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "dry run mode requires an index modification with unique: true.")
	}
	if len(changes) > 1 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "unique: true cannot be combined with any other modification in dry run mode.")
	}
	if err := c.D.eng.Catalog().CheckUniqueConversion(c.DB, coll, mod); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
