-- Documents: small JSON records under a kind and a key (a reader's alerts), changed by
-- compare-and-set on their version (see `DocStore` in store/src/backend/records.rs).
-- `doc_kinds` holds each kind's version, moved by every write of the kind, so a cache
-- built from every document of a kind knows when to build again.
CREATE TABLE docs (
    kind text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    version bigint NOT NULL CHECK (version > 0),
    body bytea NOT NULL,
    PRIMARY KEY (kind, key)
);

CREATE TABLE doc_kinds (
    kind text COLLATE "C" PRIMARY KEY,
    version bigint NOT NULL CHECK (version > 0)
);
