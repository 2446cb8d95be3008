// Package pgtest gives tests a database of their own on the PostgreSQL
// server named by CAIRN_TEST_PG (postgres://user:password@host:port/db).
//
// `make test` installs and starts that server (.ci/postgres.sh) and sets
// CAIRN_TEST_PG_REQUIRED=1: there a missing or unreachable server fails the
// test. Elsewhere (plain `go test` without the variable) the PostgreSQL
// tests skip, saying loudly why.
package pgtest
