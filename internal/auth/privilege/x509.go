package privilege

// authenticate (MONGODB-X509, issue #13) needs no privilege, as saslStart.
func init() { commands["authenticate"] = none }
