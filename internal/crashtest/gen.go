package crashtest

import (
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Kinds are the commands the Generator draws, in report order.
var Kinds = []string{"insert", "update", "delete", "findAndModify", "create", "drop", "dropDatabase",
	"createIndexes", "dropIndexes", "renameCollection", "collMod", "aggregate$out", "aggregate$merge"}

// weights are the relative frequencies of Kinds.
var weights = []int{6, 3, 2, 3, 2, 2, 1, 3, 2, 2, 2, 2, 2}

const (
	collsPerDB = 4    // collections c0..c3 in each of DBs
	maxDocs    = 1500 // above this many documents in the model, no inserts
	maxDraws   = 32   // bound on redraws when a kind does not fit the model
)

// indexSpecs are the secondary indexes the generator builds, by name.
var indexSpecs = map[string]bson.D{
	"a_1":      {{Key: "a", Value: int32(1)}},
	"b_-1":     {{Key: "b", Value: int32(-1)}},
	"a_1_v_-1": {{Key: "a", Value: int32(1)}, {Key: "v", Value: int32(-1)}},
}

var indexNames = []string{"a_1", "b_-1", "a_1_v_-1"}

// Generator draws ops that are valid against a model (a drop names a
// present collection, a create an absent one, ...), from a seeded source.
type Generator struct {
	r      *rand.Rand
	nextID int64
}

// NewGenerator returns a generator drawing from seed.
func NewGenerator(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x5bd1e995)), nextID: 1}
}

// Rand is the generator's source, for decisions that must follow the seed.
func (g *Generator) Rand() *rand.Rand { return g.r }

// Next draws an op valid against m.
func (g *Generator) Next(m *Model) Op {
	for range maxDraws {
		if op := g.draw(g.pick(), m); op != nil {
			return op
		}
	}
	return g.insert(g.anyNS()) // always valid
}

// NextDDL draws a DDL op (not insert, update, delete or findAndModify)
// valid against m: the last op before a kill is often one, because a DDL
// write that skips the journal sync is lost only if no later j:true write
// syncs it.
func (g *Generator) NextDDL(m *Model) Op {
	for range maxDraws {
		kind := g.pick()
		if crud[kind] {
			continue
		}
		if op := g.draw(kind, m); op != nil {
			return op
		}
	}
	return g.Next(m)
}

var crud = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true}

func (g *Generator) pick() string {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	n := g.r.IntN(sum)
	for i, w := range weights {
		if n < w {
			return Kinds[i]
		}
		n -= w
	}
	return Kinds[0]
}

// draw returns an op of kind valid against m, or nil if m offers none.
func (g *Generator) draw(kind string, m *Model) Op {
	switch kind {
	case "insert":
		if m.Docs() >= maxDocs {
			return nil
		}
		return g.insert(g.anyNS())
	case "update", "delete", "findAndModify":
		return g.docOp(kind, m)
	case "create":
		if ns := g.absent(m); ns != "" {
			return &createOp{NS: ns}
		}
	case "drop":
		if ns := g.present(m, ""); ns != "" {
			return &dropOp{NS: ns}
		}
	case "dropDatabase":
		return &dropDatabaseOp{DB: DBs[g.r.IntN(len(DBs))]}
	case "createIndexes", "dropIndexes":
		return g.indexOp(kind, m)
	case "renameCollection":
		return g.rename(m)
	case "collMod":
		if ns := g.present(m, ""); ns != "" {
			return &collModOp{NS: ns}
		}
	case "aggregate$out", "aggregate$merge":
		return g.output(kind, m)
	}
	return nil
}

func (g *Generator) insert(ns string) Op {
	n := 1 + g.r.IntN(3)
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: g.nextID, A: g.r.Int64N(10), B: g.word(), V: 0}
		g.nextID++
	}
	return &insertOp{NS: ns, Docs: docs}
}

func (g *Generator) docOp(kind string, m *Model) Op {
	ns := g.present(m, "")
	if ns == "" || len(m.Colls[ns].Docs) == 0 {
		return nil
	}
	docs := m.Colls[ns].sortedDocs()
	id := docs[g.r.IntN(len(docs))].ID
	switch kind {
	case "update":
		return &updateOp{NS: ns, ID: id, V: g.r.Int64N(1 << 40)}
	case "delete":
		return &deleteOp{NS: ns, ID: id}
	}
	return &famOp{NS: ns, ID: id, B: g.word(), Remove: g.r.IntN(4) == 0}
}

func (g *Generator) indexOp(kind string, m *Model) Op {
	if kind == "dropIndexes" {
		var opts [][2]string // (ns, index name) of every secondary index
		for _, ns := range m.Names() {
			for _, name := range indexNames {
				if m.Colls[ns].Indexes[name] != "" {
					opts = append(opts, [2]string{ns, name})
				}
			}
		}
		if len(opts) == 0 {
			return nil
		}
		o := opts[g.r.IntN(len(opts))]
		return &dropIndexOp{NS: o[0], Name: o[1]}
	}
	ns := g.anyNS()
	name := indexNames[g.r.IntN(len(indexNames))]
	if c := m.Colls[ns]; c != nil && c.Indexes[name] != "" {
		return nil
	}
	return &createIndexOp{NS: ns, Name: name, Key: indexSpecs[name]}
}

func (g *Generator) rename(m *Model) Op {
	from := g.present(m, "")
	if from == "" {
		return nil
	}
	db, _ := splitNS(from)
	to := g.nsIn(db)
	if to == from {
		return nil
	}
	return &renameOp{From: from, To: to, DropTarget: m.Colls[to] != nil}
}

func (g *Generator) output(kind string, m *Model) Op {
	from := g.present(m, "")
	if from == "" || len(m.Colls[from].Docs) == 0 {
		return nil
	}
	db, _ := splitNS(from)
	to := g.nsIn(db)
	if to == from {
		return nil
	}
	src := m.Colls[from].sortedDocs()
	if kind == "aggregate$merge" {
		return &mergeOp{From: from, To: to, Src: src}
	}
	if c := m.Colls[to]; c != nil && len(c.Indexes) > 1 {
		return nil // see outOp
	}
	return &outOp{From: from, To: to, Src: src}
}

// present returns a random present collection (of db, if given), or "".
func (g *Generator) present(m *Model, db string) string {
	var opts []string
	for _, ns := range m.Names() {
		if d, _ := splitNS(ns); db == "" || d == db {
			opts = append(opts, ns)
		}
	}
	if len(opts) == 0 {
		return ""
	}
	return opts[g.r.IntN(len(opts))]
}

// absent returns a random absent namespace, or "".
func (g *Generator) absent(m *Model) string {
	for range maxDraws {
		if ns := g.anyNS(); m.Colls[ns] == nil {
			return ns
		}
	}
	return ""
}

func (g *Generator) anyNS() string { return g.nsIn(DBs[g.r.IntN(len(DBs))]) }

func (g *Generator) nsIn(db string) string { return fmt.Sprintf("%s.c%d", db, g.r.IntN(collsPerDB)) }

func (g *Generator) word() string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 4+g.r.IntN(12))
	for i := range b {
		b[i] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}
