package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func renameCollection(c *Ctx, p *request.RenameCollection) (bson.D, error) {
	fromDB, fromColl, ok1 := strings.Cut(p.From, ".")
	toDB, toColl, ok2 := strings.Cut(p.To, ".")
	if !ok1 || !ok2 || fromColl == "" || toColl == "" {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", map[bool]string{true: p.To, false: p.From}[ok1])
	}
	for _, ns := range [][2]string{{fromDB, fromColl}, {toDB, toColl}} {
		if isView(c.D.eng.Catalog().Collection(ns[0], ns[1])) {
			return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "cannot rename to or from a view: %s.%s", ns[0], ns[1])
		}
	}
	if err := c.D.eng.Catalog().RenameCollection(fromDB, fromColl, toDB, toColl, p.DropTarget); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
