package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// scoreKey is the field a $text query's rows carry their score in between
// the filter and the projection (sorts read it there) or through a
// pipeline ({$meta: "textScore"} expressions read it there).
const scoreKey = expr.TextScoreField

// textMeta is what a find asks of {$meta: "textScore"}.
type textMeta struct {
	fields []string // projected fields set to the score, in order
	sort   bool     // the sort uses the score
}

func (m *textMeta) used() bool { return m != nil && (m.sort || len(m.fields) > 0) }

// isTextScoreMeta reports {$meta: "textScore"}.
func isTextScoreMeta(v any) bool {
	d, ok := v.(bson.D)
	if !ok || len(d) != 1 || d[0].Key != "$meta" {
		return false
	}
	s, _ := d[0].Value.(string)
	return s == "textScore"
}

// splitTextMeta takes {$meta: "textScore"} out of a projection and a sort:
// projected fields are set after the projection, a sort key becomes
// scoreKey descending (higher scores first). Without $text they are
// Location40218, as in MongoDB.
func splitTextMeta(proj, sort bson.D, hasText bool) (bson.D, bson.D, *textMeta, error) {
	m := &textMeta{}
	var outProj, outSort bson.D
	for _, e := range proj {
		if isTextScoreMeta(e.Value) {
			m.fields = append(m.fields, e.Key)
			continue
		}
		outProj = append(outProj, e)
	}
	for _, e := range sort {
		if isTextScoreMeta(e.Value) {
			m.sort = true
			e = bson.E{Key: scoreKey, Value: int32(-1)}
		}
		outSort = append(outSort, e)
	}
	if m.used() && !hasText {
		return nil, nil, nil, mongoerr.New(mongoerr.TextScoreUnavailable, "query requires text score metadata, but it is not available")
	}
	return outProj, outSort, m, nil
}

// textScoreIter adds each row's score under scoreKey.
type textScoreIter struct {
	in  Iterator
	ts  *textSearch
	err error
}

func (t *textScoreIter) Next() (*Row, bool) {
	r, ok := t.in.Next()
	if !ok {
		return nil, false
	}
	d, err := r.decoded()
	if err != nil {
		t.err = err
		return nil, false
	}
	score := t.ts.score(d)
	r.Doc = append(d[:len(d):len(d)], bson.E{Key: scoreKey, Value: score})
	r.Raw = nil
	return r, true
}

func (t *textScoreIter) Err() error   { return errOr(t.err, t.in) }
func (t *textScoreIter) Close() error { return t.in.Close() }

// textProjectIter takes scoreKey off each row, applies the projection
// (nil: none) and sets the projected score fields.
type textProjectIter struct {
	in   Iterator
	p    *query.Projection
	meta *textMeta
	err  error
}

func (t *textProjectIter) Next() (*Row, bool) {
	r, ok := t.in.Next()
	if !ok || t.err != nil {
		return nil, false
	}
	var score any = 0.0
	d := make(bson.D, 0, len(r.Doc))
	for _, e := range r.Doc {
		if e.Key == scoreKey {
			score = e.Value
			continue
		}
		d = append(d, e)
	}
	if t.p != nil {
		out, err := t.p.Apply(d, r.Pos)
		if err != nil {
			t.err = err
			return nil, false
		}
		d = out
	}
	for _, f := range t.meta.fields {
		d = setTop(d, f, score)
	}
	return &Row{Doc: d, Pos: r.Pos}, true
}

func (t *textProjectIter) Err() error   { return errOr(t.err, t.in) }
func (t *textProjectIter) Close() error { return t.in.Close() }

// setTop sets a top-level field, replacing it in place or appending.
// TODO(#14): a dotted path for a {$meta: "textScore"} projection.
func setTop(d bson.D, k string, v any) bson.D {
	for i := range d {
		if d[i].Key == k {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: k, Value: v})
}

// outputRow wraps a pipeline's output documents as rows: without scoreKey
// when the pipeline's first $match has $text.
func outputRow(firstMatch bson.D) func(bson.D) (*Row, error) {
	if _, _, n := query.TextClause(firstMatch); n > 0 {
		return withoutScore
	}
	return rowOfDoc
}

// withoutScore removes scoreKey from a pipeline's output document.
func withoutScore(d bson.D) (*Row, error) {
	for i, e := range d {
		if e.Key == scoreKey {
			d = append(d[:i:i], d[i+1:]...)
			break
		}
	}
	return &Row{Doc: d, Pos: -1}, nil
}

// withTextScore sets findAndModify's projected {$meta: "textScore"}
// fields: the score of the document the query matched (the matcher's,
// textSearch.lastScore).
// TODO(#14): a replayed retryable findAndModify returns no score.
func withTextScore(d bson.D, meta *textMeta, ts *textSearch) bson.D {
	if d == nil || !meta.used() || ts == nil {
		return d
	}
	for _, f := range meta.fields {
		d = setTop(d, f, ts.lastScore)
	}
	return d
}
