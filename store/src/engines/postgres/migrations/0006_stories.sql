-- Stories: which items report one event (see `StoryStore` in
-- store/src/backend/stories.rs). Only the grouping's outcome is kept, what a reader's
-- page needs; its candidate index is rebuilt in memory from the items.
--
-- `story_members` holds each grouped item's story and its place in it (`joined`,
-- ordering a story's members; a merge renumbers the members it moves after the
-- surviving story's own). A story's lead is its first member: `covered` is true for
-- every other one, kept by each write that changes a story, so that a listing of leads
-- leaves an item out with one probe of the small `story_members_covered` index instead
-- of finding its story's first member, and a reader's covered marks are one join. No
-- foreign key to `items`: a removed item leaves its story after its removal (the rules
-- call `leave_story`), and hands the lead on then.
CREATE TABLE story_members (
    item text COLLATE "C" PRIMARY KEY,
    story text COLLATE "C" NOT NULL,
    joined bigint NOT NULL CHECK (joined > 0),
    covered boolean NOT NULL,
    -- A story's members in order (its lead first, the next place to give).
    UNIQUE (story, joined)
);
CREATE INDEX story_members_covered ON story_members (item) WHERE covered;

-- The id of a story that merged into another, and the story its members live in now:
-- always a surviving story, never another merged one (a story that merges in turn takes
-- the ids that led to it along), so a merged id is found in one lookup.
CREATE TABLE story_merges (
    story text COLLATE "C" PRIMARY KEY,
    into_story text COLLATE "C" NOT NULL
);
CREATE INDEX story_merges_into ON story_merges (into_story);

-- How many members are covered, beside the items' count: a feed of leads subtracts it
-- from that count, and never counts. Story writes lock this row first, as item writes
-- do (they move the items' version), which also makes two merges wait for each other.
ALTER TABLE items_meta ADD COLUMN covered bigint NOT NULL DEFAULT 0 CHECK (covered >= 0);
