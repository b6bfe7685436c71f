package txn

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestTransactions runs the single-primary cases on one set.
func TestTransactions(t *testing.T) {
	c := upSet(t)
	cl := connect(t, c)
	db := cl.Database("txn")
	for _, tc := range []struct {
		name string
		f    func(*testing.T, *mongo.Client, *mongo.Database)
	}{
		{"CommitVisibleAtOnce", testCommitVisible},
		{"AbortDiscards", testAbort},
		{"ReadOwnWrites", testReadOwnWrites},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"WriteConflict", testWriteConflict},
		{"CommitRetried", testCommitRetried},
		{"Errors", testErrors},
		{"LifetimeLimit", testLifetime},
		{"SizeLimit", testSizeLimit},
		{"UniqueAtStatement", testUnique},
		{"SnapshotSession", testSnapshotSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := ctxT(30 * time.Second)
			defer cancel()
			if err := db.CreateCollection(ctx, tc.name); err != nil {
				t.Fatal(err)
			}
			tc.f(t, cl, db)
		})
	}
}

func testCommitVisible(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("CommitVisibleAtOnce")
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sc := mongo.NewSessionContext(ctx, sess)
	for i := 1; i <= 3; i++ {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
			t.Fatalf("insert in txn: %v", err)
		}
	}
	if got := ids(t, ctx, coll, bson.D{}); len(got) != 0 {
		t.Fatalf("uncommitted writes visible outside the transaction: %v", got)
	}
	if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Fatalf("inside the transaction: %v, want [1 2 3]", got)
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Fatalf("after commit: %v, want [1 2 3]", got)
	}
	// One applyOps entry in the oplog.
	var e struct {
		NS string `bson:"ns"`
		Op string `bson:"op"`
		O  struct {
			ApplyOps []bson.Raw `bson:"applyOps"`
		} `bson:"o"`
		TxnNumber int64 `bson:"txnNumber"`
	}
	oplog := cl.Database("local").Collection("oplog.rs")
	err = oplog.FindOne(ctx, bson.D{{Key: "o.applyOps.ns", Value: "txn.CommitVisibleAtOnce"}}).Decode(&e)
	if err != nil {
		t.Fatalf("no applyOps entry: %v", err)
	}
	if e.NS != "admin.$cmd" || e.Op != "c" || e.TxnNumber == 0 {
		t.Fatalf("entry %+v", e)
	}
	ops := e.O.ApplyOps
	if len(ops) != 3 {
		t.Fatalf("applyOps has %d ops, want 3: %v", len(ops), e)
	}
	n, err := oplog.CountDocuments(ctx, bson.D{{Key: "ns", Value: "txn.CommitVisibleAtOnce"}, {Key: "op", Value: "i"}})
	if err != nil || n != 0 {
		t.Fatalf("per-document insert entries: %d (%v), want 0", n, err)
	}
}

func testAbort(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("AbortDiscards")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(2)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(sc, bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	if err := sess.AbortTransaction(ctx); err != nil {
		t.Fatalf("abort: %v", err)
	}
	if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, []int32{1}) {
		t.Fatalf("after abort: %v, want [1]", got)
	}
	// Commit after abort: NoSuchTransaction (the driver refuses it locally),
	// so check a new transaction works on the session.
	_ = sess.StartTransaction()
	if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(3)}}); err != nil {
		t.Fatal(err)
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, []int32{1, 3}) {
		t.Fatalf("after second transaction: %v, want [1 3]", got)
	}
}

func testReadOwnWrites(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("ReadOwnWrites")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := 1; i <= 10; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	mustDo(t, func() error {
		_, err := coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 100}}}})
		return err
	})
	mustDo(t, func() error {
		_, err := coll.DeleteMany(sc, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 8}, {Key: "$lt", Value: 50}}}})
		return err
	})
	mustDo(t, func() error {
		_, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(11)}, {Key: "x", Value: int32(5)}})
		return err
	})
	// x >= 5 by the index on x: 5, 6, 7, 11 (x 5), 2 (x 100); not 8..10.
	got := ids(t, sc, coll, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 5}}}})
	if want := []int32{2, 5, 6, 7, 11}; !slices.Equal(got, want) {
		t.Fatalf("indexed query in the transaction: %v, want %v", got, want)
	}
	var d bson.M
	if err := coll.FindOne(sc, bson.D{{Key: "_id", Value: 2}}).Decode(&d); err != nil || d["x"] != int32(100) {
		t.Fatalf("by _id in the transaction: %v %v", d, err)
	}
	var after bson.M
	err := coll.FindOneAndUpdate(sc, bson.D{{Key: "_id", Value: 11}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 1}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&after)
	if err != nil || after["x"] != int32(6) {
		t.Fatalf("findAndModify of its own insert: %v %v", after, err)
	}
	n, err := coll.Distinct(sc, "x", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 10}}}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := n.Values()
	if len(vals) != 1 {
		t.Fatalf("distinct x of _id >= 10 in the transaction: %v, want [6]", vals)
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	got = ids(t, ctx, coll, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 5}}}})
	if want := []int32{2, 5, 6, 7, 11}; !slices.Equal(got, want) {
		t.Fatalf("indexed query after commit: %v, want %v", got, want)
	}
}

