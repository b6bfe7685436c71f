package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/query"
)

// Row is one document flowing through a plan. Raw is the stored bytes, Doc
// the decoded form; either may be nil until needed. Pos is the array
// position the filter matched (positional projection), -1 if none.
type Row struct {
	Raw []byte
	Doc bson.D
	Pos int
}

// decoded returns the document, decoding Raw on first use.
func (r *Row) decoded() (bson.D, error) {
	if r.Doc == nil {
		d, err := bsonx.Decode(r.Raw)
		if err != nil {
			return nil, err
		}
		r.Doc = d
	}
	return r.Doc, nil
}

// Bytes returns the document's BSON, encoding Doc when Raw is stale.
func (r *Row) Bytes() ([]byte, error) {
	if r.Raw == nil {
		b, err := bsonx.Encode(r.Doc)
		if err != nil {
			return nil, err
		}
		r.Raw = b
	}
	return r.Raw, nil
}

// Iterator yields rows under iterx's contract. Each Next returns a fresh
// Row that the consumer may fill in (decoded Doc, Pos); its Raw bytes are
// read-only. An iterator over the oplog is tailable: at the end of visible
// entries Next returns false and may return entries later, so the stages
// here (filter, skip/limit, project) pass their input's end through.
type Iterator = iterx.Iterator[*Row]

// rowOf wraps a scanned document as a row.
func rowOf(raw []byte) (*Row, error) { return &Row{Raw: raw, Pos: -1}, nil }

// rows yields prepared rows (sorted results, point lookups), letting go
// of each as it is yielded.
func rows(rs []*Row) Iterator { return iterx.Consume(rs) }

// filterIter keeps the rows the matcher accepts.
type filterIter struct {
	in   Iterator
	m    *query.Matcher
	vars *expr.Vars
	err  error
}

func (f *filterIter) Next() (*Row, bool) {
	for f.err == nil {
		r, ok := f.in.Next()
		if !ok {
			return nil, false
		}
		d, err := r.decoded()
		if err != nil {
			f.err = err
			return nil, false
		}
		if ok, pos := f.m.MatchVars(d, f.vars); ok {
			r.Pos = pos
			return r, true
		}
		f.err = f.m.Err() // a $where clause failed: the operation fails
	}
	return nil, false
}

func (f *filterIter) Err() error   { return errOr(f.err, f.in) }
func (f *filterIter) Close() error { return f.in.Close() }

// errOr returns err, or else in's error: a stage's own failure, then its
// input's.
func errOr(err error, in Iterator) error {
	if err != nil {
		return err
	}
	return in.Err()
}

// skipLimitIter skips then limits (limit 0 = none).
type skipLimitIter struct {
	in          Iterator
	skip, limit int64
	n           int64
}

func (s *skipLimitIter) Next() (*Row, bool) {
	for s.skip > 0 {
		if _, ok := s.in.Next(); !ok {
			return nil, false
		}
		s.skip--
	}
	if s.limit > 0 && s.n >= s.limit {
		return nil, false
	}
	r, ok := s.in.Next()
	if ok {
		s.n++
	}
	return r, ok
}

func (s *skipLimitIter) Err() error   { return s.in.Err() }
func (s *skipLimitIter) Close() error { return s.in.Close() }

// projectIter applies a projection.
type projectIter struct {
	in  Iterator
	p   *query.Projection
	err error
}

func (p *projectIter) Next() (*Row, bool) {
	if p.err != nil {
		return nil, false
	}
	r, ok := p.in.Next()
	if !ok {
		return nil, false
	}
	out, err := p.apply(r)
	if err != nil {
		p.err = err
		return nil, false
	}
	return out, true
}

func (p *projectIter) apply(r *Row) (*Row, error) {
	d, err := r.decoded()
	if err != nil {
		return nil, err
	}
	out, err := p.p.Apply(d, r.Pos)
	if err != nil {
		return nil, err
	}
	return &Row{Doc: out, Pos: r.Pos}, nil
}

func (p *projectIter) Err() error   { return errOr(p.err, p.in) }
func (p *projectIter) Close() error { return p.in.Close() }

// Docs returns an iterator over prepared documents (listCollections etc.).
func Docs(docs []bson.D) Iterator {
	rs := make([]*Row, len(docs))
	for i, d := range docs {
		rs[i] = &Row{Doc: d, Pos: -1}
	}
	return rows(rs)
}
