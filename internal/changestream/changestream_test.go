package changestream

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

func TestTokenOrderAndRoundTrip(t *testing.T) {
	ts := func(T, I uint32) bson.Timestamp { return bson.Timestamp{T: T, I: I} }
	ordered := []Token{
		{TS: ts(1, 5)},
		{TS: ts(1, 5), Invalidate: true},
		{TS: ts(1, 5), Index: 1},
		HighWaterMark(ts(1, 5)),
		{TS: ts(1, 6)},
		{TS: ts(2, 0), Index: 3},
	}
	for i, tok := range ordered {
		back, err := ParseToken(tok.Doc())
		if err != nil || back != tok {
			t.Fatalf("round trip %+v: got %+v, %v", tok, back, err)
		}
		if i == 0 {
			continue
		}
		prev := ordered[i-1]
		if prev.Compare(tok) >= 0 || tok.Compare(prev) <= 0 {
			t.Errorf("%+v should sort before %+v", prev, tok)
		}
		if prev.hex() >= tok.hex() {
			t.Errorf("hex %s should sort before %s", prev.hex(), tok.hex())
		}
	}
}

func TestParseTokenRejects(t *testing.T) {
	for _, v := range []any{
		"x", bson.D{{Key: "_data", Value: 1}}, bson.D{{Key: "_data", Value: "zz"}},
		bson.D{{Key: "_data", Value: "82"}}, bson.D{{Key: "other", Value: "82"}},
	} {
		if _, err := ParseToken(v); err == nil {
			t.Errorf("ParseToken(%v) accepted", v)
		}
	}
}

func TestParseOptions(t *testing.T) {
	inv := Token{TS: bson.Timestamp{T: 1}, Invalidate: true}
	tests := []struct {
		spec bson.D
		code mongoerr.Code
	}{
		{bson.D{}, 0},
		{bson.D{{Key: "fullDocument", Value: "updateLookup"}}, 0},
		{bson.D{{Key: "fullDocument", Value: "bogus"}}, mongoerr.BadValue},
		{bson.D{{Key: "nope", Value: 1}}, mongoerr.IDLUnknownField},
		{bson.D{{Key: "resumeAfter", Value: inv.Doc()}}, mongoerr.InvalidResumeToken},
		{bson.D{{Key: "startAfter", Value: inv.Doc()}}, 0},
		{bson.D{{Key: "startAfter", Value: inv.Doc()}, {Key: "startAtOperationTime", Value: bson.Timestamp{T: 1}}}, mongoerr.ChangeStreamResumeOptions},
		{bson.D{{Key: "startAtOperationTime", Value: 5}}, mongoerr.TypeMismatch},
	}
	for _, tt := range tests {
		_, err := ParseOptions(tt.spec)
		if got := codeOf(err); got != tt.code {
			t.Errorf("ParseOptions(%v) = %v, want code %d", tt.spec, err, tt.code)
		}
	}
}

func codeOf(err error) mongoerr.Code {
	if err == nil {
		return 0
	}
	return mongoerr.From(err).Code
}

func TestCheckStages(t *testing.T) {
	tests := []struct {
		stage string
		code  mongoerr.Code
	}{
		{"$match", 0}, {"$project", 0}, {"$replaceRoot", 0}, {"$redact", 0},
		{"$group", mongoerr.IllegalOperation}, {"$sort", mongoerr.IllegalOperation},
		{"$changeStream", mongoerr.StageMustBeFirst},
	}
	for _, tt := range tests {
		err := CheckStages(bson.A{bson.D{{Key: tt.stage, Value: bson.D{}}}})
		if got := codeOf(err); got != tt.code {
			t.Errorf("%s: %v, want code %d", tt.stage, err, tt.code)
		}
	}
}

func TestUpdateDescription(t *testing.T) {
	o := bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: "x"}}},
		{Key: "$unset", Value: bson.D{{Key: "d", Value: true}}}}
	got := UpdateDescription(o, false)
	want := bson.D{{Key: "updatedFields", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "b.c", Value: "x"}}},
		{Key: "removedFields", Value: bson.A{"d"}}, {Key: "truncatedArrays", Value: bson.A{}}}
	if !equalDocs(got, want) {
		t.Errorf("UpdateDescription = %v, want %v", got, want)
	}
	if exp := UpdateDescription(o, true); lookupField(exp, "disambiguatedPaths") == nil {
		t.Errorf("showExpandedEvents: no disambiguatedPaths in %v", exp)
	}
}

