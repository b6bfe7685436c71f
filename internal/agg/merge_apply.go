package agg

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mergePipelineStages are the stages a whenMatched pipeline may use (those
// of an update pipeline).
var mergePipelineStages = map[string]bool{
	"$addFields": true, "$set": true, "$project": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true,
}

func (m *MergeSpec) compilePipeline() error {
	for _, raw := range m.Pipeline {
		name, _, err := splitStage(raw)
		if err != nil {
			return err
		}
		if !mergePipelineStages[name] {
			return mongoerr.New(mongoerr.InvalidOptions, "%s is not allowed to be used within the $merge stage's whenMatched pipeline", name)
		}
	}
	cc := &compileCtx{env: &Env{DB: m.DB}, vars: m.vars.Names()}
	for _, e := range m.Let {
		if err := expr.ValidateVarName(e.Key); err != nil {
			return err
		}
		v, err := cc.compileExpr(e.Value)
		if err != nil {
			return err
		}
		m.letNames, m.letVals = append(m.letNames, e.Key), append(m.letVals, v)
	}
	p, err := compileStages(m.Pipeline, cc.withVars(append(m.letNames, "new")...))
	if err != nil {
		return err
	}
	m.pipe = p
	return nil
}

// Prepare readies a result document for $merge: when On includes _id and
// doc has none, a new ObjectId _id is prepended (as MongoDB generates it).
// It returns the document and its 'on' key ({field: value, ...}), the
// filter that finds the matching target document and the keyValue of a
// duplicate-key error. A missing, null, undefined or array 'on' value fails
// with 51132.
func (m *MergeSpec) Prepare(doc bson.D) (bson.D, bson.D, error) {
	if m.onID() {
		if _, ok := bsonx.Get(doc, "_id"); !ok {
			doc = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, doc...)
		}
	}
	key := make(bson.D, 0, len(m.On))
	for _, f := range m.On {
		v, ok := bsonx.GetPath(doc, f)
		switch v.(type) {
		case nil, bson.Undefined, bson.A:
			ok = false
		}
		if !ok {
			return nil, nil, mongoerr.New(mongoerr.MergeOnFieldInvalid, "$merge write error: 'on' field cannot be missing, null, undefined or an array")
		}
		key = append(key, bson.E{Key: f, Value: v})
	}
	return doc, key, nil
}

func (m *MergeSpec) onID() bool {
	for _, f := range m.On {
		if f == "_id" {
			return true
		}
	}
	return false
}

// KeyPattern is the index key pattern of the 'on' fields ({f: 1, ...}),
// for a duplicate-key error's keyPattern.
func (m *MergeSpec) KeyPattern() bson.D {
	kp := make(bson.D, len(m.On))
	for i, f := range m.On {
		kp[i] = bson.E{Key: f, Value: int32(1)}
	}
	return kp
}

// Apply decides what $merge writes for one result document incoming
// (already through Prepare), given the target document matching its 'on'
// key (existing; nil if none). It is pure: the engine performs the
// returned action with the returned document. For MergeReplace the result
// keeps existing's _id. For MergeFail err is the client error (11000 for
// whenMatched: fail — the engine should attach keyPattern/keyValue —,
// 13113 for whenNotMatched: fail).
func (m *MergeSpec) Apply(existing, incoming bson.D) (bson.D, MergeAction, error) {
	if existing == nil {
		return m.applyNotMatched(incoming)
	}
	var next bson.D
	switch m.WhenMatched {
	case WhenMatchedKeepExisting:
		return existing, MergeDiscard, nil
	case WhenMatchedFail:
		return nil, MergeFail, m.dupKeyError(incoming)
	case WhenMatchedReplace:
		next = incoming
	case WhenMatchedMerge:
		next = mergeFields(existing, incoming)
	case WhenMatchedPipeline:
		var err error
		if next, err = m.runPipeline(existing, incoming); err != nil {
			return nil, MergeFail, err
		}
	}
	next, err := keepID(next, existing)
	if err != nil {
		return nil, MergeFail, err
	}
	return next, MergeReplace, nil
}

func (m *MergeSpec) applyNotMatched(incoming bson.D) (bson.D, MergeAction, error) {
	switch m.WhenNotMatched {
	case WhenNotMatchedDiscard:
		return nil, MergeDiscard, nil
	case WhenNotMatchedFail:
		return nil, MergeFail, mongoerr.New(mongoerr.MergeStageNoMatchingDocument, "$merge could not find a matching document in the target collection for at least one document in the source collection")
	}
	if _, ok := bsonx.Get(incoming, "_id"); !ok {
		incoming = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, incoming...)
	}
	return incoming, MergeInsert, nil
}

func (m *MergeSpec) dupKeyError(incoming bson.D) error {
	_, key, _ := m.Prepare(incoming)
	return mongoerr.New(mongoerr.DuplicateKey, "E11000 duplicate key error collection: %s.%s dup key: %s",
		m.DB, m.Coll, fmtKey(key))
}

func fmtKey(key bson.D) string {
	b, err := bson.MarshalExtJSON(key, false, false)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// mergeFields sets each top-level field of incoming in a copy of existing
// (in place if present, else appended), as whenMatched: "merge" does.
func mergeFields(existing, incoming bson.D) bson.D {
	out := append(bson.D(nil), existing...)
	for _, e := range incoming {
		found := false
		for i := range out {
			if out[i].Key == e.Key {
				out[i].Value, found = e.Value, true
				break
			}
		}
		if !found {
			out = append(out, e)
		}
	}
	return out
}

// keepID gives next the _id of existing: an absent _id is restored (first),
// a different one fails with ImmutableField.
func keepID(next, existing bson.D) (bson.D, error) {
	id, _ := bsonx.Get(existing, "_id")
	nid, ok := bsonx.Get(next, "_id")
	if !ok {
		return append(bson.D{{Key: "_id", Value: id}}, next...), nil
	}
	if !bsonx.Equal(id, nid) || bsonx.TypeByte(id) != bsonx.TypeByte(nid) {
		return nil, mongoerr.New(mongoerr.ImmutableField, "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'")
	}
	return next, nil
}

// runPipeline runs the whenMatched pipeline on existing, with $$new and
// the let variables evaluated against incoming.
func (m *MergeSpec) runPipeline(existing, incoming bson.D) (bson.D, error) {
	base := m.vars
	if base == nil {
		base = &expr.Vars{Now: time.Now()}
	}
	vars := base.Bind("new", incoming)
	outer := base.WithRoot(incoming)
	for i, e := range m.letVals {
		v, err := e.Eval(incoming, outer)
		if err != nil {
			return nil, err
		}
		vars = vars.Bind(m.letNames[i], v)
	}
	env := &Env{DB: m.DB}
	rc := &runCtx{env: env, vars: vars, lim: currentLimits(env)}
	out, err := Drain(m.pipe.runWith(Slice([]bson.D{existing}), rc, -1))
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, mongoerr.New(mongoerr.InternalError, "$merge whenMatched pipeline returned %d documents", len(out))
	}
	return out[0], nil
}
