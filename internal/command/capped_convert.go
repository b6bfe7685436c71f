package command

import (
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// cloneCopyBatch is how many documents one insert of a capped copy takes.
const cloneCopyBatch = 1000

// cloneCollectionAsCapped copies db.coll, in natural order, into the new
// capped collection db.toCollection; inserts evict as usual, so the copy
// keeps the newest documents that fit. Indexes other than _id are not
// copied, as MongoDB's.
func cloneCollectionAsCapped(c *Ctx, p *request.CloneCollectionAsCapped) (bson.D, error) {
	src, err := c.cappedSource(string(p.Collection))
	if err != nil {
		return nil, err
	}
	return bson.D{}, c.copyAsCapped(src, p.ToCollection, p.Size)
}

// convertToCapped copies db.coll into a temporary capped collection and
// renames it over the original, as MongoDB does (indexes other than _id
// are lost). TODO(#14): MongoDB holds the collection exclusively while
// converting; writes to it meanwhile are lost here.
func convertToCapped(c *Ctx, p *request.ConvertToCapped) (bson.D, error) {
	coll := string(p.Collection)
	src, err := c.cappedSource(coll)
	if err != nil {
		return nil, err
	}
	tmp := fmt.Sprintf("tmp%05d.convertToCapped.%s", rand.IntN(100000), coll)
	if err := c.copyAsCapped(src, tmp, p.Size); err != nil {
		return nil, err
	}
	if err := c.D.eng.Catalog().RenameCollection(c.DB, tmp, c.DB, coll, true); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// cappedSource is the collection a capped copy reads.
func (c *Ctx) cappedSource(coll string) (*catalog.Collection, error) {
	src, err := c.collection(coll)
	if err != nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "source collection %s does not exist", c.ns(coll))
	}
	if isView(src) {
		return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "cannot convert a view to capped: %s", c.ns(coll))
	}
	return src, nil
}

// copyAsCapped creates db.to capped with size and inserts src's
// documents in batches.
func (c *Ctx) copyAsCapped(src *catalog.Collection, to string, sizeV any) error {
	size, err := cappedSize("size", sizeV)
	if err != nil {
		return err
	}
	opts := bson.D{{Key: "capped", Value: true}, {Key: "size", Value: size}}
	if _, err := c.D.eng.Catalog().CreateCollection(c.DB, to, opts); err != nil {
		return err
	}
	it := src.Scan(false)
	defer it.Close()
	batch := make([]bson.D, 0, cloneCopyBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res := c.D.eng.Insert(c.DB, to, batch, true, nil)
		batch = batch[:0]
		if len(res.Errors) > 0 {
			return res.Errors[0].Err
		}
		return nil
	}
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return fmt.Errorf("capped copy of %s: %w", src.NS(), err)
		}
		if batch = append(batch, doc); len(batch) == cloneCopyBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return flush()
}
