package agg

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// ej parses relaxed extended JSON `{"v": <json>}` and returns v.
func ej(t testing.TB, s string) any {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d[0].Value
}

func ejDocs(t testing.TB, s string) []bson.D {
	t.Helper()
	var out []bson.D
	for _, v := range ej(t, s).(bson.A) {
		out = append(out, v.(bson.D))
	}
	return out
}

// pipeCase runs pipeline over input; want is the JSON array of output
// documents, unless code is set (compile or run must fail with it).
type pipeCase struct {
	name     string
	pipeline string
	input    string
	want     string
	code     int
}

var testColls = map[string]string{
	"inventory": `[{"_id": 1, "sku": "a", "qty": 10}, {"_id": 2, "sku": "b", "qty": 0}, {"_id": 3, "sku": null}, {"_id": 4}, {"_id": 5, "sku": ["a", "c"]}]`,
}

func testEnv(t testing.TB) Env {
	return Env{
		DB:   "test",
		Now:  time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		Rand: rand.New(rand.NewPCG(1, 2)),
		Lookup: func(db, coll string) (Iterator, error) {
			s, ok := testColls[coll]
			if !ok {
				return Slice(nil), nil
			}
			return Slice(ejDocs(t, s)), nil
		},
	}
}

func runPipe(t *testing.T, pipeline string, input []bson.D) ([]bson.D, error) {
	p, err := Compile(ej(t, pipeline).(bson.A), testEnv(t))
	if err != nil {
		return nil, err
	}
	return Drain(p.Run(Slice(input)))
}

func runPipeCases(t *testing.T, cases []pipeCase) {
	t.Helper()
	for _, c := range cases {
		name := c.name
		if name == "" {
			name = c.pipeline
		}
		t.Run(name, func(t *testing.T) {
			in := []bson.D(nil)
			if c.input != "" {
				in = ejDocs(t, c.input)
			}
			got, err := runPipe(t, c.pipeline, in)
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want error code %d, got %v (docs %v)", c.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := ejDocs(t, c.want)
			if len(got) == 0 && len(want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %v\nwant %v", got, want)
			}
		})
	}
}
