package harness

import "go.mongodb.org/mongo-driver/v2/bson"

// SaslStart is the saslStart command a driver sends for mech with the
// client's first payload (skipEmptyExchange, as drivers set it).
func SaslStart(mech string, payload any) bson.D {
	return bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: mech}, {Key: "payload", Value: payload},
		{Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}}
}

// SaslContinue is the saslContinue command of conversation id.
func SaslContinue(id, payload any) bson.D {
	return bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id}, {Key: "payload", Value: payload}}
}
