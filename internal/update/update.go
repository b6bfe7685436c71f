package update

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Options are the update command's options that shape compilation.
type Options struct {
	// ArrayFilters are the filters named by $[<id>] path components.
	ArrayFilters []bson.D
	// Vars are the command's let variables (expr.EvalLet), visible as
	// $$name in pipeline-style updates. nil means none.
	Vars *expr.Vars
	// Collator orders strings for arrayFilters, $pull/$pullAll,
	// $addToSet, $min/$max and $push's $sort (the statement's collation);
	// nil is the simple collation.
	// TODO(#14): pipeline-style updates under the collation.
	Collator bsonx.Collator
}

// ApplyContext carries the per-document inputs of Apply.
type ApplyContext struct {
	// MatchedPos is the array position the query matched, used by the
	// positional $ operator; -1 when the query matched no array element.
	MatchedPos int
	// IsInsert is true when the document is being inserted by an upsert:
	// $setOnInsert applies and _id may be set.
	IsInsert bool
	// Now is the time $currentDate writes.
	Now time.Time
}

// Result is the outcome of applying an update to one document.
type Result struct {
	// Doc is the new document (a copy; the input is never mutated).
	Doc bson.D
	// Changed is false when the update was a no-op (MongoDB's nModified).
	Changed bool
	// Oplog is the idempotent form for the oplog entry's o field:
	// {$set: {path: value}, $unset: {path: true}} for operator updates, the
	// full new document for replacements. Nil when Changed is false.
	Oplog bson.D
}

// Update is a compiled update. It is immutable and safe for concurrent use.
type Update struct {
	ops         []*op      // operator update, sorted by path
	replacement bson.D     // replacement update (nil for operator updates)
	isReplace   bool       // true for replacements (even an empty one)
	pipeline    bson.A     // pipeline-style update (nil otherwise)
	filters     filters    // array filters by identifier
	vars        *expr.Vars // let variables for pipeline-style updates
}

// IsReplacement reports whether u replaces whole documents.
func (u *Update) IsReplacement() bool { return u.isReplace }

// Compile parses an update: a bson.D of operators, a replacement bson.D, or
// a pipeline (bson.A).
func Compile(u any, opts Options) (*Update, error) {
	switch v := u.(type) {
	case bson.D:
		return compileDoc(v, opts)
	case bson.A:
		return compilePipeline(v, opts)
	case []any:
		return compilePipeline(bson.A(v), opts)
	default:
		return nil, mongoerr.New(mongoerr.FailedToParse,
			"Update argument must be either an object or an array")
	}
}

func compileDoc(d bson.D, opts Options) (*Update, error) {
	if len(d) == 0 || !isOperator(d[0].Key) {
		if len(opts.ArrayFilters) > 0 {
			return nil, unusedFilterError(opts.ArrayFilters, d)
		}
		return compileReplacement(d)
	}
	fs, err := parseFilters(opts.ArrayFilters, opts.Collator)
	if err != nil {
		return nil, err
	}
	u := &Update{filters: fs}
	if u.ops, err = parseOps(d, fs, opts.Collator); err != nil {
		return nil, err
	}
	if err := fs.checkAllUsed(d); err != nil {
		return nil, err
	}
	return u, nil
}

func isOperator(key string) bool { return len(key) > 0 && key[0] == '$' }

// Apply applies u to doc.
func (u *Update) Apply(doc bson.D, ctx ApplyContext) (Result, error) {
	if u.isReplace {
		return u.applyReplacement(doc)
	}
	if u.pipeline != nil {
		return u.applyPipeline(doc, ctx)
	}
	st := newState(u, doc, ctx)
	cur := bsonx.CloneDoc(doc)
	if cur == nil {
		cur = bson.D{}
	}
	for _, o := range u.ops {
		if o.kind == opSetOnInsert && !ctx.IsInsert {
			continue
		}
		var err error
		if cur, err = st.applyOp(cur, o); err != nil {
			return Result{}, err
		}
	}
	res := Result{Doc: cur, Changed: len(st.rec.entries) > 0}
	if res.Changed {
		res.Oplog = st.rec.oplog(cur)
	}
	return res, nil
}
