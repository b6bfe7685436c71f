package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
)

func findAndModify(c *Ctx, f *request.FindAndModify) (bson.D, error) {
	coll := string(f.Collection)
	wc, err := c.writeConcern()
	if err != nil {
		return nil, err
	}
	co, err := opCollation(f.Collation)
	if err != nil {
		return nil, err
	}
	if err := c.refuseView(coll); err != nil {
		return nil, err
	}
	p := exec.FindAndModifyParams{Query: f.Query, Sort: f.Sort, Fields: f.Fields, Remove: f.Remove, New: f.New,
		Upsert: f.Upsert, Update: f.Update.Value, ArrayFilters: []bson.D(f.ArrayFilters), Hint: f.Hint.Value, Collation: co}
	if p.BypassValidation, err = cmdspec.Bool("findAndModify.bypassDocumentValidation", f.BypassDocumentValidation); err != nil {
		return nil, err
	}
	if p.Vars, err = letVars(f.Let); err != nil {
		return nil, err
	}
	p.Vars = c.scriptVars(p.Vars) // script.go
	if p.Retry, err = c.retry(); err != nil {
		return nil, err
	}
	if p.Owned, err = c.writeOwned(); err != nil {
		return nil, err
	}
	res, err := c.D.eng.FindAndModify(c.DB, coll, p)
	if err != nil {
		return nil, c.failedWriteConcern(wc, err)
	}
	leo := bson.D{{Key: "n", Value: int32(res.N)}}
	if !p.Remove {
		leo = append(leo, bson.E{Key: "updatedExisting", Value: res.UpdatedExisting})
	}
	if res.UpsertedID != nil {
		leo = append(leo, bson.E{Key: "upserted", Value: res.UpsertedID})
	}
	var value any
	if res.Value != nil {
		value = res.Value
	}
	reply := bson.D{{Key: "lastErrorObject", Value: leo}, {Key: "value", Value: value}}
	if wce := c.awaitWriteConcern(wc, &res.Write); wce != nil {
		reply = append(reply, bson.E{Key: "writeConcernError", Value: wce})
	}
	return reply, nil
}
