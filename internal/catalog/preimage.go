package catalog

import "go.mongodb.org/mongo-driver/v2/bson"

// Change stream pre-images: on a collection created or modified with
// changeStreamPreAndPostImages: {enabled: true}, an update's or delete's
// oplog entry also holds the document as it was before the write, in the
// field PreImageField, so change streams can report
// fullDocumentBeforeChange and (applying the update to it) the
// post-image. MongoDB keeps them in config.system.preimages instead;
// here a pre-image that would take the entry past 16 MB is not kept
// (the event then has none).
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

// maxPreImageEntry bounds an oplog entry that carries a pre-image: the
// 16 MB document limit less room for the entry's other fields, so a
// secondary's fetcher can always read the entry in a reply.
const maxPreImageEntry = MaxDocSize - 4*1024

// preImageFields is the oplog field holding old (oldSize bytes encoded),
// when coll keeps pre-images and the entry, whose other fields take at
// most restSize bytes, stays under maxPreImageEntry with it; nil
// otherwise (a change stream then finds no pre-image for the event).
func preImageFields(coll *Collection, old bson.D, oldSize, restSize int) bson.D {
	if old == nil || !PreAndPostImages(coll.Options) || oldSize+restSize > maxPreImageEntry {
		return nil
	}
	return bson.D{{Key: PreImageField, Value: old}}
}
