package crashtest

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DBs are the databases the harness writes; the checker reads only these.
var DBs = []string{"crash_a", "crash_b"}

// idIndex is the name of the index every collection has.
const idIndex = "_id_"

// Doc is a document as the harness writes it. Every document has all four
// fields in this order, and updates only $set existing fields, so the
// stored field order is known.
type Doc struct {
	ID int64  `bson:"_id"`
	A  int64  `bson:"a"`
	B  string `bson:"b"`
	V  int64  `bson:"v"`
}

// D is the document as BSON.
func (d Doc) D() bson.D {
	return bson.D{{Key: "_id", Value: d.ID}, {Key: "a", Value: d.A}, {Key: "b", Value: d.B}, {Key: "v", Value: d.V}}
}

// JSON is the document's canonical extended JSON: types are compared too.
func (d Doc) JSON() string { return canonical(d.D()) }

// Coll is one collection of the model: its documents by _id and its
// indexes by name (key pattern as relaxed extended JSON).
type Coll struct {
	Docs    map[int64]Doc
	Indexes map[string]string
}

func newColl() *Coll {
	return &Coll{Docs: map[int64]Doc{}, Indexes: map[string]string{idIndex: relaxed(bson.D{{Key: "_id", Value: int32(1)}})}}
}

func (c *Coll) clone() *Coll {
	return &Coll{Docs: maps.Clone(c.Docs), Indexes: maps.Clone(c.Indexes)}
}

// sortedDocs returns the documents in _id order.
func (c *Coll) sortedDocs() []Doc {
	out := slices.Collect(maps.Values(c.Docs))
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Model is what the database must hold: collections by "db.coll".
type Model struct {
	Colls map[string]*Coll
}

// NewModel is the empty model (no collections in DBs).
func NewModel() *Model { return &Model{Colls: map[string]*Coll{}} }

// Clone returns a deep copy.
func (m *Model) Clone() *Model {
	out := NewModel()
	for ns, c := range m.Colls {
		out.Colls[ns] = c.clone()
	}
	return out
}

// coll returns the collection ns, creating it (as an implicit create does).
func (m *Model) coll(ns string) *Coll {
	c := m.Colls[ns]
	if c == nil {
		c = newColl()
		m.Colls[ns] = c
	}
	return c
}

// Names returns the namespaces in order.
func (m *Model) Names() []string { return slices.Sorted(maps.Keys(m.Colls)) }

// Docs is the number of documents over all collections.
func (m *Model) Docs() int {
	n := 0
	for _, c := range m.Colls {
		n += len(c.Docs)
	}
	return n
}

// State renders the model as the checker compares it.
func (m *Model) State() State {
	s := State{}
	for ns, c := range m.Colls {
		cs := &CollState{Docs: map[string]string{}, Indexes: maps.Clone(c.Indexes)}
		for id, d := range c.Docs {
			cs.Docs[fmt.Sprint(id)] = d.JSON()
		}
		s[ns] = cs
	}
	return s
}

// State is a database's observable state (or a model's rendering):
// collections by namespace, documents by _id (as text) in canonical
// extended JSON, indexes by name.
type State map[string]*CollState

// CollState is one collection of a State.
type CollState struct {
	Docs    map[string]string
	Indexes map[string]string
}

// Diff lists how got differs from want, at most limit lines; nil if equal.
func Diff(want, got State, limit int) []string {
	var out []string
	add := func(f string, a ...any) {
		if len(out) < limit {
			out = append(out, fmt.Sprintf(f, a...))
		}
	}
	for _, ns := range unionKeys(want, got) {
		w, g := want[ns], got[ns]
		switch {
		case g == nil:
			add("collection %s missing (want %d docs)", ns, len(w.Docs))
			continue
		case w == nil:
			add("collection %s present with %d docs, want absent", ns, len(g.Docs))
			continue
		}
		for _, name := range unionKeys(w.Indexes, g.Indexes) {
			if w.Indexes[name] != g.Indexes[name] {
				add("%s index %q: got %q want %q", ns, name, g.Indexes[name], w.Indexes[name])
			}
		}
		for _, id := range unionKeys(w.Docs, g.Docs) {
			if w.Docs[id] != g.Docs[id] {
				add("%s _id %s: got %s want %s", ns, id, orNone(g.Docs[id]), orNone(w.Docs[id]))
			}
		}
	}
	return out
}

// Equal reports whether two states are the same.
func Equal(a, b State) bool { return len(Diff(a, b, 1)) == 0 }

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func canonical(v any) string {
	b, err := bson.MarshalExtJSON(v, true, false)
	if err != nil {
		return fmt.Sprintf("(unmarshalable: %v)", err)
	}
	return string(b)
}

func relaxed(v any) string {
	b, err := bson.MarshalExtJSON(v, false, false)
	if err != nil {
		return fmt.Sprintf("(unmarshalable: %v)", err)
	}
	return string(b)
}

// splitNS splits "db.coll".
func splitNS(ns string) (db, coll string) {
	db, coll, _ = strings.Cut(ns, ".")
	return db, coll
}
