package exec

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/session"
)

// WriteError is one failed statement of a write command.
type WriteError struct {
	Index int
	Err   *mongoerr.Error
	// KeyPattern and KeyValue describe a duplicate key (code 11000).
	KeyPattern, KeyValue bson.D
	// Info is the error's MongoDB ErrorExtraInfo (such as
	// WouldChangeOwningShard's preImage and postImage), serialized after
	// errmsg; nil when it has none.
	Info bson.D
}

// Upserted names a document an upsert inserted.
type Upserted struct {
	Index int
	ID    any
}

// WriteResult summarises a write command.
type WriteResult struct {
	N, NModified int64
	Upserted     []Upserted
	Errors       []WriteError
	// Last is the last committed write (for j:true waits); zero if none.
	Last catalog.WriteResult
}

func (r *WriteResult) committed(w catalog.WriteResult) {
	if w.Seq > r.Last.Seq {
		r.Last = w
	}
}

// fail records err for statement i; it reports whether to stop (ordered).
func (r *WriteResult) fail(i int, err error, ordered bool) bool {
	we := WriteError{Index: i, Err: mongoerr.From(err)}
	var dk *catalog.DuplicateKeyError
	if errors.As(err, &dk) {
		we.KeyPattern, we.KeyValue = dk.KeyPattern, dk.KeyValue
	}
	var x interface{ ExtraInfo() bson.D }
	if errors.As(err, &x) {
		we.Info = x.ExtraInfo()
	}
	r.Errors = append(r.Errors, we)
	return ordered
}

// CollectionForWrite returns db.coll, creating it implicitly as MongoDB does.
func (e *Engine) CollectionForWrite(db, coll string) (*catalog.Collection, error) {
	if c := e.cat.Collection(db, coll); c != nil {
		if len(c.Options) > 0 && c.Options[0].Key == "viewOn" {
			return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s is a view, not a collection", c.NS())
		}
		return c, nil
	}
	c, err := e.cat.CreateCollection(db, coll, nil)
	if mongoerr.Is(err, mongoerr.NamespaceExists) {
		if c = e.cat.Collection(db, coll); c != nil {
			return c, nil
		}
	}
	return c, err
}

// Insert inserts docs (each gets an ObjectId _id when it has none). With
// retry, documents whose statement already ran are not inserted again.
func (e *Engine) Insert(db, coll string, docs []bson.D, ordered bool, retry *Retry) *WriteResult {
	return e.InsertBypass(db, coll, docs, ordered, retry, false)
}

// InsertBypass is Insert with bypassDocumentValidation.
func (e *Engine) InsertBypass(db, coll string, docs []bson.D, ordered bool, retry *Retry, bypass bool) *WriteResult {
	res := &WriteResult{}
	col, err := e.collectionForStmt(db, coll, retry)
	if err != nil {
		for i := range docs {
			if res.fail(i, err, ordered) {
				break
			}
		}
		return res
	}
	for i, d := range docs {
		if _, ran := e.done(retry, i); ran {
			res.N++
			continue
		}
		if err := e.insertOne(col, d, res, retry, i, bypass); err != nil {
			if res.fail(i, err, ordered) {
				break
			}
			continue
		}
		res.N++
	}
	return res
}

func (e *Engine) insertOne(col *catalog.Collection, d bson.D, res *WriteResult, retry *Retry, i int, bypass bool) error {
	d, err := prepareInsert(d)
	if err != nil {
		return err
	}
	if err := e.validate(col, nil, d, bypass); err != nil {
		return err
	}
	unlock := e.lockCapped(col)
	defer unlock()
	w, err := e.insertDoc(col, d, retry, i)
	if err != nil {
		return err
	}
	if err := e.evictCapped(col, d[0].Value); err != nil {
		return err
	}
	res.committed(w)
	e.record(retry, i, session.Stmt{Op: "i", ID: d[0].Value})
	return nil
}

// prepareInsert validates a new document and puts _id first, generating
// an ObjectId when missing.
func prepareInsert(d bson.D) (bson.D, error) {
	idPos := -1
	for i, e := range d {
		if e.Key == "_id" {
			idPos = i
			break
		}
	}
	if idPos < 0 {
		out := make(bson.D, 0, len(d)+1)
		out = append(out, bson.E{Key: "_id", Value: bson.NewObjectID()})
		d = append(out, d...)
	} else if idPos > 0 {
		out := make(bson.D, 0, len(d))
		out = append(out, d[idPos])
		out = append(out, d[:idPos]...)
		d = append(out, d[idPos+1:]...)
	}
	if err := validateID(d[0].Value); err != nil {
		return nil, err
	}
	if err := bsonx.CheckUserDepth(d); err != nil {
		return nil, err
	}
	return d, nil
}

func validateID(id any) error {
	switch v := id.(type) {
	case bson.A:
		return mongoerr.New(mongoerr.InvalidIdField, "The '_id' value cannot be of type array")
	case bson.Regex:
		return mongoerr.New(mongoerr.InvalidIdField, "The '_id' value cannot be of type regex")
	case bson.Undefined:
		return mongoerr.New(mongoerr.InvalidIdField, "The '_id' value cannot be of type undefined")
	case bson.D:
		for _, f := range v {
			if len(f.Key) > 0 && f.Key[0] == '$' {
				return mongoerr.New(mongoerr.DollarPrefixedFieldName, "_id fields may not contain '$'-prefixed fields: %s is not valid for storage.", f.Key)
			}
		}
	}
	return nil
}
