package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/cairn-dev/cairn/schema"
)

// IsURL reports whether a --store value names a PostgreSQL database.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Options configure a connection.
type Options struct {
	// CacheDir is where side indexes (text and vector segments) of
	// generations are materialized locally; default
	// $XDG_CACHE_HOME/cairn/postgres (~/.cache/cairn/postgres).
	CacheDir string
	// MaxConns bounds the pool (default 8).
	MaxConns int32
}

// DB is a connection pool to a cairn PostgreSQL database.
type DB struct {
	pool  *pgxpool.Pool
	where string // the URL without its password, for messages
	cache string // local cache for this database
	// Warnings are notes for the user (a schema newer than this binary).
	Warnings []string
}

// Redact returns u without its password.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	}
	return p.String()
}

// connectErr explains a failure to reach the server.
func connectErr(where string, err error) error {
	var ne *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to PostgreSQL at %s: connection refused (is the server running and is --store right?)", where)
	case errors.As(err, &ne):
		return fmt.Errorf("cannot connect to PostgreSQL at %s: %v", where, ne)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("PostgreSQL at %s refused the connection: %s (SQLSTATE %s)", where, pe.Message, pe.Code)
	}
	return fmt.Errorf("cannot connect to PostgreSQL at %s: %w", where, err)
}

// Connect opens a pool on the database at rawURL without checking its
// schema (Migrate and the checks of Open and the writers do).
func Connect(ctx context.Context, rawURL string, o Options) (*DB, error) {
	where := Redact(rawURL)
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--store %s: %v", where, err)
	}
	cfg.MaxConns = o.MaxConns
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 8
	}
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "cairn"
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		// Before `cairn migrate` the type does not exist yet: vectors are
		// then registered on the next connection.
		if err := pgxvec.RegisterTypes(ctx, c); err != nil && !strings.Contains(err.Error(), "vector type not found") {
			return err
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectErr(where, err)
	}
	// Fail now, with a clear message, rather than at the first query.
	pctx, cancel := context.WithTimeout(ctx, cfg.ConnConfig.ConnectTimeout+time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, connectErr(where, err)
	}
	db := &DB{pool: pool, where: where}
	cache := o.CacheDir
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "cairn", "postgres")
	}
	db.cache = filepath.Join(cache, cacheKey(cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database))
	return db, nil
}

func cacheKey(host string, port uint16, database string) string {
	r := strings.NewReplacer("/", "_", ":", "_", "\\", "_")
	return r.Replace(fmt.Sprintf("%s_%d_%s", host, port, database))
}

// Close releases the pool.
func (db *DB) Close() { db.pool.Close() }

// Where is the database's URL without its password.
func (db *DB) Where() string { return db.where }

// Pool exposes the pool to tests and benchmarks.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// SchemaError reports a database whose schema this binary cannot use as
// asked.
type SchemaError struct {
	Where      string
	Found      int  // the database's schema version (0: no cairn schema)
	Want       int  // this binary's
	MinReader  int  // the oldest binary schema that may read the database
	Write      bool // the check was for writing
	migrateCmd string
}

func (e *SchemaError) Error() string {
	switch {
	case e.Found == 0:
		return fmt.Sprintf("database %s has no cairn schema: run `cairn migrate --store %s` first", e.Where, e.Where)
	case e.Found < e.Want:
		return fmt.Sprintf("database %s has schema version %d, this cairn needs %d: run `cairn migrate --store %s`", e.Where, e.Found, e.Want, e.Where)
	case e.Write:
		return fmt.Sprintf("database %s has schema version %d, newer than this cairn's %d (a newer cairn migrated it): refusing to write to it; upgrade cairn to index into this database (reading still works)", e.Where, e.Found, e.Want)
	default:
		return fmt.Sprintf("database %s has schema version %d, which cairn older than schema %d cannot read (this cairn has %d): upgrade cairn", e.Where, e.Found, e.MinReader, e.Want)
	}
}

