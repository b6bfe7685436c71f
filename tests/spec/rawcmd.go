package spec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// This file builds, for the few operations whose options the v2 driver
// refuses or drops, the exact command MongoDB's drivers send. The
// commands are sent with Database.RunCommand (see rawexec.go).

// needsRaw reports whether op must bypass the typed API: the driver drops
// bypassDocumentValidation: false, and refuses hint with an
// unacknowledged write concern.
func needsRaw(r *testRun, coll *mongo.Collection, op Operation) bool {
	if v, ok := lookup(op.Arguments, "bypassDocumentValidation"); ok && v == false {
		return true
	}
	wc := r.ents.writeConcern(coll)
	return wc != nil && !wc.Acknowledged() && hasHint(op)
}

func hasHint(op Operation) bool {
	if _, ok := lookup(op.Arguments, "hint"); ok {
		return true
	}
	reqs, _ := lookup(op.Arguments, "requests")
	arr, _ := reqs.(bson.A)
	for _, req := range arr {
		if d, ok := req.(bson.D); ok && len(d) == 1 {
			if _, ok := lookup(d[0].Value.(bson.D), "hint"); ok {
				return true
			}
		}
	}
	return false
}

// wcDoc renders a write concern for a command body; nil means "omit".
func wcDoc(wc *writeconcern.WriteConcern) bson.D {
	if wc == nil {
		return nil
	}
	d := bson.D{}
	if wc.W != nil {
		d = append(d, bson.E{Key: "w", Value: wc.W})
	}
	if wc.Journal != nil {
		d = append(d, bson.E{Key: "j", Value: *wc.Journal})
	}
	if len(d) == 0 {
		return nil
	}
	return d
}

// appendOpt appends key: v when v is set.
func appendOpt(cmd bson.D, key string, v any) bson.D {
	if v == nil {
		return cmd
	}
	if d, ok := v.(bson.D); ok && d == nil {
		return cmd
	}
	if b, ok := v.(*bool); ok {
		if b == nil {
			return cmd
		}
		v = *b
	}
	return append(cmd, bson.E{Key: key, Value: v})
}

// withID gives a document an _id first, as drivers do before inserting.
func withID(doc any) (bson.D, error) {
	d, ok := doc.(bson.D)
	if !ok {
		return nil, fmt.Errorf("insert: document is %T, want a document", doc)
	}
	if _, ok := lookup(d, "_id"); ok {
		return d, nil
	}
	return append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, d...), nil
}

// updateStatement is one element of an update command's "updates".
func updateStatement(a updateArgs, multi bool) bson.D {
	st := bson.D{{Key: "q", Value: a.filter}, {Key: "u", Value: a.update}}
	if multi {
		st = append(st, bson.E{Key: "multi", Value: true})
	}
	st = appendOpt(st, "upsert", a.upsert)
	st = appendOpt(st, "hint", a.hint)
	st = appendOpt(st, "sort", a.sort)
	if a.arrayFilters != nil {
		st = append(st, bson.E{Key: "arrayFilters", Value: a.arrayFilters})
	}
	if a.collation != nil {
		st = append(st, bson.E{Key: "collation", Value: a.collationDoc})
	}
	return st
}

// deleteStatement is one element of a delete command's "deletes".
func deleteStatement(a updateArgs, multi bool) bson.D {
	limit := int32(1)
	if multi {
		limit = 0
	}
	st := bson.D{{Key: "q", Value: a.filter}, {Key: "limit", Value: limit}}
	st = appendOpt(st, "hint", a.hint)
	if a.collation != nil {
		st = append(st, bson.E{Key: "collation", Value: a.collationDoc})
	}
	return st
}

// writeCommand is {<kind>: coll, ordered, <field>: stmts, ...common}.
func writeCommand(coll *mongo.Collection, kind string, stmts bson.A, c commonWrite) bson.D {
	field := map[string]string{"insert": "documents", "update": "updates", "delete": "deletes"}[kind]
	cmd := bson.D{{Key: kind, Value: coll.Name()}, {Key: "ordered", Value: c.ordered}, {Key: field, Value: stmts}}
	if kind != "delete" {
		cmd = appendOpt(cmd, "bypassDocumentValidation", c.bypass)
	}
	cmd = appendOpt(cmd, "comment", c.comment)
	cmd = appendOpt(cmd, "let", c.let)
	return appendOpt(cmd, "writeConcern", wcDoc(c.wc))
}

// commonWrite are the command-level options of a write command.
type commonWrite struct {
	ordered      bool
	bypass       *bool
	comment, let any
	wc           *writeconcern.WriteConcern
}

// parseCommonWrite reads the command-level write options from a helper's
// arguments (the helper's argTable has vetted which it takes).
func parseCommonWrite(args bson.D) commonWrite {
	c := commonWrite{ordered: true}
	for _, e := range args {
		switch e.Key {
		case "ordered":
			c.ordered = e.Value.(bool)
		case "comment":
			c.comment = e.Value
		case "let":
			c.let = e.Value
		case "bypassDocumentValidation":
			b := e.Value.(bool)
			c.bypass = &b
		}
	}
	return c
}

// findAndModifyCommand builds findAndModify for the findOneAnd* helpers.
func findAndModifyCommand(coll *mongo.Collection, opName string, f fam, wc *writeconcern.WriteConcern) bson.D {
	cmd := bson.D{{Key: "findAndModify", Value: coll.Name()}, {Key: "query", Value: f.filter}}
	switch opName {
	case "findOneAndDelete":
		cmd = append(cmd, bson.E{Key: "remove", Value: true})
	default:
		cmd = append(cmd, bson.E{Key: "update", Value: f.update})
		if s, _ := f.returnDoc.(string); s == "After" {
			cmd = append(cmd, bson.E{Key: "new", Value: true})
		}
		cmd = appendOpt(cmd, "upsert", f.upsert)
		cmd = appendOpt(cmd, "bypassDocumentValidation", f.bypass)
	}
	cmd = appendOpt(cmd, "fields", f.projection)
	cmd = appendOpt(cmd, "sort", f.sort)
	cmd = appendOpt(cmd, "hint", f.hint)
	if f.arrayFilters != nil {
		cmd = append(cmd, bson.E{Key: "arrayFilters", Value: f.arrayFilters})
	}
	if f.collation != nil {
		cmd = append(cmd, bson.E{Key: "collation", Value: f.collationDoc})
	}
	cmd = appendOpt(cmd, "comment", f.comment)
	cmd = appendOpt(cmd, "let", f.let)
	return appendOpt(cmd, "writeConcern", wcDoc(wc))
}
