package txn

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestTxnImplicitCreate: a collection an insert in a transaction creates
// is gone after the transaction aborts (abortTransaction, a failed
// statement, endSessions, the lifetime limit), on every member, stays after a commit, and create stays
// refused (263).
// TODO(#14): create/createIndexes in a transaction, and the creation at
// the commit inside the applyOps entry (catalog/txn_created.go).
func TestTxnImplicitCreate(t *testing.T) {
	c := upSet(t)
	cl := connect(t, c)
	db := cl.Database("txnddl")
	ctx, cancel := ctxT(60 * time.Second)
	defer cancel()
	inTxn := func(name string, f func(sc context.Context) error, commit bool) {
		t.Helper()
		sess, err := cl.StartSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.EndSession(ctx)
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(ctx, sess)
		if err := f(sc); err != nil {
			t.Logf("%s: statement failed: %v", name, err)
		}
		if commit {
			if err := sess.CommitTransaction(sc); err != nil {
				t.Fatalf("%s: commit: %v", name, err)
			}
			return
		}
		_ = sess.AbortTransaction(sc)
	}
	has := func(name string) bool {
		names, err := db.ListCollectionNames(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(names, name)
	}
	insert := func(coll string, ids ...int32) func(context.Context) error {
		return func(sc context.Context) error {
			for _, id := range ids {
				if _, err := db.Collection(coll).InsertOne(sc, bson.D{{Key: "_id", Value: id}}); err != nil {
					return err
				}
			}
			return nil
		}
	}

	inTxn("abort", insert("aborted", 1, 2), false)
	if has("aborted") {
		t.Error("abortTransaction left the collection its insert created")
	}
	inTxn("failed", insert("failed", 1, 1), false) // DuplicateKey aborts
	if has("failed") {
		t.Error("a failed statement's abort left the collection its insert created")
	}
	inTxn("commit", insert("committed", 1, 2, 3), true)
	if n, err := db.Collection("committed").CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
		t.Errorf("committed collection holds %d documents (%v), want 3", n, err)
	}
	// A collection that existed before the transaction stays after its abort.
	if err := db.CreateCollection(ctx, "existing"); err != nil {
		t.Fatal(err)
	}
	inTxn("existing", insert("existing", 1), false)
	if !has("existing") {
		t.Error("an abort dropped a collection older than the transaction")
	}
	// endSessions and the lifetime limit abort too: the collection goes.
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := insert("ended", 1)(mongo.NewSessionContext(ctx, sess)); err != nil {
		t.Fatal(err)
	}
	admin := cl.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "endSessions", Value: bson.A{sess.ID()}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if has("ended") {
		t.Error("endSessions left the collection its transaction's insert created")
	}
	setLimit := func(n int32) {
		if err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "transactionLifetimeLimitSeconds", Value: n}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	setLimit(1)
	defer setLimit(60)
	sess2, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess2.EndSession(ctx)
	if err := sess2.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := insert("reaped", 1)(mongo.NewSessionContext(ctx, sess2)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); has("reaped") && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	if has("reaped") {
		t.Error("a transaction aborted by its lifetime limit left the collection its insert created")
	}
	// Every member ends with the committed collection and without the
	// aborted ones (the abort's drop replicates).
	for _, m := range c.Members() {
		mc, err := c.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		mdb := mc.Database("txnddl", options.Database().SetReadPreference(readpref.Nearest()))
		var names []string
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if names, err = mdb.ListCollectionNames(ctx, bson.D{}); err == nil &&
				slices.Contains(names, "committed") && !slices.Contains(names, "aborted") && !slices.Contains(names, "failed") {
				break
			}
		}
		if !slices.Contains(names, "committed") || slices.Contains(names, "aborted") || slices.Contains(names, "failed") {
			t.Errorf("%s holds the collections %v (%v)", m.Name, names, err)
		}
	}
	inTxn("create", func(sc context.Context) error {
		err := db.CreateCollection(sc, "explicit")
		if codeOf(err) != 263 {
			t.Errorf("create in a transaction: %v, want OperationNotSupportedInTransaction (263)", err)
		}
		return err
	}, false)
}

// TestTxnImplicitCreateThroughRouter: through a router, an aborted
// transaction's insert into a new unsharded collection leaves no
// collection on the shard, and a committed one keeps it.
func TestTxnImplicitCreateThroughRouter(t *testing.T) {
	cl := harness.OneShardCluster(t, "")
	ctx, cancel := ctxT(60 * time.Second)
	defer cancel()
	db := cl.Database("rtddl")
	if err := db.CreateCollection(ctx, "first"); err != nil { // the database gets its shard
		t.Fatal(err)
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	for _, commit := range []bool{false, true} {
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(ctx, sess)
		if _, err := db.Collection("made").InsertOne(sc, bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
			t.Fatalf("insert through the router in a transaction: %v", err)
		}
		if commit {
			err = sess.CommitTransaction(sc)
		} else {
			err = sess.AbortTransaction(sc)
		}
		if err != nil {
			t.Fatalf("commit %v: %v", commit, err)
		}
		names, err := db.ListCollectionNames(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(names, "made") != commit {
			t.Errorf("after commit=%v the collections are %v", commit, names)
		}
	}
}

// TestTxnImplicitCreateChangeStream: a database change stream with
// showExpandedEvents sees a committed transaction's implicit create and
// then its inserts (with the transaction's lsid and txnNumber).
func TestTxnImplicitCreateChangeStream(t *testing.T) {
	c := upSet(t)
	cl := connect(t, c)
	db := cl.Database("txnddlcs")
	ctx, cancel := ctxT(60 * time.Second)
	defer cancel()
	cs, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sc := mongo.NewSessionContext(ctx, sess)
	for i := int32(1); i <= 2; i++ {
		if _, err := db.Collection("made").InsertOne(sc, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.CommitTransaction(sc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 3 && cs.Next(ctx) {
		op, _ := cs.Current.Lookup("operationType").StringValueOK()
		coll, _ := cs.Current.Lookup("ns", "coll").StringValueOK()
		if op == "insert" {
			if _, ok := cs.Current.Lookup("txnNumber").Int64OK(); !ok {
				t.Errorf("insert event without txnNumber: %v", cs.Current)
			}
		}
		got = append(got, op+" "+coll)
	}
	if want := []string{"create made", "insert made", "insert made"}; !slices.Equal(got, want) {
		t.Errorf("events %v (%v), want %v", got, cs.Err(), want)
	}
}
