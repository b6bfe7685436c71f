package command

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// MapReduceAsAggregate rewrites a mapReduce command into the aggregate
// command that computes it (mapreduce_pipeline.go), keeping the generic
// arguments (readConcern, writeConcern, session, ...); finish turns the
// aggregate's reply into mapReduce's. The router runs mapReduce on a
// sharded collection this way.
func MapReduceAsAggregate(cmd bson.D, db string) (agg bson.D, finish func(reply bson.D) (bson.D, error), err error) {
	var p request.MapReduce
	if err := cmdspec.Decode(cmd, &p); err != nil {
		return nil, nil, err
	}
	out, err := mrOut(p.Out)
	if err != nil {
		return nil, nil, err
	}
	pipe, err := mapReducePipeline(&p, out, db)
	if err != nil {
		return nil, nil, err
	}
	agg = bson.D{{Key: "aggregate", Value: string(p.Collection)}, {Key: "pipeline", Value: pipe},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: int64(math.MaxInt32)}}}}
	if p.Collation.Set {
		agg = append(agg, bson.E{Key: "collation", Value: p.Collation.Doc})
	}
	for _, e := range cmd[1:] {
		if cmdspec.IsGeneric(e.Key) {
			agg = append(agg, e)
		}
	}
	return agg, func(reply bson.D) (bson.D, error) { return mapReduceReply(out, reply) }, nil
}

// mapReduceReply is mapReduce's reply from its aggregate's: the inline
// results, or the output collection's name.
func mapReduceReply(out mrOutput, reply bson.D) (bson.D, error) {
	if !out.inline {
		if out.db == "" {
			return bson.D{{Key: "result", Value: out.coll}}, nil
		}
		return bson.D{{Key: "result", Value: bson.D{{Key: "db", Value: out.db}, {Key: "collection", Value: out.coll}}}}, nil
	}
	cur, _ := bsonx.Get(reply, "cursor")
	batch, _ := bsonx.Get(asDoc(cur), "firstBatch")
	if id, _ := bsonx.Get(asDoc(cur), "id"); id != nil && id != int64(0) {
		return nil, mongoerr.New(mongoerr.BSONObjectTooLarge, "mapReduce inline results are larger than one reply (16 MB): use an output collection")
	}
	if batch == nil {
		batch = bson.A{}
	}
	return bson.D{{Key: "results", Value: batch}}, nil
}
