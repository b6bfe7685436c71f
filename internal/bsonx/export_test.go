package bsonx

// DecodeLegacy exposes the former decoder to the external tests.
var DecodeLegacy = decodeLegacy
