package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

type autoBucket struct {
	min, max any
	accs     []accumulator
}

// bucketFiller reads the documents sorted by key (bucketAutoField first).
type bucketFiller struct {
	s      *bucketAutoStage
	in     Iterator
	rc     *runCtx
	peeked bson.D
	bytes  int64
}

func (b *bucketFiller) next() (bson.D, bool) {
	if b.peeked != nil {
		d := b.peeked
		b.peeked = nil
		return d, true
	}
	return b.in.Next()
}

// fill builds the buckets; count is read after the first document, when
// the sort has consumed (and counted) the whole input.
func (b *bucketFiller) fill(count func() int) ([]bson.D, error) {
	first, ok := b.next()
	if !ok {
		return nil, b.in.Err()
	}
	b.peeked = first
	approx := int(math.Round(float64(count()) / float64(b.s.buckets)))
	approx = max(approx, 1)
	var out []*autoBucket
	for i := 0; i < b.s.buckets; i++ {
		d, ok := b.next()
		if !ok {
			break
		}
		bk := &autoBucket{min: d[0].Value, max: d[0].Value, accs: b.newAccs()}
		if err := b.add(bk, d); err != nil {
			return nil, err
		}
		if err := b.fillOne(bk, approx, i == b.s.buckets-1); err != nil {
			return nil, err
		}
		out = b.link(out, bk)
	}
	if err := b.in.Err(); err != nil {
		return nil, err
	}
	return b.docs(out), nil
}

// fillOne adds up to approx-1 more documents to bk, then those that
// belong with them; the last bucket takes everything.
func (b *bucketFiller) fillOne(bk *autoBucket, approx int, last bool) error {
	for j := 0; last || j < approx-1; j++ {
		d, ok := b.next()
		if !ok {
			return nil
		}
		if err := b.add(bk, d); err != nil {
			return err
		}
	}
	bound := bk.max
	if b.s.gran != nil {
		bound = b.s.gran.up(bk.max)
	}
	for {
		d, ok := b.next()
		if !ok {
			return nil
		}
		v := d[0].Value
		belongs := expr.Compare(bk.max, v) == 0
		if b.s.gran != nil {
			belongs = expr.Compare(bound, v) > 0
		}
		if !belongs {
			b.peeked = d
			if b.s.gran != nil {
				bk.max = bound
			}
			return nil
		}
		if err := b.add(bk, d); err != nil {
			return err
		}
	}
}

func (b *bucketFiller) newAccs() []accumulator {
	accs := make([]accumulator, len(b.s.accs))
	for i, a := range b.s.accs {
		accs[i] = a.make()
	}
	return accs
}

func (b *bucketFiller) add(bk *autoBucket, d bson.D) error {
	bk.max = d[0].Value
	doc := d[1:]
	vars := b.rc.varsFor(doc)
	for i, a := range b.s.accs {
		v, err := a.arg.Eval(doc, vars)
		if err != nil {
			return err
		}
		n, err := bk.accs[i].add(v)
		if err != nil {
			return err
		}
		b.bytes += n
	}
	if b.bytes > b.rc.lim.groupBytes {
		return groupLimitErr()
	}
	return nil
}

// link appends bk, making the previous bucket's max bk's min (with a
// granularity, bk's min the previous max).
func (b *bucketFiller) link(out []*autoBucket, bk *autoBucket) []*autoBucket {
	if len(out) > 0 {
		prev := out[len(out)-1]
		switch {
		case b.s.gran == nil:
			prev.max = bk.min
		default:
			if f, _ := numberAsFloat(prev.max); f == 0 {
				prev.max = b.s.gran.down(bk.min)
			}
			bk.min = prev.max
		}
	}
	return append(out, bk)
}

func (b *bucketFiller) docs(out []*autoBucket) []bson.D {
	if len(out) > 0 && b.s.gran != nil {
		out[0].min = b.s.gran.down(out[0].min)
		last := out[len(out)-1]
		last.max = b.s.gran.up(last.max)
	}
	docs := make([]bson.D, len(out))
	for i, bk := range out {
		d := bson.D{{Key: "_id", Value: bson.D{{Key: "min", Value: bk.min}, {Key: "max", Value: bk.max}}}}
		for j, a := range b.s.accs {
			d = append(d, bson.E{Key: a.field, Value: nullIfMissing(bk.accs[j].result())})
		}
		docs[i] = d
	}
	return docs
}
