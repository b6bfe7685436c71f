package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func collMod(c *Ctx, p *request.CollMod) (bson.D, error) {
	coll := string(p.Collection)
	if c.D.eng.Catalog().Collection(c.DB, coll) == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	if len(p.Options) > 0 {
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support collMod option '%s' yet", p.Options[0].Key)
	}
	return bson.D{}, nil
}
