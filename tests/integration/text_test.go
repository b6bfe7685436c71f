package integration

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestTextSearch: text indexes and $text as MongoDB's on one node, through
// the Go driver: the normalized spec listIndexes shows, matching with
// stemming, phrases and negations, MongoDB's scores in {$meta:
// "textScore"} projections and sorts, count/aggregate/update/delete with
// $text, explain's TEXT_MATCH, and the refusals with MongoDB's codes.
func TestTextSearch(t *testing.T) {
	_, c := startServer(t)
	t.Run("Spec", func(t *testing.T) { testTextSpec(t, freshColl(t, c, "txt")) })
	t.Run("Query", func(t *testing.T) { testTextQuery(t, freshColl(t, c, "txt")) })
	t.Run("Writes", func(t *testing.T) { testTextWrites(t, freshColl(t, c, "txt")) })
	t.Run("Explain", func(t *testing.T) { testTextExplain(t, freshColl(t, c, "txt")) })
	t.Run("Compound", func(t *testing.T) { testTextCompound(t, freshColl(t, c, "txt")) })
	t.Run("Errors", func(t *testing.T) { testTextErrors(t, freshColl(t, c, "txt")) })
	t.Run("AggregateScore", func(t *testing.T) { testTextAggregateScore(t, freshColl(t, c, "txt")) })
}

func td(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func textDocs() []bson.D {
	return []bson.D{
		td("_id", int32(1), "title", "cakes and ale", "body", "The quick brown fox"),
		td("_id", int32(2), "title", "more cakes", "body", "a lazy dog"),
		td("_id", int32(3), "title", "bread", "body", "cake cake cake recipes"),
		td("_id", int32(4), "title", "Café", "body", "coffee shop"),
		td("_id", int32(5), "other", "cake"),
	}
}

func textQ(s string) bson.D { return td("$text", td("$search", s)) }

var textScoreMeta = td("$meta", "textScore")

// textScored runs find(filter) sorted by score and returns [_id, score] pairs.
func textScored(t *testing.T, coll *mongo.Collection, filter bson.D) [][2]float64 {
	t.Helper()
	ctx := tctx(t, opTimeout)
	o := options.Find().SetProjection(td("score", textScoreMeta)).SetSort(td("score", textScoreMeta, "_id", 1))
	cur, err := coll.Find(ctx, filter, o)
	if err != nil {
		t.Fatalf("find %s: %v", asJSON(filter), err)
	}
	var out [][2]float64
	for _, doc := range decodeAll(t, ctx, cur) {
		id, _ := field(doc, "_id").(int32)
		s, _ := field(doc, "score").(float64)
		out = append(out, [2]float64{float64(id), s})
	}
	return out
}

func testTextSpec(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, textDocs()...)
	o := options.Index().SetWeights(td("title", 10)).SetDefaultLanguage("english").SetLanguageOverride("lang")
	if name := createIndex(t, coll, td("title", "text", "body", "text"), o); name != "title_text_body_text" {
		t.Fatalf("index name %q", name)
	}
	want := td("v", int32(2), "key", td("_fts", "text", "_ftsx", int32(1)), "name", "title_text_body_text",
		"weights", td("body", int32(1), "title", int32(10)), "default_language", "english",
		"language_override", "lang", "textIndexVersion", int32(3))
	if got := listIndexes(t, coll)["title_text_body_text"]; asJSON(got) != asJSON(want) {
		t.Errorf("listIndexes:\n got %s\nwant %s", asJSON(got), asJSON(want))
	}
	// The same index again is a no-op; another text index is refused.
	createIndex(t, coll, td("title", "text", "body", "text"), o)
	_, err := coll.Indexes().CreateOne(tctx(t, opTimeout), mongo.IndexModel{Keys: td("other", "text")})
	wantCode(t, err, 85, "second text index, same normalized key")
	_, err = coll.Indexes().CreateOne(tctx(t, opTimeout), mongo.IndexModel{Keys: td("p", 1, "other", "text")})
	wantCode(t, err, 67, "second text index, other key")
	// Dropped by name, the $text query has no index any more.
	if err := coll.Indexes().DropOne(tctx(t, opTimeout), "title_text_body_text"); err != nil {
		t.Fatal(err)
	}
	_, err = coll.Find(tctx(t, opTimeout), textQ("cake"))
	wantCode(t, err, 27, "$text without a text index")
}

