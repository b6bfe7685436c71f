package bench

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// randomBytes fills n bytes with printable ASCII, as YCSB's
// RandomByteIterator does, eight characters per random draw.
func randomBytes(r *rand.Rand, n int64) []byte {
	b := make([]byte, n)
	for i := 0; i < len(b); {
		x := r.Uint64()
		for j := 0; j < 8 && i < len(b); j++ {
			b[i] = ' ' + byte(x%95)
			x >>= 8
			i++
		}
	}
	return b
}

// binaryValue is how YCSB's MongoDB client stores a field: generic binary.
func binaryValue(b []byte) bson.Binary { return bson.Binary{Subtype: 0, Data: b} }

// buildValues returns every field with fresh random data (buildValues).
func (w *Workload) buildValues(r *rand.Rand) bson.D {
	d := make(bson.D, 0, len(w.FieldNames))
	for _, f := range w.FieldNames {
		d = append(d, bson.E{Key: f, Value: binaryValue(randomBytes(r, w.fieldLength.Next(r)))})
	}
	return d
}

// buildSingleValue returns one random field with random data.
func (w *Workload) buildSingleValue(r *rand.Rand) bson.D {
	f := w.FieldNames[w.fieldChooser.Next(r)]
	return bson.D{{Key: f, Value: binaryValue(randomBytes(r, w.fieldLength.Next(r)))}}
}

// updateValues is what an update or read-modify-write writes.
func (w *Workload) updateValues(r *rand.Rand) bson.D {
	if w.WriteAllFields {
		return w.buildValues(r)
	}
	return w.buildSingleValue(r)
}

// readFields is the projection of a read or scan: nil for all fields, or
// one random field when readallfields=false.
func (w *Workload) readFields(r *rand.Rand) []string {
	if w.ReadAllFields {
		return nil
	}
	return []string{w.FieldNames[w.fieldChooser.Next(r)]}
}
