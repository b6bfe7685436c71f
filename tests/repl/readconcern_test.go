package repl

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// rcFind runs find {_id: id} on db repl_rc.rc at host with readConcern rc
// and a secondaryPreferred read preference, plus extra fields; it returns
// the reply.
func rcFind(t *testing.T, host string, id string, rc bson.D, extra ...bson.E) bson.Raw {
	t.Helper()
	cmd := bson.D{{Key: "find", Value: "rc"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: id}}},
		{Key: "readConcern", Value: rc},
		{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}},
		{Key: "$db", Value: "repl_rc"}}
	r, err := rawCommand(host, append(cmd, extra...))
	if err != nil {
		t.Fatalf("find %s on %s with readConcern %v: %v", id, host, rc, err)
	}
	return r
}

// rcFound reports whether a find reply returned a document; it fails t on
// an error reply.
func rcFound(t *testing.T, r bson.Raw, what string) bool {
	t.Helper()
	if ok, code, name := replyCode(r); ok != 1 {
		t.Fatalf("%s: error %d %s: %v", what, code, name, r)
	}
	docs, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	return len(docs) > 0
}

// rcInsert inserts {_id: id} at w:1 on the primary and returns the reply's
// operationTime.
func rcInsert(t *testing.T, p *cluster.Member, id string) bson.Timestamp {
	t.Helper()
	r, err := rawCommand(p.Host, bson.D{{Key: "insert", Value: "rc"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: id}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(1)}}}, {Key: "$db", Value: "repl_rc"}})
	if err != nil {
		t.Fatalf("insert %s: %v", id, err)
	}
	if ok, code, name := replyCode(r); ok != 1 {
		t.Fatalf("insert %s: %d %s", id, code, name)
	}
	tv, ti, ok := r.Lookup("operationTime").TimestampOK()
	if !ok {
		t.Fatalf("insert reply has no operationTime: %v", r)
	}
	return bson.Timestamp{T: tv, I: ti}
}

func gossip(ts bson.Timestamp) bson.E {
	return bson.E{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: ts},
		{Key: "signature", Value: bson.D{{Key: "hash", Value: bson.Binary{Data: make([]byte, 20)}}, {Key: "keyId", Value: int64(0)}}}}}
}

var (
	rcLocal    = bson.D{{Key: "level", Value: "local"}}
	rcMajority = bson.D{{Key: "level", Value: "majority"}}
)

// TestReadConcernMajoritySnapshot: with both secondaries stopped (SIGSTOP)
// a w:1 write on the primary is visible to local reads but not to majority
// reads; a secondary resumed with a read already waiting on it with
// afterClusterTime answers only once it has applied the write; after both
// resume, a majority read with afterClusterTime sees the write and reports
// an operationTime at or after it.
func TestReadConcernMajoritySnapshot(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 20*time.Second)
	rcInsert(t, p, "before") // the collection exists everywhere
	secs := secondaries(c, p)
	eventually(t, 10*time.Second, "first write majority-visible", func() error {
		if !rcFound(t, rcFind(t, p.Host, "before", rcMajority), "majority read") {
			return errors.New("not visible to a majority read")
		}
		return nil
	})

	for _, s := range secs {
		if err := syscall.Kill(s.PID, syscall.SIGSTOP); err != nil {
			t.Fatalf("SIGSTOP %s: %v", s.Name, err)
		}
	}
	resumed := map[*cluster.Member]bool{}
	resume := func(s *cluster.Member) {
		if !resumed[s] {
			resumed[s] = true
			_ = syscall.Kill(s.PID, syscall.SIGCONT)
		}
	}
	t.Cleanup(func() {
		for _, s := range secs {
			resume(s)
		}
	})
	ts := rcInsert(t, p, "x")
	if !rcFound(t, rcFind(t, p.Host, "x", rcLocal), "local read on the primary") {
		t.Fatal("a w:1 write is not visible to a local read on its primary")
	}
	if rcFound(t, rcFind(t, p.Host, "x", rcMajority), "majority read on the primary") {
		t.Fatal("a write no secondary has is visible to a majority read")
	}

	// The read reaches the stopped secondary first; resuming it, its
	// fetcher and the read race, and the read must wait for the write.
	s0 := secs[0]
	got := make(chan bson.Raw, 1)
	go func() {
		r, err := rawCommand(s0.Host, bson.D{{Key: "find", Value: "rc"},
			{Key: "filter", Value: bson.D{{Key: "_id", Value: "x"}}},
			{Key: "readConcern", Value: bson.D{{Key: "afterClusterTime", Value: ts}}},
			{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}},
			gossip(ts), {Key: "$db", Value: "repl_rc"}})
		if err != nil {
			t.Errorf("afterClusterTime read on %s: %v", s0.Name, err)
		}
		got <- r
	}()
	time.Sleep(100 * time.Millisecond)
	resume(s0)
	if r := <-got; r != nil && !rcFound(t, r, "afterClusterTime read on the resumed secondary") {
		t.Fatalf("afterClusterTime %v read on %s answered without the write: %v", ts, s0.Name, r)
	}
	resume(secs[1])

	p = primary(t, c, 20*time.Second)
	r := rcFind(t, p.Host, "x", bson.D{{Key: "level", Value: "majority"}, {Key: "afterClusterTime", Value: ts}},
		gossip(ts), bson.E{Key: "maxTimeMS", Value: int32(4000)})
	if !rcFound(t, r, "majority read after the secondaries resumed") {
		t.Fatalf("majority read with afterClusterTime %v does not see the write: %v", ts, r)
	}
	tv, ti, _ := r.Lookup("operationTime").TimestampOK()
	if op := (bson.Timestamp{T: tv, I: ti}); op.Before(ts) {
		t.Fatalf("majority read operationTime %v before the write %v it saw", op, ts)
	}
}

