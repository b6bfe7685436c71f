package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func count(c *Ctx, p *request.Count) (bson.D, error) {
	coll := string(p.Collection)
	co, err := opCollation(p.Collation)
	if err != nil {
		return nil, err
	}
	if p.Skip < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "skip value is negative in count query")
	}
	limit := p.Limit
	if limit < 0 {
		limit = -limit
	}
	if def, err := c.view(coll); err != nil || def != nil {
		if err != nil {
			return nil, err
		}
		return countOnView(c, def, p.Query, p.Skip, limit, co)
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	n, err := c.D.eng.CountAtVars(rv.snap, c.Owned, c.DB, coll, p.Query, p.Skip, limit, p.Hint.Value, co, c.scriptVars(nil))
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "n", Value: int32(n)}})
}
