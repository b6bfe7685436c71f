package spec

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// bulkStmt is one bulkWrite request as a write-command statement.
type bulkStmt struct {
	kind string // insert, update or delete
	stmt bson.D
}

// bulkStatements converts bulkWrite requests into statements.
func bulkStatements(reqs bson.A) ([]bulkStmt, error) {
	out := make([]bulkStmt, 0, len(reqs))
	for _, req := range reqs {
		d, ok := req.(bson.D)
		if !ok || len(d) != 1 {
			return nil, fmt.Errorf("bad bulkWrite request %v", req)
		}
		kind, body := d[0].Key, d[0].Value.(bson.D)
		if kind == "insertOne" {
			doc, _ := lookup(body, "document")
			withIDDoc, err := withID(doc)
			if err != nil {
				return nil, err
			}
			out = append(out, bulkStmt{kind: "insert", stmt: withIDDoc})
			continue
		}
		a, err := parseUpdateArgs(kind, body)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "updateOne", "updateMany", "replaceOne":
			out = append(out, bulkStmt{kind: "update", stmt: updateStatement(a, kind == "updateMany")})
		case "deleteOne", "deleteMany":
			out = append(out, bulkStmt{kind: "delete", stmt: deleteStatement(a, kind == "deleteMany")})
		default:
			return nil, runnerErrorf("runner: unsupported bulkWrite request %q", kind)
		}
	}
	return out, nil
}

// bulkTally accumulates the replies of a raw bulkWrite's batches.
type bulkTally struct {
	res mongo.BulkWriteResult
	wes []mongo.WriteError
	wce *mongo.WriteConcernError
}

func (t *bulkTally) add(kind string, offset int, rep writeReply) {
	switch kind {
	case "insert":
		t.res.InsertedCount += rep.n
	case "delete":
		t.res.DeletedCount += rep.n
	case "update":
		for i, id := range rep.upserted {
			t.res.UpsertedIDs[i+int64(offset)] = id
		}
		t.res.UpsertedCount += int64(len(rep.upserted))
		t.res.MatchedCount += rep.n - int64(len(rep.upserted))
		t.res.ModifiedCount += rep.nModified
	}
	for _, we := range rep.writeErrors {
		we.Index += offset
		t.wes = append(t.wes, we)
	}
	if rep.wcErr != nil {
		t.wce = rep.wcErr
	}
}

// rawBulkWrite runs a bulkWrite as raw commands, one per run of
// consecutive requests of the same kind (as drivers batch ordered writes).
func rawBulkWrite(ctx context.Context, r *testRun, coll *mongo.Collection, reqs bson.A, c commonWrite) (any, bool, error) {
	c.wc = r.ents.writeConcern(coll)
	stmts, err := bulkStatements(reqs)
	if err != nil {
		return nil, false, err
	}
	t := &bulkTally{res: mongo.BulkWriteResult{UpsertedIDs: map[int64]any{}}}
	for start := 0; start < len(stmts); {
		end := start
		batch := bson.A{}
		for end < len(stmts) && stmts[end].kind == stmts[start].kind {
			batch = append(batch, stmts[end].stmt)
			end++
		}
		rep, err := runWrite(ctx, coll, writeCommand(coll, stmts[start].kind, batch, c))
		if err != nil {
			return nil, true, err
		}
		t.add(stmts[start].kind, start, rep)
		if c.ordered && len(rep.writeErrors) > 0 {
			break
		}
		start = end
	}
	if !acknowledged(c.wc) {
		return unackResult, true, nil
	}
	if len(t.wes) > 0 || t.wce != nil {
		return bulkResult(&t.res), true, bulkException(t.wes, t.wce)
	}
	return bulkResult(&t.res), true, nil
}
