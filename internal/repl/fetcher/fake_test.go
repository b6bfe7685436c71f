package fetcher

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// fakeSource answers find/getMore/killCursors on local.oplog.rs from a real
// catalog's oplog, as the server's exec layer does.
type fakeSource struct {
	cat    *catalog.Catalog
	oldest bson.Timestamp // entries older than this are "truncated"

	mu          sync.Mutex
	cursors     map[int64]*fakeCursor
	nextID      int64
	getMoreErr  error // returned by every getMore when set
	deadCursors bool  // reply cursor id 0 (the source closes cursors)
	cmds        []string
	clock       atomic.Int64 // unix seconds; each write is one second later
}

type fakeCursor struct {
	after bson.Timestamp
	incl  bool
}

func newFakeSource(t testing.TB) *fakeSource {
	t.Helper()
	s := &fakeSource{cursors: map[int64]*fakeCursor{}}
	s.clock.Store(time.Unix(1_700_000_000, 0).Unix())
	c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1,
		Now: func() time.Time { return time.Unix(s.clock.Load(), 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	s.cat = c
	return s
}

// write inserts n documents into app.c on the source, one entry each.
func (s *fakeSource) write(t testing.TB, n int) {
	t.Helper()
	coll, _, err := s.cat.EnsureCollection("app", "c")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		s.clock.Add(1)
		if _, err := s.cat.Insert(coll, bson.D{{Key: "_id", Value: bson.NewObjectID()}}); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *fakeSource) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	s.mu.Lock()
	s.cmds = append(s.cmds, cmd[0].Key)
	s.mu.Unlock()
	if db != "local" {
		return nil, errors.New("fake: wrong database " + db)
	}
	switch cmd[0].Key {
	case "find":
		return s.find(cmd)
	case "getMore":
		return s.getMore(ctx, cmd)
	case "killCursors":
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	}
	return nil, errors.New("fake: unknown command " + cmd[0].Key)
}

func (s *fakeSource) find(cmd bson.D) (bson.D, error) {
	cur := &fakeCursor{incl: true}
	if f, ok := bsonx.Get(cmd, "filter"); ok {
		ge, _ := bsonx.Get(f.(bson.D), "ts")
		cur.after = ge.(bson.D)[0].Value.(bson.Timestamp)
	}
	limit := 0
	if _, ok := bsonx.Get(cmd, "limit"); ok {
		limit = 1
	}
	if _, ok := bsonx.Get(cmd, "sort"); ok { // {$natural: -1}: the newest entry
		raws, err := s.cat.Oplog().ReadReverse(bson.Timestamp{}, 1)
		if err != nil {
			return nil, err
		}
		docs := bson.A{}
		for _, raw := range raws {
			d, err := bsonx.Decode(raw)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d)
		}
		return reply(0, "firstBatch", docs), nil
	}
	docs, err := s.read(cur, limit)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := s.nextID
	s.cursors[id] = cur
	if s.deadCursors || limit > 0 {
		id = 0
	}
	return reply(id, "firstBatch", docs), nil
}

func (s *fakeSource) getMore(ctx context.Context, cmd bson.D) (bson.D, error) {
	s.mu.Lock()
	cur, err := s.cursors[cmd[0].Value.(int64)], s.getMoreErr
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	ms, _ := bsonx.Get(cmd, "maxTimeMS")
	docs, err := s.read(cur, 0)
	if err == nil && len(docs) == 0 {
		wctx, cancel := context.WithTimeout(ctx, time.Duration(ms.(int64))*time.Millisecond)
		_ = s.cat.Oplog().Wait(wctx, cur.after)
		cancel()
		docs, err = s.read(cur, 0)
	}
	if err != nil {
		return nil, err
	}
	return reply(cmd[0].Value.(int64), "nextBatch", docs), nil
}

// read returns the entries after the cursor's position and advances it.
func (s *fakeSource) read(cur *fakeCursor, limit int) (bson.A, error) {
	from, incl := cur.after, cur.incl
	if from.Before(s.oldest) {
		from, incl = s.oldest, true
	}
	raws, err := s.cat.Oplog().ReadRaw(from, incl, limit)
	if err != nil {
		return nil, err
	}
	out := bson.A{}
	for _, raw := range raws {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, doc)
		cur.after, cur.incl = doc[0].Value.(bson.Timestamp), false
	}
	return out, nil
}

func reply(id int64, field string, docs bson.A) bson.D {
	return bson.D{{Key: "cursor", Value: bson.D{{Key: field, Value: docs}, {Key: "id", Value: id},
		{Key: "ns", Value: "local.oplog.rs"}}}, {Key: "ok", Value: 1.0}}
}
