package shardsvr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/key"
)

// OwnsRaw is Owns on a document's stored bytes (exec.RawOwner): only the
// shard key's values are decoded, so a find without a query filter
// passes owned rows on without decoding them.
func (o ownership) OwnsRaw(raw bson.Raw) (bool, error) {
	k, ok, err := rawShardKey(o.cm.Pattern(), raw)
	if err != nil || !ok {
		return false, err
	}
	c, err := o.cm.FindChunk(k)
	if err != nil {
		return false, fmt.Errorf("shard filter: chunk of %v: %w", k, err)
	}
	return c.Shard == o.shard, nil
}

// errArrayOnPath ends a path lookup that meets an array.
var errArrayOnPath = errors.New("array on a shard key path")

// rawShardKey is p.Extract on raw: ok is false for a document whose key
// holds or passes through an array (no valid shard key); err is for
// malformed bytes.
func rawShardKey(p key.Pattern, raw bson.Raw) (k bson.D, ok bool, err error) {
	k = make(bson.D, p.Len())
	for i, f := range p.Fields() {
		v, err := rawLookup(raw, f.Path)
		if errors.Is(err, errArrayOnPath) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("shard filter: %s of a stored document: %w", f.Path, err)
		}
		if f.Hashed {
			if v, err = key.Hash(v); err != nil {
				return nil, false, nil
			}
		}
		k[i] = bson.E{Key: f.Path, Value: v}
	}
	return k, true, nil
}

// rawLookup is key.Lookup on raw: nil when a part is missing or the path
// continues into a scalar, errArrayOnPath for an array.
func rawLookup(raw bson.Raw, path string) (any, error) {
	doc := bsoncore.Document(raw)
	for {
		part, rest, more := strings.Cut(path, ".")
		v, err := doc.LookupErr(part)
		if errors.Is(err, bsoncore.ErrElementNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if v.Type == bsoncore.TypeArray {
			return nil, errArrayOnPath
		}
		if !more {
			return decodeValue(v)
		}
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, nil
		}
		doc, path = v.Data, rest
	}
}

// decodeValue decodes one value as bsonx.Decode would (wrapping it in a
// one-field document).
func decodeValue(v bsoncore.Value) (any, error) {
	b := make([]byte, 4, 4+1+2+len(v.Data)+1)
	b = append(b, byte(v.Type), 'v', 0)
	b = append(append(b, v.Data...), 0)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	d, err := bsonx.Decode(b)
	if err != nil || len(d) != 1 {
		return nil, fmt.Errorf("decode a shard key value: %v", err)
	}
	return d[0].Value, nil
}