func testSnapshotIsolation(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("SnapshotIsolation")
	mustDo(t, func() error { _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}); return err })
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1}) {
		t.Fatalf("first read: %v", got)
	}
	mustDo(t, func() error { _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(2)}}); return err })
	if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1}) {
		t.Fatalf("a write committed after the snapshot is visible in the transaction: %v", got)
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
}

func testWriteConflict(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("WriteConflict")
	mustDo(t, func() error {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "n", Value: 0}})
		return err
	})
	s1, _ := cl.StartSession()
	defer s1.EndSession(ctx)
	s2, _ := cl.StartSession()
	defer s2.EndSession(ctx)
	_ = s1.StartTransaction()
	_ = s2.StartTransaction()
	c1, c2 := mongo.NewSessionContext(ctx, s1), mongo.NewSessionContext(ctx, s2)
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
	mustDo(t, func() error { _, err := coll.UpdateOne(c1, bson.D{{Key: "_id", Value: 1}}, inc); return err })
	_, err := coll.UpdateOne(c2, bson.D{{Key: "_id", Value: 1}}, inc)
	if codeOf(err) != 112 || !hasLabel(err, "TransientTransactionError") {
		t.Fatalf("second transaction's write: %v, want WriteConflict (112) with TransientTransactionError", err)
	}
	if err := s1.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	// A transaction whose snapshot predates a committed change conflicts too.
	_ = s2.AbortTransaction(ctx)
	_ = s2.StartTransaction()
	if got := ids(t, c2, coll, bson.D{}); len(got) != 1 {
		t.Fatal(got)
	}
	mustDo(t, func() error { _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, inc); return err })
	_, err = coll.UpdateOne(c2, bson.D{{Key: "_id", Value: 1}}, inc)
	if codeOf(err) != 112 {
		t.Fatalf("write of a document changed since the snapshot: %v, want WriteConflict", err)
	}
	var d bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&d); err != nil || d["n"] != int32(2) {
		t.Fatalf("n = %v (%v), want 2", d["n"], err)
	}
}

func testCommitRetried(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("CommitRetried")
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	mustDo(t, func() error { _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(1)}}); return err })
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	// The driver sends the commit again (with w:majority) when asked.
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatalf("commit retried after success: %v", err)
	}
	if err := sess.AbortTransaction(ctx); err == nil {
		t.Fatal("abort after commit succeeded")
	}
}

func testErrors(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}
	run := func(cmd bson.D) error {
		return cl.Database("txn").RunCommand(ctx, cmd).Err()
	}
	stmt := func(cmd bson.D, n int64, start bool) bson.D {
		cmd = append(cmd, bson.E{Key: "lsid", Value: lsid}, bson.E{Key: "txnNumber", Value: n}, bson.E{Key: "autocommit", Value: false})
		if start {
			cmd = append(cmd, bson.E{Key: "startTransaction", Value: true})
		}
		return cmd
	}
	count := stmt(bson.D{{Key: "count", Value: "Errors"}}, 1, true)
	if err := run(count); codeOf(err) != 263 {
		t.Fatalf("count in a transaction: %v, want 263", err)
	}
	find := bson.D{{Key: "find", Value: "Errors"}}
	if err := run(stmt(find, 5, false)); codeOf(err) != 251 || !hasLabel(err, "TransientTransactionError") {
		t.Fatalf("statement of no transaction: %v, want NoSuchTransaction with the label", err)
	}
	if err := run(stmt(find, 5, true)); err != nil {
		t.Fatal(err)
	}
	if err := run(stmt(find, 4, true)); codeOf(err) != 225 {
		t.Fatalf("older txnNumber: %v, want TransactionTooOld (225)", err)
	}
	rc := append(stmt(find, 5, false), bson.E{Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}})
	if err := run(rc); codeOf(err) != 72 {
		t.Fatalf("readConcern on a later statement: %v, want InvalidOptions (72)", err)
	}
	admin := cl.Database("admin")
	if err := admin.RunCommand(ctx, stmt(bson.D{{Key: "abortTransaction", Value: 1}}, 5, false)).Err(); err != nil {
		t.Fatalf("abort: %v", err)
	}
	if err := admin.RunCommand(ctx, stmt(bson.D{{Key: "commitTransaction", Value: 1}}, 5, false)).Err(); codeOf(err) != 251 {
		t.Fatalf("commit after abort: %v, want NoSuchTransaction", err)
	}
	if err := run(append(bson.D{{Key: "find", Value: "Errors"}}, bson.E{Key: "autocommit", Value: false})); codeOf(err) != 72 {
		t.Fatalf("autocommit without txnNumber: %v, want 72", err)
	}
}

