package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Delete is the delete command.
type Delete struct {
	cmdspec.Cmd `cmd:"delete" roles:"primary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Deletes     []DeleteStatement `cmd:"deletes,required"`
	Ordered     *any              `cmd:"ordered"`
	Let         bson.D            `cmd:"let"`
	StmtIDs     any               `cmd:"stmtIds"` // read with txnNumber (retry.go)
}

// DeleteStatement is one element of delete's deletes.
type DeleteStatement struct {
	Q         bson.D            `cmd:"q,required,notnull"`
	Limit     deleteLimit       `cmd:"limit,required"`
	Hint      cmdspec.Hint      `cmd:"hint"`
	Collation cmdspec.Collation `cmd:"collation"`
}

// deleteLimit is a delete statement's limit: 0 (all) or 1.
type deleteLimit int64

// DecodeField implements cmdspec.FieldDecoder.
func (l *deleteLimit) DecodeField(_ string, v any) error {
	n, ok := bsonx.AsInt64(v)
	if !ok || (n != 0 && n != 1) {
		return mongoerr.New(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %v", v)
	}
	*l = deleteLimit(n)
	return nil
}

func deleteCmd(c *Ctx, p *Delete) (bson.D, error) {
	coll, wc, err := c.writeTarget(p.Collection, len(p.Deletes))
	if err != nil {
		return nil, err
	}
	ordered, err := c.ordered(p.Ordered)
	if err != nil {
		return nil, err
	}
	stmts := make([]exec.DeleteStmt, len(p.Deletes))
	for i, d := range p.Deletes {
		if err := checkCollation(d.Collation); err != nil {
			return nil, err
		}
		stmts[i] = exec.DeleteStmt{Q: d.Q, Limit: int64(d.Limit), Hint: d.Hint.Value}
	}
	vars, retry, err := c.stmtContext(p.Let)
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Delete(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.delete.Add(int64(len(stmts)))
	return c.writeReply(wc, res, false), nil
}
