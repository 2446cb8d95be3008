-- One generation of the embedded store (SQLite). Format: schema.EmbeddedFormat.
-- Lines are 1-based, columns 0-based bytes, ranges half-open byte offsets.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- Files that were indexed (parsed or text-only).
CREATE TABLE files (
  id      INTEGER PRIMARY KEY,
  path    TEXT NOT NULL UNIQUE,
  lang    INTEGER NOT NULL,
  hash    TEXT NOT NULL,      -- git blob SHA-1, hex
  size    INTEGER NOT NULL,
  mtime   INTEGER NOT NULL,   -- Unix ns when indexed
  lines   INTEGER NOT NULL,
  status  INTEGER NOT NULL,   -- graph.ParseStatus
  error   TEXT NOT NULL DEFAULT '',
  package TEXT NOT NULL DEFAULT '',
  committed INTEGER NOT NULL DEFAULT 0, -- 1: content equals the blob at meta.revision
  scip    TEXT NOT NULL DEFAULT '',    -- the SCIP document merged into the facts
  category INTEGER NOT NULL DEFAULT 0, -- graph.FileCategory flags: 1 test, 2 vendored, 4 docs
  facts   BLOB                -- occurrences, imports, bindings (see graph/embedded/codec.go)
);

-- Files and directories the walker left out, with why. size/mtime/hash let
-- an incremental run skip re-reading an unchanged skipped file.
CREATE TABLE skips (
  path   TEXT PRIMARY KEY,
  reason INTEGER NOT NULL,    -- graph.SkipReason
  detail TEXT NOT NULL DEFAULT '',
  dir    INTEGER NOT NULL DEFAULT 0,
  size   INTEGER NOT NULL DEFAULT 0,
  mtime  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Interned SCIP symbol strings. IDs are stable across incremental runs, so
-- edges can refer to symbols whose defining file was re-indexed.
CREATE TABLE sids (
  id  INTEGER PRIMARY KEY,
  sid TEXT NOT NULL UNIQUE
);

CREATE TABLE symbols (
  id         INTEGER PRIMARY KEY,
  file_id    INTEGER NOT NULL,
  ord        INTEGER NOT NULL,  -- index in the file's facts
  sid        INTEGER NOT NULL,  -- sids.id
  name       TEXT NOT NULL,
  kind       INTEGER NOT NULL,  -- graph.SymbolKind
  container  TEXT NOT NULL,
  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
  start_line INTEGER NOT NULL, start_col INTEGER NOT NULL,
  end_line   INTEGER NOT NULL, end_col INTEGER NOT NULL,
  name_start INTEGER NOT NULL, name_end INTEGER NOT NULL,
  name_line  INTEGER NOT NULL, name_col INTEGER NOT NULL,
  signature  TEXT NOT NULL,
  doc        TEXT NOT NULL,
  type       TEXT NOT NULL,
  extends    TEXT NOT NULL,     -- '\n'-joined
  implements TEXT NOT NULL,
  flags      INTEGER NOT NULL,  -- 1 exported, 2 test
  parent     INTEGER NOT NULL   -- ord of the parent symbol in the file, -1
);

-- Which files mention a name (any occurrence): the posting lists behind
-- refs and behind re-resolution when a definition changes.
CREATE TABLE postings (
  name    TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  PRIMARY KEY (name, file_id)
) WITHOUT ROWID;

-- Chunks; id is the document id in text and vector indexes and is never
-- reused, so a stale hit in an older text segment is recognised as dead.
CREATE TABLE chunks (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  file_id    INTEGER NOT NULL,
  ord        INTEGER NOT NULL,
  kind       INTEGER NOT NULL,  -- graph.ChunkKind
  sid        INTEGER NOT NULL,  -- sids.id or 0
  name       TEXT NOT NULL,
  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  hash       TEXT NOT NULL
);

-- Derived edges between symbols (graph.Edge), by sids.id. file_id is the
-- file whose facts gave the edge (replaced with it); 0 marks edges derived
-- from the whole graph (Go structural implementations), recomputed together.
CREATE TABLE edges (
  src        INTEGER NOT NULL,
  dst        INTEGER NOT NULL,
  kind       INTEGER NOT NULL,  -- graph.EdgeKind
  confidence INTEGER NOT NULL,  -- graph.Confidence
  ambiguous  INTEGER NOT NULL,
  file_id    INTEGER NOT NULL,  -- where the evidence is
  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
  line       INTEGER NOT NULL, col INTEGER NOT NULL
);

-- Centrality (PageRank over the reference graph) per symbol.
CREATE TABLE ranks (
  sid   INTEGER PRIMARY KEY,  -- sids.id
  score REAL NOT NULL
);
