-- Radar's schema, version 1.
--
-- Every domain record is kept whole as JSON in a `record` column, so a record gains a
-- field (serde default) without a migration and reads back exactly as written; beside
-- it stand the columns its constraints, lookups and orders need. Text that is ordered
-- or compared as a key is COLLATE "C": byte order, the same on every database whatever
-- its locale, and the same as the other engines' order.
--
-- An item's wire JSON is `json`, not `jsonb`: json keeps the exact text it was given
-- (key order, spacing), so a listing serves the bytes that were written.
--
-- Foreign keys hold where the backend interface says the other side must exist: a
-- session's account, a secret's owner, a token's session, a mark's item, an entry's
-- feed. Records a user owns that the interface lets any owner id have (marks and
-- counts, shares, API keys, quota counts, the waitlist, checkouts, profiles) carry the
-- id without a key, and deleting an account deletes them in its transaction.

-- News items. `url` is the URL this item holds in the URL lookup: an item written with
-- a URL another item held takes it over, and the other keeps its JSON but no longer
-- holds the URL.
CREATE TABLE items (
    id text COLLATE "C" PRIMARY KEY,
    published_ms bigint NOT NULL,
    -- The title lower-cased by the rules' own folding, cut to 256 bytes: the public
    -- listing's title order.
    title_key text COLLATE "C" NOT NULL,
    url text COLLATE "C" UNIQUE,
    body json NOT NULL
);
-- Newest first: the feed, with its cursor (published_ms, id).
CREATE INDEX items_newest ON items (published_ms DESC, id DESC);
CREATE INDEX items_title ON items (title_key, id);

-- One row: the items' version (the number of the last change log entry, moved by
-- every item write and removal) and how many items exist. Every item write locks this
-- row first, so item writes commit in the order of their change numbers (see the
-- module doc on the change log).
CREATE TABLE items_meta (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    version bigint NOT NULL CHECK (version >= 0),
    item_count bigint NOT NULL CHECK (item_count >= 0)
);
INSERT INTO items_meta (only_row, version, item_count) VALUES (true, 0, 0);

-- The ordered log of item writes and removals that search replicas follow.
CREATE TABLE item_changes (
    seq bigint PRIMARY KEY,
    item_id text COLLATE "C" NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);

-- Counters that are kept, never counted.
CREATE TABLE counters (
    name text COLLATE "C" PRIMARY KEY,
    value bigint NOT NULL CHECK (value >= 0)
);
INSERT INTO counters (name, value) VALUES ('users', 0);

-- Accounts.
CREATE TABLE users (
    id text COLLATE "C" PRIMARY KEY,
    email text COLLATE "C" NOT NULL UNIQUE,
    customer_id text COLLATE "C" UNIQUE,
    record json NOT NULL
);

-- Sign-in sessions and their refresh tokens (by SHA-256).
CREATE TABLE sessions (
    id text COLLATE "C" PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    record json NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id, id);

