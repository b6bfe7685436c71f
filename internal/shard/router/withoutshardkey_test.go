package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

func TestNarrowFilter(t *testing.T) {
	p := key.MustParse(bson.D{{Key: "a.b", Value: 1}, {Key: "c", Value: "hashed"}})
	doc := bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: bson.D{{Key: "b", Value: "x"}}}}
	filter := bson.D{{Key: "g", Value: 1}}
	got := narrowFilter(p, filter, doc)
	want := bson.D{{Key: "_id", Value: 7}, {Key: "a.b", Value: "x"}, {Key: "c", Value: nil}, {Key: "$and", Value: bson.A{filter}}}
	if bsonx.Compare(got, want) != 0 {
		t.Fatalf("narrowFilter = %v, want %v", got, want)
	}
	// A key on _id is not repeated; an empty filter adds no $and.
	got = narrowFilter(key.MustParse(bson.D{{Key: "_id", Value: 1}}), nil, doc)
	if bsonx.Compare(got, bson.D{{Key: "_id", Value: 7}}) != 0 {
		t.Fatalf("narrowFilter on _id = %v", got)
	}
}

func reply(docs ...bson.D) shardReply {
	arr := bson.A{}
	for _, d := range docs {
		arr = append(arr, d)
	}
	return shardReply{reply: bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: arr}}}, {Key: "ok", Value: 1.0}}}
}

func TestPickTarget(t *testing.T) {
	r := &Router{}
	a, b := reply(bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 5}}), reply(bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 9}})
	a.shard, b.shard = "sh0", "sh1"
	none := reply()
	none.shard = "sh2"
	for _, tc := range []struct {
		name    string
		replies []shardReply
		sort    bson.D
		shard   string
	}{
		{"no sort: first shard", []shardReply{none, a, b}, nil, "sh0"},
		{"ascending", []shardReply{a, b}, bson.D{{Key: "v", Value: 1}}, "sh0"},
		{"descending", []shardReply{a, b}, bson.D{{Key: "v", Value: -1}}, "sh1"},
		{"none", []shardReply{none}, nil, ""},
	} {
		doc, shard, stale, err := r.pickTarget(tc.replies, tc.sort)
		if err != nil || stale || shard != tc.shard || (shard == "") != (doc == nil) {
			t.Fatalf("%s: %v %q %v %v", tc.name, doc, shard, stale, err)
		}
	}
	_, _, stale, _ := r.pickTarget([]shardReply{{shard: "sh0", err: mongoerr.New(mongoerr.StaleConfig, "stale")}}, nil)
	if !stale {
		t.Fatal("StaleConfig not reported")
	}
}

func TestCombineErrors(t *testing.T) {
	e := func(code int32, msg string) bson.D {
		return bson.D{{Key: "index", Value: int32(3)}, {Key: "code", Value: code}, {Key: "errmsg", Value: msg}}
	}
	if got := combineErrors([]bson.D{e(72, "a"), e(72, "b")}); bsonx.Compare(got, e(72, "a")) != 0 {
		t.Fatalf("same codes: %v", got)
	}
	got := combineErrors([]bson.D{e(72, "a"), e(11000, "b")})
	if errCode(got) != 65 || int64Field(got, "index") != 3 {
		t.Fatalf("different codes: %v", got)
	}
	var w writeResult
	w.errs = []bson.D{e(72, "a"), e(72, "b")}
	if errs := writeErrors(w.reply(true)); len(errs) != 1 {
		t.Fatalf("one statement's errors from two shards: %v", errs)
	}
}

func TestParseKeyChange(t *testing.T) {
	pre, post := bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}}, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 2}}
	we := bson.D{{Key: "index", Value: int32(0)}, {Key: "code", Value: int32(283)}, {Key: "errmsg", Value: "m"},
		{Key: "preImage", Value: pre}, {Key: "postImage", Value: post}, {Key: "shouldUpsert", Value: false}}
	kc, ok := parseKeyChange(we)
	if !ok || bsonx.Compare(kc.pre, pre) != 0 || bsonx.Compare(kc.post, post) != 0 || kc.upsert {
		t.Fatalf("parseKeyChange = %+v %v", kc, ok)
	}
	if _, ok := parseKeyChange(setField(we, "code", int32(72))); ok {
		t.Fatal("another code parsed as a key change")
	}
	if _, ok := parseKeyChange(withoutField(we, "postImage")); ok {
		t.Fatal("no post-image parsed as a key change")
	}
	// One statement moved, another's error in a larger batch refused.
	var w writeResult
	w.countMove(0, kc)
	w.countMove(1, keyChange{post: post, upsert: true})
	if w.n != 2 || w.nModified != 1 || len(w.upserted) != 1 {
		t.Fatalf("countMove: %+v", w)
	}
}
