package agg

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// collStatsEnv answers $collStats with a fixed collection of count docs,
// recording the scale it was asked for.
func collStatsEnv(count int64, scales *[]int64) Env {
	return Env{DB: "test", CollStats: func(scale int64) (CollStatsInfo, error) {
		*scales = append(*scales, scale)
		if count < 0 {
			return CollStatsInfo{NS: "test.c", Host: "h:1"}, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: test.c")
		}
		return CollStatsInfo{NS: "test.c", Host: "h:1", Count: count,
			Storage: bson.D{{Key: "size", Value: 100 / scale}, {Key: "count", Value: count}}}, nil
	}}
}

func runCollStats(t *testing.T, env Env, pipeline string) ([]bson.D, error) {
	t.Helper()
	p, err := Compile(ej(t, pipeline).(bson.A), env)
	if err != nil {
		return nil, err
	}
	// The input (the collection's documents) is ignored.
	return Drain(p.Run(Slice([]bson.D{{{Key: "x", Value: 1}}})))
}

func TestCollStatsOutput(t *testing.T) {
	var scales []int64
	out, err := runCollStats(t, collStatsEnv(4, &scales), `[{"$collStats": {"storageStats": {"scale": 10.7}, "count": {}, "latencyStats": {"histograms": true}, "queryExecStats": {}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 {
		t.Fatalf("want one document, got %v", out)
	}
	var keys []string
	for _, e := range out[0] {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, " "); got != "ns host localTime latencyStats storageStats count queryExecStats" {
		t.Fatalf("fields %s", got)
	}
	if len(scales) != 1 || scales[0] != 10 {
		t.Errorf("scale asked: %v, want the integer part 10", scales)
	}
	if out[0][5].Value != int64(4) {
		t.Errorf("count %v", out[0][5].Value)
	}
	// Only what was asked for; later stages see the document.
	out, err = runCollStats(t, collStatsEnv(4, &scales), `[{"$collStats": {}}, {"$project": {"_id": 0, "ns": 1, "count": 1}}]`)
	if err != nil || len(out) != 1 || len(out[0]) != 1 || out[0][0].Key != "ns" {
		t.Errorf("bare $collStats then $project: %v, %v", out, err)
	}
}

func TestCollStatsErrors(t *testing.T) {
	var scales []int64
	for _, tc := range []struct {
		env      Env
		pipeline string
		code     mongoerr.Code
	}{
		{collStatsEnv(1, &scales), `[{"$match": {}}, {"$collStats": {}}]`, mongoerr.StageMustBeFirst},
		{collStatsEnv(1, &scales), `[{"$collStats": 1}]`, mongoerr.TypeMismatch},
		{collStatsEnv(1, &scales), `[{"$collStats": {"count": 1}}]`, mongoerr.TypeMismatch},
		{collStatsEnv(1, &scales), `[{"$collStats": {"other": {}}}]`, mongoerr.IDLUnknownField},
		{collStatsEnv(1, &scales), `[{"$collStats": {"storageStats": {"scale": 0}}}]`, mongoerr.BadValue},
		{collStatsEnv(1, &scales), `[{"$collStats": {"storageStats": {"scale": "x"}}}]`, mongoerr.TypeMismatch},
		{collStatsEnv(1, &scales), `[{"$collStats": {"latencyStats": {"histograms": 1}}}]`, mongoerr.TypeMismatch},
		{collStatsEnv(-1, &scales), `[{"$collStats": {"count": {}}}]`, mongoerr.NamespaceNotFound},
		{Env{DB: "test"}, `[{"$collStats": {}}]`, mongoerr.InvalidNamespace},
	} {
		_, err := runCollStats(t, tc.env, tc.pipeline)
		if me := mongoerr.From(err); err == nil || me.Code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.pipeline, err, tc.code)
		}
	}
	// A missing collection is fine when nothing about it is asked.
	if out, err := runCollStats(t, collStatsEnv(-1, &scales), `[{"$collStats": {}}]`); err != nil || len(out) != 1 {
		t.Errorf("bare $collStats of a missing collection: %v, %v", out, err)
	}
}
