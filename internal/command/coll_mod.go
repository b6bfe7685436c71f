package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CollMod is the collMod command; relaydb supports none of its options yet.
type CollMod struct {
	cmdspec.Cmd `cmd:"collMod" roles:"primary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Options     bson.D           `cmd:",inline"`
}

func collMod(c *Ctx, p *CollMod) (bson.D, error) {
	coll := string(p.Collection)
	if c.D.eng.Catalog().Collection(c.DB, coll) == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	if len(p.Options) > 0 {
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support collMod option '%s' yet", p.Options[0].Key)
	}
	return bson.D{}, nil
}
