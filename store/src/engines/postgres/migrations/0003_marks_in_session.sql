-- A change of marks writes less, and can check the caller's session in its own round
-- trip.
--
-- The reader's state row is locked first and written once, at the end (it was written
-- twice). The item is locked only when a marks row is about to be inserted: its
-- foreign key takes that lock anyway, and taking it first keeps the order every writer
-- follows. Locking it on every change wrote a lock record, and after each checkpoint a
-- full copy of the item's page, for nothing: a reader's marks row is only ever written
-- by a transaction holding that reader's state row, so a row that exists belongs to an
-- item that exists, and an item being removed waits for the reader's row before it
-- takes the reader's marks (see `remove_item`). For the same reason the marks row is
-- read without a lock of its own.
--
-- `p_session`: when not null, the change is made only if that session exists and is
-- the reader's, else -1 and nothing changes: a signed-in request's check of its token
-- and its write in one statement. Null means no check (administration).
CREATE FUNCTION radar_change_marks(
    p_reader text, p_item text, p_clear integer, p_set integer, p_at timestamptz,
    p_session text
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    f timestamptz;
    h timestamptz;
    r timestamptz;
    was integer;
    now_bits integer;
BEGIN
    IF p_session IS NOT NULL THEN
        PERFORM 1 FROM sessions WHERE id = p_session AND user_id = p_reader;
        IF NOT FOUND THEN
            RETURN -1;
        END IF;
    END IF;
    PERFORM 1 FROM reader_state WHERE reader = p_reader FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        INSERT INTO reader_state (reader) VALUES (p_reader) ON CONFLICT (reader) DO NOTHING;
        PERFORM 1 FROM reader_state WHERE reader = p_reader FOR NO KEY UPDATE;
    END IF;
    SELECT favorite_at, hidden_at, read_at INTO f, h, r
        FROM marks WHERE reader = p_reader AND item = p_item;
    IF NOT FOUND THEN
        IF p_set <> 0 THEN
            PERFORM 1 FROM items WHERE id = p_item FOR KEY SHARE;
        ELSE
            PERFORM 1 FROM items WHERE id = p_item;
        END IF;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
    END IF;
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
        IF was <> 0 THEN
            DELETE FROM marks WHERE reader = p_reader AND item = p_item;
        END IF;
    ELSIF was = 0 THEN
        INSERT INTO marks (reader, item, favorite_at, hidden_at, read_at)
            VALUES (p_reader, p_item, f, h, r);
    ELSE
        UPDATE marks SET favorite_at = f, hidden_at = h, read_at = r
            WHERE reader = p_reader AND item = p_item;
    END IF;
    UPDATE reader_state SET
        version = version + 1,
        favorites = favorites + ((now_bits & 1 <> 0)::integer - (was & 1 <> 0)::integer),
        hidden = hidden + ((now_bits & 2 <> 0)::integer - (was & 2 <> 0)::integer),
        read = read + ((now_bits & 4 <> 0)::integer - (was & 4 <> 0)::integer)
        WHERE reader = p_reader;
    RETURN now_bits;
END
$$;

-- The change without a session check, as before: nodes of the previous version call it
-- during a rolling upgrade.
CREATE OR REPLACE FUNCTION radar_change_marks(
    p_reader text, p_item text, p_clear integer, p_set integer, p_at timestamptz
) RETURNS integer
LANGUAGE sql AS $$
    SELECT radar_change_marks(p_reader, p_item, p_clear, p_set, p_at, NULL)
$$;
