package spec

import (
	"context"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// writeReply is the parsed reply of an insert, update or delete command.
type writeReply struct {
	n, nModified int64
	upserted     map[int64]any // statement index -> _id
	writeErrors  []mongo.WriteError
	wcErr        *mongo.WriteConcernError
	raw          bson.Raw
}

type rawWriteError struct {
	Index   int      `bson:"index"`
	Code    int      `bson:"code"`
	ErrMsg  string   `bson:"errmsg"`
	ErrInfo bson.Raw `bson:"errInfo"`
}

type rawWCError struct {
	Code     int      `bson:"code"`
	CodeName string   `bson:"codeName"`
	ErrMsg   string   `bson:"errmsg"`
	ErrInfo  bson.Raw `bson:"errInfo"`
}

// runWrite sends a write command and parses its reply. A command-level
// failure (ok: 0) is returned as the driver's error.
func runWrite(ctx context.Context, coll *mongo.Collection, cmd bson.D) (writeReply, error) {
	raw, err := coll.Database().RunCommand(ctx, cmd).Raw()
	if err != nil {
		return writeReply{}, err
	}
	var rep struct {
		N           int64      `bson:"n"`
		NModified   int64      `bson:"nModified"`
		WriteErrors []bson.Raw `bson:"writeErrors"`
		WCError     bson.Raw   `bson:"writeConcernError"`
		Upserted    []struct {
			Index int64         `bson:"index"`
			ID    bson.RawValue `bson:"_id"`
		} `bson:"upserted"`
	}
	if err := bson.Unmarshal(raw, &rep); err != nil {
		return writeReply{}, fmt.Errorf("runner: decode write reply: %w", err)
	}
	out := writeReply{n: rep.N, nModified: rep.NModified, upserted: map[int64]any{}, raw: raw}
	for _, u := range rep.Upserted {
		out.upserted[u.Index] = normalize(u.ID)
	}
	for _, w := range rep.WriteErrors {
		var we rawWriteError
		if err := bson.Unmarshal(w, &we); err != nil {
			return out, fmt.Errorf("runner: decode write error: %w", err)
		}
		out.writeErrors = append(out.writeErrors, mongo.WriteError{Index: we.Index, Code: we.Code,
			Message: we.ErrMsg, Details: we.ErrInfo, Raw: w})
	}
	if rep.WCError != nil {
		var wce rawWCError
		if err := bson.Unmarshal(rep.WCError, &wce); err != nil {
			return out, fmt.Errorf("runner: decode write concern error: %w", err)
		}
		out.wcErr = &mongo.WriteConcernError{Name: wce.CodeName, Code: wce.Code, Message: wce.ErrMsg,
			Details: wce.ErrInfo, Raw: rep.WCError}
	}
	return out, nil
}

// exception is the single-statement error the typed API would return.
func (w writeReply) exception() error {
	if len(w.writeErrors) == 0 && w.wcErr == nil {
		return nil
	}
	return mongo.WriteException{WriteErrors: w.writeErrors, WriteConcernError: w.wcErr, Raw: w.raw}
}

func acknowledged(wc *writeconcern.WriteConcern) bool { return wc == nil || wc.Acknowledged() }

// unackResult is what an unacknowledged write returns.
var unackResult = bson.D{{Key: "acknowledged", Value: false}}

// rawUpdate runs updateOne, updateMany or replaceOne as a raw command.
func rawUpdate(ctx context.Context, r *testRun, coll *mongo.Collection, a updateArgs, multi bool) (any, bool, error) {
	c := commonWrite{ordered: true, bypass: a.bypass, comment: a.comment, let: a.let, wc: r.ents.writeConcern(coll)}
	rep, err := runWrite(ctx, coll, writeCommand(coll, "update", bson.A{updateStatement(a, multi)}, c))
	if err != nil || !acknowledged(c.wc) {
		return ackOr(c.wc, err)
	}
	if err := rep.exception(); err != nil {
		return nil, true, err
	}
	res := &mongo.UpdateResult{MatchedCount: rep.n - int64(len(rep.upserted)), ModifiedCount: rep.nModified,
		UpsertedCount: int64(len(rep.upserted)), UpsertedID: rep.upserted[0]}
	return updateResult(res), true, nil
}

// rawDelete runs deleteOne or deleteMany as a raw command.
func rawDelete(ctx context.Context, r *testRun, coll *mongo.Collection, a updateArgs, multi bool) (any, bool, error) {
	c := commonWrite{ordered: true, comment: a.comment, let: a.let, wc: r.ents.writeConcern(coll)}
	rep, err := runWrite(ctx, coll, writeCommand(coll, "delete", bson.A{deleteStatement(a, multi)}, c))
	if err != nil || !acknowledged(c.wc) {
		return ackOr(c.wc, err)
	}
	if err := rep.exception(); err != nil {
		return nil, true, err
	}
	return deleteResult(&mongo.DeleteResult{DeletedCount: rep.n}), true, nil
}

// ackOr is the result of a write that failed outright or was not
// acknowledged.
func ackOr(wc *writeconcern.WriteConcern, err error) (any, bool, error) {
	if err == nil && !acknowledged(wc) {
		return unackResult, true, nil
	}
	return nil, true, err
}

// rawInsert runs insertOne (many=false) or insertMany as a raw command.
func rawInsert(ctx context.Context, r *testRun, coll *mongo.Collection, docs bson.A, c commonWrite, many bool) (any, bool, error) {
	c.wc = r.ents.writeConcern(coll)
	stmts := make(bson.A, len(docs))
	ids := bson.D{}
	for i, d := range docs {
		doc, err := withID(d)
		if err != nil {
			return nil, false, runnerErrorf("runner: %v", err)
		}
		stmts[i] = doc
		id, _ := lookup(doc, "_id")
		ids = append(ids, bson.E{Key: strconv.Itoa(i), Value: id})
	}
	rep, err := runWrite(ctx, coll, writeCommand(coll, "insert", stmts, c))
	if err != nil || !acknowledged(c.wc) {
		return ackOr(c.wc, err)
	}
	if !many {
		if err := rep.exception(); err != nil {
			return nil, true, err
		}
		return bson.D{{Key: "insertedId", Value: ids[0].Value}}, true, nil
	}
	if len(rep.writeErrors) > 0 || rep.wcErr != nil {
		res := &mongo.BulkWriteResult{InsertedCount: rep.n}
		return bulkResult(res), true, bulkException(rep.writeErrors, rep.wcErr)
	}
	return bson.D{{Key: "insertedIds", Value: ids}}, true, nil
}

// bulkException is the error insertMany and bulkWrite return.
func bulkException(wes []mongo.WriteError, wce *mongo.WriteConcernError) error {
	bwe := mongo.BulkWriteException{WriteConcernError: wce}
	for _, we := range wes {
		bwe.WriteErrors = append(bwe.WriteErrors, mongo.BulkWriteError{WriteError: we})
	}
	return bwe
}

// rawFindAndModify runs a findOneAnd* helper as a raw command.
func rawFindAndModify(ctx context.Context, r *testRun, coll *mongo.Collection, opName string, f fam) (any, bool, error) {
	wc := r.ents.writeConcern(coll)
	raw, err := coll.Database().RunCommand(ctx, findAndModifyCommand(coll, opName, f, wc)).Raw()
	if err != nil || !acknowledged(wc) {
		return nil, true, err
	}
	v, err := raw.LookupErr("value")
	if err != nil || v.Type == bson.TypeNull {
		return nil, true, nil
	}
	return normalize(v), true, nil
}
