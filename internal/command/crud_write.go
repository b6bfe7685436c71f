package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "insert", Help: "inserts documents", Write: true, Handler: insertCmd,
		Fields: []string{"documents", "ordered", "bypassDocumentValidation", "let", "stmtIds"}})
	register(&Command{Name: "update", Help: "updates documents", Write: true, Handler: updateCmd,
		Fields: []string{"updates", "ordered", "bypassDocumentValidation", "let", "stmtIds"}})
	register(&Command{Name: "delete", Help: "deletes documents", Write: true, Handler: deleteCmd,
		Fields: []string{"deletes", "ordered", "let", "stmtIds"}})
}

// writePrelude parses what insert/update/delete share.
func (c *Ctx) writePrelude(listField string) (coll string, list []bson.D, ordered bool, wc writeConcern, err error) {
	if coll, err = c.collArg(); err != nil {
		return
	}
	if err = catalog.ValidateCollName(c.DB, coll); err != nil {
		return
	}
	if wc, err = c.writeConcern(); err != nil {
		return
	}
	var ok bool
	if list, ok, err = c.docs(listField); err != nil {
		return
	} else if !ok {
		err = c.missing(listField)
		return
	}
	if len(list) > maxWriteBatch {
		err = mongoerr.New(mongoerr.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", maxWriteBatch, len(list))
		return
	}
	ordered = true
	if _, has := c.field("ordered"); has {
		ordered, err = c.boolean("ordered")
	}
	return
}

func insertCmd(c *Ctx) (bson.D, error) {
	coll, docs, ordered, wc, err := c.writePrelude("documents")
	if err != nil {
		return nil, err
	}
	retry, err := c.retry()
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Insert(c.DB, coll, docs, ordered, retry)
	c.D.metrics.opcounters.insert.Add(int64(len(docs)))
	return c.writeReply(wc, res, false), nil
}

func updateCmd(c *Ctx) (bson.D, error) {
	coll, list, ordered, wc, err := c.writePrelude("updates")
	if err != nil {
		return nil, err
	}
	stmts, err := parseStmts(list, parseUpdateStmt)
	if err != nil {
		return nil, err
	}
	vars, retry, err := c.stmtContext()
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Update(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.update.Add(int64(len(list)))
	return c.writeReply(wc, res, true), nil
}

func parseUpdateStmt(d bson.D) (exec.UpdateStmt, error) {
	var s exec.UpdateStmt
	hasQ, hasU := false, false
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Q, err = asDoc("update.updates.q", e.Value)
			hasQ = true
		case "u":
			switch e.Value.(type) {
			case bson.D, bson.A:
				s.U = e.Value
			default:
				err = mongoerr.New(mongoerr.FailedToParse, "Update argument must be either an object or an array")
			}
			hasU = true
		case "upsert":
			s.Upsert, err = asBool("update.updates.upsert", e.Value)
		case "multi":
			s.Multi, err = asBool("update.updates.multi", e.Value)
		case "arrayFilters":
			s.ArrayFilters, err = asDocs("update.updates.arrayFilters", e.Value)
		case "hint":
			s.Hint, err = parseHint(e.Value)
		case "collation":
			err = checkCollation(e.Value)
		case "upsertSupplied", "c":
		default:
			err = mongoerr.New(40415, "BSON field 'update.updates.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if !hasQ || !hasU {
		return s, mongoerr.New(mongoerr.FailedToParse, "BSON field 'update.updates.%s' is missing but a required field", map[bool]string{true: "u", false: "q"}[hasQ])
	}
	return s, nil
}

func deleteCmd(c *Ctx) (bson.D, error) {
	coll, list, ordered, wc, err := c.writePrelude("deletes")
	if err != nil {
		return nil, err
	}
	stmts, err := parseStmts(list, parseDeleteStmt)
	if err != nil {
		return nil, err
	}
	vars, retry, err := c.stmtContext()
	if err != nil {
		return nil, err
	}
	res := c.D.eng.Delete(c.DB, coll, stmts, ordered, vars, retry)
	c.D.metrics.opcounters.delete.Add(int64(len(list)))
	return c.writeReply(wc, res, false), nil
}

func parseDeleteStmt(d bson.D) (exec.DeleteStmt, error) {
	var s exec.DeleteStmt
	hasQ, hasLimit := false, false
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Q, err = asDoc("delete.deletes.q", e.Value)
			hasQ = true
		case "limit":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || (n != 0 && n != 1) {
				err = mongoerr.New(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %v", e.Value)
			}
			s.Limit, hasLimit = n, true
		case "hint":
			s.Hint, err = parseHint(e.Value)
		case "collation":
			err = checkCollation(e.Value)
		default:
			err = mongoerr.New(40415, "BSON field 'delete.deletes.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if !hasQ || !hasLimit {
		return s, mongoerr.New(mongoerr.FailedToParse, "BSON field 'delete.deletes.%s' is missing but a required field", map[bool]string{true: "limit", false: "q"}[hasQ])
	}
	return s, nil
}

// parseStmts parses every statement of an update or delete command.
func parseStmts[T any](list []bson.D, parse func(bson.D) (T, error)) ([]T, error) {
	out := make([]T, len(list))
	for i, d := range list {
		var err error
		if out[i], err = parse(d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stmtContext parses what update and delete share besides statements:
// the let variables and the retryable-write identity.
func (c *Ctx) stmtContext() (*expr.Vars, *exec.Retry, error) {
	vars, err := c.letVars()
	if err != nil {
		return nil, nil, err
	}
	retry, err := c.retry()
	return vars, retry, err
}
