// Package agg runs MongoDB aggregation pipelines over document iterators.
// It is pure: the only way out is Env.Lookup, which resolves a namespace to
// an Iterator for $lookup and $unionWith.
//
// Invariants:
//   - Compile validates the whole pipeline (stage names, specs,
//     expressions) before any document flows; Run never fails on a spec.
//   - Stages never mutate their input documents: a stage that changes a
//     document builds a new one (sharing unchanged sub-values).
//   - Streaming stages ($match, $project, $unwind, $redact, ...) hold one
//     document; blocking stages ($sort, $group, $facet, $sample, $bucket,
//     $bucketAuto, $densify) drain their input first, holding at most
//     their memory limit (memory.go) before they spill to disk or fail;
//     $setWindowFields holds one partition and $graphLookup one
//     document's search, each under its own limit (292 past it). Errors
//     end the stream: Next returns false and Err reports them.
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
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/iterx"
)

// Iterator yields documents under iterx's contract. Stages never modify
// a document they receive, so documents may be shared with the input.
// No stage is tailable: a pipeline's output ends once.
type Iterator = iterx.Iterator[bson.D]

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
	// CollStats describes the aggregated collection for $collStats, sizes
	// divided by scale; its error is the collection's (NamespaceNotFound).
	// nil (a database-level aggregate) makes $collStats fail.
	CollStats func(scale int64) (CollStatsInfo, error)
	// CurrentOp lists the process's running operations for $currentOp
	// (currentOp's inprog documents); nil (not a database-level aggregate
	// on admin) makes $currentOp fail with InvalidNamespace.
	CurrentOp func() ([]bson.D, error)
	// IdleCursors lists the open cursors no operation is using, for
	// $currentOp {idleCursors: true}; nil lists none.
	IdleCursors func() ([]bson.D, error)
	// IndexStats lists the aggregated collection's indexes for
	// $indexStats; nil yields none.
	IndexStats func() ([]bson.D, error)
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
	// Collator is the pipeline's collation (the command's, else the
	// collection's default); nil is the simple collation. $match, $sort
	// and $group keys, $lookup's localField/foreignField and $graphLookup
	// compare strings under it.
	// Expressions' comparison operators and $in use it (expr.CompileColl),
	// as do $group's $min, $max and $addToSet.
	// TODO(#14): $setUnion and the other set expressions, $indexOfArray,
	// the $min/$max expressions, $topN/$bottomN/$minN/$maxN and
	// $setWindowFields' accumulators.
	Collator *collation.Collator
}

// Slice returns an Iterator over docs; it leaves docs unchanged.
func Slice(docs []bson.D) Iterator { return iterx.Slice(docs) }

// Drain reads every document of it and closes it.
func Drain(it Iterator) ([]bson.D, error) { return iterx.Drain(it) }

// pull reads in's next document in the shape of an iterx.Func step: at
// the end of in it returns in's error, if any.
func pull(in Iterator) (bson.D, bool, error) {
	d, ok := in.Next()
	if !ok {
		return nil, false, in.Err()
	}
	return d, true, nil
}

// mapIter applies fn to each document; fn returning nil drops it.
func mapIter(in Iterator, fn func(bson.D) (bson.D, error)) Iterator {
	return iterx.Func(func() (bson.D, bool, error) {
		for {
			d, ok := in.Next()
			if !ok {
				return nil, false, in.Err()
			}
			out, err := fn(d)
			if err != nil {
				return nil, false, err
			}
			if out != nil {
				return out, true, nil
			}
		}
	}, in.Close)
}
