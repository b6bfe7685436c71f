package initialsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// cloner copies every database but local from the source.
type cloner struct {
	cat   *catalog.Catalog
	src   Source
	batch int32
	stats *Result
	// rebuild collects the unique indexes the (relaxed) cloning batches
	// left with conflicts.
	rebuild catalog.IndexSet
}

// databases lists the source's databases to clone (all but local).
func (cl *cloner) databases(ctx context.Context) ([]string, error) {
	reply, err := cl.src.Run(ctx, "admin", bson.D{{Key: "listDatabases", Value: int32(1)},
		{Key: "nameOnly", Value: true}})
	if err != nil {
		return nil, fmt.Errorf("listDatabases: %w", err)
	}
	dbs, _ := lookup(reply, "databases").(bson.A)
	var out []string
	for _, v := range dbs {
		d, _ := v.(bson.D)
		if name, _ := lookup(d, "name").(string); name != "" && name != catalog.LocalDB {
			out = append(out, name)
		}
	}
	return out, nil
}

// cloneAll clones every database.
func (cl *cloner) cloneAll(ctx context.Context) error {
	dbs, err := cl.databases(ctx)
	if err != nil {
		return err
	}
	for _, db := range dbs {
		if err := cl.cloneDB(ctx, db); err != nil {
			return err
		}
		cl.stats.Databases++
	}
	return nil
}

// cloneDB clones db's collections and views.
func (cl *cloner) cloneDB(ctx context.Context, db string) error {
	cur := &cursor{src: cl.src, db: db, coll: "$cmd.listCollections",
		cmd: bson.D{{Key: "listCollections", Value: int32(1)}, secondaryOK}}
	infos, err := cur.all(ctx)
	if err != nil {
		return err
	}
	for _, info := range infos {
		name, _ := lookup(info, "name").(string)
		switch typ, _ := lookup(info, "type").(string); typ {
		case "", "collection":
		case "view", "timeseries":
			if err := cl.cloneView(db, name, typ, info); err != nil {
				return err
			}
			continue
		default:
			continue
		}
		if err := cl.cloneCollection(ctx, db, name, info); err != nil {
			return err
		}
		cl.stats.Collections++
	}
	return nil
}

// cloneCollection creates db.name with the source's UUID, options and
// indexes, then copies its documents.
func (cl *cloner) cloneCollection(ctx context.Context, db, name string, info bson.D) error {
	specs, err := cl.indexSpecs(ctx, db, name)
	if isNamespaceNotFound(err) {
		return nil // dropped since listCollections; the oplog drop entry follows
	}
	if err != nil {
		return err
	}
	opts, _ := lookup(info, "options").(bson.D)
	infoDoc, _ := lookup(info, "info").(bson.D)
	uuid, _ := lookup(infoDoc, "uuid").(bson.Binary)
	coll, err := cloneCollection(cl.cat, db, name, uuid, opts, specs)
	if err != nil {
		return fmt.Errorf("create %s.%s: %w", db, name, err)
	}
	return cl.copyDocuments(ctx, coll)
}

// cloneView creates the view (or time-series collection) db.name with
// the source's UUID (relaydb's listCollections shows a view's, for later
// oplog entries to name it) and options; a view holds no documents.
func (cl *cloner) cloneView(db, name, typ string, info bson.D) error {
	opts, _ := lookup(info, "options").(bson.D)
	if typ == "timeseries" { // a view over its buckets (command/timeseries.go)
		opts = append(bson.D{{Key: "viewOn", Value: "system.buckets." + name},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$replaceWith", Value: "$data"}}}}}, opts...)
	}
	infoDoc, _ := lookup(info, "info").(bson.D)
	uuid, _ := lookup(infoDoc, "uuid").(bson.Binary)
	if _, err := cloneCollection(cl.cat, db, name, uuid, opts, nil); err != nil {
		return fmt.Errorf("create view %s.%s: %w", db, name, err)
	}
	return nil
}

// indexSpecs returns listIndexes' specs, without the ns field of old
// servers and without a clustered index (its collection's options say it).
func (cl *cloner) indexSpecs(ctx context.Context, db, name string) ([]bson.D, error) {
	cur := &cursor{src: cl.src, db: db, coll: name,
		cmd: bson.D{{Key: "listIndexes", Value: name}, secondaryOK}}
	specs, err := cur.all(ctx)
	if err != nil {
		return nil, err
	}
	kept := specs[:0]
	for _, s := range specs {
		if c, _ := lookup(s, "clustered").(bool); c {
			continue // a clustered collection's _id index (in its options)
		}
		out := s[:0:0]
		for _, f := range s {
			if f.Key != "ns" {
				out = append(out, f)
			}
		}
		kept = append(kept, out)
	}
	return kept, nil
}

// copyDocuments reads coll on the source with find/getMore and stores
// each batch through the catalog (no oplog entries).
func (cl *cloner) copyDocuments(ctx context.Context, coll *catalog.Collection) error {
	cmd := bson.D{{Key: "find", Value: coll.Name}}
	if cl.batch > 0 {
		cmd = append(cmd, bson.E{Key: "batchSize", Value: cl.batch})
	}
	cur := &cursor{src: cl.src, db: coll.DB, coll: coll.Name, batch: cl.batch, cmd: append(cmd, secondaryOK)}
	for {
		docs, done, err := cur.next(ctx)
		if isNamespaceNotFound(err) {
			return nil
		}
		if err != nil || done {
			return err
		}
		raws := make([][]byte, 0, len(docs))
		for _, v := range docs {
			d, ok := v.(bson.D)
			if !ok {
				return fmt.Errorf("find %s: result is a %T", coll.NS(), v)
			}
			raw, err := bsonx.Encode(d)
			if err != nil {
				return fmt.Errorf("find %s: %w", coll.NS(), err)
			}
			raws = append(raws, raw)
		}
		if err := cloneDocuments(cl.cat, coll, raws, cl.rebuild); err != nil {
			return err
		}
		cl.stats.Documents += int64(len(raws))
	}
}

// isNamespaceNotFound reports a collection dropped during the clone.
func isNamespaceNotFound(err error) bool {
	var me *mongoerr.Error
	if errors.As(err, &me) && me.Code == mongoerr.NamespaceNotFound {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "NamespaceNotFound")
}