func testTextQuery(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, textDocs()...)
	createIndex(t, coll, td("title", "text", "body", "text"), options.Index().SetWeights(td("title", 10)))
	// MongoDB's scores: weight * freq * (0.5*count/tokens + 0.5) per string,
	// 1.1 when the term is the whole string ("and", "more", "a" are stop words).
	got := textScored(t, coll, textQ("cakes"))
	want := [][2]float64{{2, 10 * 1.0}, {1, 10 * 0.75}, {3, 1.75 * (0.5*3/4 + 0.5)}}
	if !textSameScores(got, want) {
		t.Errorf("$search cakes: got %v, want %v", got, want)
	}
	for _, tc := range []struct {
		filter bson.D
		ids    []int32
	}{
		{textQ("fox dog"), []int32{1, 2}},
		{textQ("cake -ale"), []int32{2, 3}},
		{textQ(`"brown fox"`), []int32{1}},
		{textQ(`"fox brown"`), []int32{}},
		{textQ(`cake -"more cakes"`), []int32{1, 3}},
		{textQ("cafe"), []int32{4}},
		{td("$text", td("$search", "cafe", "$diacriticSensitive", true)), []int32{}},
		{td("$text", td("$search", "Café", "$caseSensitive", true)), []int32{4}},
		{td("$text", td("$search", "café", "$caseSensitive", true)), []int32{}},
		{td("$text", td("$search", "recipes", "$language", "none")), []int32{}}, // unstemmed "recipes" vs indexed "recip"
		{textQ("the and"), []int32{}},
		{td("$text", td("$search", "cake"), "_id", td("$gt", 1)), []int32{2, 3}},
		{td("$or", bson.A{textQ("fox"), td("_id", 3)}), []int32{1, 3}},
	} {
		if ids := idSet(t, coll, tc.filter, td("_id", 1)); !textSameIDs(ids, tc.ids) {
			t.Errorf("find %s = %v, want %v", asJSON(tc.filter), ids, tc.ids)
		}
	}
	n, err := coll.CountDocuments(tctx(t, opTimeout), textQ("cake"))
	if err != nil || n != 3 {
		t.Errorf("countDocuments $text cake = %d, %v; want 3", n, err)
	}
	ctx := tctx(t, opTimeout)
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{td("$match", textQ("cake")), td("$sort", td("_id", 1)), td("$project", td("_id", 1))})
	if err != nil {
		t.Fatal(err)
	}
	if docs := decodeAll(t, ctx, cur); len(docs) != 3 {
		t.Errorf("aggregate $match $text: %s", asJSON(docs))
	}
}

func textSameScores(got, want [][2]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i][0] != want[i][0] || math.Abs(got[i][1]-want[i][1]) > 1e-9 {
			return false
		}
	}
	return true
}

func textSameIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testTextWrites(t *testing.T, coll *mongo.Collection) {
	createIndex(t, coll, td("body", "text"), nil)
	insertDocs(t, coll, textDocs()...)
	ctx := tctx(t, opTimeout)
	if _, err := coll.UpdateOne(ctx, td("_id", int32(2)), td("$set", td("body", "a quick fox"))); err != nil {
		t.Fatal(err)
	}
	if ids := idSet(t, coll, textQ("fox"), td("_id", 1)); !textSameIDs(ids, []int32{1, 2}) {
		t.Errorf("after update: fox = %v", ids)
	}
	if ids := idSet(t, coll, textQ("lazy"), nil); len(ids) != 0 {
		t.Errorf("after update: lazy = %v (stale index entries)", ids)
	}
	res, err := coll.UpdateMany(ctx, textQ("fox"), td("$set", td("tag", "f")))
	if err != nil || res.ModifiedCount != 2 {
		t.Errorf("updateMany $text: %+v %v", res, err)
	}
	del, err := coll.DeleteMany(ctx, textQ("cake"))
	if err != nil || del.DeletedCount != 1 {
		t.Errorf("deleteMany $text cake: %+v %v", del, err)
	}
	var got bson.D
	err = coll.FindOneAndUpdate(ctx, textQ("coffee"), td("$set", td("hit", true)),
		options.FindOneAndUpdate().SetReturnDocument(options.After).SetProjection(td("hit", 1, "s", textScoreMeta))).Decode(&got)
	if err != nil || asJSON(got) != `{"_id":4,"hit":true,"s":0.75}` {
		t.Errorf("findOneAndUpdate $text: %s %v", asJSON(got), err)
	}
}

