package agg

import "testing"

// groupNAccs uses every N accumulator and $percentile; sort keys have
// ties (r repeats), which arrival order breaks.
const groupNAccs = `[{"$group": {"_id": "$g",
	"top": {"$top": {"output": "$_id", "sortBy": {"r": 1}}},
	"bottom": {"$bottom": {"output": "$_id", "sortBy": {"r": 1}}},
	"topN": {"$topN": {"n": 2, "output": ["$_id", "$r"], "sortBy": {"r": -1, "v": 1}}},
	"bottomN": {"$bottomN": {"n": 2, "output": "$_id", "sortBy": {"r": 1}}},
	"firstN": {"$firstN": {"n": 2, "input": "$_id"}},
	"lastN": {"$lastN": {"n": 2, "input": "$_id"}},
	"maxN": {"$maxN": {"n": 2, "input": "$r"}},
	"minN": {"$minN": {"n": 2, "input": "$r"}},
	"p": {"$percentile": {"input": "$r", "p": [0.1, 0.9], "method": "approximate"}},
	"m": {"$median": {"input": "$v", "method": "approximate"}}}}]`

// TestGroupNAccumulatorsSpill: spilled groups merge their partial states
// to the result an in-memory group gives.
func TestGroupNAccumulatorsSpill(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(6000)
	_, err := runMem(t, groupNAccs, docs, false, "")
	wantNoDiskUse(t, err, "Exceeded memory limit for $group")

	dir := t.TempDir()
	got, err := runMem(t, groupNAccs, docs, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inMemory(t, groupNAccs, docs)
	if len(want) != 1500 {
		t.Fatalf("reference has %d groups, want 1500", len(want))
	}
	sameSet(t, got, want)
	wantEmptyDir(t, dir)
}
