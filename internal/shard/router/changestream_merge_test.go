package router

import (
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

func csTok(t uint32, i uint32) changestream.Token {
	return changestream.Token{TS: bson.Timestamp{T: t, I: i}}
}

// TestRTokenRoundTrip: the router's tokens decode to what was encoded;
// a shard's own token decodes with no shard.
func TestRTokenRoundTrip(t *testing.T) {
	for _, in := range []rtoken{
		{csTok(10, 1), "sh0"},
		{csTok(10, 1), ""},
		{changestream.Token{TS: bson.Timestamp{T: 7, I: 2}, Fragment: 3}, "shard-1"},
		{changestream.HighWaterMark(bson.Timestamp{T: 9, I: 9}), ""},
	} {
		got, err := parseRToken(in.doc())
		if err != nil || got != in {
			t.Errorf("parseRToken(%v) = %v, %v; want %v", in.doc(), got, err, in)
		}
	}
	if _, err := parseRToken(bson.D{{Key: "_data", Value: "82FF"}}); err == nil {
		t.Error("a malformed token parsed")
	}
}

// TestRTokenStartFor: a resume from shard b's event starts shards up to
// b after the event, the later ones just before its position.
func TestRTokenStartFor(t *testing.T) {
	rt := rtoken{csTok(10, 5), "b"}
	cases := []struct {
		shard string
		want  changestream.Token
	}{
		{"a", csTok(10, 5)},
		{"b", csTok(10, 5)},
		{"c", changestream.HighWaterMark(bson.Timestamp{T: 10, I: 4})},
	}
	for _, c := range cases {
		if got := rt.startFor(c.shard); got != c.want {
			t.Errorf("startFor(%s) = %+v, want %+v", c.shard, got, c.want)
		}
	}
	txn := rtoken{changestream.Token{TS: bson.Timestamp{T: 10, I: 5}, Index: 2}, "a"}
	if got := txn.startFor("b"); got.Compare(txn.tok) >= 0 || got.Compare(changestream.Token{TS: txn.tok.TS, Index: 1}) <= 0 {
		t.Errorf("startFor inside a transaction = %+v, want between index 1 and 2", got)
	}
	if got := (rtoken{tok: csTok(10, 5)}).startFor("z"); got != csTok(10, 5) {
		t.Errorf("a token without a shard starts every shard after it, got %+v", got)
	}
}

func csEv(tok changestream.Token) csEvent {
	return csEvent{tok: tok, doc: bson.D{{Key: "_id", Value: tok.Doc()}, {Key: "operationType", Value: "insert"}}}
}

// TestMergeTake: events come in token order, and only once every shard
// with nothing buffered has passed them; the mark never goes back.
func TestMergeTake(t *testing.T) {
	a := &csShard{id: "a", cursor: 1, pbrt: csTok(12, 0), buf: []csEvent{csEv(csTok(10, 1)), csEv(csTok(12, 0))}}
	b := &csShard{id: "b", cursor: 2, pbrt: changestream.HighWaterMark(bson.Timestamp{T: 10, I: 5})}
	m := &csMerge{shards: []*csShard{a, b}}
	got := m.take(-1)
	if len(got) != 1 {
		t.Fatalf("took %d events, want 1 (b has not passed 12)", len(got))
	}
	if m.resume != (rtoken{csTok(10, 1), "a"}) {
		t.Errorf("mark after the first event = %+v", m.resume)
	}
	if bl := m.blockers(csTok(12, 0)); len(bl) != 1 || bl[0] != b {
		t.Errorf("blockers = %v, want b", bl)
	}
	b.buf = []csEvent{csEv(csTok(11, 0))}
	b.pbrt = changestream.HighWaterMark(bson.Timestamp{T: 13})
	got = m.take(-1)
	if len(got) != 2 {
		t.Fatalf("took %d events, want 2", len(got))
	}
	for i, want := range []rtoken{{csTok(11, 0), "b"}, {csTok(12, 0), "a"}} {
		id, _ := got[i][0].Value.(bson.D)
		if rt, err := parseRToken(id); err != nil || rt != want {
			t.Errorf("event %d is %v, want %v", i, rt, want)
		}
	}
	if m.resume.compare(rtoken{csTok(12, 0), "a"}) != 0 {
		t.Errorf("mark = %+v, want a's last event (a's mark is the least)", m.resume)
	}
	a.pbrt = changestream.HighWaterMark(bson.Timestamp{T: 14})
	m.take(-1)
	if m.resume != (rtoken{tok: changestream.HighWaterMark(bson.Timestamp{T: 13})}) {
		t.Errorf("idle mark = %+v, want b's high-water mark", m.resume)
	}
	m.advance(rtoken{tok: csTok(1, 0)})
	if m.resume.tok.TS.T != 13 {
		t.Error("the mark went back")
	}
}

// TestStreamError: a shard's resumable errors reach the client labelled
// ResumableChangeStreamError; others unlabelled.
func TestStreamError(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{mongoerr.New(mongoerr.CursorNotFound, "cursor id 5 not found"), true},
		{mongoerr.New(mongoerr.NotWritablePrimary, "not primary"), true},
		{mongoerr.New(mongoerr.ChangeStreamFatalError, "fatal"), false},
		{mongoerr.New(mongoerr.BadValue, "bad"), false},
	}
	for _, c := range cases {
		me := mongoerr.From(streamError(c.err))
		if got := slices.Contains(me.Labels, mongoerr.LabelResumableChangeStream); got != c.want || me.Code != mongoerr.From(c.err).Code {
			t.Errorf("streamError(%v) = %v labels %v, want resumable %v", c.err, me, me.Labels, c.want)
		}
	}
}

