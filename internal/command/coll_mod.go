package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// collMod changes a collection's validation options (validator,
// validationLevel, validationAction) and a capped collection's limits
// (cappedSize, cappedMax), an index's hidden and expireAfterSeconds
// (index: {name|keyPattern, ...}; the reply holds the old and new values),
// its conversion to unique (prepareUnique, then unique: true; dryRun only
// checks, coll_mod_unique.go),
// or a view's viewOn and pipeline; the change replicates as a collMod oplog entry
// holding the stored options. The router sends collMod of a
// sharded collection to every shard. TODO(#14): other collMod options
// (expireAfterSeconds of clustered collections, timeseries).
func collMod(c *Ctx, p *request.CollMod) (bson.D, error) {
	coll := string(p.Collection)
	col := c.D.eng.Catalog().Collection(c.DB, coll)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	if len(p.Options) == 0 && isView(col) {
		return bson.D{}, nil
	}
	if isView(col) {
		return c.collModView(coll, col.Options, p.Options)
	}
	changes := make(bson.D, 0, len(p.Options))
	dryRun := false
	for _, e := range p.Options {
		switch {
		case validationOptions[e.Key]:
			if err := checkValidationOption(e); err != nil {
				return nil, err
			}
		case e.Key == "index": // validated by the catalog (modIndexes)
		case e.Key == "dryRun": // coll_mod_unique.go
			if err := checkDryRun(e.Value, &dryRun); err != nil {
				return nil, err
			}
			continue
		case e.Key == "changeStreamPreAndPostImages":
			if err := checkPreAndPostImages("collMod", e.Value); err != nil { // changestream_images.go
				return nil, err
			}
		case e.Key == "cappedSize" || e.Key == "cappedMax":
			var err error
			if e, err = cappedCollMod(col, e); err != nil {
				return nil, err
			}
		default:
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support collMod option '%s' yet", e.Key)
		}
		changes = append(changes, e)
	}
	if dryRun {
		return c.collModDryRun(coll, changes)
	}
	_, mod, err := c.D.eng.Catalog().CollModIndex(c.DB, coll, changes)
	if err != nil {
		return nil, err
	}
	if mod != nil {
		return mod.Reply, nil
	}
	return bson.D{}, nil
}
