package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Delete is the delete command.
type Delete struct {
	cmdspec.Cmd `cmd:"delete" roles:"primary,router"`
	Collection  cmdspec.CollName  `cmd:",command"`
	Deletes     []DeleteStatement `cmd:"deletes,required"`
	Ordered     *any              `cmd:"ordered"`
	Let         bson.D            `cmd:"let"`
	StmtIDs     any               `cmd:"stmtIds"` // read with txnNumber
}

// DeleteStatement is one element of delete's deletes.
type DeleteStatement struct {
	Q         bson.D            `cmd:"q,required,notnull"`
	Limit     DeleteLimit       `cmd:"limit,required"`
	Hint      cmdspec.Hint      `cmd:"hint"`
	Collation cmdspec.Collation `cmd:"collation"`
}

// DeleteLimit is a delete statement's limit: 0 (all) or 1.
type DeleteLimit int64

// DecodeField implements cmdspec.FieldDecoder.
func (l *DeleteLimit) DecodeField(_ string, v any) error {
	n, ok := bsonx.AsInt64(v)
	if !ok || (n != 0 && n != 1) {
		return mongoerr.New(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %v", v)
	}
	*l = DeleteLimit(n)
	return nil
}
