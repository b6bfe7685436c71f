package exec

import (
	"hash/maphash"
	"sync"
)

// stripes serializes read-modify-write on one document: the stripe is chosen
// by the hash of the collection id and the _id's key bytes.
type stripes struct {
	mu [256]sync.Mutex
}

var stripeSeed = maphash.MakeSeed()

func (s *stripes) lock(collID uint32, idKey []byte) *sync.Mutex {
	var h maphash.Hash
	h.SetSeed(stripeSeed)
	h.WriteByte(byte(collID))
	h.WriteByte(byte(collID >> 8))
	h.Write(idKey)
	m := &s.mu[h.Sum64()%uint64(len(s.mu))]
	m.Lock()
	return m
}
