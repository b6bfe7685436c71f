package exec

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// TestPlannerGolden runs the planner scripts in testdata/planner: each file
// starts from an empty collection t.c on in-memory storage. Verbs:
//
//	create-index        one index spec per line ({"key": ..., "name": ...})
//	insert              one document per line
//	explain [sort=S] [hint=NAME|PATTERN] [limit=N]
//	                    the input is the filter (empty = {}); prints the
//	                    winning plan, the index bounds and the _ids found
//
// go test ./internal/exec -run TestPlannerGolden -rewrite regenerates the
// expected output.
func TestPlannerGolden(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "planner"), func(t *testing.T, path string) {
		e := emptyEngine(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return plannerCmd(t, e, d)
		})
	})
}

func emptyEngine(t *testing.T) *Engine {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return New(cat, nil)
}

func plannerCmd(t *testing.T, e *Engine, d *datadriven.TestData) string {
	switch d.Cmd {
	case "create-index":
		col, err := e.CollectionForWrite("t", "c")
		if err != nil {
			return errString(err)
		}
		if _, _, err := e.Catalog().CreateIndexes(col, ddDocs(t, d.Input)); err != nil {
			return errString(err)
		}
		return "ok"
	case "insert":
		res := e.Insert("t", "c", ddDocs(t, d.Input), true, nil)
		if len(res.Errors) > 0 {
			return errString(res.Errors[0].Err)
		}
		return fmt.Sprintf("inserted %d", len(ddDocs(t, d.Input)))
	case "explain":
		return explainCmd(t, e, d)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func explainCmd(t *testing.T, e *Engine, d *datadriven.TestData) string {
	p := explainParams(t, d)
	doc, err := e.ExplainFind("t", "c", p)
	if err != nil {
		return errString(err)
	}
	it, plan, err := e.Find("t", "c", p)
	if err != nil {
		return errString(err)
	}
	it.Close()
	var b strings.Builder
	winning, _ := lookupD(doc, "winningPlan").(bson.D)
	writeStage(&b, winning, plan, 0)
	got := findIDs(t, e, p)
	checkSameAsCollScan(t, d, e, p, got)
	fmt.Fprintf(&b, "ids: %s\n", strings.Join(got, " "))
	return b.String()
}

// explainParams reads the filter (the input) and sort=, hint=, limit=.
func explainParams(t *testing.T, d *datadriven.TestData) FindParams {
	p := FindParams{}
	if in := strings.TrimSpace(d.Input); in != "" {
		p.Filter = ddDoc(t, in)
	}
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "sort":
			p.Sort = ddDoc(t, a.Vals[0])
		case "hint":
			p.Hint = a.Vals[0]
			if strings.HasPrefix(a.Vals[0], "{") {
				p.Hint = ddDoc(t, a.Vals[0])
			}
		case "limit":
			d.ScanArgs(t, "limit", &p.Limit)
		default:
			d.Fatalf(t, "unknown argument %q", a.Key)
		}
	}
	return p
}

// writeStage prints one explain stage per line, inputs indented below.
func writeStage(b *strings.Builder, st bson.D, plan *Plan, depth int) {
	pad := strings.Repeat("  ", depth)
	name, _ := lookupD(st, "stage").(string)
	b.WriteString(pad + name)
	switch name {
	case "SORT":
		b.WriteString(" " + relaxed(lookupD(st, "sortPattern")))
	case "LIMIT":
		b.WriteString(" " + relaxed(lookupD(st, "limitAmount")))
	case "COLLSCAN":
		b.WriteString(" " + lookupD(st, "direction").(string))
	case "IXSCAN":
		fmt.Fprintf(b, " %s %s %s", lookupD(st, "indexName"), relaxed(lookupD(st, "keyPattern")), lookupD(st, "direction"))
		for _, flag := range []string{"isMultiKey", "isUnique", "isSparse"} {
			if v, _ := lookupD(st, flag).(bool); v {
				b.WriteString(" " + strings.ToLower(strings.TrimPrefix(flag, "is")))
			}
		}
	}
	b.WriteString("\n")
	if name == "IXSCAN" {
		b.WriteString(pad + "  bounds " + relaxed(lookupD(st, "indexBounds")) + "\n")
		for _, iv := range plan.Intervals {
			b.WriteString(pad + "  " + formatInterval(plan.Index, iv) + "\n")
		}
	}
	if in, ok := lookupD(st, "inputStage").(bson.D); ok {
		writeStage(b, in, plan, depth+1)
	}
}

