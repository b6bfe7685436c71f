package agg

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// testLimitBytes is the per-stage limit the memory tests run with.
const testLimitBytes = 64 << 10

// withLimits sets every memory parameter to n for the test.
func withLimits(t *testing.T, n int64) {
	t.Helper()
	for _, name := range ParamNames() {
		was, found, err := SetParameter(name, n)
		if !found || err != nil {
			t.Fatalf("SetParameter(%s): found %v, err %v", name, found, err)
		}
		t.Cleanup(func() { _, _, _ = SetParameter(name, was) })
	}
}

// memDocs returns n documents of about 100 bytes; r repeats every 97
// documents, so sorts on r have ties that stability decides.
func memDocs(n int) []bson.D {
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{
			{Key: "_id", Value: int32(i)},
			{Key: "r", Value: int32((i * 7919) % 97)},
			{Key: "g", Value: fmt.Sprintf("k%04d", (i*31)%1500)},
			{Key: "v", Value: int32(i % 13)},
			{Key: "pad", Value: strings.Repeat("x", 60)},
		}
	}
	return docs
}

// runMem runs pipeline over docs with allowDiskUse and a temp dir.
func runMem(t *testing.T, pipeline string, docs []bson.D, allowDisk bool, dir string) ([]bson.D, error) {
	t.Helper()
	env := testEnv(t)
	env.AllowDiskUse, env.TempDir = allowDisk, dir
	p, err := Compile(ej(t, pipeline).(bson.A), env)
	if err != nil {
		t.Fatalf("compile %s: %v", pipeline, err)
	}
	return Drain(p.Run(Slice(docs)))
}

// inMemory runs pipeline with limits large enough not to spill.
func inMemory(t *testing.T, pipeline string, docs []bson.D) []bson.D {
	t.Helper()
	for _, name := range ParamNames() {
		was, _, _ := SetParameter(name, int64(1<<40))
		defer SetParameter(name, was)
	}
	out, err := runMem(t, pipeline, docs, false, "")
	if err != nil {
		t.Fatalf("in memory %s: %v", pipeline, err)
	}
	return out
}

func wantNoDiskUse(t *testing.T, err error, msg string) {
	t.Helper()
	if !mongoerr.Is(err, 292) {
		t.Fatalf("want 292 QueryExceededMemoryLimitNoDiskUseAllowed, got %v", err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %q does not say %q", err, msg)
	}
}

func wantEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Fatalf("spill files left in %s: %v", dir, ents)
	}
}