func equalDocs(a, b bson.D) bool {
	ra, _ := bson.Marshal(a)
	rb, _ := bson.Marshal(b)
	return string(ra) == string(rb)
}

func entry(op, ns string, o, o2 bson.D) *oplog.Entry {
	return &oplog.Entry{TS: bson.Timestamp{T: 100, I: 1}, Op: op, NS: ns, O: o, O2: o2, Wall: time.Unix(100, 0)}
}

func opTypes(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, lookupField(e.Doc, "operationType").(string))
	}
	return out
}

func TestEventsByScope(t *testing.T) {
	id := bson.D{{Key: "_id", Value: int32(1)}}
	coll := Scope{DB: "db", Coll: "c"}
	db := Scope{DB: "db"}
	cluster := Scope{Cluster: true}
	tests := []struct {
		name  string
		e     *oplog.Entry
		scope Scope
		want  []string
	}{
		{"insert", entry("i", "db.c", bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: 1}}, id), coll, []string{"insert"}},
		{"insert other coll", entry("i", "db.d", id, id), coll, nil},
		{"insert other coll, db stream", entry("i", "db.d", id, id), db, []string{"insert"}},
		{"update", entry("u", "db.c", bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 2}}}}, id), coll, []string{"update"}},
		{"replace", entry("u", "db.c", bson.D{{Key: "_id", Value: int32(1)}, {Key: "y", Value: 1}}, id), coll, []string{"replace"}},
		{"delete", entry("d", "db.c", id, nil), coll, []string{"delete"}},
		{"drop", entry("c", "db.$cmd", bson.D{{Key: "drop", Value: "c"}}, nil), coll, []string{"drop", "invalidate"}},
		{"drop, db stream", entry("c", "db.$cmd", bson.D{{Key: "drop", Value: "c"}}, nil), db, []string{"drop"}},
		{"rename", entry("c", "db.$cmd", bson.D{{Key: "renameCollection", Value: "db.c"}, {Key: "to", Value: "db.e"}}, nil), coll, []string{"rename", "invalidate"}},
		{"dropDatabase, db stream", entry("c", "db.$cmd", bson.D{{Key: "dropDatabase", Value: int32(1)}}, nil), db, []string{"dropDatabase", "invalidate"}},
		{"dropDatabase, cluster", entry("c", "db.$cmd", bson.D{{Key: "dropDatabase", Value: int32(1)}}, nil), cluster, []string{"dropDatabase"}},
		{"admin insert, cluster", entry("i", "admin.x", id, id), cluster, nil},
		{"create not expanded", entry("c", "db.$cmd", bson.D{{Key: "create", Value: "c"}}, nil), coll, nil},
		{"noop", entry("n", "", bson.D{{Key: "msg", Value: "x"}}, nil), cluster, nil},
	}
	for _, tt := range tests {
		evs, err := Events(tt.e, tt.scope, Options{FullDocument: FullDefault})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := opTypes(evs); len(got) != len(tt.want) || (len(got) > 0 && got[len(got)-1] != tt.want[len(tt.want)-1]) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("%s: events %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestApplyOpsUnwound: a committed transaction's one applyOps entry
// yields one event per operation of the scope, each with the lsid and
// txnNumber, with tokens that order by the operation's position.
func TestApplyOpsUnwound(t *testing.T) {
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
	ops := bson.A{
		bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "db.c"}, {Key: "o", Value: bson.D{{Key: "_id", Value: int32(1)}}}},
		bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "db.other"}, {Key: "o", Value: bson.D{{Key: "_id", Value: int32(2)}}}},
		bson.D{{Key: "op", Value: "u"}, {Key: "ns", Value: "db.c"}, {Key: "o", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(1)}}}}},
			{Key: "o2", Value: bson.D{{Key: "_id", Value: int32(1)}}}},
		bson.D{{Key: "op", Value: "d"}, {Key: "ns", Value: "db.c"}, {Key: "o", Value: bson.D{{Key: "_id", Value: int32(1)}}}},
	}
	e := entry("c", "admin.$cmd", bson.D{{Key: "applyOps", Value: ops}}, nil)
	e.Extra = bson.D{{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(7)}, {Key: "prevOpTime", Value: bson.D{}}}
	evs, err := Events(e, Scope{DB: "db", Coll: "c"}, Options{FullDocument: FullDefault})
	if err != nil {
		t.Fatal(err)
	}
	if got := opTypes(evs); len(got) != 3 || got[0] != "insert" || got[1] != "update" || got[2] != "delete" {
		t.Fatalf("events %v, want insert, update, delete", got)
	}
	wantIdx := []uint32{0, 2, 3}
	for i, ev := range evs {
		if ev.Token.Index != wantIdx[i] || ev.Token.TS != e.TS {
			t.Errorf("event %d token %+v, want index %d at %v", i, ev.Token, wantIdx[i], e.TS)
		}
		if i > 0 && evs[i-1].Token.Compare(ev.Token) >= 0 {
			t.Errorf("event %d token does not sort after the previous one", i)
		}
		if lookupField(ev.Doc, "txnNumber") != int64(7) || lookupField(ev.Doc, "lsid") == nil {
			t.Errorf("event %d lacks lsid/txnNumber: %v", i, ev.Doc)
		}
		if lookupField(ev.Doc, "prevOpTime") != nil {
			t.Errorf("event %d carries prevOpTime", i)
		}
	}
	// A resume from the update's token skips the insert and the update.
	s := &Stream{skip: &evs[1].Token, buf: evs, src: Source{}}
	doc, ok := s.Next()
	if !ok || lookupField(doc, "operationType") != "delete" {
		t.Fatalf("resume after the update: got %v, %v; want the delete", doc, ok)
	}
}

