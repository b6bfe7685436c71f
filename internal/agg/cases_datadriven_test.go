package agg

import (
	"encoding/base64"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"

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
		b.WriteString(shellValue(doc) + "\n")
	}
	return b.String()
}

// shellValue renders v as mongosh does, keeping numeric types visible.
func shellValue(v any) string {
	var b strings.Builder
	writeShell(&b, v)
	return b.String()
}

func writeShell(b *strings.Builder, v any) {
	switch x := v.(type) {
	case bson.D:
		b.WriteString("{")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(shellKey(e.Key) + ": ")
			writeShell(b, e.Value)
		}
		b.WriteString("}")
	case bson.A:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeShell(b, e)
		}
		b.WriteString("]")
	default:
		b.WriteString(shellScalar(v))
	}
}

var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func shellKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

func shellScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int32:
		return strconv.Itoa(int(x))
	case int64:
		return fmt.Sprintf("NumberLong(%d)", x)
	case float64:
		return shellDouble(x)
	case bson.Decimal128:
		return fmt.Sprintf("NumberDecimal(%q)", x.String())
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case bson.DateTime:
		return fmt.Sprintf("ISODate(%q)", x.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
	case bson.Timestamp:
		return fmt.Sprintf("Timestamp(%d, %d)", x.T, x.I)
	case bson.ObjectID:
		return fmt.Sprintf("ObjectId(%q)", x.Hex())
	case bson.Binary:
		return fmt.Sprintf("BinData(%d, %q)", x.Subtype, base64.StdEncoding.EncodeToString(x.Data))
	case bson.Regex:
		return "/" + x.Pattern + "/" + x.Options
	case bson.MinKey:
		return "MinKey"
	case bson.MaxKey:
		return "MaxKey"
	case bson.Undefined:
		return "undefined"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func shellDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
