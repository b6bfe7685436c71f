package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Insert is the insert command.
type Insert struct {
	cmdspec.Cmd              `cmd:"insert" roles:"primary,router"`
	Collection               cmdspec.CollName `cmd:",command"`
	Documents                []bson.D         `cmd:"documents,required"`
	Ordered                  *any             `cmd:"ordered"`
	BypassDocumentValidation any              `cmd:"bypassDocumentValidation"`
	Let                      any              `cmd:"let"`     // accepted, unused: inserts evaluate no expressions
	StmtIDs                  any              `cmd:"stmtIds"` // read with txnNumber (retry.go)
}

func insert(c *Ctx, p *Insert) (bson.D, error) {
	coll, wc, err := c.writeTarget(p.Collection, len(p.Documents))
	if err != nil {
		return nil, err
	}
	ordered, err := c.ordered(p.Ordered)
	if err != nil {
		return nil, err
	}
	retry, err := c.retry()
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Insert(c.DB, coll, p.Documents, ordered, retry)
	c.D.metrics.opcounters.insert.Add(int64(len(p.Documents)))
	return c.writeReply(wc, res, false), nil
}