// SchemaVersion returns the database's schema version (0 when it has no
// cairn schema) and the oldest binary schema that may read it.
func (db *DB) SchemaVersion(ctx context.Context) (version, minReader int, err error) {
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass('cairn_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, 0, db.queryErr("read schema version", err)
	}
	if !exists {
		return 0, 0, nil
	}
	err = db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0), coalesce(max(min_reader), 0) FROM cairn_migrations`).Scan(&version, &minReader)
	if err != nil {
		return 0, 0, db.queryErr("read schema version", err)
	}
	return version, minReader, nil
}

// checkSchema verifies that this binary may read (write false) or write
// the database.
func (db *DB) checkSchema(ctx context.Context, write bool) error {
	v, minReader, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	want := schema.PostgresVersion()
	e := &SchemaError{Where: db.where, Found: v, Want: want, MinReader: minReader, Write: write}
	switch {
	case v < want:
		return e
	case v > want && write:
		return e
	case v > want && minReader > want:
		return e
	case v > want:
		db.Warnings = append(db.Warnings, fmt.Sprintf("database schema version %d is newer than this cairn's %d: reading only", v, want))
	}
	return nil
}

// queryErr wraps a failed statement; a lost connection says so.
func (db *DB) queryErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if isConnLost(err) {
		return fmt.Errorf("%s: lost the connection to PostgreSQL at %s: %w", what, db.where, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// isConnLost reports errors that mean the server went away.
func isConnLost(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	From, To int                // schema versions before and after
	Applied  []schema.Migration // migrations applied now
	Ahead    bool               // the database is newer than this binary
}

// Migrate brings the database's schema to this binary's version, one
// migration per transaction (a failing migration leaves the database at the
// previous version). Concurrent migrators wait for each other.
func (db *DB) Migrate(ctx context.Context) (MigrateResult, error) {
	var res MigrateResult
	migs := schema.PostgresMigrations()
	from, _, err := db.SchemaVersion(ctx)
	if err != nil {
		return res, err
	}
	res.From, res.To = from, from
	for _, m := range migs {
		applied, err := db.applyMigration(ctx, m)
		if err != nil {
			return res, err
		}
		if applied {
			res.Applied = append(res.Applied, m)
			res.To = m.Version
		}
	}
	// A database migrated by a newer cairn keeps its version.
	v, _, err := db.SchemaVersion(ctx)
	if err != nil {
		return res, err
	}
	res.To = v
	res.Ahead = v > len(migs)
	if len(res.Applied) > 0 {
		// Connections opened before the vector type existed lack its codec.
		db.pool.Reset()
	}
	return res, nil
}

const migrationLock = 0x63616972 // "cair"

func (db *DB) applyMigration(ctx context.Context, m schema.Migration) (bool, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return false, db.queryErr("begin migration", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return false, db.queryErr("lock for migration", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS cairn_migrations (
		version    int PRIMARY KEY,
		name       text NOT NULL,
		checksum   text NOT NULL,
		min_reader int NOT NULL DEFAULT 1,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return false, db.queryErr("create migration table", err)
	}
	var sum string
	err = tx.QueryRow(ctx, `SELECT checksum FROM cairn_migrations WHERE version = $1`, m.Version).Scan(&sum)
	switch {
	case err == nil:
		if sum != m.Checksum {
			return false, fmt.Errorf("migration %03d_%s was applied to %s with different content (checksum %.12s, this cairn has %.12s): a migration must never change once released",
				m.Version, m.Name, db.where, sum, m.Checksum)
		}
		return false, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return false, db.queryErr("read migrations", err)
	}
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("migration %03d_%s failed (nothing of it was applied): %w", m.Version, m.Name, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO cairn_migrations(version, name, checksum, min_reader) VALUES($1, $2, $3, $4)`,
		m.Version, m.Name, m.Checksum, m.MinReader); err != nil {
		return false, db.queryErr("record migration", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, db.queryErr(fmt.Sprintf("commit migration %03d_%s", m.Version, m.Name), err)
	}
	return true, nil
}

// CacheDir is this database's local cache directory (side indexes of
// generations, per-repository state such as crash journals).
func (db *DB) CacheDir() string { return db.cache }
