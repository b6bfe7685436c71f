package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func dropIndexes(c *Ctx, p *request.DropIndexes) (bson.D, error) {
	coll := string(p.Collection)
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	cat := c.D.eng.Catalog()
	var names []string
	switch t := p.Index.(type) {
	case string:
		names = []string{t}
	case bson.A:
		for _, x := range t {
			s, isStr := x.(string)
			if !isStr {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "dropIndexes: index names must be strings")
			}
			names = append(names, s)
		}
	case bson.D:
		idx := cat.IndexByKey(col, t)
		if idx == nil {
			return nil, mongoerr.New(mongoerr.IndexNotFound, "can't find index with key: %v", t)
		}
		names = []string{idx.Name}
	default:
		return nil, c.typeErr("index", p.Index, "[string, object, array]")
	}
	was := len(col.Indexes())
	if err := cat.DropIndexes(col, names); err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(was)}}, nil
}