func TestSortOverLimit(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(5000) // ~600 KB
	const pipe = `[{"$sort": {"r": 1}}, {"$project": {"_id": 1, "r": 1}}]`
	_, err := runMem(t, pipe, docs, false, "")
	wantNoDiskUse(t, err, "Sort exceeded memory limit of 65536 bytes, but did not opt in to external sorting.")

	dir := t.TempDir()
	got, err := runMem(t, pipe, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := stableSorted(t, docs, `{"r": 1}`)
	if len(got) != len(want) {
		t.Fatalf("got %d docs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i][0].Value != want[i][0].Value {
			t.Fatalf("doc %d: got _id %v, want %v (not a stable sort)", i, got[i][0].Value, want[i][0].Value)
		}
	}
	if !reflect.DeepEqual(got, inMemory(t, pipe, docs)) {
		t.Fatal("spilled sort differs from the in-memory sort")
	}
	wantEmptyDir(t, dir)
}

// stableSorted is the reference: sort.SliceStable by the comparator.
func stableSorted(t *testing.T, docs []bson.D, spec string) []bson.D {
	s, err := query.CompileSort(ej(t, spec).(bson.D))
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(docs)
	slices.SortStableFunc(out, s.Compare)
	return out
}

func TestSortSpillRemovedOnClose(t *testing.T) {
	withLimits(t, testLimitBytes)
	dir := t.TempDir()
	env := testEnv(t)
	env.AllowDiskUse, env.TempDir = true, dir
	p, err := Compile(ej(t, `[{"$sort": {"r": -1, "_id": 1}}]`).(bson.A), env)
	if err != nil {
		t.Fatal(err)
	}
	it := p.Run(Slice(memDocs(5000)))
	if _, ok := it.Next(); !ok || it.Err() != nil {
		t.Fatalf("first doc: ok %v, err %v", ok, it.Err())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) < 2 {
		t.Fatalf("want several runs spilled under %s, found %d files", dir, len(ents))
	}
	it.Close()
	wantEmptyDir(t, dir)
}

func TestSortSpillRemovedOnError(t *testing.T) {
	withLimits(t, testLimitBytes)
	dir := t.TempDir()
	docs := memDocs(3000)
	docs[2500] = bson.D{{Key: "_id", Value: int32(-1)}, {Key: "r", Value: "$bad"}}
	// $toInt fails on the bad document, after runs were written.
	_, err := runMem(t, `[{"$sort": {"r": 1}}, {"$project": {"x": {"$toInt": "$r"}}}, {"$group": {"_id": null, "n": {"$sum": 1}}}]`, docs, true, dir)
	if err == nil {
		t.Fatal("want a conversion error")
	}
	wantEmptyDir(t, dir)
}

func TestSortLimitTopKStaysUnderLimit(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(50000) // ~6 MB through a 64 KB limit
	got, err := runMem(t, `[{"$sort": {"r": -1}}, {"$limit": 25}]`, docs, false, "")
	if err != nil {
		t.Fatalf("top-k over a large input: %v", err)
	}
	want := stableSorted(t, docs, `{"r": -1}`)[:25]
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("top-k:\ngot  %v\nwant %v", got, want)
	}
	// A limit whose documents do not fit spills or fails like a sort.
	_, err = runMem(t, `[{"$sort": {"r": -1}}, {"$limit": 4000}]`, docs, false, "")
	wantNoDiskUse(t, err, "Sort exceeded memory limit")
	dir := t.TempDir()
	got, err = runMem(t, `[{"$sort": {"r": -1}}, {"$limit": 4000}]`, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stableSorted(t, docs, `{"r": -1}`)[:4000]) {
		t.Fatal("spilled top-k differs from the reference")
	}
	wantEmptyDir(t, dir)
}

const groupAllAccs = `[{"$group": {"_id": "$g",
	"sum": {"$sum": "$v"}, "avg": {"$avg": "$v"}, "min": {"$min": "$_id"}, "max": {"$max": "$_id"},
	"push": {"$push": "$_id"}, "set": {"$addToSet": "$v"}, "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
	"n": {"$count": {}}, "sd": {"$stdDevPop": "$v"}, "m": {"$mergeObjects": {"last": "$_id"}}}}]`

func TestGroupOverLimit(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(6000) // 1500 keys, each in several runs
	_, err := runMem(t, groupAllAccs, docs, false, "")
	wantNoDiskUse(t, err, "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.")

	dir := t.TempDir()
	got, err := runMem(t, groupAllAccs, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inMemory(t, groupAllAccs, docs)
	if len(want) != 1500 {
		t.Fatalf("reference has %d groups, want 1500", len(want))
	}
	sameSet(t, got, want)
	wantEmptyDir(t, dir)
}

// sameSet compares group outputs regardless of order, with a tolerance
// for the float sums of $avg and $stdDevPop, and $addToSet as a set.
func sameSet(t *testing.T, got, want []bson.D) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d groups, want %d", len(got), len(want))
	}
	byID := map[string]bson.D{}
	for _, d := range want {
		byID[groupKey(d[0].Value)] = d
	}
	for _, g := range got {
		w, ok := byID[groupKey(g[0].Value)]
		if !ok {
			t.Fatalf("unexpected group %v", g)
		}
		if groupKey(normalize(g)) != groupKey(normalize(w)) {
			t.Fatalf("group differs:\ngot  %v\nwant %v", g, w)
		}
	}
}

