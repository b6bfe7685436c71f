package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

func distinct(c *Ctx, p *request.Distinct) (bson.D, error) {
	coll := string(p.Collection)
	co, err := opCollation(p.Collation)
	if err != nil {
		return nil, err
	}
	if def, err := c.view(coll); err != nil || def != nil {
		if err != nil {
			return nil, err
		}
		return distinctOnView(c, def, p.Key, p.Query, co)
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	vals, err := c.D.eng.DistinctAtVars(rv.snap, c.Owned, c.DB, coll, p.Key, p.Query, co, c.scriptVars(nil))
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "values", Value: vals}})
}
