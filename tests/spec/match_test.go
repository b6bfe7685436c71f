package spec

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func ej(t *testing.T, s string) any {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &d); err != nil {
		t.Fatalf("bad ext JSON %s: %v", s, err)
	}
	return d[0].Value
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exp, act string
		root     bool
		ok       bool
	}{
		{"equal ints", `1`, `1`, false, true},
		{"int vs double", `1`, `1.0`, false, true},
		{"int vs long", `1`, `{"$numberLong":"1"}`, false, true},
		{"int vs 1.5", `1`, `1.5`, false, false},
		{"string vs int", `"1"`, `1`, false, false},
		{"root extra field ok", `{"x":1}`, `{"x":1,"y":2}`, true, true},
		{"nested extra field", `{"x":{"y":1}}`, `{"x":{"y":1,"z":1}}`, true, false},
		{"missing field", `{"x":1,"y":1}`, `{"x":1}`, true, false},
		{"key order free", `{"x":1,"y":2}`, `{"y":2,"x":1}`, false, true},
		{"array length", `[1,2,3]`, `[1,2,3,4]`, false, false},
		{"root docs in array", `[{"x":1}]`, `[{"x":1,"y":1}]`, true, true},
		{"non-root docs in array", `[{"x":1}]`, `[{"x":1,"y":1}]`, false, false},
		{"exists true", `{"x":{"$$exists":true}}`, `{"x":null}`, true, true},
		{"exists false", `{"x":{"$$exists":false}}`, `{"x":1}`, true, false},
		{"exists false absent", `{"x":{"$$exists":false}}`, `{}`, true, true},
		{"type one", `{"$$type":"long"}`, `{"$numberLong":"5"}`, false, true},
		{"type list", `{"$$type":["int","long"]}`, `5`, false, true},
		{"type wrong", `{"$$type":"string"}`, `5`, false, false},
		{"unsetOrMatches unset", `{"a":{"$$unsetOrMatches":1}}`, `{}`, true, true},
		{"unsetOrMatches wrong", `{"a":{"$$unsetOrMatches":1}}`, `{"a":2}`, true, false},
		{"unsetOrMatches top", `{"$$unsetOrMatches":{"n":1}}`, `{"n":1,"x":2}`, true, true},
		{"unsetOrMatches exists set", `{"a":{"$$unsetOrMatches":{"$$exists":true}}}`, `{"a":[1]}`, true, true},
		{"unsetOrMatches exists unset", `{"a":{"$$unsetOrMatches":{"$$exists":true}}}`, `{}`, true, true},
		{"unsetOrMatches not exists set", `{"a":{"$$unsetOrMatches":{"$$exists":false}}}`, `{"a":1}`, true, false},
		{"lte", `{"$$lte":5}`, `4.5`, false, true},
		{"lte fails", `{"$$lte":5}`, `6`, false, false},
		{"null", `null`, `null`, false, true},
		{"null vs missing", `{"x":null}`, `{}`, true, false},
		{"oid", `{"$oid":"5f0000000000000000000000"}`, `{"$oid":"5f0000000000000000000000"}`, false, true},
		{"matchAsRoot", `{"a":{"$$matchAsRoot":{"b":1}}}`, `{"a":{"b":1,"c":2}}`, false, true},
		{"unknown op", `{"$$nope":1}`, `1`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &matcher{ents: newEntityMap()}
			err := m.match(ej(t, tc.exp), ej(t, tc.act), tc.root, "$")
			if (err == nil) != tc.ok {
				t.Errorf("match(%s, %s, root=%v) = %v, want ok=%v", tc.exp, tc.act, tc.root, err, tc.ok)
			}
		})
	}
}

func TestMatchesEntity(t *testing.T) {
	em := newEntityMap()
	if err := em.add("id0", int32(7)); err != nil {
		t.Fatal(err)
	}
	m := &matcher{ents: em}
	if err := m.match(ej(t, `{"$$matchesEntity":"id0"}`), int64(7), false, "$"); err != nil {
		t.Errorf("matchesEntity: %v", err)
	}
	if err := m.match(ej(t, `{"$$matchesEntity":"nope"}`), int64(7), false, "$"); err == nil {
		t.Error("matchesEntity on an unknown entity matched")
	}
}

// TestQueryTypeOperatorParses guards against the Extended JSON parser
// reading a {$type: "null"} query as a legacy binary.
func TestQueryTypeOperatorParses(t *testing.T) {
	v := ej(t, `{"_id":{"$type":"null"}}`)
	d, ok := v.(bson.D)
	if !ok {
		t.Fatalf("got %T", v)
	}
	inner, ok := d[0].Value.(bson.D)
	if !ok || inner[0].Key != "$type" || inner[0].Value != "null" {
		t.Fatalf("got %#v", d)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string][3]int{"4.2.99": {4, 2, 99}, "7.0": {7, 0, 0}, "8.0.0-rc1": {8, 0, 0}, "": {}} {
		if got := parseVersion(in); got != want {
			t.Errorf("parseVersion(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestRequirements(t *testing.T) {
	env := &Env{Version: [3]int{7, 0, 0}, Topology: "single"}
	yes, no := true, false
	for _, tc := range []struct {
		req Requirement
		ok  bool
	}{
		{Requirement{MinServerVersion: "4.4"}, true},
		{Requirement{MinServerVersion: "8.0"}, false},
		{Requirement{MaxServerVersion: "4.2.99"}, false},
		{Requirement{Topologies: []string{"single", "replicaset"}}, true},
		{Requirement{Topologies: []string{"replicaset"}}, false},
		{Requirement{Serverless: "forbid"}, true},
		{Requirement{Serverless: "require"}, false},
		{Requirement{Auth: &yes}, false},
		{Requirement{Auth: &no}, true},
	} {
		if ok, why := env.satisfied(context.Background(), []Requirement{tc.req}); ok != tc.ok {
			t.Errorf("%+v: ok=%v (%s), want %v", tc.req, ok, why, tc.ok)
		}
	}
}