// TestDuplicateDDL: the second shard's drop of a namespace is dropped;
// a drop after another event on the namespace is not.
func TestDuplicateDDL(t *testing.T) {
	ev := func(op string) bson.D {
		return bson.D{{Key: "operationType", Value: op}, {Key: "ns", Value: bson.D{{Key: "db", Value: "d"}, {Key: "coll", Value: "c"}}}}
	}
	m := &csMerge{}
	for i, c := range []struct {
		op   string
		want bool
	}{{"drop", false}, {"drop", true}, {"insert", false}, {"drop", false}, {"rename", false}, {"rename", true}} {
		if got := m.duplicateDDL(ev(c.op)); got != c.want {
			t.Errorf("step %d (%s): duplicate %v, want %v", i, c.op, got, c.want)
		}
	}
}

// TestWithShardKey: documentKey gets the shard key's fields, from
// fullDocument or the pre-image, before _id; without either it stays.
func TestWithShardKey(t *testing.T) {
	p, err := key.Parse(bson.D{{Key: "a.b", Value: 1}, {Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	dk := bson.D{{Key: "_id", Value: 7}}
	full := bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: bson.D{{Key: "b", Value: "x"}}}}
	want := bson.D{{Key: "a.b", Value: "x"}, {Key: "_id", Value: 7}}
	for _, c := range []struct {
		name string
		ev   bson.D
		want bson.D
	}{
		{"insert", bson.D{{Key: "fullDocument", Value: full}, {Key: "documentKey", Value: dk}}, want},
		{"delete with pre-image", bson.D{{Key: "documentKey", Value: dk}, {Key: "fullDocumentBeforeChange", Value: full}}, want},
		{"update without images", bson.D{{Key: "documentKey", Value: dk}}, dk},
	} {
		got, _ := bsonx.Get(withShardKey(slices.Clone(c.ev), p), "documentKey")
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: documentKey %v, want %v", c.name, got, c.want)
		}
	}
}

// TestStreamBatchSize: the aggregate's cursor option is required and its
// batchSize non-negative, as on mongod.
func TestStreamBatchSize(t *testing.T) {
	for _, c := range []struct {
		cmd  bson.D
		n    int64
		code mongoerr.Code
	}{
		{bson.D{{Key: "cursor", Value: bson.D{}}}, -1, 0},
		{bson.D{{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: int32(3)}}}}, 3, 0},
		{bson.D{}, 0, mongoerr.FailedToParse},
		{bson.D{{Key: "cursor", Value: int32(1)}}, 0, mongoerr.FailedToParse},
		{bson.D{{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: int32(-1)}}}}, 0, mongoerr.BadValue},
	} {
		n, err := streamBatchSize(c.cmd)
		if (c.code == 0 && (err != nil || n != c.n)) || (c.code != 0 && !mongoerr.Is(err, c.code)) {
			t.Errorf("streamBatchSize(%v) = %d, %v; want %d, code %d", c.cmd, n, err, c.n, c.code)
		}
	}
}
