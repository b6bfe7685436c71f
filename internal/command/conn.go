package command

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Conn is the per-connection state the command layer keeps.
type Conn struct {
	ID         int64
	Remote     string
	Local      string
	mu         sync.Mutex
	clientMeta bson.D
	helloDone  bool
}

// NewConn returns the state for a new connection.
func NewConn(id int64, remote, local string) *Conn {
	return &Conn{ID: id, Remote: remote, Local: local}
}

// Request is one OP_MSG: a body and its document sequences.
type Request struct {
	Body       []byte
	Sequences  []Sequence
	MoreToCome bool
}

// Sequence is an OP_MSG kind-1 section.
type Sequence struct {
	Identifier string
	Docs       []bson.Raw
}
