package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// SaslStart is saslStart: the first message of a SASL conversation.
type SaslStart struct {
	cmdspec.Cmd   `cmd:"saslStart" roles:"primary,secondary,router,unauthenticated"`
	Value         any     `cmd:",command"`
	Mechanism     string  `cmd:"mechanism,required"`
	Payload       any     `cmd:"payload,required"` // BinData or string
	AutoAuthorize any     `cmd:"autoAuthorize"`
	Options       *bson.D `cmd:"options"`
}

// SaslContinue is saslContinue: the next message of a conversation.
type SaslContinue struct {
	cmdspec.Cmd    `cmd:"saslContinue" roles:"primary,secondary,router,unauthenticated"`
	Value          any `cmd:",command"`
	ConversationID any `cmd:"conversationId,required"`
	Payload        any `cmd:"payload,required"`
}

// Logout is logout: forgets the users authenticated on the database.
type Logout struct {
	cmdspec.Cmd `cmd:"logout" roles:"primary,secondary,router,unauthenticated"`
	Value       any `cmd:",command"`
}

// CreateUser is createUser.
type CreateUser struct {
	cmdspec.Cmd                `cmd:"createUser" roles:"primary"`
	User                       string  `cmd:",command"`
	Pwd                        *string `cmd:"pwd"`
	Roles                      bson.A  `cmd:"roles,required"`
	CustomData                 *bson.D `cmd:"customData"`
	Mechanisms                 any     `cmd:"mechanisms"`
	DigestPassword             any     `cmd:"digestPassword"`
	AuthenticationRestrictions any     `cmd:"authenticationRestrictions"`
	Comment                    any     `cmd:"comment"`
}

// UpdateUser is updateUser.
type UpdateUser struct {
	cmdspec.Cmd                `cmd:"updateUser" roles:"primary"`
	User                       string  `cmd:",command"`
	Pwd                        *string `cmd:"pwd"`
	Roles                      *bson.A `cmd:"roles"`
	CustomData                 *bson.D `cmd:"customData"`
	Mechanisms                 any     `cmd:"mechanisms"`
	DigestPassword             any     `cmd:"digestPassword"`
	AuthenticationRestrictions any     `cmd:"authenticationRestrictions"`
	Comment                    any     `cmd:"comment"`
}

// DropUser is dropUser.
type DropUser struct {
	cmdspec.Cmd `cmd:"dropUser" roles:"primary"`
	User        string `cmd:",command"`
	Comment     any    `cmd:"comment"`
}

// UsersInfo is usersInfo: a name, {user, db}, a list of those, or 1 (all
// users of the database).
type UsersInfo struct {
	cmdspec.Cmd                    `cmd:"usersInfo" roles:"primary,secondary"`
	Value                          any   `cmd:",command"`
	ShowCredentials                *bool `cmd:"showCredentials"`
	ShowCustomData                 *bool `cmd:"showCustomData"`
	ShowPrivileges                 any   `cmd:"showPrivileges"`
	ShowAuthenticationRestrictions any   `cmd:"showAuthenticationRestrictions"`
	Filter                         any   `cmd:"filter"`
	Comment                        any   `cmd:"comment"`
}
