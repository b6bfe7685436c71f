// Package bsonhash is MongoDB's hash of a BSON value
// (BSONElementHasher::hash64, src/mongo/db/hasher.cpp), the key of hashed
// indexes and hashed shard keys. It is pure: no I/O, no state.
//
// Invariants:
//   - Hash(v) depends only on v's canonical type and value: every number
//     hashes as its safeNumberLongForHash int64 (so int32 3, int64 3, 3.7
//     and decimal 3 collide), and a document hashes its fields in order.
//   - The values are MongoDB's own (golden tests in hash_test.go), so chunk
//     bounds and index keys match a MongoDB cluster's.
package bsonhash

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Hash returns MongoDB's hash of a value for hashed shard keys and hashed
// indexes: BSONElementHasher::hash64(elem, seed 0).
func Hash(v any) (int64, error) { return HashSeed(v, 0) }

// HashSeed is MongoDB's BSONElementHasher::hash64 (src/mongo/db/hasher.cpp):
// md5 over the seed (int32, little-endian) and the element, read back as
// the digest's first 8 bytes, little-endian. An element contributes its
// canonical type (int32 LE); when nested, its field name with the NUL;
// then a number's int64 (see hashInt64), a document's or array's elements
// followed by an EOO (canonical type 0), a code-with-scope's code (with
// its NUL, no length) and then its scope's elements, or else the BSON
// value bytes as stored. It fails only for a Go value that is not BSON.
func HashSeed(v any, seed int32) (int64, error) {
	h := md5.New()
	putInt32(h, seed)
	if err := hashElem(h, "", v, false); err != nil {
		return 0, err
	}
	sum := h.Sum(nil)
	return int64(binary.LittleEndian.Uint64(sum[:8])), nil
}

func putInt32(h hash.Hash, i int32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(i))
	h.Write(b[:])
}

func hashElem(h hash.Hash, name string, v any, withName bool) error {
	canon := bsonx.CanonicalType(v)
	if canon > bsonx.CanonMaxKey {
		return fmt.Errorf("bsonhash: cannot hash %T: not a BSON value", v)
	}
	putInt32(h, int32(canon))
	if withName {
		h.Write(append([]byte(name), 0))
	}
	switch x := v.(type) {
	case bson.D:
		return hashDoc(h, x)
	case bson.A:
		return hashArray(h, x)
	case []any:
		return hashArray(h, x)
	case bson.CodeWithScope:
		h.Write(append([]byte(x.Code), 0))
		scope, _ := x.Scope.(bson.D)
		return hashDoc(h, scope)
	}
	if bsonx.IsNumber(v) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(hashInt64(v)))
		h.Write(b[:])
		return nil
	}
	return hashScalar(h, v)
}

func hashDoc(h hash.Hash, d bson.D) error {
	for _, e := range d {
		if err := hashElem(h, e.Key, e.Value, true); err != nil {
			return err
		}
	}
	putInt32(h, 0) // EOO: canonical type 0, no name, no value
	return nil
}

func hashArray(h hash.Hash, a []any) error {
	for i, v := range a {
		if err := hashElem(h, strconv.Itoa(i), v, true); err != nil {
			return err
		}
	}
	putInt32(h, 0)
	return nil
}

// hashScalar writes the value bytes of a non-numeric, non-nesting value
// exactly as BSON stores them (bsonx's encoder, which sorts regex flags).
func hashScalar(h hash.Hash, v any) error {
	raw, err := bsonx.AppendDocument(nil, bson.D{{Key: "", Value: v}})
	if err != nil {
		return fmt.Errorf("bsonhash: cannot hash %T: %w", v, err)
	}
	// int32 length, type byte, empty name's NUL, value, document's NUL.
	h.Write(raw[6 : len(raw)-1])
	return nil
}

// hashInt64 is BSONElement::safeNumberLongForHash: a double truncates
// toward zero, NaN is 0, values at or beyond ±2^63 clamp to the int64
// limits except the double 2^63 itself, which is math.MinInt64 (SERVER-37183
// kept the old x86 conversion); a decimal is NaN 0, clamps, and otherwise
// rounds half to even (safeNumberLong's Decimal128::toLong default).
func hashInt64(v any) int64 {
	switch x := v.(type) {
	case float64:
		return doubleToInt64(x)
	case float32:
		return doubleToInt64(float64(x))
	case bson.Decimal128:
		return decimalToInt64(x)
	}
	i, _ := bsonx.AsInt64(v)
	return i
}

func doubleToInt64(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f == 1<<63:
		return math.MinInt64
	case f > 1<<63:
		return math.MaxInt64
	case f <= -(1 << 63):
		return math.MinInt64
	}
	return int64(f)
}

var (
	bigMaxInt64 = big.NewInt(math.MaxInt64)
	bigMinInt64 = big.NewInt(math.MinInt64)
	bigTen      = big.NewInt(10)
)

func decimalToInt64(d bson.Decimal128) int64 {
	c, exp, err := d.BigInt()
	if err != nil { // NaN or ±Inf
		if d.IsInf() > 0 {
			return math.MaxInt64
		}
		if d.IsInf() < 0 {
			return math.MinInt64
		}
		return 0
	}
	return clampInt64(roundDecimal(c, exp))
}

// roundDecimal returns c * 10^exp rounded half to even, with exponents
// beyond any int64 short-circuited.
func roundDecimal(c *big.Int, exp int) *big.Int {
	switch {
	case c.Sign() == 0 || exp < -40:
		return new(big.Int)
	case exp > 20:
		return new(big.Int).Mul(big.NewInt(int64(c.Sign())), new(big.Int).Lsh(bigMaxInt64, 1))
	case exp >= 0:
		return new(big.Int).Mul(c, new(big.Int).Exp(bigTen, big.NewInt(int64(exp)), nil))
	}
	den := new(big.Int).Exp(bigTen, big.NewInt(int64(-exp)), nil)
	q, r := new(big.Int).QuoRem(c, den, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if cmp := twice.Cmp(den); cmp > 0 || (cmp == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(int64(c.Sign())))
	}
	return q
}

func clampInt64(i *big.Int) int64 {
	switch {
	case i.Cmp(bigMaxInt64) > 0:
		return math.MaxInt64
	case i.Cmp(bigMinInt64) < 0:
		return math.MinInt64
	}
	return i.Int64()
}
