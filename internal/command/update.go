package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/exec"
)

// Update is the update command.
type Update struct {
	cmdspec.Cmd              `cmd:"update" roles:"primary,router"`
	Collection               cmdspec.CollName  `cmd:",command"`
	Updates                  []UpdateStatement `cmd:"updates,required"`
	Ordered                  *any              `cmd:"ordered"`
	BypassDocumentValidation any               `cmd:"bypassDocumentValidation"`
	Let                      bson.D            `cmd:"let"`
	StmtIDs                  any               `cmd:"stmtIds"` // read with txnNumber (retry.go)
}

// UpdateStatement is one element of update's updates.
type UpdateStatement struct {
	Q              bson.D               `cmd:"q,required,notnull"`
	U              cmdspec.Modification `cmd:"u,required"`
	Upsert         bool                 `cmd:"upsert,notnull"`
	Multi          bool                 `cmd:"multi,notnull"`
	ArrayFilters   cmdspec.Filters      `cmd:"arrayFilters"`
	Hint           cmdspec.Hint         `cmd:"hint"`
	Collation      cmdspec.Collation    `cmd:"collation"`
	UpsertSupplied any                  `cmd:"upsertSupplied"`
	C              any                  `cmd:"c"`
}

func update(c *Ctx, p *Update) (bson.D, error) {
	coll, wc, err := c.writeTarget(p.Collection, len(p.Updates))
	if err != nil {
		return nil, err
	}
	ordered, err := c.ordered(p.Ordered)
	if err != nil {
		return nil, err
	}
	stmts := make([]exec.UpdateStmt, len(p.Updates))
	for i, u := range p.Updates {
		if err := checkCollation(u.Collation); err != nil {
			return nil, err
		}
		stmts[i] = exec.UpdateStmt{Q: u.Q, U: u.U.Value, Upsert: u.Upsert, Multi: u.Multi, ArrayFilters: []bson.D(u.ArrayFilters), Hint: u.Hint.Value}
	}
	vars, retry, err := c.stmtContext(p.Let)
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Update(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.update.Add(int64(len(stmts)))
	return c.writeReply(wc, res, true), nil
}
