package expr

import (
	"reflect"
	"testing"

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

func ejDoc(t testing.TB, s string) bson.D {
	t.Helper()
	if s == "" {
		return bson.D{}
	}
	d, ok := ej(t, s).(bson.D)
	if !ok {
		t.Fatalf("not a document: %s", s)
	}
	return d
}

// exprCase: evaluate expr against doc; want is extended JSON ("MISSING" for
// Missing) unless code is non-zero, in which case compile or eval must fail
// with that code.
type exprCase struct {
	expr string
	doc  string
	want string
	code int
}

func runExprCases(t *testing.T, cases []exprCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, err := evalJSON(t, c.expr, c.doc)
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want error code %d, got %v (value %#v)", c.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var want any = Missing
			if c.want != "MISSING" {
				want = ej(t, c.want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v (%T), want %#v (%T)", got, got, want, want)
			}
		})
	}
}

func evalJSON(t *testing.T, exprJSON, docJSON string) (any, error) {
	e, err := Compile(ej(t, exprJSON))
	if err != nil {
		return nil, err
	}
	return e.Eval(ejDoc(t, docJSON), nil)
}
