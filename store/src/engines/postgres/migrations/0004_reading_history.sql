-- Readers' reading history (docs/product.md §13): one row per read, found per reader
-- from a time on (the Insights tab) and per window of time (the totals job, pruning).
-- No foreign keys: a read of an item removed since is skipped by the rules, and the
-- account's deletion removes its reads itself.
CREATE TABLE reads (
    reader text COLLATE "C" NOT NULL,
    item text COLLATE "C" NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX reads_reader_at ON reads (reader, at);
CREATE INDEX reads_at ON reads (at);

-- The totals of all readers for the week, written by the job holding the
-- `reading-totals` lease and read by every process.
CREATE TABLE read_totals (
    id integer PRIMARY KEY CHECK (id = 1),
    record json NOT NULL
);
