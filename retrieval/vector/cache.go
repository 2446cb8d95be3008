package vector

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	_ "github.com/mattn/go-sqlite3" // SQLite driver
)

// Cache keeps vectors by (model, chunk content hash) across runs, so that a
// remote embedder is asked about each distinct chunk text once.
type Cache struct {
	mu sync.Mutex
	db *sql.DB
}

// OpenCache opens (creating) the cache database at path.
func OpenCache(path string) (*Cache, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	return &Cache{db: db}, nil
}

// Close closes the cache.
func (c *Cache) Close() error { return c.db.Close() }

// Get returns a cached vector.
func (c *Cache) Get(model, hash string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b []byte
	if err := c.db.QueryRow(`SELECT vec FROM vectors WHERE model = ? AND hash = ?`, model, hash).Scan(&b); err != nil || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}

// Put stores a vector.
func (c *Cache) Put(model, hash string, v []float32) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.db.Exec(`INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES(?, ?, ?)`, model, hash, b)
}