// TestReadConcernLinearizable: refused on a secondary (NotWritablePrimary),
// served on the primary; majority without afterClusterTime works on a
// secondary; invalid combinations get MongoDB's codes.
func TestReadConcernLinearizable(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	rcInsert(t, p, "lin")
	lin := bson.D{{Key: "level", Value: "linearizable"}}
	if !rcFound(t, rcFind(t, p.Host, "lin", lin, bson.E{Key: "maxTimeMS", Value: int32(4000)}), "linearizable read on the primary") {
		t.Fatal("linearizable read on the primary does not see a write it acknowledged")
	}
	s := secondaries(c, p)[0]
	r := rcFind(t, s.Host, "lin", lin)
	if ok, code, _ := replyCode(r); ok != 0 || code != 10107 {
		t.Fatalf("linearizable read on a secondary: %v, want NotWritablePrimary (10107)", r)
	}
	eventually(t, 10*time.Second, "majority read on a secondary", func() error {
		if !rcFound(t, rcFind(t, s.Host, "lin", rcMajority), "majority read on a secondary") {
			return errors.New("not visible to a majority read")
		}
		return nil
	})
	bad := []struct {
		rc   bson.D
		code int32
	}{
		{bson.D{{Key: "level", Value: "eventual"}}, 9},
		{bson.D{{Key: "level", Value: "available"}, {Key: "afterClusterTime", Value: bson.Timestamp{T: 1}}}, 72},
		// A snapshot read at a time older than every kept snapshot.
		{bson.D{{Key: "level", Value: "snapshot"}, {Key: "atClusterTime", Value: bson.Timestamp{T: 1}}}, 246},
	}
	for _, b := range bad {
		r := rcFind(t, p.Host, "lin", b.rc)
		if ok, code, _ := replyCode(r); ok != 0 || code != b.code {
			t.Errorf("readConcern %v: %v, want code %d", b.rc, r, b.code)
		}
	}
}

// TestHelloLastWrite: hello on every member reports lastWrite (opTime,
// lastWriteDate, majorityOpTime), which drivers use for
// maxStalenessSeconds.
func TestHelloLastWrite(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	rcInsert(t, p, "lw")
	for _, m := range c.Members() {
		r, err := rawCommand(m.Host, bson.D{{Key: "hello", Value: int32(1)}, {Key: "$db", Value: "admin"}})
		if err != nil {
			t.Fatal(err)
		}
		lw, ok := r.Lookup("lastWrite").DocumentOK()
		if !ok {
			t.Fatalf("hello on %s has no lastWrite: %v", m.Name, r)
		}
		if _, ok := lw.Lookup("lastWriteDate").DateTimeOK(); !ok {
			t.Errorf("hello on %s: lastWrite.lastWriteDate missing: %v", m.Name, lw)
		}
		if _, _, ok := lw.Lookup("opTime", "ts").TimestampOK(); !ok {
			t.Errorf("hello on %s: lastWrite.opTime.ts missing: %v", m.Name, lw)
		}
		if _, ok := lw.Lookup("majorityWriteDate").DateTimeOK(); !ok {
			t.Errorf("hello on %s: lastWrite.majorityWriteDate missing: %v", m.Name, lw)
		}
	}
}
