package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Ctx is one command invocation.
type Ctx struct {
	D    *Dispatcher
	Conn *Conn
	DB   string
	Name string // the command name as sent (aliases included)
	Cmd  bson.D
	Req  *Request
	// Owned is a shard's ownership filter for a versioned read of a
	// sharded collection (set by checkShardVersion); nil: every document.
	Owned exec.OwnershipFilter
	// txn is the statement's transaction identity (transactions.go), or nil.
	txn *txnStmt
	// op is the running operation trackOp registered (currentop.go), or
	// nil; a copy of the Ctx shares it.
	op *runningOp
}

// field returns the value of a top-level command field.
func (c *Ctx) field(name string) (any, bool) { return bsonx.Get(c.Cmd, name) }

// typeErr is MongoDB's IDL type mismatch error.
func (c *Ctx) typeErr(field string, v any, expected string) error {
	return cmdspec.TypeError(c.Name+"."+field, v, expected)
}

// collArg returns the command's first value: the collection name for most commands.
func (c *Ctx) collArg() (string, error) {
	var name cmdspec.CollName
	if err := name.DecodeField("", c.Cmd[0].Value); err != nil {
		return "", err
	}
	return c.collName(name)
}

// collName checks a command's collection name against MongoDB's rules
// for namespaces in the request's database.
func (c *Ctx) collName(name cmdspec.CollName) (string, error) {
	s := string(name)
	if s == "" || s[0] == '.' || strings.ContainsRune(s, 0) {
		return "", mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.%s'", c.DB, s)
	}
	if err := catalog.ValidateDBName(c.DB); err != nil {
		return "", err
	}
	return s, nil
}

// int64Field parses a numeric field; doubles must be integral.
func (c *Ctx) int64Field(name string) (int64, bool, error) {
	v, ok := c.field(name)
	if !ok || v == nil {
		return 0, false, nil
	}
	n, err := cmdspec.Int64(c.Name+"."+name, v)
	return n, true, err
}

func (c *Ctx) doc(name string) (bson.D, bool, error) {
	v, ok := c.field(name)
	if !ok || v == nil {
		return nil, false, nil
	}
	d, isDoc := v.(bson.D)
	if !isDoc {
		return nil, true, c.typeErr(name, v, "object")
	}
	return d, true, nil
}

func (c *Ctx) array(name string) (bson.A, bool, error) {
	v, ok := c.field(name)
	if !ok {
		return nil, false, nil
	}
	a, isArr := v.(bson.A)
	if !isArr {
		return nil, true, c.typeErr(name, v, "array")
	}
	return a, true, nil
}

// docs parses an array field whose elements must all be documents.
func (c *Ctx) docs(name string) ([]bson.D, bool, error) {
	a, ok, err := c.array(name)
	if err != nil || !ok {
		return nil, ok, err
	}
	out := make([]bson.D, len(a))
	for i, v := range a {
		d, isDoc := v.(bson.D)
		if !isDoc {
			return nil, true, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s.%d' is the wrong type '%s', expected type 'object'", c.Name, name, i, bsonx.TypeAlias(v))
		}
		out[i] = d
	}
	return out, true, nil
}

// ns returns "db.coll".
func (c *Ctx) ns(coll string) string { return c.DB + "." + coll }

// letVars evaluates a command's 'let' document once (constants and
// $$NOW shared by the whole command); nil when there is none.
func letVars(let bson.D) (*expr.Vars, error) {
	if let == nil {
		return nil, nil
	}
	return expr.EvalLet(let, nil)
}
