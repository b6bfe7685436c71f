package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Count is the count command.
type Count struct {
	cmdspec.Cmd `cmd:"count" roles:"primary,secondary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Query       bson.D            `cmd:"query"`
	Skip        int64             `cmd:"skip"`
	Limit       int64             `cmd:"limit"`
	Hint        cmdspec.Hint      `cmd:"hint"`
	Collation   cmdspec.Collation `cmd:"collation"`
	Fields      any               `cmd:"fields"` // accepted, ignored (as MongoDB)
}

func count(c *Ctx, p *Count) (bson.D, error) {
	coll := string(p.Collection)
	if err := checkCollation(p.Collation); err != nil {
		return nil, err
	}
	if p.Skip < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "skip value is negative in count query")
	}
	limit := p.Limit
	if limit < 0 {
		limit = -limit
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	n, err := c.D.eng.CountAt(rv.snap, c.DB, coll, p.Query, p.Skip, limit, p.Hint.Value)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "n", Value: int32(n)}})
}