func testLifetime(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	admin := cl.Database("admin")
	set := func(n int32) {
		t.Helper()
		if err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "transactionLifetimeLimitSeconds", Value: n}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	set(1)
	defer set(60)
	coll := db.Collection("LifetimeLimit")
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	mustDo(t, func() error { _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(1)}}); return err })
	time.Sleep(3 * time.Second)
	err := sess.CommitTransaction(ctx)
	if codeOf(err) != 251 {
		t.Fatalf("commit of a transaction past its lifetime: %v, want NoSuchTransaction", err)
	}
	if got := ids(t, ctx, coll, bson.D{}); len(got) != 0 {
		t.Fatalf("aborted transaction's write visible: %v", got)
	}
}

func testSizeLimit(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("SizeLimit")
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	_ = sess.StartTransaction()
	sc := mongo.NewSessionContext(ctx, sess)
	big := make([]byte, 1<<20)
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		_, err = coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(i)}, {Key: "b", Value: bson.Binary{Data: big}}})
	}
	if err == nil {
		t.Fatal("20 MB of inserts in one transaction succeeded")
	}
	if c := codeOf(err); c != 10334 {
		t.Fatalf("oversized transaction: %v, want BSONObjectTooLarge", err)
	}
	_ = sess.AbortTransaction(ctx)
	if got := ids(t, ctx, coll, bson.D{}); len(got) != 0 {
		t.Fatalf("writes of the oversized transaction visible: %v", got)
	}
}

func mustDo(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(fmt.Errorf("%w", err))
	}
}

func testUnique(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("UniqueAtStatement")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	mustDo(t, func() error {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "u", Value: 1}})
		return err
	})
	sess, _ := cl.StartSession()
	defer sess.EndSession(ctx)
	sc := mongo.NewSessionContext(ctx, sess)
	// A key the snapshot holds, and one the transaction wrote itself.
	for _, pre := range []bson.D{nil, {{Key: "_id", Value: int32(5)}, {Key: "u", Value: 5}}} {
		_ = sess.StartTransaction()
		dup := bson.D{{Key: "_id", Value: int32(2)}, {Key: "u", Value: 1}}
		if pre != nil {
			mustDo(t, func() error { _, err := coll.InsertOne(sc, pre); return err })
			dup = bson.D{{Key: "_id", Value: int32(6)}, {Key: "u", Value: 5}}
		}
		if _, err := coll.InsertOne(sc, dup); codeOf(err) != 11000 {
			t.Fatalf("duplicate unique key in a transaction (after %v): %v, want DuplicateKey at the statement", pre, err)
		}
		_ = sess.AbortTransaction(ctx)
	}
	// A key the transaction freed may be taken again.
	_ = sess.StartTransaction()
	mustDo(t, func() error { _, err := coll.DeleteOne(sc, bson.D{{Key: "_id", Value: 1}}); return err })
	mustDo(t, func() error {
		_, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(3)}, {Key: "u", Value: 1}})
		return err
	})
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, ctx, coll, bson.D{{Key: "u", Value: 1}}); !slices.Equal(got, []int32{3}) {
		t.Fatalf("after commit: %v", got)
	}
}

// testSnapshotSession: reads of a snapshot session (readConcern snapshot
// with the first read's atClusterTime) keep reading one point in time.
func testSnapshotSession(t *testing.T, cl *mongo.Client, db *mongo.Database) {
	ctx := context.Background()
	coll := db.Collection("SnapshotSession")
	mustDo(t, func() error {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: 1}})
		return err
	})
	sess, err := cl.StartSession(options.Session().SetSnapshot(true))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	sc := mongo.NewSessionContext(ctx, sess)
	if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1}) {
		t.Fatalf("first snapshot read: %v", got)
	}
	if sess.SnapshotTime().IsZero() {
		t.Fatal("the first snapshot read answered no atClusterTime")
	}
	mustDo(t, func() error {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(2)}, {Key: "x", Value: 2}})
		return err
	})
	if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1}) {
		t.Fatalf("a later snapshot read sees a newer write: %v", got)
	}
	vals, err := coll.Distinct(sc, "x", bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if vs, _ := vals.Values(); len(vs) != 1 {
		t.Fatalf("distinct in the snapshot session: %v", vs)
	}
	if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("outside the session: %v", got)
	}
}
