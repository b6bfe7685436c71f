package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func explain(c *Ctx, p *request.Explain) (bson.D, error) {
	inner, ok := p.Command.(bson.D)
	if !ok || len(inner) == 0 {
		return nil, c.typeErr("explain", p.Command, "object")
	}
	sub := &Ctx{D: c.D, Conn: c.Conn, DB: c.DB, Name: inner[0].Key, Cmd: inner, Req: c.Req}
	coll, err := sub.collArg()
	if err != nil {
		return nil, err
	}
	var q exec.FindParams
	switch inner[0].Key {
	case "find":
		var f request.Find
		if err = cmdspec.Decode(known(&f, inner), &f); err == nil {
			q, err = findParams(&f)
		}
	case "count", "distinct":
		q.Filter, _, err = sub.doc("query")
	case "findAndModify", "findandmodify":
		q.Filter, _, err = sub.doc("query")
		if err == nil {
			q.Sort, _, err = sub.doc("sort")
		}
	case "update", "delete":
		q.Filter, err = firstStmtQuery(sub, map[string]string{"update": "updates", "delete": "deletes"}[inner[0].Key])
	case "aggregate":
		q.Filter = leadingMatch(sub)
	default:
		return nil, mongoerr.New(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", inner[0].Key)
	}
	if err != nil {
		return nil, err
	}
	if coll, q, _, err = explainOnView(sub, coll, q); err != nil { // explain_view.go
		return nil, err
	}
	sub.Owned = c.Owned // a read's filter, set by the version check; a write's is got here
	if q.Owned, err = sub.writeOwned(); err != nil {
		return nil, err
	}
	verbosity, _ := p.Verbosity.(string)
	out, err := explainPlan(c, coll, q, verbosity)
	if err != nil {
		return nil, err
	}
	return append(out,
		bson.E{Key: "command", Value: inner},
		bson.E{Key: "serverInfo", Value: bson.D{{Key: "host", Value: c.D.info.Host}, {Key: "version", Value: c.D.info.Version}}},
	), nil
}

// explainPlan is explain's queryPlanner and, at verbosity executionStats
// or allPlansExecution (the default), the executionStats of running the
// query (reading only: explain never writes).
func explainPlan(c *Ctx, coll string, q exec.FindParams, verbosity string) (bson.D, error) {
	out := bson.D{{Key: "explainVersion", Value: "1"}}
	if verbosity == "queryPlanner" {
		qp, err := c.D.eng.ExplainFind(c.DB, coll, q)
		if err != nil {
			return nil, err
		}
		return append(out, bson.E{Key: "queryPlanner", Value: qp}), nil
	}
	qp, stats, err := c.D.eng.ExplainFindStats(c.DB, coll, q)
	if err != nil {
		return nil, err
	}
	if verbosity != "executionStats" {
		stats = append(stats, bson.E{Key: "allPlansExecution", Value: bson.A{}})
	}
	return append(out, bson.E{Key: "queryPlanner", Value: qp}, bson.E{Key: "executionStats", Value: stats}), nil
}

// known returns cmd without the fields dst's command does not take:
// explain ignores them rather than failing.
func known(dst any, cmd bson.D) bson.D {
	s := cmdspec.For(dst)
	out := bson.D{cmd[0]}
	for _, e := range cmd[1:] {
		if s.Accepts(e.Key) || cmdspec.IsGeneric(e.Key) {
			out = append(out, e)
		}
	}
	return out
}

func firstStmtQuery(c *Ctx, field string) (bson.D, error) {
	list, _, err := c.docs(field)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	for _, e := range list[0] {
		if e.Key == "q" {
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.q' is the wrong type '%s', expected type 'object'", field, bsonx.TypeAlias(e.Value))
			}
			return d, nil
		}
	}
	return nil, nil
}

func leadingMatch(c *Ctx) bson.D {
	pipeline, _, _ := c.array("pipeline")
	if len(pipeline) == 0 {
		return nil
	}
	if st, ok := pipeline[0].(bson.D); ok && len(st) == 1 && st[0].Key == "$match" {
		if d, ok := st[0].Value.(bson.D); ok {
			return d
		}
	}
	return nil
}
