package spec

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// rawDataMinVersion is the first server version that takes rawData;
// drivers omit the option for older servers.
var rawDataMinVersion = [3]int{8, 2, 0}

// opCount runs the deprecated count helper (gone from the v2 driver) as
// the {count: ...} command MongoDB's drivers send.
func opCount(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	cmd := bson.D{{Key: "count", Value: coll.Name()}}
	for _, e := range op.Arguments {
		switch e.Key {
		case "filter":
			if d, ok := e.Value.(bson.D); !ok || len(d) > 0 {
				cmd = append(cmd, bson.E{Key: "query", Value: e.Value})
			}
		case "skip", "limit", "hint", "collation", "comment", "maxTimeMS":
			cmd = append(cmd, e)
		case "rawData":
			if r.env != nil && cmpVersion(r.env.Version, rawDataMinVersion) >= 0 {
				cmd = append(cmd, e)
			}
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
	}
	return retryCount(ctx, coll.Database(), cmd) // ops_retryable.go
}

// countReply sends a count command and returns its n.
func countReply(ctx context.Context, db *mongo.Database, cmd bson.D) (any, bool, error) {
	var rep struct {
		N int64 `bson:"n"`
	}
	if err := db.RunCommand(ctx, cmd).Decode(&rep); err != nil {
		return nil, false, err
	}
	return rep.N, false, nil
}

// rawEstimatedCount runs estimatedDocumentCount with maxTimeMS (the v2
// driver only derives maxTimeMS from a client-side timeout) as the count
// command drivers send.
func rawEstimatedCount(ctx context.Context, coll *mongo.Collection, args bson.D) (any, bool, error) {
	cmd := bson.D{{Key: "count", Value: coll.Name()}}
	cmd, err := commandArgs("estimatedDocumentCount", cmd, args, nil, "maxTimeMS", "comment")
	if err != nil {
		return nil, false, err
	}
	return countReply(ctx, coll.Database(), cmd)
}