// normalize sorts $addToSet outputs (field "set") and rounds floats.
func normalize(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		switch v := e.Value.(type) {
		case float64:
			e.Value = fmt.Sprintf("%.9g", v)
		case bson.A:
			if e.Key == "set" {
				v = slices.Clone(v)
				slices.SortFunc(v, func(a, b any) int { return strings.Compare(groupKey(a), groupKey(b)) })
				e.Value = v
			}
		}
		out[i] = e
	}
	return out
}

func TestGroupDerivedStagesOverLimit(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(6000)
	for _, pipe := range []string{
		`[{"$sortByCount": "$g"}]`,
		`[{"$bucket": {"groupBy": "$_id", "boundaries": [0, 3000, 100000], "output": {"ids": {"$push": "$_id"}, "n": {"$sum": 1}}}}]`,
		`[{"$group": {"_id": "$_id"}}, {"$count": "n"}]`,
	} {
		t.Run(pipe, func(t *testing.T) {
			_, err := runMem(t, pipe, docs, false, "")
			wantNoDiskUse(t, err, "Exceeded memory limit for $group")
			dir := t.TempDir()
			got, err := runMem(t, pipe, docs, true, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := inMemory(t, pipe, docs)
			if strings.Contains(pipe, "sortByCount") {
				sameSet(t, got, want) // ties in count come in key order
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %v\nwant %v", got, want)
			}
			wantEmptyDir(t, dir)
		})
	}
}

func TestSampleBounded(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(20000)
	got, err := runMem(t, `[{"$sample": {"size": 10}}]`, docs, false, "")
	if err != nil || len(got) != 10 {
		t.Fatalf("small sample: %d docs, err %v", len(got), err)
	}
	_, err = runMem(t, `[{"$sample": {"size": 5000}}]`, docs, false, "")
	wantNoDiskUse(t, err, "Sort exceeded memory limit")
	dir := t.TempDir()
	got, err = runMem(t, `[{"$sample": {"size": 5000}}]`, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[any]bool{}
	for _, d := range got {
		seen[d[0].Value] = true
	}
	if len(got) != 5000 || len(seen) != 5000 {
		t.Fatalf("sample: %d docs, %d distinct, want 5000", len(got), len(seen))
	}
	wantEmptyDir(t, dir)
}

func TestFacetOverLimit(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(3000)
	const pipe = `[{"$facet": {"n": [{"$count": "n"}], "top": [{"$sort": {"_id": -1}}, {"$limit": 2}, {"$project": {"_id": 1}}]}}]`
	_, err := runMem(t, pipe, docs, false, "")
	wantNoDiskUse(t, err, "$facet exceeded memory limit")
	dir := t.TempDir()
	got, err := runMem(t, pipe, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, inMemory(t, pipe, docs)) {
		t.Fatalf("spooled facet differs: %v", got)
	}
	wantEmptyDir(t, dir)
	// The document $facet builds is bounded too.
	_, err = runMem(t, `[{"$facet": {"all": [{"$match": {}}]}}]`, docs[:1000], true, dir)
	if !mongoerr.Is(err, 4031700) {
		t.Fatalf("want 4031700 for an oversized $facet output, got %v", err)
	}
}

func TestLookupForeignCacheBounded(t *testing.T) {
	withLimits(t, testLimitBytes)
	foreign := memDocs(3000) // does not fit the lookup cache
	reads := 0
	env := testEnv(t)
	env.Lookup = func(db, coll string) (Iterator, error) {
		reads++
		return Slice(foreign), nil
	}
	p, err := Compile(ej(t, `[{"$lookup": {"from": "f", "localField": "_id", "foreignField": "v", "as": "m"}}, {"$project": {"n": {"$size": "$m"}}}]`).(bson.A), env)
	if err != nil {
		t.Fatal(err)
	}
	local := []bson.D{{{Key: "_id", Value: int32(1)}}, {{Key: "_id", Value: int32(2)}}, {{Key: "_id", Value: int32(99)}}}
	got, err := Drain(p.Run(Slice(local)))
	if err != nil {
		t.Fatal(err)
	}
	want := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "n", Value: int32(231)}},
		{{Key: "_id", Value: int32(2)}, {Key: "n", Value: int32(231)}},
		{{Key: "_id", Value: int32(99)}, {Key: "n", Value: int32(0)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if reads != 4 { // the aborted cache fill, then once per local document
		t.Fatalf("foreign collection read %d times, want 4", reads)
	}
}

func TestLookupResultBounded(t *testing.T) {
	big := strings.Repeat("y", 1<<20)
	foreign := make([]bson.D, 17)
	for i := range foreign {
		foreign[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(1)}, {Key: "s", Value: big}}
	}
	env := testEnv(t)
	env.Lookup = func(db, coll string) (Iterator, error) { return Slice(foreign), nil }
	p, err := Compile(ej(t, `[{"$lookup": {"from": "f", "localField": "k", "foreignField": "k", "as": "m"}}]`).(bson.A), env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Drain(p.Run(Slice([]bson.D{{{Key: "k", Value: int32(1)}}})))
	if !mongoerr.Is(err, 4568) {
		t.Fatalf("want 4568 for a $lookup result over 16 MB, got %v", err)
	}
}

func TestSetParameter(t *testing.T) {
	was, found, err := SetParameter(ParamSortBytes, int64(12345))
	if !found || err != nil || was != defaultLimitBytes {
		t.Fatalf("set: was %d found %v err %v", was, found, err)
	}
	defer SetParameter(ParamSortBytes, was)
	if got := Parameters()[0]; got.Key != ParamSortBytes || got.Value != int64(12345) {
		t.Fatalf("Parameters()[0] = %v", got)
	}
	if _, found, err := SetParameter(ParamGroupBytes, int32(0)); !found || !mongoerr.Is(err, mongoerr.BadValue) {
		t.Fatalf("zero: found %v err %v", found, err)
	}
	if _, found, _ := SetParameter("nope", int32(1)); found {
		t.Fatal("unknown parameter found")
	}
}

func TestClearTempDir(t *testing.T) {
	dir := t.TempDir() + "/_tmp"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/agg-sort-1.bson", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ClearTempDir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", dir, err)
	}
}

