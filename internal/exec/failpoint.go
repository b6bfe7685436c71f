package exec

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/session"
)

// retryImages are the documents retryable findAndModify commands
// returned (their pre- or post-images, projected), by session and
// txnNumber, so a retry after a lost reply answers the same document.
// Bounded: an image over maxRetryImage is not kept (its retry answers the
// current document), and the whole set is dropped when it would exceed
// maxRetryImages bytes. TODO(#14): keep images in a collection, as
// MongoDB's config.image_collection, so they survive restarts and
// failovers.
var retryImages = struct {
	mu    sync.Mutex
	bytes int
	m     map[imageKey]bson.D
}{m: map[imageKey]bson.D{}}

type imageKey struct {
	session session.Key
	txn     int64
}

const (
	maxRetryImage  = 64 << 10
	maxRetryImages = 16 << 20
)

// keepImage records the document a retryable findAndModify returned.
func keepImage(r *Retry, res *FindAndModifyResult) {
	if r == nil || res.N == 0 || res.Value == nil {
		return
	}
	b, err := bson.Marshal(res.Value)
	if err != nil || len(b) > maxRetryImage {
		return
	}
	retryImages.mu.Lock()
	defer retryImages.mu.Unlock()
	if retryImages.bytes+len(b) > maxRetryImages {
		clear(retryImages.m)
		retryImages.bytes = 0
	}
	retryImages.m[imageKey{r.Key, r.TxnNumber}] = res.Value
	retryImages.bytes += len(b)
}

// retryImageOf returns the document the retryable findAndModify r
// returned the first time; false when not kept.
func retryImageOf(r *Retry) (bson.D, bool) {
	if r == nil {
		return nil, false
	}
	retryImages.mu.Lock()
	defer retryImages.mu.Unlock()
	img, ok := retryImages.m[imageKey{r.Key, r.TxnNumber}]
	return img, ok
}

// TimeLimited reports whether cursor id was opened with a time limit
// (maxTimeMS); false when there is no such cursor.
func (cs *Cursors) TimeLimited(id int64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byID[id]
	return ok && c.TimeLimited
}
