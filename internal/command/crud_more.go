package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "findAndModify", Help: "updates or removes one document and returns it", Write: true, Handler: findAndModifyCmd,
		Fields: []string{"query", "sort", "remove", "update", "new", "fields", "upsert", "arrayFilters", "hint",
			"collation", "bypassDocumentValidation", "let"}}, "findandmodify")
	register(&Command{Name: "count", Read: true, Help: "counts documents", Handler: countCmd,
		Fields: []string{"query", "skip", "limit", "hint", "collation", "fields"}})
	register(&Command{Name: "distinct", Read: true, Help: "distinct values of a field", Handler: distinctCmd,
		Fields: []string{"key", "query", "collation", "hint"}})
}

func findAndModifyCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	wc, err := c.writeConcern()
	if err != nil {
		return nil, err
	}
	var p exec.FindAndModifyParams
	if p.Query, _, err = c.doc("query"); err != nil {
		return nil, err
	}
	if p.Sort, _, err = c.doc("sort"); err != nil {
		return nil, err
	}
	if p.Fields, _, err = c.doc("fields"); err != nil {
		return nil, err
	}
	if p.Remove, err = c.boolean("remove"); err != nil {
		return nil, err
	}
	if p.New, err = c.boolean("new"); err != nil {
		return nil, err
	}
	if p.Upsert, err = c.boolean("upsert"); err != nil {
		return nil, err
	}
	if u, ok := c.field("update"); ok {
		switch u.(type) {
		case bson.D, bson.A:
			p.Update = u
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "Update argument must be either an object or an array")
		}
	}
	if v, ok := c.field("arrayFilters"); ok {
		if p.ArrayFilters, err = asDocs("findAndModify.arrayFilters", v); err != nil {
			return nil, err
		}
	}
	if v, ok := c.field("hint"); ok {
		if p.Hint, err = parseHint(v); err != nil {
			return nil, err
		}
	}
	if v, ok := c.field("collation"); ok {
		if err := checkCollation(v); err != nil {
			return nil, err
		}
	}
	if p.Vars, err = c.letVars(); err != nil {
		return nil, err
	}
	if p.Retry, err = c.retry(); err != nil {
		return nil, err
	}
	res, err := c.D.eng.FindAndModify(c.DB, coll, p)
	if err != nil {
		return nil, err
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

func countCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	q, _, err := c.doc("query")
	if err != nil {
		return nil, err
	}
	if err := c.simpleCollation(); err != nil {
		return nil, err
	}
	skip, _, err := c.int64Field("skip")
	if err != nil {
		return nil, err
	}
	limit, _, err := c.int64Field("limit")
	if err != nil {
		return nil, err
	}
	if skip < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "skip value is negative in count query")
	}
	if limit < 0 {
		limit = -limit
	}
	var hint any
	if v, ok := c.field("hint"); ok {
		if hint, err = parseHint(v); err != nil {
			return nil, err
		}
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	n, err := c.D.eng.CountAt(rv.snap, c.DB, coll, q, skip, limit, hint)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "n", Value: int32(n)}})
}

func distinctCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	key, ok, err := c.str("key")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.missing("key")
	}
	q, _, err := c.doc("query")
	if err != nil {
		return nil, err
	}
	if err := c.simpleCollation(); err != nil {
		return nil, err
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	vals, err := c.D.eng.DistinctAt(rv.snap, c.DB, coll, key, q)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, bson.D{{Key: "values", Value: vals}})
}
