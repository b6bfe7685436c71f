package agg

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestGroupDecimalSumAcrossSpills: $sum and $avg of decimals are exact
// whether or not $group spills (the partial sums written to disk and
// merged are decimals), and equal the exact totals.
func TestGroupDecimalSumAcrossSpills(t *testing.T) {
	withLimits(t, testLimitBytes)
	tenth, _ := decimal.Parse("0.1")
	hundredth, _ := decimal.Parse("0.01")
	docs := make([]bson.D, 6000)
	n1, n2 := map[string]int64{}, map[string]int64{}
	for i := range docs {
		g := fmt.Sprintf("k%04d", (i*31)%1500)
		v := hundredth
		if i%3 == 0 {
			v, n1[g] = tenth, n1[g]+1
		} else {
			n2[g]++
		}
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "g", Value: g}, {Key: "v", Value: v}}
	}
	pipeline := `[{"$group": {"_id": "$g", "sum": {"$sum": "$v"}, "avg": {"$avg": "$v"}}}]`
	if _, err := runMem(t, pipeline, docs, false, ""); !mongoerr.Is(err, mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed) {
		t.Fatalf("without allowDiskUse: %v, want 292 (the test must spill)", err)
	}
	got, err := runMem(t, pipeline, docs, true, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1500 {
		t.Fatalf("%d groups, want 1500", len(got))
	}
	for _, d := range got {
		g := d[0].Value.(string)
		want := decimal.Mul(decimal.FromInt64(n1[g]), tenth)
		if n2[g] > 0 { // 0.00 would lower the exponent
			want = decimal.Add(want, decimal.Mul(decimal.FromInt64(n2[g]), hundredth))
		}
		wantAvg := decimal.Quo(want, decimal.FromInt64(n1[g]+n2[g]))
		sum, avg := d[1].Value.(bson.Decimal128), d[2].Value.(bson.Decimal128)
		if sum.String() != want.String() || avg.String() != wantAvg.String() {
			t.Fatalf("group %s: sum %s avg %s, want %s %s", g, sum, avg, want, wantAvg)
		}
	}
}
