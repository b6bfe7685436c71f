package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// checkPreAndPostImages validates create's and collMod's
// changeStreamPreAndPostImages: {enabled: <bool>}, as MongoDB's IDL does.
// The catalog then keeps pre-images of the collection's updates and
// deletes in their oplog entries (catalog/preimage.go).
func checkPreAndPostImages(cmd string, v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.changeStreamPreAndPostImages' is the wrong type '%T', expected type 'object'", cmd, v)
	}
	enabled := false
	for _, e := range d {
		if e.Key != "enabled" {
			return mongoerr.New(mongoerr.IDLUnknownField, "BSON field '%s.changeStreamPreAndPostImages.%s' is an unknown field.", cmd, e.Key)
		}
		if _, ok := e.Value.(bool); !ok {
			return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.changeStreamPreAndPostImages.enabled' is the wrong type '%T', expected type 'bool'", cmd, e.Value)
		}
		enabled = true
	}
	if !enabled {
		return mongoerr.New(mongoerr.IDLMissingField, "BSON field '%s.changeStreamPreAndPostImages.enabled' is missing but a required field", cmd)
	}
	return nil
}
