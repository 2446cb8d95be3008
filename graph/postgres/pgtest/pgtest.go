package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL returns the test server's URL, or skips (fails under make test).
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("CAIRN_TEST_PG")
	if u == "" {
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") != "" {
			t.Fatal("CAIRN_TEST_PG is not set but CAIRN_TEST_PG_REQUIRED is: run the tests with `make test`")
		}
		t.Skip("SKIPPING PostgreSQL store test: CAIRN_TEST_PG is not set (run `make test`, which installs and starts PostgreSQL and sets it)")
	}
	return u
}

// NewDB creates an empty database for the test (dropped at its end) and
// returns its URL.
func NewDB(t testing.TB) string {
	t.Helper()
	base := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") == "" {
			t.Skipf("SKIPPING PostgreSQL store test: cannot reach CAIRN_TEST_PG: %v", err)
		}
		t.Fatalf("cannot reach CAIRN_TEST_PG: %v", err)
	}
	var b [5]byte
	rand.Read(b[:])
	name := "cairn_t_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close(ctx)
		t.Fatalf("create test database: %v", err)
	}
	admin.Close(ctx)
	t.Cleanup(func() { Drop(t, base, name) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Drop removes a test database, disconnecting whoever is still on it.
func Drop(t testing.TB, base, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Logf("drop test database %s: %v", name, err)
		return
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		t.Logf("drop test database %s: %v", name, err)
	}
}

// Name returns the database name of a URL.
func Name(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}
