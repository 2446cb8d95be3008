-- cairn PostgreSQL store, schema version 1. See graph/postgres/doc.go for the
-- design: many repositories, each with committed generations that readers
-- see one at a time, facts shared between generations by file version, and
-- a job table through which several processes build the next generation.
--
-- Paths, names and symbol strings are compared and sorted byte-wise
-- (COLLATE "C"), as the embedded store (SQLite) does, so that both stores
-- answer in the same order. Lines are 1-based, columns 0-based bytes,
-- ranges half-open byte offsets.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE repositories (
  id          bigserial PRIMARY KEY,
  name        text COLLATE "C" NOT NULL UNIQUE,
  -- The committed generation readers see; replaced in the transaction that
  -- commits the next one.
  current_gen bigint,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- One generation of one repository: being built, committed (current or
-- superseded, kept a while for readers still on it) or aborted.
CREATE TABLE generations (
  id            bigserial PRIMARY KEY,
  repo_id       bigint NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
  seq           bigint NOT NULL,            -- graph.Meta.Generation, per repository
  base_id       bigint,                     -- generation it was built from; NULL: from scratch
  state         text NOT NULL CHECK (state IN ('building', 'finalizing', 'committed', 'superseded', 'aborted')),
  why           text NOT NULL DEFAULT '',   -- why from scratch, or "incremental"
  feature       int NOT NULL,               -- schema.FeatureVersion of the extractor
  root          text NOT NULL DEFAULT '',
  revision      text NOT NULL DEFAULT '',
  dirty         boolean NOT NULL DEFAULT false,
  indexed_at    timestamptz,
  extra         jsonb NOT NULL DEFAULT '{}', -- graph.Meta.Extra (side-index keys)
  stats         jsonb NOT NULL DEFAULT '{}', -- counts for status, computed at commit
  started_by    text NOT NULL DEFAULT '',
  started_at    timestamptz NOT NULL DEFAULT now(),
  committed_at  timestamptz,
  superseded_at timestamptz,
  -- The process finalizing the build (resolution, side indexes, commit).
  finalizer       text,
  finalizer_pid   int,
  finalizer_start timestamptz,
  lease_until     timestamptz,
  UNIQUE (repo_id, seq)
);
-- At most one build per repository at a time.
CREATE UNIQUE INDEX generations_one_build ON generations (repo_id) WHERE state IN ('building', 'finalizing');

-- The work of a build, split by path prefix. Claimed with
-- FOR UPDATE SKIP LOCKED; a claim lapses when its lease runs out or the
-- claiming connection is gone.
CREATE TABLE jobs (
  id            bigserial PRIMARY KEY,
  gen_id        bigint NOT NULL REFERENCES generations(id) ON DELETE CASCADE,
  ord           int NOT NULL,
  prefixes      text[] COLLATE "C" NOT NULL,  -- paths at or below which the job indexes
  weight        bigint NOT NULL DEFAULT 0,    -- bytes to read, for planning
  state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done')),
  attempt       int NOT NULL DEFAULT 0,
  worker        text,
  backend_pid   int,
  backend_start timestamptz,
  lease_until   timestamptz,
  started_at    timestamptz,
  finished_at   timestamptz,
  result        jsonb,
  UNIQUE (gen_id, ord)
);
CREATE INDEX jobs_open ON jobs (gen_id, ord) WHERE state <> 'done';

-- Interned SCIP symbol strings of all repositories. The id is a 64-bit
-- hash of the string (FNV-1a), so that writers in several processes agree
-- on ids without asking; a collision is detected when interning.
CREATE TABLE sids (
  id  bigint PRIMARY KEY,
  sid text COLLATE "C" NOT NULL
);

-- One extraction of one file: facts keyed by version, shared by every
-- generation whose membership (gen_files) points at it.
CREATE TABLE files (
  id      bigint PRIMARY KEY,
  repo_id bigint NOT NULL,
  gen_id  bigint NOT NULL,            -- the build that extracted it
  path    text COLLATE "C" NOT NULL,
  lang    smallint NOT NULL,
  hash    text NOT NULL,              -- git blob SHA-1, hex
  lines   int NOT NULL,
  status  smallint NOT NULL,          -- graph.ParseStatus
  error   text NOT NULL DEFAULT '',
  package text NOT NULL DEFAULT '',
  scip    text NOT NULL DEFAULT '',
  -- What extraction produced and the resolver reads: occurrences (not yet
  -- resolved), imports, bindings, SCIP edges (graph/embedded codec).
  facts   bytea NOT NULL
);
CREATE INDEX files_gen ON files (gen_id);

-- Membership: which file version each path of a generation has, and which
-- resolution (occurrences and edges) is in force for it.
CREATE TABLE gen_files (
  gen_id    bigint NOT NULL,
  path      text COLLATE "C" NOT NULL,
  file_id   bigint NOT NULL,
  res_id    bigint,                   -- NULL until resolved
  size      bigint NOT NULL,
  mtime     bigint NOT NULL,          -- Unix ns when indexed
  committed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (gen_id, path)
);
CREATE INDEX gen_files_file ON gen_files (file_id, gen_id);
CREATE INDEX gen_files_res ON gen_files (res_id, gen_id);

-- Paths the walker left out, with why, per generation.
CREATE TABLE gen_skips (
  gen_id bigint NOT NULL,
  path   text COLLATE "C" NOT NULL,
  reason smallint NOT NULL,
  detail text NOT NULL DEFAULT '',
  dir    boolean NOT NULL DEFAULT false,
  size   bigint NOT NULL DEFAULT 0,
  mtime  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (gen_id, path)
);

CREATE TABLE symbols (
  file_id    bigint NOT NULL,
  ord        int NOT NULL,              -- index in the file's facts
  sid        bigint NOT NULL,           -- sids.id
  name       text COLLATE "C" NOT NULL,
  kind       smallint NOT NULL,
  container  text NOT NULL,
  start_byte int NOT NULL, end_byte int NOT NULL,
  start_line int NOT NULL, start_col int NOT NULL,
  end_line   int NOT NULL, end_col int NOT NULL,
  name_start int NOT NULL, name_end int NOT NULL,
  name_line  int NOT NULL, name_col int NOT NULL,
  signature  text NOT NULL,
  doc        text NOT NULL,
  type       text NOT NULL,
  extends    text[] NOT NULL,
  implements text[] NOT NULL,
  flags      smallint NOT NULL,         -- 1 exported, 2 test
  parent     int NOT NULL,
  PRIMARY KEY (file_id, ord)
);
-- lower() under COLLATE "C" folds ASCII only, like SQLite's NOCASE.
CREATE INDEX symbols_name ON symbols (lower(name));
CREATE INDEX symbols_sid ON symbols (sid);

-- Which file versions mention a name: behind refs and re-resolution.
CREATE TABLE postings (
  name    text COLLATE "C" NOT NULL,
  file_id bigint NOT NULL,
  PRIMARY KEY (name, file_id)
);
CREATE INDEX postings_file ON postings (file_id);

-- Chunks; id is the document id of the text and vector indexes, from a
-- sequence, never reused. text is what they index.
CREATE TABLE chunks (
  id         bigint PRIMARY KEY,
  file_id    bigint NOT NULL,
  ord        int NOT NULL,
  kind       smallint NOT NULL,
  sid        bigint NOT NULL,           -- sids.id or 0
  name       text NOT NULL,
  start_byte int NOT NULL, end_byte int NOT NULL,
  start_line int NOT NULL, end_line int NOT NULL,
  hash       text NOT NULL,
  text       bytea NOT NULL             -- the source bytes as they are (not always UTF-8)
);
CREATE INDEX chunks_file ON chunks (file_id, ord);

-- Resolved occurrences of one resolution of one file version.
CREATE TABLE occurrences (
  res_id     bigint NOT NULL,
  ord        int NOT NULL,
  name       text COLLATE "C" NOT NULL,
  start_byte int NOT NULL, end_byte int NOT NULL,
  start_line int NOT NULL, start_col int NOT NULL,
  end_line   int NOT NULL, end_col int NOT NULL,
  role       smallint NOT NULL,
  qualifier  text NOT NULL,
  enclosing  int NOT NULL,
  sid        bigint NOT NULL,           -- sids.id or 0 (unresolved)
  confidence smallint NOT NULL,
  PRIMARY KEY (res_id, ord)
);

-- Edges derived from one resolution of one file (the call site's file).
CREATE TABLE edges (
  res_id     bigint NOT NULL,
  src        bigint NOT NULL,           -- sids.id
  dst        bigint NOT NULL,
  kind       smallint NOT NULL,
  confidence smallint NOT NULL,
  ambiguous  boolean NOT NULL,
  start_byte int NOT NULL, end_byte int NOT NULL,
  line       int NOT NULL, col int NOT NULL
);
CREATE INDEX edges_dst ON edges (dst, kind);
CREATE INDEX edges_src ON edges (src, kind);
CREATE INDEX edges_res ON edges (res_id);

-- Edges derived from the whole graph of one generation (Go structural
-- implementations): no call site.
CREATE TABLE gen_edges (
  gen_id     bigint NOT NULL,
  src        bigint NOT NULL,
  dst        bigint NOT NULL,
  kind       smallint NOT NULL,
  confidence smallint NOT NULL,
  ambiguous  boolean NOT NULL,
  start_byte int NOT NULL, end_byte int NOT NULL,
  line       int NOT NULL, col int NOT NULL
);
CREATE INDEX gen_edges_dst ON gen_edges (gen_id, dst, kind);
CREATE INDEX gen_edges_src ON gen_edges (gen_id, src, kind);

-- Centrality (PageRank) per symbol and generation.
CREATE TABLE ranks (
  gen_id bigint NOT NULL,
  sid    bigint NOT NULL,
  score  double precision NOT NULL,
  PRIMARY KEY (gen_id, sid)
);

-- Chunk embeddings. The column has no fixed dimension because models
-- differ; each (repository, dimension) gets a partial HNSW index over
-- embedding::vector(n) with cosine distance, created when first needed.
CREATE TABLE embeddings (
  chunk_id  bigint PRIMARY KEY,
  repo_id   bigint NOT NULL,
  model     text NOT NULL,
  dim       int NOT NULL,
  embedding vector NOT NULL
);
CREATE INDEX embeddings_repo ON embeddings (repo_id, dim);

-- Files of side indexes (text segments, vector segments, models) as
-- content-addressed blobs, in parts of at most 32 MiB, and which of them
-- each generation has, by path relative to its side-index directory.
CREATE TABLE blobs (
  hash       text NOT NULL,             -- SHA-256 of the whole file, hex
  part       int NOT NULL,
  data       bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (hash, part)
);
CREATE TABLE gen_side_files (
  gen_id bigint NOT NULL,
  path   text COLLATE "C" NOT NULL,
  hash   text NOT NULL,
  size   bigint NOT NULL,
  PRIMARY KEY (gen_id, path)
);
CREATE INDEX gen_side_files_hash ON gen_side_files (hash);

-- Ids handed out in blocks (see graph/postgres/ids.go).
CREATE SEQUENCE file_ids INCREMENT BY 1024;
CREATE SEQUENCE chunk_ids INCREMENT BY 1024;
CREATE SEQUENCE res_ids INCREMENT BY 1024;
