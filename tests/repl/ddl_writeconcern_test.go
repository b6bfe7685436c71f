package repl

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
)

// TestDDLWaitsForReplication is issue #9's second defect: DDL answered
// ok at once whatever w asked for. With one of three members down, every
// writing command sent with {w: 3, wtimeout: 1000} must answer ok: 1 with
// writeConcernError WriteConcernFailed (64) after about a second, as
// inserts do; the same commands with w: "majority" (2 of 3 up) succeed.
func TestDDLWaitsForReplication(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 10*time.Second)
	down := secondaries(c, p)[1]
	if _, err := c.Kill(context.Background(), down.Name); err != nil {
		t.Fatalf("kill %s: %v", down.Name, err)
	}
	for _, w := range []any{"majority", int32(3)} {
		for _, step := range ddlSteps() {
			cmd := append(bson.D{}, step.cmd...)
			cmd = append(cmd, bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: w}, {Key: "wtimeout", Value: int32(1000)}}},
				bson.E{Key: "$db", Value: step.db})
			start := time.Now()
			r, err := rawCommand(p.Host, cmd)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s w:%v: %v", step.name, w, err)
			}
			if ok, code, _ := replyCode(r); ok != 1 {
				t.Fatalf("%s w:%v: ok=%v code=%d; reply %v", step.name, w, ok, code, r)
			}
			var wce bson.Raw
			if v, err := r.LookupErr("writeConcernError"); err == nil {
				wce = v.Document()
			}
			code, _ := wceCode(wce)
			switch {
			case w == "majority" && wce != nil:
				t.Errorf("%s w:majority with 2 of 3 up: writeConcernError %v, want none", step.name, wce)
			case w != "majority" && code != 64:
				t.Errorf("%s w:3 with %s down: writeConcernError %v after %v, want code 64", step.name, down.Name, wce, took)
			case w != "majority" && took < 900*time.Millisecond:
				t.Errorf("%s w:3 wtimeout 1000 answered after %v, want about 1 s", step.name, took)
			}
		}
	}
}

type ddlStep struct {
	name, db string
	cmd      bson.D
}

// ddlSteps is a sequence in which each command has something to do.
func ddlSteps() []ddlStep {
	idx := bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "x_1"}}}
	agg := func(last bson.D) bson.D {
		return bson.D{{Key: "aggregate", Value: "a"}, {Key: "pipeline", Value: bson.A{last}}, {Key: "cursor", Value: bson.D{}}}
	}
	return []ddlStep{
		{"create", "ddlwc", bson.D{{Key: "create", Value: "a"}}},
		{"createIndexes", "ddlwc", bson.D{{Key: "createIndexes", Value: "a"}, {Key: "indexes", Value: idx}}},
		{"collMod", "ddlwc", bson.D{{Key: "collMod", Value: "a"}}},
		{"dropIndexes", "ddlwc", bson.D{{Key: "dropIndexes", Value: "a"}, {Key: "index", Value: "x_1"}}},
		{"$out", "ddlwc", agg(bson.D{{Key: "$out", Value: "b"}})},
		{"$merge", "ddlwc", agg(bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "c"}}}})},
		{"renameCollection", "admin", bson.D{{Key: "renameCollection", Value: "ddlwc.b"}, {Key: "to", Value: "ddlwc.d"}}},
		{"drop", "ddlwc", bson.D{{Key: "drop", Value: "d"}}},
		{"dropDatabase", "ddlwc", bson.D{{Key: "dropDatabase", Value: int32(1)}}},
	}
}
