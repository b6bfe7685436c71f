package privilege

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Grant is a privilege as a role document stores and rolesInfo shows it: a
// resource and MongoDB action names, sorted and distinct (some of them
// names relaydb accepts but checks nowhere, see otherActions).
type Grant struct {
	Resource Resource
	Actions  []string
}

// Privilege returns the actions of g relaydb checks.
func (g Grant) Privilege() Privilege {
	var a Action
	for _, n := range g.Actions {
		b, _ := ParseAction(n)
		a |= b
	}
	return Privilege{Resource: g.Resource, Actions: a}
}

// BSON returns g as MongoDB shows a privilege: {resource, actions}.
func (g Grant) BSON() bson.D {
	acts := make(bson.A, len(g.Actions))
	for i, n := range g.Actions {
		acts[i] = n
	}
	return bson.D{{Key: "resource", Value: g.Resource.BSON()}, {Key: "actions", Value: acts}}
}

// BSON returns r as a resource document: {db, collection}, {cluster: true}
// or {anyResource: true}.
func (r Resource) BSON() bson.D {
	switch {
	case r.Any:
		return bson.D{{Key: "anyResource", Value: true}}
	case r.Cluster:
		return bson.D{{Key: "cluster", Value: true}}
	}
	return bson.D{{Key: "db", Value: r.DB}, {Key: "collection", Value: r.Coll}}
}

// GrantOf returns p with its actions' names.
func GrantOf(p Privilege) Grant { return Grant{Resource: p.Resource, Actions: p.Actions.Names()} }

// ParseGrants validates a privileges array as createRole and
// grantPrivilegesToRole take it and merges entries on one resource, as
// MongoDB: BadValue for a malformed entry or an unknown action.
func ParseGrants(v bson.A) ([]Grant, error) {
	var out []Grant
	for _, e := range v {
		d, ok := e.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.BadValue, "Privileges must be objects of the form {resource: <resource>, actions: [<action>, ...]}")
		}
		g, err := parseGrant(d)
		if err != nil {
			return nil, err
		}
		out = MergeGrants(out, []Grant{g})
	}
	return out, nil
}

func parseGrant(d bson.D) (Grant, error) {
	var g Grant
	var haveRes, haveActs bool
	for _, e := range d {
		switch e.Key {
		case "resource":
			rd, ok := e.Value.(bson.D)
			if !ok {
				return g, mongoerr.New(mongoerr.BadValue, "resource field must be an object")
			}
			r, err := parseResource(rd)
			if err != nil {
				return g, err
			}
			g.Resource, haveRes = r, true
		case "actions":
			acts, err := parseActions(e.Value)
			if err != nil {
				return g, err
			}
			g.Actions, haveActs = acts, true
		default:
			return g, mongoerr.New(mongoerr.BadValue, "Unrecognized field in privilege: %s", e.Key)
		}
	}
	if !haveRes || !haveActs {
		return g, mongoerr.New(mongoerr.BadValue, "A privilege needs both a resource and a non-empty actions array")
	}
	return g, nil
}

// parseResource reads {db, collection} (both strings), {cluster: true} or
// {anyResource: true}, nothing else.
func parseResource(d bson.D) (Resource, error) {
	bad := mongoerr.New(mongoerr.BadValue, "resource must be {db: <string>, collection: <string>}, {cluster: true} or {anyResource: true}")
	if len(d) == 1 && d[0].Value == true && (d[0].Key == "cluster" || d[0].Key == "anyResource") {
		return Resource{Cluster: d[0].Key == "cluster", Any: d[0].Key == "anyResource"}, nil
	}
	if len(d) != 2 {
		return Resource{}, bad
	}
	db, ok1 := field(d, "db").(string)
	coll, ok2 := field(d, "collection").(string)
	if !ok1 || !ok2 {
		return Resource{}, bad
	}
	if strings.Contains(coll, "$") || strings.ContainsAny(db, "/\\. \"$") {
		return Resource{}, mongoerr.New(mongoerr.BadValue, "Invalid resource %s.%s", db, coll)
	}
	return Resource{DB: db, Coll: coll}, nil
}

func parseActions(v any) ([]string, error) {
	arr, ok := v.(bson.A)
	if !ok || len(arr) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "A privilege needs a non-empty actions array")
	}
	var out, unknown []string
	for _, a := range arr {
		s, _ := a.(string)
		if _, ok := ParseAction(s); !ok {
			unknown = append(unknown, "'"+s+"'")
			continue
		}
		out = append(out, s)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		plural := ""
		if len(unknown) > 1 {
			plural = "s"
		}
		return nil, mongoerr.New(mongoerr.BadValue, "Unknown action type%s in privilege set: %s", plural, strings.Join(unknown, ", "))
	}
	return union(nil, out), nil
}

// MergeGrants adds add's actions to have, one entry per resource.
func MergeGrants(have, add []Grant) []Grant {
	out := append([]Grant(nil), have...)
	for _, g := range add {
		i := indexOf(out, g.Resource)
		if i < 0 {
			out = append(out, Grant{Resource: g.Resource, Actions: union(nil, g.Actions)})
			continue
		}
		out[i].Actions = union(out[i].Actions, g.Actions)
	}
	return out
}

// RemoveGrants removes rm's actions from have's entries on the same
// resource, dropping entries left with none.
func RemoveGrants(have, rm []Grant) []Grant {
	var out []Grant
	for _, g := range have {
		acts := g.Actions
		if i := indexOf(rm, g.Resource); i >= 0 {
			acts = minus(acts, rm[i].Actions)
		}
		if len(acts) > 0 {
			out = append(out, Grant{Resource: g.Resource, Actions: acts})
		}
	}
	return out
}

func indexOf(gs []Grant, r Resource) int {
	for i, g := range gs {
		if g.Resource == r {
			return i
		}
	}
	return -1
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
