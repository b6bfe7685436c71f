package update

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestUpdateCases runs the edge-value case files in testdata/update. Verbs:
//
//	update [pos=N] [insert]
//	    line 1 the stored document, line 2 the update (operators,
//	    replacement or pipeline), further lines array filters; prints the
//	    new document and the oplog form ("no-op" when nothing changed), or
//	    the error. pos is the positional $ match; insert applies
//	    $setOnInsert. The oplog form is also replayed on the old document,
//	    once and twice, and any difference is printed.
//	upsert
//	    line 1 the query, line 2 the update: the document an upsert inserts
//
// Values print in mongosh's notation, so numeric types show: 1 is an
// int32, NumberLong(1), 1.0 a double, NumberDecimal("1").
// go test ./internal/update -run TestUpdateCases -rewrite regenerates the
// expected output; read the diff against MongoDB's semantics.
func TestUpdateCases(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "update"), func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			lines := inputLines(d.Input)
			switch d.Cmd {
			case "update":
				return updateCase(t, d, lines)
			case "upsert":
				return upsertCase(t, d, lines)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func updateCase(t *testing.T, d *datadriven.TestData, lines []string) string {
	if len(lines) < 2 {
		d.Fatalf(t, "update needs a document and an update")
	}
	var opts Options
	for _, f := range lines[2:] {
		opts.ArrayFilters = append(opts.ArrayFilters, D(t, f))
	}
	ctx := ApplyContext{MatchedPos: -1, Now: testNow}
	if d.HasArg("pos") {
		d.ScanArgs(t, "pos", &ctx.MatchedPos)
	}
	ctx.IsInsert = d.HasArg("insert")
	u, err := Compile(updateSpec(t, lines[1]), opts)
	if err != nil {
		return caseErr(err)
	}
	old := D(t, lines[0])
	res, err := u.Apply(old, ctx)
	if err != nil {
		return caseErr(err)
	}
	out := bsonxtest.Shell(res.Doc) + "\n"
	if !res.Changed {
		out += "no-op\n"
	} else {
		out += "oplog: " + bsonxtest.Shell(res.Oplog) + "\n"
	}
	if err := idempotenceErr(old, res); err != nil {
		out += "OPLOG MISMATCH: " + err.Error() + "\n"
	}
	return out
}

func upsertCase(t *testing.T, d *datadriven.TestData, lines []string) string {
	if len(lines) != 2 {
		d.Fatalf(t, "upsert needs a query and an update")
	}
	u, err := Compile(updateSpec(t, lines[1]), Options{})
	if err != nil {
		return caseErr(err)
	}
	doc, err := u.Upsert(D(t, lines[0]), ApplyContext{MatchedPos: -1, Now: testNow})
	if err != nil {
		return caseErr(err)
	}
	return newObjectID.ReplaceAllString(bsonxtest.Shell(doc), "ObjectId(<new>)")
}

// newObjectID matches the _id an upsert generates (it differs every run).
var newObjectID = regexp.MustCompile(`ObjectId\("[0-9a-f]{24}"\)`)

// updateSpec parses an update: a document, or a pipeline (a JSON array).
func updateSpec(t *testing.T, s string) any {
	if strings.HasPrefix(s, "[") {
		return P(t, s)
	}
	return D(t, s)
}

func inputLines(input string) []string {
	var out []string
	for _, l := range strings.Split(input, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func caseErr(err error) string { return "error: " + mongoerr.From(err).Error() }
