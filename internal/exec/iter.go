package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
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

// Iterator yields rows; Next returns nil, nil at the end.
type Iterator interface {
	Next() (*Row, error)
	Close()
}

// scanIter adapts a catalog.DocIterator.
type scanIter struct {
	it catalog.DocIterator
}

func (s *scanIter) Next() (*Row, error) {
	raw, ok := s.it.Next()
	if !ok {
		return nil, s.it.Err()
	}
	return &Row{Raw: raw, Pos: -1}, nil
}

func (s *scanIter) Close() { s.it.Close() }

// sliceIter yields prepared rows (sorted results, point lookups).
type sliceIter struct {
	rows []*Row
	i    int
}

func (s *sliceIter) Next() (*Row, error) {
	if s.i >= len(s.rows) {
		return nil, nil
	}
	r := s.rows[s.i]
	s.rows[s.i] = nil
	s.i++
	return r, nil
}

func (s *sliceIter) Close() { s.rows = nil }

// filterIter keeps the rows the matcher accepts.
type filterIter struct {
	in   Iterator
	m    *query.Matcher
	vars *expr.Vars
}

func (f *filterIter) Next() (*Row, error) {
	for {
		r, err := f.in.Next()
		if r == nil || err != nil {
			return nil, err
		}
		d, err := r.decoded()
		if err != nil {
			return nil, err
		}
		if ok, pos := f.m.MatchVars(d, f.vars); ok {
			r.Pos = pos
			return r, nil
		}
	}
}

func (f *filterIter) Close() { f.in.Close() }

// skipLimitIter skips then limits (limit 0 = none).
type skipLimitIter struct {
	in          Iterator
	skip, limit int64
	n           int64
}

func (s *skipLimitIter) Next() (*Row, error) {
	for s.skip > 0 {
		r, err := s.in.Next()
		if r == nil || err != nil {
			return nil, err
		}
		s.skip--
	}
	if s.limit > 0 && s.n >= s.limit {
		return nil, nil
	}
	r, err := s.in.Next()
	if r != nil {
		s.n++
	}
	return r, err
}

func (s *skipLimitIter) Close() { s.in.Close() }

// projectIter applies a projection.
type projectIter struct {
	in Iterator
	p  *query.Projection
}

func (p *projectIter) Next() (*Row, error) {
	r, err := p.in.Next()
	if r == nil || err != nil {
		return nil, err
	}
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

func (p *projectIter) Close() { p.in.Close() }

// Docs returns an iterator over prepared documents (listCollections etc.).
func Docs(docs []bson.D) Iterator {
	rows := make([]*Row, len(docs))
	for i, d := range docs {
		rows[i] = &Row{Doc: d, Pos: -1}
	}
	return &sliceIter{rows: rows}
}
