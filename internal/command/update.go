package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
)

func update(c *Ctx, p *request.Update) (bson.D, error) {
	if ts := c.timeseriesOf(string(p.Collection)); ts != nil {
		return updateTimeseries(c, p, ts) // timeseries_modify.go
	}
	coll, wc, err := c.writeTarget(p.Collection, len(p.Updates))
	if err != nil {
		return nil, err
	}
	ordered, err := c.ordered(p.Ordered)
	if err != nil {
		return nil, err
	}
	bypass, err := cmdspec.Bool("update.bypassDocumentValidation", p.BypassDocumentValidation)
	if err != nil {
		return nil, err
	}
	stmts := make([]exec.UpdateStmt, len(p.Updates))
	for i, u := range p.Updates {
		if pipeline, ok := u.U.Value.(bson.A); ok {
			if err := agg.CheckStageNames(pipeline); err != nil {
				return nil, err
			}
		}
		co, err := opCollation(u.Collation)
		if err != nil {
			return nil, err
		}
		stmts[i] = exec.UpdateStmt{Q: u.Q, U: u.U.Value, Upsert: u.Upsert, Multi: u.Multi, ArrayFilters: []bson.D(u.ArrayFilters), Hint: u.Hint.Value,
			BypassValidation: bypass, Collation: co}
	}
	vars, retry, err := c.stmtContext(p.Let)
	if err != nil {
		return nil, err
	}
	own, err := c.writeOwned()
	if err != nil {
		return c.writeReply(wc, staleWriteResult(len(stmts), ordered, err), true), nil
	}
	for i := range stmts {
		stmts[i].Owned = own
	}
	res := c.D.eng.Update(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.update.Add(int64(len(stmts)))
	return c.writeReply(wc, res, true), nil
}
