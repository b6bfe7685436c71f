package catalog

import "go.mongodb.org/mongo-driver/v2/bson"

// Change stream pre-images: on a collection created or modified with
// changeStreamPreAndPostImages: {enabled: true}, an update's or delete's
// oplog entry also holds the document as it was before the write, in the
// field PreImageField, so change streams can report
// fullDocumentBeforeChange and (applying the update to it) the
// post-image. MongoDB keeps them in config.system.preimages instead.
// TODO(#14): expire pre-images on their own (expireAfterSeconds) rather
// than with the oplog entry.

// PreImageField is the oplog entry field that holds a pre-image.
const PreImageField = "preImage"

// PreAndPostImages reports whether collection options enable
// changeStreamPreAndPostImages.
func PreAndPostImages(opts bson.D) bool {
	for _, e := range opts {
		if e.Key != "changeStreamPreAndPostImages" {
			continue
		}
		d, _ := e.Value.(bson.D)
		for _, f := range d {
			if f.Key == "enabled" {
				b, _ := f.Value.(bool)
				return b
			}
		}
	}
	return false
}

// preImageFields is the oplog field holding old, when coll keeps
// pre-images; nil otherwise.
func preImageFields(coll *Collection, old bson.D) bson.D {
	if old == nil || !PreAndPostImages(coll.Options) {
		return nil
	}
	return bson.D{{Key: PreImageField, Value: old}}
}
