package update

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// D parses relaxed extended JSON ({"a": 1} is int32, 1.5 double,
// {"$numberLong": "1"} int64) into a document.
func D(t testing.TB, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d
}

// applyCase is one update applied to one document.
type applyCase struct {
	name    string
	doc     string
	update  string
	filters []string // array filters
	pos     int      // MatchedPos; 0 means -1 unless setPos
	setPos  bool
	insert  bool
	want    string        // expected document (when code == 0)
	noop    bool          // expect Changed == false
	code    mongoerr.Code // expected error code
	msg     string        // expected exact error message, if set
}

var testNow = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func runApplyCases(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runApplyCase(t, c) })
	}
}

func runApplyCase(t *testing.T, c applyCase) {
	t.Helper()
	var opts Options
	for _, f := range c.filters {
		opts.ArrayFilters = append(opts.ArrayFilters, D(t, f))
	}
	doc := D(t, c.doc)
	before := bsonx.CloneDoc(doc)
	u, err := Compile(D(t, c.update), opts)
	var res Result
	if err == nil {
		ctx := ApplyContext{MatchedPos: -1, IsInsert: c.insert, Now: testNow}
		if c.setPos {
			ctx.MatchedPos = c.pos
		}
		res, err = u.Apply(doc, ctx)
	}
	if !identical(doc, before) {
		t.Fatalf("input mutated: %s", fmtValue(doc))
	}
	if checkErr(t, err, c.code, c.msg) {
		return
	}
	if want := D(t, c.want); !identical(res.Doc, want) {
		t.Fatalf("got %s\nwant %s", fmtValue(res.Doc), fmtValue(want))
	}
	if res.Changed == c.noop {
		t.Fatalf("Changed = %v, want %v", res.Changed, !c.noop)
	}
	checkIdempotent(t, doc, res)
}

// checkErr reports whether an error was expected, failing on mismatch.
func checkErr(t *testing.T, err error, code mongoerr.Code, msg string) bool {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return false
	}
	if !mongoerr.Is(err, code) {
		t.Fatalf("error = %v, want code %d", err, code)
	}
	if msg != "" && mongoerr.From(err).Msg != msg {
		t.Fatalf("message = %q\nwant      %q", mongoerr.From(err).Msg, msg)
	}
	return true
}

// checkIdempotent applies the oplog form to the old document once and twice.
func checkIdempotent(t *testing.T, old bson.D, res Result) {
	t.Helper()
	if err := idempotenceErr(old, res); err != nil {
		t.Fatal(err)
	}
}

func idempotenceErr(old bson.D, res Result) error {
	if !res.Changed {
		if res.Oplog != nil {
			return fmt.Errorf("no-op produced oplog %s", fmtValue(res.Oplog))
		}
		if !identical(old, res.Doc) {
			return fmt.Errorf("no-op changed doc: %s", fmtValue(res.Doc))
		}
		return nil
	}
	once, err := ApplyOplog(old, res.Oplog)
	if err != nil {
		return fmt.Errorf("ApplyOplog(%s): %w", fmtValue(res.Oplog), err)
	}
	if !identical(once, res.Doc) {
		return fmt.Errorf("oplog %s on old gives %s, want %s", fmtValue(res.Oplog), fmtValue(once), fmtValue(res.Doc))
	}
	twice, err := ApplyOplog(once, res.Oplog)
	if err != nil || !identical(twice, res.Doc) {
		return fmt.Errorf("oplog %s applied twice gives %s (%v)", fmtValue(res.Oplog), fmtValue(twice), err)
	}
	return nil
}