// checkSameAsCollScan fails the test when the chosen plan finds other
// documents than a collection scan: bounds may only change how results are
// found. Results are compared as sets (ties of a sort may come in any order).
func checkSameAsCollScan(t *testing.T, d *datadriven.TestData, e *Engine, p FindParams, got []string) {
	t.Helper()
	if p.Hint != nil || p.Limit > 0 {
		return // a hinted sparse or partial index may miss documents; a limit may cut ties
	}
	p.Hint = bson.D{{Key: "$natural", Value: int32(1)}}
	want := findIDs(t, e, p)
	g, w := append([]string(nil), got...), append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, " ") != strings.Join(w, " ") {
		d.Fatalf(t, "plan found %v, a collection scan %v", got, want)
	}
}

func findIDs(t *testing.T, e *Engine, p FindParams) []string {
	t.Helper()
	it, _, err := e.Find("t", "c", p)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := []string{}
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		doc, err := r.decoded()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, relaxed(lookupD(doc, "_id")))
	}
}

// formatInterval renders an IXSCAN byte interval in terms of the index's
// fields: "[" / "]" mark a bound that includes the keys equal to the
// values shown, "(" / ")" one that excludes them; "*" is any value of a
// field the bound leaves open; <number> and the like are a whole type
// bracket; MinKey / MaxKey an unbounded end.
func formatInterval(idx *catalog.Index, iv interval) string {
	lo, loAfter := formatBound(idx, iv.lo)
	hi, hiAfter := formatBound(idx, iv.hi)
	if iv.lo == nil {
		lo = "MinKey"
	}
	if iv.hi == nil {
		hi, hiAfter = "MaxKey", true
	}
	open, closing := "[", ")"
	if loAfter {
		open = "("
	}
	if hiAfter {
		closing = "]"
	}
	return open + lo + ", " + hi + closing
}

// formatBound decodes a bound key field by field. after is true when the
// bound is the successor of the values shown (the smallest key after every
// key that starts with them), which is how exclusive lows and inclusive
// highs are built.
func formatBound(idx *catalog.Index, b []byte) (s string, after bool) {
	if vals, ok := decodeFields(idx, b); ok {
		return tuple(idx, vals), false
	}
	if len(b) == 0 {
		return "?", false
	}
	for pad := 0; pad <= 32; pad++ {
		prev := append(append([]byte(nil), b...), bytes.Repeat([]byte{0xff}, pad)...)
		prev[len(b)-1]--
		if vals, ok := decodeFields(idx, prev); ok {
			return tuple(idx, vals), true
		}
	}
	return fmt.Sprintf("%x", b), false
}

// decodeFields decodes consecutive index fields; a lone trailing bracket
// byte decodes as that whole type.
func decodeFields(idx *catalog.Index, b []byte) ([]string, bool) {
	var out []string
	for i := 0; len(b) > 0; i++ {
		if i >= len(idx.Key) {
			return nil, false // the _id suffix of a non-unique entry: not a bound
		}
		desc := isDesc(idx.Key[i].Value)
		v, rest, err := keystring.Decode(b, desc)
		if err == nil {
			out, b = append(out, relaxed(v)), rest
			continue
		}
		if len(b) != 1 {
			return nil, false
		}
		c := b[0]
		if desc {
			c = ^c
		}
		name, ok := bracketNames[c]
		if !ok {
			return nil, false
		}
		return append(out, name), true
	}
	return out, true
}

// bracketNames names keystring's type-bracket bytes (BracketLow of a value
// of each type).
var bracketNames = func() map[byte]string {
	m := map[byte]string{}
	for name, v := range map[string]any{
		"<null>": nil, "<number>": int32(0), "<string>": "", "<object>": bson.D{}, "<array>": bson.A{},
		"<binData>": bson.Binary{}, "<objectId>": bson.ObjectID{}, "<bool>": false,
		"<date>": bson.DateTime(0), "<timestamp>": bson.Timestamp{},
	} {
		m[keystring.BracketLow(v)[0]] = name
	}
	return m
}()

// tuple prints one value bare for a single-field index, else "(v1, v2, *)".
func tuple(idx *catalog.Index, vals []string) string {
	if len(idx.Key) == 1 {
		if len(vals) == 0 {
			return "*"
		}
		return vals[0]
	}
	for len(vals) < len(idx.Key) {
		vals = append(vals, "*")
	}
	return "(" + strings.Join(vals, ", ") + ")"
}

// relaxed renders v as relaxed extended JSON.
func relaxed(v any) string {
	out, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(out)
	return s[len(`{"v":`) : len(s)-1]
}

func lookupD(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// ddDoc parses one relaxed extended JSON document ({"a": 1} is int32).
func ddDoc(t *testing.T, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d
}

// ddDocs parses one document per non-empty line.
func ddDocs(t *testing.T, input string) []bson.D {
	t.Helper()
	var out []bson.D
	for _, line := range strings.Split(input, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, ddDoc(t, line))
		}
	}
	return out
}

func errString(err error) string {
	return "error: " + mongoerr.From(err).Error()
}