CREATE TABLE refresh_tokens (
    hash bytea PRIMARY KEY CHECK (length(hash) = 32),
    session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    record json NOT NULL
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

-- One-time secrets (by SHA-256), one live per owner and purpose. `body` is the rules'
-- record, opaque here.
CREATE TABLE secrets (
    hash bytea PRIMARY KEY CHECK (length(hash) = 32),
    owner text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose text COLLATE "C" NOT NULL,
    body bytea NOT NULL,
    UNIQUE (owner, purpose)
);

-- Readers' marks: one row per reader and item with the time of each mark it carries
-- (which marks exclude which is the rules' table, not the schema's); a row with no
-- mark left is deleted.
CREATE TABLE marks (
    reader text COLLATE "C" NOT NULL,
    item text COLLATE "C" NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    favorite_at timestamptz,
    hidden_at timestamptz,
    read_at timestamptz,
    PRIMARY KEY (reader, item),
    CHECK (num_nonnulls(favorite_at, hidden_at, read_at) > 0)
);
-- Each mark's list, most recently marked first.
CREATE INDEX marks_favorite ON marks (reader, favorite_at DESC, item DESC)
    WHERE favorite_at IS NOT NULL;
CREATE INDEX marks_hidden ON marks (reader, hidden_at DESC, item DESC)
    WHERE hidden_at IS NOT NULL;
CREATE INDEX marks_read ON marks (reader, read_at DESC, item DESC)
    WHERE read_at IS NOT NULL;
-- Every reader's marks of one item (its removal).
CREATE INDEX marks_item ON marks (item);

-- Per reader: how many items carry each mark, and a version moved by every change of
-- the reader's marks. The row is also what serialises one reader's mark changes.
CREATE TABLE reader_state (
    reader text COLLATE "C" PRIMARY KEY,
    favorites bigint NOT NULL DEFAULT 0 CHECK (favorites >= 0),
    hidden bigint NOT NULL DEFAULT 0 CHECK (hidden >= 0),
    read bigint NOT NULL DEFAULT 0 CHECK (read >= 0),
    version bigint NOT NULL DEFAULT 0
);

-- Shares: the latest per reader and item. Items removed since may be among them.
CREATE TABLE shares (
    reader text COLLATE "C" NOT NULL,
    item text COLLATE "C" NOT NULL,
    at timestamptz NOT NULL,
    record json NOT NULL,
    PRIMARY KEY (reader, item)
);
CREATE INDEX shares_newest ON shares (reader, at DESC, item DESC);

-- API keys: one per user, found by SHA-256.
CREATE TABLE api_keys (
    hash bytea PRIMARY KEY CHECK (length(hash) = 32),
    user_id text COLLATE "C" NOT NULL UNIQUE,
    key text NOT NULL
);

-- Daily request counts of the public API.
CREATE TABLE quotas (
    owner text COLLATE "C" NOT NULL,
    day date NOT NULL,
    used bigint NOT NULL CHECK (used >= 0),
    PRIMARY KEY (owner, day)
);
CREATE INDEX quotas_day ON quotas (day);

-- Checkout sessions of the payment provider.
CREATE TABLE checkouts (
    id text COLLATE "C" PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    record json NOT NULL
);
CREATE INDEX checkouts_user ON checkouts (user_id, created_at);

-- The premium waitlist, in join order.
CREATE TABLE waitlist (
    user_id text COLLATE "C" PRIMARY KEY,
    joined_at timestamptz NOT NULL,
    record json NOT NULL
);
CREATE INDEX waitlist_joined ON waitlist (joined_at, user_id);

-- Source feeds. `lease_until`: a fetcher holds the feed until then.
CREATE TABLE feeds (
    id text COLLATE "C" PRIMARY KEY,
    url text COLLATE "C" NOT NULL UNIQUE,
    added_at timestamptz NOT NULL,
    next_due timestamptz,
    lease_until timestamptz,
    record json NOT NULL
);
CREATE INDEX feeds_added ON feeds (added_at, id);
CREATE INDEX feeds_due ON feeds (next_due NULLS FIRST, id);

-- The item each feed entry (by guid) became.
CREATE TABLE feed_entries (
    feed_id text COLLATE "C" NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    guid text COLLATE "C" NOT NULL,
    item_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (feed_id, guid)
);

-- Weekly summaries, one per week.
CREATE TABLE summaries (
    id text COLLATE "C" PRIMARY KEY,
    start_date timestamptz NOT NULL UNIQUE,
    record json NOT NULL
);

-- The outbox. `to_key` is the recipient lower-cased by the rules' own folding.
CREATE TABLE mails (
    id text COLLATE "C" PRIMARY KEY,
    to_key text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    record json NOT NULL
);
CREATE INDEX mails_newest ON mails (created_at DESC, id DESC);
CREATE INDEX mails_to ON mails (to_key);

CREATE TABLE profiles (
    user_id text COLLATE "C" PRIMARY KEY,
    record json NOT NULL
);

-- Coordination between the processes that share the database.
CREATE TABLE flags (
    name text COLLATE "C" PRIMARY KEY,
    set_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE leases (
    name text COLLATE "C" PRIMARY KEY,
    holder text NOT NULL,
    until timestamptz NOT NULL
);

CREATE TABLE shared_secrets (
    name text COLLATE "C" PRIMARY KEY,
    secret bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- GCRA state of the sign-in limiter and mail pace: the theoretical arrival time of
-- the next event per key (a digest). A row whose time has passed is as good as none.
CREATE TABLE rate_limits (
    key bytea PRIMARY KEY CHECK (length(key) = 32),
    tat timestamptz
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);

-- One reader's change of marks on one item, as one statement: clears the marks in
-- `clear` and sets `set` (bits: 1 favourite, 2 hidden, 4 read), keeps the reader's
-- counts in step and moves the reader's version. Answers the item's marks after the
-- change as bits, or null when the item does not exist.
--
-- Locks, in the order every writer that takes more than one of them takes them: the
-- item (KEY SHARE: a removal waits for this change, and a change after a removal finds
-- no item), the reader's state row (one reader's changes one at a time, so the counts
-- are exact), then the marks row.
CREATE FUNCTION radar_change_marks(
    p_reader text, p_item text, p_clear integer, p_set integer, p_at timestamptz
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    f timestamptz;
    h timestamptz;
    r timestamptz;
    was integer;
    now_bits integer;
BEGIN
    PERFORM 1 FROM items WHERE id = p_item FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO reader_state AS s (reader, version) VALUES (p_reader, 1)
        ON CONFLICT (reader) DO UPDATE SET version = s.version + 1;
    SELECT favorite_at, hidden_at, read_at INTO f, h, r
        FROM marks WHERE reader = p_reader AND item = p_item FOR UPDATE;
    was := (f IS NOT NULL)::integer | ((h IS NOT NULL)::integer << 1)
        | ((r IS NOT NULL)::integer << 2);
    IF p_clear & 1 <> 0 THEN f := NULL; END IF;
    IF p_clear & 2 <> 0 THEN h := NULL; END IF;
    IF p_clear & 4 <> 0 THEN r := NULL; END IF;
    IF p_set = 1 THEN f := p_at; END IF;
    IF p_set = 2 THEN h := p_at; END IF;
    IF p_set = 4 THEN r := p_at; END IF;
    now_bits := (f IS NOT NULL)::integer | ((h IS NOT NULL)::integer << 1)
        | ((r IS NOT NULL)::integer << 2);
    IF now_bits = 0 THEN
        DELETE FROM marks WHERE reader = p_reader AND item = p_item;
    ELSE
        INSERT INTO marks AS m (reader, item, favorite_at, hidden_at, read_at)
            VALUES (p_reader, p_item, f, h, r)
            ON CONFLICT (reader, item) DO UPDATE
            SET favorite_at = excluded.favorite_at, hidden_at = excluded.hidden_at,
                read_at = excluded.read_at;
    END IF;
    IF was <> now_bits THEN
        UPDATE reader_state SET
            favorites = favorites + ((now_bits & 1 <> 0)::integer - (was & 1 <> 0)::integer),
            hidden = hidden + ((now_bits & 2 <> 0)::integer - (was & 2 <> 0)::integer),
            read = read + ((now_bits & 4 <> 0)::integer - (was & 4 <> 0)::integer)
            WHERE reader = p_reader;
    END IF;
    RETURN now_bits;
END
$$;

-- Counts one request of `p_owner` on `p_day` against `p_limit`: answers the count
-- after it, or null when it is refused (the count stays at the limit). Exact under
-- any concurrency: the upsert locks the row and re-checks the limit on its latest
-- version. Its transaction commits without waiting for the disk (synchronous_commit
-- off for this transaction only): a crash may forget the last fraction of a second of
-- counts, which lets a key make that many more requests that day, never fewer, as the
-- embedded engine's checkpointed counters do.
CREATE FUNCTION radar_consume_quota(p_owner text, p_day date, p_limit bigint)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_limit <= 0 THEN
        RETURN NULL;
    END IF;
    INSERT INTO quotas AS q (owner, day, used) VALUES (p_owner, p_day, 1)
        ON CONFLICT (owner, day) DO UPDATE SET used = q.used + 1
        WHERE q.used < p_limit
        RETURNING used INTO n;
    RETURN n;
END
$$;
