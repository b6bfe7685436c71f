package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "explain", Help: "describes the plan of find, count, distinct, update, delete, findAndModify or aggregate", Handler: explainCmd,
		Fields: []string{"verbosity"}})
}

func explainCmd(c *Ctx) (bson.D, error) {
	inner, ok := c.Cmd[0].Value.(bson.D)
	if !ok || len(inner) == 0 {
		return nil, c.typeErr("explain", c.Cmd[0].Value, "object")
	}
	sub := &Ctx{D: c.D, Conn: c.Conn, DB: c.DB, Name: inner[0].Key, Cmd: inner, Req: c.Req}
	coll, err := sub.collArg()
	if err != nil {
		return nil, err
	}
	var p exec.FindParams
	switch inner[0].Key {
	case "find":
		if p, err = sub.findParams(); err != nil {
			return nil, err
		}
	case "count", "distinct":
		p.Filter, _, err = sub.doc("query")
	case "findAndModify", "findandmodify":
		p.Filter, _, err = sub.doc("query")
		if err == nil {
			p.Sort, _, err = sub.doc("sort")
		}
	case "update", "delete":
		p.Filter, err = firstStmtQuery(sub, map[string]string{"update": "updates", "delete": "deletes"}[inner[0].Key])
	case "aggregate":
		p.Filter = leadingMatch(sub)
	default:
		return nil, mongoerr.New(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", inner[0].Key)
	}
	if err != nil {
		return nil, err
	}
	qp, err := c.D.eng.ExplainFind(c.DB, coll, p)
	if err != nil {
		return nil, err
	}
	return bson.D{
		{Key: "explainVersion", Value: "1"},
		{Key: "queryPlanner", Value: qp},
		{Key: "command", Value: inner},
		{Key: "serverInfo", Value: bson.D{{Key: "host", Value: c.D.info.Host}, {Key: "version", Value: c.D.info.Version}}},
	}, nil
}

func firstStmtQuery(c *Ctx, field string) (bson.D, error) {
	list, _, err := c.docs(field)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	for _, e := range list[0] {
		if e.Key == "q" {
			return asDoc(field+".q", e.Value)
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
