package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Distinct is the distinct command.
type Distinct struct {
	cmdspec.Cmd `cmd:"distinct" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Key         string            `cmd:"key,required"`
	Query       bson.D            `cmd:"query"`
	Collation   cmdspec.Collation `cmd:"collation"`
	Hint        any               `cmd:"hint"` // accepted, not used yet
}

func distinct(c *Ctx, p *Distinct) (bson.D, error) {
	coll := string(p.Collection)
	if err := checkCollation(p.Collation); err != nil {
		return nil, err
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	vals, err := c.D.eng.DistinctAt(rv.snap, c.DB, coll, p.Key, p.Query)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "values", Value: vals}})
}