func testTextExplain(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, textDocs()...)
	createIndex(t, coll, td("title", "text", "body", "text"), nil)
	var out bson.D
	err := coll.Database().RunCommand(tctx(t, opTimeout), td("explain", td("find", coll.Name(), "filter", textQ(`cakes -ale "brown fox"`)))).Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := field(field(out, "queryPlanner").(bson.D), "winningPlan").(bson.D)
	if field(plan, "stage") != "TEXT_MATCH" || field(plan, "indexName") != "title_text_body_text" {
		t.Fatalf("winningPlan %s", asJSON(plan))
	}
	parsed := asJSON(field(plan, "parsedTextQuery"))
	if parsed != `{"terms":["brown","cake","fox"],"negatedTerms":["ale"],"phrases":["brown fox"],"negatedPhrases":[]}` {
		t.Errorf("parsedTextQuery %s", parsed)
	}
	fetch, _ := field(plan, "inputStage").(bson.D)
	or, _ := field(fetch, "inputStage").(bson.D)
	scans, _ := field(or, "inputStages").(bson.A)
	if field(fetch, "stage") != "FETCH" || field(or, "stage") != "TEXT_OR" || len(scans) != 3 {
		t.Errorf("TEXT_MATCH input %s", asJSON(fetch))
	}
	for _, s := range scans {
		if field(s.(bson.D), "stage") != "IXSCAN" {
			t.Errorf("TEXT_OR input %s", asJSON(s))
		}
	}
}

func testTextCompound(t *testing.T, coll *mongo.Collection) {
	for i := range 6 {
		insertDocs(t, coll, td("_id", int32(i), "shop", int32(i%2), "desc", "coffee beans"))
	}
	createIndex(t, coll, td("shop", 1, "desc", "text"), nil)
	if ids := idSet(t, coll, td("shop", 1, "$text", td("$search", "coffee")), td("_id", 1)); !textSameIDs(ids, []int32{1, 3, 5}) {
		t.Errorf("shop 1 coffee = %v", ids)
	}
	_, err := coll.Find(tctx(t, opTimeout), textQ("coffee"))
	wantCode(t, err, 291, "$text without the prefix field's equality")
	// A plain query on the prefix field does not use the text index.
	wantStage(t, coll, td("shop", 1), nil, "COLLSCAN")
}

func testTextErrors(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, textDocs()...)
	createIndex(t, coll, td("body", "text"), nil)
	ctx := tctx(t, opTimeout)
	for _, tc := range []struct {
		what   string
		filter bson.D
		o      *options.FindOptionsBuilder
		code   int32
	}{
		{"two $text", td("$and", bson.A{textQ("a"), textQ("b")}), nil, 2},
		{"$text under $nor", td("$nor", bson.A{textQ("a")}), nil, 2},
		{"$search type", td("$text", td("$search", 1)), nil, 2},
		{"bad language", td("$text", td("$search", "x", "$language", "klingon")), nil, 2},
		{"$or clause not indexed", td("$or", bson.A{textQ("fox"), td("title", "bread")}), nil, 291},
		{"score sort without $text", td(), options.Find().SetSort(td("s", textScoreMeta)), 40218},
		{"score projection without $text", td(), options.Find().SetProjection(td("s", textScoreMeta)), 40218},
	} {
		o := tc.o
		if o == nil {
			o = options.Find()
		}
		cur, err := coll.Find(ctx, tc.filter, o)
		if err == nil {
			cur.Close(ctx)
		}
		wantCode(t, err, tc.code, tc.what)
	}
	cur, err := coll.Find(ctx, td(), options.Find().SetHint("body_text"))
	if err == nil {
		cur.Close(ctx)
	}
	wantCode(t, err, 2, "a text index hinted without $text")
	_, err = coll.Find(ctx, td("$text", td("$search", "a"), "loc", td("$near", bson.A{0, 0})))
	if se, ok := err.(mongo.ServerError); !ok || !se.HasErrorCode(2) || !strings.Contains(err.Error(), "text and geoNear") {
		t.Errorf("$text with $near: %v, want BadValue 'text and geoNear not allowed in same query'", err)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{td("$sort", td("_id", 1)), td("$match", textQ("fox"))})
	wantCode(t, err, 17313, "$match $text after the first stage")
	_, err = coll.InsertOne(ctx, td("_id", int32(9), "body", "x", "language", int32(3)))
	wantCode(t, err, 17261, "non-string language override")
	_, err = coll.InsertOne(ctx, td("_id", int32(9), "body", "x", "language", "klingon"))
	wantCode(t, err, 17262, "unsupported language override")
}

