package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// What insert, update and delete share: the target collection, the
// statement count, ordered, the write concern, let and the retryable
// write's identity.

// writeTarget checks that a write may target the collection and parses
// the write concern; n is the number of statements.
func (c *Ctx) writeTarget(name cmdspec.CollName, n int) (string, writeConcern, error) {
	coll := string(name)
	if err := catalog.ValidateCollName(c.DB, coll); err != nil {
		return "", writeConcern{}, err
	}
	if err := c.refuseView(coll); err != nil {
		return "", writeConcern{}, err
	}
	wc, err := c.writeConcern()
	if err != nil {
		return "", wc, err
	}
	if n > maxWriteBatch {
		return "", wc, mongoerr.New(mongoerr.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", maxWriteBatch, n)
	}
	return coll, wc, nil
}

// ordered reads a write's ordered field: true when absent; null is false.
func (c *Ctx) ordered(v *any) (bool, error) {
	if v == nil {
		return true, nil
	}
	return cmdspec.Bool(c.Name+".ordered", *v)
}

// stmtContext parses what update and delete share besides statements:
// the let variables and the retryable-write identity.
func (c *Ctx) stmtContext(let bson.D) (*expr.Vars, *exec.Retry, error) {
	vars, err := letVars(let)
	if err != nil {
		return nil, nil, err
	}
	retry, err := c.retry()
	return c.scriptVars(vars), retry, err // script.go
}