// TestPreAndPostImages: an update or delete entry's pre-image gives
// fullDocumentBeforeChange and, with the update applied, fullDocument
// (whenAvailable, required); without one, whenAvailable gives null and
// required fails with NoMatchingDocument.
func TestPreAndPostImages(t *testing.T) {
	id := bson.D{{Key: "_id", Value: int32(1)}}
	pre := bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: int32(1)}}
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: int32(2)}}}}
	withPre := func(e *oplog.Entry) *oplog.Entry {
		e.Extra = bson.D{{Key: "preImage", Value: pre}}
		return e
	}
	tests := []struct {
		name         string
		e            *oplog.Entry
		full, before string
		wantFull     any // bson.D, nil (null), or "absent"
		wantBefore   any
		code         mongoerr.Code
	}{
		{"update, post-image", withPre(entry("u", "db.c", set, id)), FullWhenAvailable, BeforeOff,
			bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: int32(2)}}, "absent", 0},
		{"update, pre-image", withPre(entry("u", "db.c", set, id)), FullDefault, FullRequired, "absent", pre, 0},
		{"update, no images", entry("u", "db.c", set, id), FullWhenAvailable, FullWhenAvailable, nil, nil, 0},
		{"update, post-image required", entry("u", "db.c", set, id), FullRequired, BeforeOff, nil, nil, mongoerr.NoMatchingDocument},
		{"delete, pre-image required", entry("d", "db.c", id, nil), FullDefault, FullRequired, nil, nil, mongoerr.NoMatchingDocument},
		{"delete, pre-image", withPre(entry("d", "db.c", id, nil)), FullDefault, FullWhenAvailable, "absent", pre, 0},
	}
	for _, tt := range tests {
		evs, err := Events(tt.e, Scope{DB: "db", Coll: "c"}, Options{FullDocument: tt.full, FullDocumentBeforeChange: tt.before})
		if codeOf(err) != tt.code {
			t.Errorf("%s: error %v, want code %d", tt.name, err, tt.code)
			continue
		}
		if err != nil {
			continue
		}
		for field, want := range map[string]any{"fullDocument": tt.wantFull, "fullDocumentBeforeChange": tt.wantBefore} {
			got, has := any(nil), false
			for _, f := range evs[0].Doc {
				if f.Key == field {
					got, has = f.Value, true
				}
			}
			switch w := want.(type) {
			case string:
				if has {
					t.Errorf("%s: %s = %v, want absent", tt.name, field, got)
				}
			case nil:
				if !has || got != nil {
					t.Errorf("%s: %s = %v (present %v), want null", tt.name, field, got, has)
				}
			case bson.D:
				if d, _ := got.(bson.D); !equalDocs(d, w) {
					t.Errorf("%s: %s = %v, want %v", tt.name, field, got, w)
				}
			}
		}
	}
}