// TestTextIndexSurvivesRestart: a text index's spec and entries persist.
func TestTextIndexSurvivesRestart(t *testing.T) {
	s, c := startServer(t)
	coll := freshColl(t, c, "txt")
	insertDocs(t, coll, textDocs()...)
	createIndex(t, coll, td("title", "text", "body", "text"), options.Index().SetWeights(td("title", 10)))
	before := textScored(t, coll, textQ("cake fox"))
	s.Restart(t)
	coll = s.Client(t).Database("txt").Collection(coll.Name())
	if after := textScored(t, coll, textQ("cake fox")); !textSameScores(after, before) || len(after) != 3 {
		t.Errorf("after restart %v, before %v", after, before)
	}
	textWantMatchStage(t, coll)
}

func textWantMatchStage(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	var out bson.D
	err := coll.Database().RunCommand(tctx(t, opTimeout), td("explain", td("find", coll.Name(), "filter", textQ("cake")))).Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := field(field(out, "queryPlanner").(bson.D), "winningPlan").(bson.D)
	if field(plan, "stage") != "TEXT_MATCH" {
		t.Errorf("winningPlan %s", asJSON(plan))
	}
}

// TestTextIndexReplicates: the index built on the primary, and its
// entries for later writes, serve $text on a secondary.
func TestTextIndexReplicates(t *testing.T) {
	set := harness.StartSets(t, []cluster.Spec{{Name: "rstxt", Data: 2}})[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	primary, err := mongo.Connect(options.Client().ApplyURI(set.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Disconnect(ctx)
	wc := options.Collection().SetWriteConcern(writeconcern.Majority())
	coll := primary.Database("txt").Collection("rep", wc)
	if _, err := coll.InsertMany(ctx, []any{textDocs()[0], textDocs()[1]}); err != nil {
		t.Fatal(err)
	}
	createIndex(t, coll, td("title", "text", "body", "text"), options.Index().SetWeights(td("title", 10)))
	if _, err := coll.InsertMany(ctx, []any{textDocs()[2], textDocs()[3]}); err != nil {
		t.Fatal(err)
	}
	want := textScored(t, coll, textQ("cake fox"))
	for _, m := range set.Members() {
		cl, err := set.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		sec := cl.Database("txt", options.Database().SetReadPreference(readpref.SecondaryPreferred())).Collection("rep")
		if got := textWaitScored(t, sec, textQ("cake fox"), len(want)); !textSameScores(got, want) {
			t.Errorf("member %s: %v, want %v", m.Name, got, want)
		}
	}
}

// textWaitScored polls textScored until it has n results (a secondary applies the
// majority-acknowledged writes, but may not have published them yet).
func textWaitScored(t *testing.T, coll *mongo.Collection, filter bson.D, n int) [][2]float64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := textScored(t, coll, filter)
		if len(got) == n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testTextAggregateScore: {$meta: "textScore"} in a pipeline after a
// first $match with $text: $sort, $project and $addFields read the score,
// which never leaks into the output otherwise.
func testTextAggregateScore(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, textDocs()...)
	createIndex(t, coll, td("title", "text", "body", "text"), options.Index().SetWeights(td("title", 10)))
	ctx := tctx(t, opTimeout)
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{td("$match", textQ("cakes")), td("$sort", td("s", textScoreMeta, "_id", 1)),
		td("$project", td("s", textScoreMeta)), td("$addFields", td("s2", textScoreMeta))})
	if err != nil {
		t.Fatal(err)
	}
	got := textJSON(decodeAll(t, ctx, cur))
	if want := `[{"_id":2,"s":10.0,"s2":10.0},{"_id":1,"s":7.5,"s2":7.5},{"_id":3,"s":1.53125,"s2":1.53125}]`; got != want {
		t.Errorf("pipeline scores:\n got %s\nwant %s", got, want)
	}
	cur, err = coll.Aggregate(ctx, mongo.Pipeline{td("$match", textQ("ale")), td("$addFields", td("n", 1))})
	if err != nil {
		t.Fatal(err)
	}
	if got := textJSON(decodeAll(t, ctx, cur)); got != `[{"_id":1,"title":"cakes and ale","body":"The quick brown fox","n":1}]` {
		t.Errorf("score leaked into the output: %s", got)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{td("$project", td("s", textScoreMeta))})
	wantCode(t, err, 40218, "$meta textScore without $text")
}

func textJSON(docs []bson.D) string {
	out := "["
	for i, doc := range docs {
		if i > 0 {
			out += ","
		}
		out += asJSON(doc)
	}
	return out + "]"
}
