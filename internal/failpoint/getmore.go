package failpoint

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// GetMoreError is the error failGetMoreAfterCursorCheckout gives a
// getMore: data's errorCode, InternalError when it has none. Data nodes
// and routers (each with its own point) answer it the same way.
func GetMoreError(data bson.D) *mongoerr.Error {
	v, _ := bsonx.Get(data, "errorCode")
	code, _ := bsonx.AsInt64(v)
	if code == 0 {
		code = int64(mongoerr.InternalError)
	}
	return mongoerr.New(mongoerr.Code(code), "Failing command via 'failGetMoreAfterCursorCheckout' failpoint")
}
