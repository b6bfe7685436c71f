package agg

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestPipelineCases runs the edge-value case files in testdata/pipeline.
// One verb:
//
//	pipeline
//	    line 1 the pipeline (a JSON array), further lines the input
//	    documents; prints the output documents, one per line, or the error.
//	    $lookup and $unionWith read testColls (helpers_test.go).
//
// Values print in mongosh's notation, so numeric types show: 1 is an
// int32, NumberLong(1), 1.0 a double, NumberDecimal("1").
// go test ./internal/agg -run TestPipelineCases -rewrite regenerates the
// expected output; read the diff against MongoDB's semantics.
func TestPipelineCases(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "pipeline"), func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "pipeline" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			return pipelineCase(t, d)
		})
	})
}

func pipelineCase(t *testing.T, d *datadriven.TestData) string {
	var lines []string
	for _, l := range strings.Split(d.Input, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		d.Fatalf(t, "pipeline needs a pipeline")
	}
	var in []bson.D
	for _, l := range lines[1:] {
		in = append(in, ej(t, l).(bson.D))
	}
	out, err := runPipe(t, lines[0], in)
	if err != nil {
		return "error: " + mongoerr.From(err).Error()
	}
	if len(out) == 0 {
		return "no documents"
	}
	var b strings.Builder
	for _, doc := range out {
		b.WriteString(bsonxtest.Shell(doc) + "\n")
	}
	return b.String()
}
