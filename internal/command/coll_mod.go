package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// collMod changes a collection's validation options (validator,
// validationLevel, validationAction); the change replicates as a collMod
// oplog entry. TODO(#14): other collMod options (index hidden/TTL changes,
// changeStreamPreAndPostImages, expireAfterSeconds, capped resize).
func collMod(c *Ctx, p *request.CollMod) (bson.D, error) {
	coll := string(p.Collection)
	if c.D.eng.Catalog().Collection(c.DB, coll) == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	if len(p.Options) == 0 {
		return bson.D{}, nil
	}
	for _, e := range p.Options {
		if !validationOptions[e.Key] {
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support collMod option '%s' yet", e.Key)
		}
		if err := checkValidationOption(e); err != nil {
			return nil, err
		}
	}
	if _, err := c.D.eng.Catalog().CollMod(c.DB, coll, p.Options); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
