// Package errtext reads the error values a target's code declares and the
// texts people meet them as.
//
// # What is evaluated
//
// Every package-level variable whose initializer makes an error is
// evaluated from its declaration, in the syntax of the loaded release:
// errors.New("…"), fmt.Errorf with constant operands (a %w operand is the
// value it is made from), gRPC's status.Error(codes.X, "…") (and
// status.Errorf, status.New(…).Err()), another error variable (an alias),
// and the target's client conversion (for etcd, rpctypes.Error) applied to
// one. Strings are string literals, constants and their sums. Nothing else
// is guessed: a variable made otherwise is listed with its initializer and
// no text.
//
// The conversion is read from its body, not assumed: the map it indexes
// with its argument's message (the keys, each a call on an error variable
// or a string, evaluated to that message; the values, the wire errors), the
// value it returns when the message is there (a composite literal: its type
// and the code of the wire error), and whether it returns its argument
// unchanged when it is not.
//
// # Translation maps
//
// The target names the functions that translate a server error into the
// error the wire carries (for etcd, v3rpc.togRPCError). Each indexes a
// package-level map literal of error to error: its entries are the
// translations. What such a function returns for an error no entry holds
// is read from its return statements: a status of some code made with the
// error's own text.
//
// # Matching a text
//
// Match takes a text as a user saw it, whole or in part, and finds the
// objects whose message it is: the same text (after the prefixes the
// layers add are taken off: the command-line tool's, read from its exit
// function, and gRPC's status form, made by gRPC's own status package),
// a text that contains the whole message (a wrapped error), or a part of
// a message. No error text is written into this package.
package errtext
