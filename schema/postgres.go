package schema

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed postgres/*.sql
var postgresFS embed.FS

// Migration is one step of the PostgreSQL schema: schema/postgres/NNN_name.sql.
type Migration struct {
	Version int    // NNN
	Name    string // name
	SQL     string
	// Checksum is the SHA-256 of SQL: a database records it, so an edited
	// migration that was already applied is noticed instead of ignored.
	Checksum string
	// MinReader is the oldest schema version a binary may have and still
	// read a database this migration was applied to: 1 for additive
	// migrations, the migration's own version for one that breaks older
	// readers. Declared in the file as a line "-- cairn:min-reader N".
	MinReader int
}

// PostgresMigrations returns the PostgreSQL schema's migrations in order.
// Versions are consecutive from 1; the last is the version this binary
// writes (PostgresVersion).
func PostgresMigrations() []Migration {
	entries, err := fs.ReadDir(postgresFS, "postgres")
	if err != nil {
		panic(err)
	}
	var out []Migration
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			panic(fmt.Sprintf("schema/postgres/%s: want NNN_name.sql", e.Name()))
		}
		b, err := postgresFS.ReadFile(path.Join("postgres", e.Name()))
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		m := Migration{Version: v, Name: name, SQL: string(b), Checksum: hex.EncodeToString(sum[:]), MinReader: 1}
		for _, line := range strings.Split(m.SQL, "\n") {
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "-- cairn:min-reader "); ok {
				if m.MinReader, err = strconv.Atoi(strings.TrimSpace(n)); err != nil || m.MinReader < 1 || m.MinReader > v {
					panic(fmt.Sprintf("schema/postgres/%s: bad cairn:min-reader line", e.Name()))
				}
			}
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range out {
		if m.Version != i+1 {
			panic(fmt.Sprintf("schema/postgres: migration %d missing (found %d)", i+1, m.Version))
		}
	}
	return out
}

// PostgresVersion is the PostgreSQL schema version this binary reads and
// writes: the number of its last migration.
func PostgresVersion() int { return len(PostgresMigrations()) }
