package command

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mapReduceCmd is the deprecated mapReduce command, run as an aggregation
// (mapreduce_pipeline.go). Inline results come back in "results" (at most
// one reply's worth, 16 MB); otherwise "result" names the collection.
// TODO(#14): out {reduce: ...} with finalize.
func mapReduceCmd(c *Ctx, p *request.MapReduce) (bson.D, error) {
	out, err := mrOut(p.Out)
	if err != nil {
		return nil, err
	}
	pipe, err := mapReducePipeline(p, out, c.DB)
	if err != nil {
		return nil, err
	}
	cursor := bson.D{{Key: "batchSize", Value: int64(math.MaxInt32)}}
	reply, err := aggregate(c, &request.Aggregate{Target: string(p.Collection), Pipeline: pipe, Cursor: &cursor, Collation: p.Collation})
	if err != nil {
		return nil, err
	}
	if cur, _ := bsonx.Get(reply, "cursor"); out.inline {
		if id, _ := bsonx.Get(asDoc(cur), "id"); id != int64(0) {
			if n, ok := id.(int64); ok {
				c.D.eng.Cursors().Kill(n)
			}
		}
	}
	return mapReduceReply(out, reply) // mapreduce_router.go
}

// mrOut parses out: a collection name (replace), {inline: 1}, or
// {replace|merge|reduce: name, db: name}.
func mrOut(v any) (mrOutput, error) {
	switch x := v.(type) {
	case string:
		return mrOutput{coll: x, action: "replace"}, nil
	case bson.D:
		var out mrOutput
		for _, e := range x {
			switch e.Key {
			case "inline":
				out.inline = true
			case "replace", "merge", "reduce":
				s, ok := e.Value.(string)
				if !ok || s == "" {
					return out, mongoerr.New(mongoerr.BadValue, "'out.%s' must be a non-empty string", e.Key)
				}
				out.coll, out.action = s, e.Key
			case "db":
				out.db, _ = e.Value.(string)
			case "sharded", "nonAtomic":
			default:
				return out, mongoerr.New(mongoerr.BadValue, "unknown 'out' option: %s", e.Key)
			}
		}
		if out.inline == (out.coll != "") {
			return out, mongoerr.New(mongoerr.BadValue, "'out' must name exactly one of inline, replace, merge or reduce")
		}
		return out, nil
	}
	return mrOutput{}, mongoerr.New(mongoerr.BadValue, "'out' must be a string or an object")
}

// mapReduceWrites: mapReduce waits for its write concern when it writes
// an output collection.
func mapReduceWrites(cmd bson.D) bool {
	v, _ := bsonx.Get(cmd, "out")
	out, err := mrOut(v)
	return err == nil && !out.inline
}
