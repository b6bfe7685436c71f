package update

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
	out := shellValue(res.Doc) + "\n"
	if !res.Changed {
		out += "no-op\n"
	} else {
		out += "oplog: " + shellValue(res.Oplog) + "\n"
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
	return newObjectID.ReplaceAllString(shellValue(doc), "ObjectId(<new>)")
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