// TestSortLarge sorts 200k small documents; quadratic insertion took
// tens of seconds here (see BenchmarkSort for the time).
func TestSortLarge(t *testing.T) {
	docs := benchDocs(200000)
	got, err := runMem(t, `[{"$sort": {"r": 1}}]`, docs, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(got, func(a, b bson.D) int { return int(a[1].Value.(int64) - b[1].Value.(int64)) }) {
		t.Fatal("not sorted")
	}
}

func benchDocs(n int) []bson.D {
	docs := make([]bson.D, n)
	x := uint64(88172645463325252)
	for i := range docs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "r", Value: int64(x % 1000000)}}
	}
	return docs
}

func BenchmarkSort(b *testing.B) {
	docs := benchDocs(200000)
	p, err := Compile(bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "r", Value: int32(1)}}}}}, Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Drain(p.Run(Slice(docs))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSortTopK(b *testing.B) {
	docs := benchDocs(200000)
	p, err := Compile(bson.A{
		bson.D{{Key: "$sort", Value: bson.D{{Key: "r", Value: int32(1)}}}},
		bson.D{{Key: "$limit", Value: int32(100)}},
	}, Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Drain(p.Run(Slice(docs))); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSpillCompaction: with a fan-in of 3, runs are merged as they are
// written (sort runs into sort runs, group partials into group partials)
// and the results still equal the in-memory ones.
func TestSpillCompaction(t *testing.T) {
	withLimits(t, testLimitBytes)
	was := maxFanIn
	maxFanIn = 3
	defer func() { maxFanIn = was }()
	docs := memDocs(8000) // ~15 sort runs, ~10 group runs
	dir := t.TempDir()
	const sortPipe = `[{"$sort": {"r": 1}}]`
	got, err := runMem(t, sortPipe, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stableSorted(t, docs, `{"r": 1}`)) {
		t.Fatal("compacted sort differs from the stable reference")
	}
	got, err = runMem(t, groupAllAccs, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, got, inMemory(t, groupAllAccs, docs))
	wantEmptyDir(t, dir)
}
