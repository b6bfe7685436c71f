package bsonx

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// This file keeps the decoder Decode had before the hand-written one: a
// validating walk (Validate) followed by the driver's reflection-based Unmarshal. The
// differential tests check that Decode accepts and rejects exactly what it
// did and produces the same values.

// decodeLegacy is the former DecodeMaxDepth.
func decodeLegacy(raw []byte, maxDepth int) (doc bson.D, err error) {
	n, err := validator{maxDepth: maxDepth}.document(raw, 1)
	if err != nil {
		return nil, err
	}
	if n != len(raw) {
		return nil, invalid("%d trailing bytes after the document", len(raw)-n)
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, invalid("decoder panic: %v", r)
		}
	}()
	if err := bson.Unmarshal(raw, &doc); err != nil {
		return nil, invalid("%v", err)
	}
	if doc == nil {
		doc = bson.D{}
	}
	return doc, nil
}
