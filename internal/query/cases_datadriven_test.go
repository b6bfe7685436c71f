package query

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestMatchCases runs the edge-value case files in testdata/match. Verbs:
//
//	docs     one document per line, each with an _id: the set to match
//	match    the input is a filter; prints the _ids of the documents it
//	         matches, in order, with "@i" when the match went through array
//	         element i (what the positional $ refers to), or the error
//
// go test ./internal/query -run TestMatchCases -rewrite regenerates the
// expected output; read the diff against MongoDB's semantics.
func TestMatchCases(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "match"), func(t *testing.T, path string) {
		var docs []bson.D
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "docs":
				docs = caseDocs(t, d.Input)
				return strconv.Itoa(len(docs)) + " docs"
			case "match":
				return matchFile(t, docs, d.Input)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func matchFile(t *testing.T, docs []bson.D, filter string) string {
	m, err := Compile(mustDoc(t, filter))
	if err != nil {
		return "error: " + mongoerr.From(err).Error()
	}
	var out []string
	for _, doc := range docs {
		ok, pos := m.MatchPos(doc)
		if !ok {
			continue
		}
		id := relaxedJSON(doc[0].Value)
		if pos >= 0 {
			id += "@" + strconv.Itoa(pos)
		}
		out = append(out, id)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// caseDocs parses one relaxed extended JSON document per non-empty line.
func caseDocs(t *testing.T, input string) []bson.D {
	t.Helper()
	var out []bson.D
	for _, line := range strings.Split(input, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, mustDoc(t, line))
		}
	}
	return out
}

func relaxedJSON(v any) string {
	out, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return "?"
	}
	return string(out[len(`{"v":`) : len(out)-1])
}
