// Package agg runs MongoDB aggregation pipelines over document iterators.
// It is pure: the only way out is Env.Lookup, which resolves a namespace to
// an Iterator for $lookup and $unionWith.
//
// Invariants:
//   - Compile validates the whole pipeline (stage names, specs,
//     expressions) before any document flows; Run never fails on a spec.
//   - Stages never mutate their input documents: a stage that changes a
//     document builds a new one (sharing unchanged sub-values).
//   - Streaming stages ($match, $project, $unwind, ...) hold one document;
//     blocking stages ($sort, $group, $facet, $sample, $bucket) drain
//     their input first, holding at most their memory limit (memory.go)
//     before they spill to disk or fail. Errors surface from Next.
//   - Documents are bson.D; a missing value is expr.Missing and never
//     appears in an output document.
//   - $out and $merge never run here: SplitOutput removes a final one and
//     parses it (OutSpec, MergeSpec); MergeSpec.Apply decides each write
//     purely; the engine performs them. Compile rejects any left over.
//   - Command let variables are evaluated once, at Compile (expr.EvalLet).
package agg

import (
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// Iterator yields documents. Next returns ok=false at the end. Close
// releases resources; it is safe to call more than once.
type Iterator interface {
	Next() (doc bson.D, ok bool, err error)
	Close()
}

// Env is what a pipeline may use from outside.
type Env struct {
	// DB is the database that unqualified "from"/"coll" names refer to.
	DB string
	// Lookup opens a collection for $lookup and $unionWith; nil means those
	// stages fail with NamespaceNotFound at run time.
	Lookup func(db, coll string) (Iterator, error)
	// LocalSessions lists the server's in-memory logical sessions for
	// $listLocalSessions (documents {_id: {id, uid}, lastUse}); nil yields
	// none.
	LocalSessions func() ([]bson.D, error)
	// Now is $$NOW; zero means the wall clock when Run starts.
	Now time.Time
	// Let is the command's raw "let" document: each value is an expression,
	// evaluated once by Compile (see expr.EvalLet) and visible as $$name
	// everywhere in the pipeline, $match's $expr and sub-pipelines included.
	Let bson.D
	// Vars are variables already evaluated by the caller (expr.EvalLet of a
	// command's let, shared with its filter), visible like Let; Let is
	// evaluated on top of them. Vars.Now, when set, is $$NOW.
	Vars *expr.Vars
	// Rand drives $sample; nil uses a randomly seeded source.
	Rand *rand.Rand
	// AllowDiskUse lets blocking stages past their memory limit (see
	// SetParameter) spill to files under TempDir; without it they fail
	// with 292 QueryExceededMemoryLimitNoDiskUseAllowed.
	AllowDiskUse bool
	// TempDir holds spill files (<dbpath>/_tmp on a server); "" means
	// os.TempDir().
	TempDir string
}

// Slice returns an Iterator over docs.
func Slice(docs []bson.D) Iterator { return &sliceIter{docs: docs} }

type sliceIter struct {
	docs []bson.D
	i    int
}

func (s *sliceIter) Next() (bson.D, bool, error) {
	if s.i >= len(s.docs) {
		return nil, false, nil
	}
	s.i++
	return s.docs[s.i-1], true, nil
}

func (s *sliceIter) Close() {}

// Drain reads every document of it and closes it.
func Drain(it Iterator) ([]bson.D, error) {
	defer it.Close()
	var out []bson.D
	for {
		d, ok, err := it.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, d)
	}
}

// funcIter adapts a next function; close closes the upstream.
type funcIter struct {
	next  func() (bson.D, bool, error)
	close func()
}

func (f *funcIter) Next() (bson.D, bool, error) { return f.next() }
func (f *funcIter) Close() {
	if f.close != nil {
		f.close()
		f.close = nil
	}
}

// mapIter applies fn to each document; fn returning nil drops it.
func mapIter(in Iterator, fn func(bson.D) (bson.D, error)) Iterator {
	return &funcIter{close: in.Close, next: func() (bson.D, bool, error) {
		for {
			d, ok, err := in.Next()
			if err != nil || !ok {
				return nil, false, err
			}
			out, err := fn(d)
			if err != nil {
				return nil, false, err
			}
			if out != nil {
				return out, true, nil
			}
		}
	}}
}

// errIter fails on the first Next.
func errIter(in Iterator, err error) Iterator {
	return &funcIter{close: in.Close, next: func() (bson.D, bool, error) { return nil, false, err }}
}
