package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
)

func deleteCmd(c *Ctx, p *request.Delete) (bson.D, error) {
	if c.timeseriesOf(string(p.Collection)) != nil {
		return deleteTimeseries(c, p) // timeseries_modify.go
	}
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
		co, err := opCollation(d.Collation)
		if err != nil {
			return nil, err
		}
		stmts[i] = exec.DeleteStmt{Q: d.Q, Limit: int64(d.Limit), Hint: d.Hint.Value, Collation: co}
	}
	vars, retry, err := c.stmtContext(p.Let)
	if err != nil {
		return nil, err
	}
	own, err := c.writeOwned()
	if err != nil {
		return c.writeReply(wc, staleWriteResult(len(stmts), ordered, err), false), nil
	}
	for i := range stmts {
		stmts[i].Owned = own
	}
	res := c.D.eng.Delete(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.delete.Add(int64(len(stmts)))
	return c.writeReply(wc, res, false), nil
}
