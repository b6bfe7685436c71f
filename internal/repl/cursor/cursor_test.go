package cursor

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// script answers each command with the next reply and records it.
type script struct {
	replies []bson.D
	errs    []error
	sent    []bson.D
}

func (s *script) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	s.sent = append(s.sent, append(bson.D{{Key: "$db", Value: db}}, cmd...))
	i := len(s.sent) - 1
	if i < len(s.errs) && s.errs[i] != nil {
		return nil, s.errs[i]
	}
	if i < len(s.replies) {
		return s.replies[i], nil
	}
	return bson.D{{Key: "ok", Value: 1.0}}, nil
}

func reply(id int64, field string, docs ...any) bson.D {
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id},
		{Key: "ns", Value: "local.oplog.rs"}, {Key: field, Value: bson.A(docs)}}}, {Key: "ok", Value: 1.0}}
}

func TestReply(t *testing.T) {
	tests := []struct {
		name    string
		reply   bson.D
		field   string
		wantID  int64
		wantN   int
		wantErr bool
	}{
		{"first batch", reply(7, "firstBatch", bson.D{}, bson.D{}), "firstBatch", 7, 2, false},
		{"exhausted", reply(0, "nextBatch", bson.D{}), "nextBatch", 0, 1, false},
		{"other field", reply(7, "firstBatch", bson.D{}), "nextBatch", 7, 0, false},
		{"no cursor", bson.D{{Key: "ok", Value: 0.0}}, "firstBatch", 0, 0, true},
		{"cursor not a document", bson.D{{Key: "cursor", Value: "x"}}, "firstBatch", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, docs, err := Reply(tt.reply, tt.field)
			if (err != nil) != tt.wantErr || id != tt.wantID || len(docs) != tt.wantN {
				t.Fatalf("Reply = %d, %d docs, %v; want %d, %d docs, error %v",
					id, len(docs), err, tt.wantID, tt.wantN, tt.wantErr)
			}
		})
	}
}

func TestReaderFindGetMoreKill(t *testing.T) {
	src := &script{replies: []bson.D{reply(9, "firstBatch", bson.D{}), reply(9, "nextBatch", bson.D{}, bson.D{})}}
	r := &Reader{Src: src, DB: OplogDB, Coll: OplogColl}
	ctx := context.Background()
	if docs, err := r.Find(ctx, bson.D{{Key: "find", Value: OplogColl}}); err != nil || len(docs) != 1 || r.ID != 9 {
		t.Fatalf("Find = %d docs, %v, id %d", len(docs), err, r.ID)
	}
	docs, err := r.GetMore(ctx, bson.E{Key: "batchSize", Value: int32(2)})
	if err != nil || len(docs) != 2 {
		t.Fatalf("GetMore = %d docs, %v", len(docs), err)
	}
	want := bson.D{{Key: "$db", Value: "local"}, {Key: "getMore", Value: int64(9)},
		{Key: "collection", Value: "oplog.rs"}, {Key: "batchSize", Value: int32(2)}}
	if got := src.sent[1]; !equalD(got, want) {
		t.Fatalf("getMore sent %v, want %v", got, want)
	}
	r.Kill(ctx)
	if r.ID != 0 || len(src.sent) != 3 || src.sent[2][1].Key != "killCursors" {
		t.Fatalf("Kill: id %d, sent %v", r.ID, src.sent)
	}
	r.Kill(ctx) // closed: sends nothing
	if len(src.sent) != 3 {
		t.Fatalf("second Kill sent %v", src.sent[3:])
	}
}

func TestReaderWrapsSourceErrors(t *testing.T) {
	boom := errors.New("boom")
	r := &Reader{Src: &script{errs: []error{boom}}, DB: OplogDB, Coll: OplogColl}
	if _, err := r.Find(context.Background(), bson.D{}); !errors.Is(err, boom) {
		t.Fatalf("Find error %v, want %v", err, boom)
	}
}

func TestFindOne(t *testing.T) {
	ctx := context.Background()
	doc := bson.D{{Key: "_id", Value: 1}}
	v, err := FindOne(ctx, &script{replies: []bson.D{reply(0, "firstBatch", doc)}}, "db", bson.D{})
	if err != nil || !equalD(v.(bson.D), doc) {
		t.Fatalf("FindOne = %v, %v", v, err)
	}
	if v, err := FindOne(ctx, &script{replies: []bson.D{reply(0, "firstBatch")}}, "db", bson.D{}); v != nil || err != nil {
		t.Fatalf("FindOne on an empty batch = %v, %v", v, err)
	}
	if _, err := FindOne(ctx, &script{replies: []bson.D{{{Key: "ok", Value: 0.0}}}}, "db", bson.D{}); err == nil {
		t.Fatal("FindOne accepted a reply without a cursor")
	}
}

func TestEntry(t *testing.T) {
	ts := bson.Timestamp{T: 5, I: 1}
	good := (&oplog.Entry{TS: ts, Term: 2, Op: oplog.OpNoop, NS: "", O: bson.D{{Key: "msg", Value: "x"}}}).Doc()
	tests := []struct {
		name    string
		v       any
		wantErr bool
	}{
		{"entry", good, false},
		{"not a document", int32(1), true},
		{"bad entry", bson.D{{Key: "ts", Value: "not a timestamp"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Entry(tt.v)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Entry error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (e.TS != ts || e.Term != 2) {
				t.Fatalf("Entry = %+v", e)
			}
		})
	}
}

func equalD(a, b bson.D) bool {
	x, _ := bson.Marshal(a)
	y, _ := bson.Marshal(b)
	return string(x) == string(y)
}

func TestOplogEnds(t *testing.T) {
	ctx := context.Background()
	entry := (&oplog.Entry{TS: bson.Timestamp{T: 3, I: 1}, Term: 1, Op: oplog.OpNoop, O: bson.D{}}).Doc()
	tests := []struct {
		name     string
		find     func(context.Context, Source) (*oplog.Entry, error)
		reply    bson.D
		wantSort bool
		wantNil  bool
		wantErr  bool
	}{
		{"oldest", OldestEntry, reply(0, "firstBatch", entry), false, false, false},
		{"newest", NewestEntry, reply(0, "firstBatch", entry), true, false, false},
		{"empty oplog", NewestEntry, reply(0, "firstBatch"), true, true, false},
		{"bad entry", OldestEntry, reply(0, "firstBatch", "x"), false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &script{replies: []bson.D{tt.reply}}
			e, err := tt.find(ctx, src)
			if (err != nil) != tt.wantErr || (e == nil) != tt.wantNil {
				t.Fatalf("got %v, %v", e, err)
			}
			cmd := src.sent[0]
			if cmd[0].Value != "local" || cmd[1].Value != "oplog.rs" || (cmd[2].Key == "sort") != tt.wantSort {
				t.Fatalf("sent %v", cmd)
			}
		})
	}
}
