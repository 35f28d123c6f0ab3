//! The counts behind trends: for every term, the items mentioning it per UTC day, kept in
//! memory for the last [`KEPT_DAYS`] days and changed item by item, so a request ranks
//! from counts and never reads the items again.

use std::collections::HashMap;

use radar_api::trends::TrendKind;

use super::extract::Term;

/// Weeks of counts a trend carries (its chart); the last is this week.
pub const WEEKS: usize = 8;
/// Weeks before this one that a trend is measured against.
pub const BASE_WEEKS: u32 = 4;
/// Days of items kept: the chart's weeks.
pub(crate) const KEPT_DAYS: i64 = 7 * 8;

/// Whether an item published at `at` (ms since 1970) is counted on day `now`: its day is
/// one of the last [`KEPT_DAYS`] (or later).
pub(crate) fn kept(at: i64, now: Day) -> bool {
    at.div_euclid(86_400_000) > now - KEPT_DAYS
}

/// Fewest items a week needs before a change counts: this week's for a rising term, the
/// previous weeks' mean for a falling one. One stray mention is not a trend.
pub const MIN_COUNT: u32 = 3;

/// A day: days since 1970-01-01, UTC.
pub(crate) type Day = i64;

/// One item mentioning a term: the item's day and slot.
#[derive(Clone, Copy)]
struct Mention {
    day: i32,
    slot: u32,
}

/// A day as a [`Mention`] keeps it: days since 1970 fit an `i32` until the year 5.8 million.
fn short_day(day: Day) -> i32 {
    i32::try_from(day).unwrap_or(if day < 0 { i32::MIN } else { i32::MAX })
}

/// One term and the items mentioning it, by day.
struct TermEntry {
    text: String,
    kind: TrendKind,
    /// The items mentioning it, in day order. A flat list, 8 bytes a mention: most terms
    /// are names mentioned once or twice, and a map per term (a B-tree node of 11 days
    /// and a list per day) cost them 400 bytes each, 0.6 GB at a million items.
    mentions: Vec<Mention>,
    /// Items mentioning it over all kept days: a term with fewer than [`MIN_COUNT`] can
    /// neither rise nor fall, so ranking passes it without reading its days (most names
    /// are mentioned once or twice).
    total: u32,
}

/// One counted item: its id, its day and its terms (what a removal takes back).
#[derive(Default)]
struct Slot {
    id: String,
    day: Day,
    /// Publication time (milliseconds), to show the newest stories.
    at: i64,
    terms: Vec<u32>,
}

/// A ranked term: its index, weekly counts (oldest first) and change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    /// The term's text.
    pub(crate) text: String,
    /// Name or topic.
    pub(crate) kind: TrendKind,
    /// Items per week, oldest first, this week last.
    pub(crate) weeks: [u32; WEEKS],
    /// The mean of the [`BASE_WEEKS`] weeks before this one.
    pub(crate) before: f64,
    /// `(this + 1) / (before + 1)`.
    pub(crate) change: f64,
    /// Ids of this week's newest items mentioning it (at most a few), newest first.
    pub(crate) story_ids: Vec<String>,
}

/// Every term's daily counts.
#[derive(Default)]
pub(crate) struct Counts {
    keys: HashMap<String, u32>,
    terms: Vec<TermEntry>,
    free_terms: Vec<u32>,
    items: HashMap<String, u32>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// Days before this one were dropped.
    kept_from: Day,
    /// Moves on with every change: a ranking made at one generation holds until it moves.
    generation: u64,
}

impl Counts {
    /// How many items are counted.
    pub(crate) fn items(&self) -> usize {
        self.items.len()
    }

    /// Counts item `id` as published at `at` (milliseconds) with `terms`, in place of what
    /// it counted before (nothing when `item` is none: the item was removed). An item
    /// older than the kept days counts nothing.
    pub(crate) fn apply(&mut self, id: &str, now: Day, item: Option<(i64, Vec<Term>)>) {
        self.generation += 1;
        self.forget(id);
        let Some((at, terms)) = item else {
            return;
        };
        let day = at.div_euclid(86_400_000);
        if !kept(at, now) || terms.is_empty() {
            return;
        }
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.slots.push(Slot::default());
            u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 items counted")
        });
        let mut ids = Vec::with_capacity(terms.len());
        for t in terms {
            let ix = self.intern(t);
            let entry = &mut self.terms[ix as usize];
            let d = short_day(day);
            let at = entry.mentions.partition_point(|m| m.day <= d);
            entry.mentions.insert(at, Mention { day: d, slot });
            entry.total += 1;
            ids.push(ix);
        }
        self.slots[slot as usize] = Slot {
            id: id.to_string(),
            day,
            at,
            terms: ids,
        };
        self.items.insert(id.to_string(), slot);
    }

    /// Takes back what item `id` counted.
    fn forget(&mut self, id: &str) {
        let Some(slot) = self.items.remove(id) else {
            return;
        };
        let Slot { day, terms, .. } = std::mem::take(&mut self.slots[slot as usize]);
        for ix in terms {
            let entry = &mut self.terms[ix as usize];
            let d = short_day(day);
            let from = entry.mentions.partition_point(|m| m.day < d);
            let found = entry.mentions[from..]
                .iter()
                .take_while(|m| m.day == d)
                .position(|m| m.slot == slot);
            if let Some(at) = found {
                entry.mentions.remove(from + at);
                entry.total -= 1;
            }
            if entry.mentions.is_empty() {
                self.release(ix);
            } else if entry.mentions.capacity() > 4 * entry.mentions.len() {
                entry.mentions.shrink_to(2 * entry.mentions.len());
            }
        }
        self.free_slots.push(slot);
    }

    fn intern(&mut self, t: Term) -> u32 {
        if let Some(ix) = self.keys.get(&t.key) {
            return *ix;
        }
        let entry = TermEntry {
            text: t.text,
            kind: t.kind,
            mentions: Vec::new(),
            total: 0,
        };
        let ix = if let Some(ix) = self.free_terms.pop() {
            self.terms[ix as usize] = entry;
            ix
        } else {
            self.terms.push(entry);
            u32::try_from(self.terms.len() - 1).expect("fewer than 2^32 terms")
        };
        self.keys.insert(t.key, ix);
        ix
    }

    /// A term no item mentions any more is forgotten.
    fn release(&mut self, ix: u32) {
        let entry = &mut self.terms[ix as usize];
        let key = entry.text.to_lowercase();
        entry.text.clear();
        self.keys.remove(&key);
        self.free_terms.push(ix);
    }

    /// Ids of the newest `n` items of the week ending on `now` that mention `entry`:
    /// the latest days first, stopping once a whole day brought `n` (days do not overlap).
    fn newest(&self, entry: &TermEntry, now: Day, n: usize) -> Vec<String> {
        let mut found: Vec<&Slot> = Vec::new();
        let (first, last) = (short_day(now - 6), short_day(now));
        let end = entry.mentions.partition_point(|m| m.day <= last);
        let mut day = None;
        for m in entry.mentions[..end].iter().rev() {
            if m.day < first || (found.len() >= n && day != Some(m.day)) {
                break;
            }
            day = Some(m.day);
            found.push(&self.slots[m.slot as usize]);
        }
        found.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
        found.into_iter().take(n).map(|s| s.id.clone()).collect()
    }

    /// A number that moves with every change of the counts.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Moves the generation past `old` (counts replacing others).
    pub(crate) fn set_generation_after(&mut self, old: u64) {
        self.generation = self.generation.max(old) + 1;
    }

    /// Drops the items of days no chart reaches any more (once a day).
    pub(crate) fn prune(&mut self, now: Day) {
        let from = now - KEPT_DAYS + 1;
        if from <= self.kept_from {
            return;
        }
        self.kept_from = from;
        self.generation += 1;
        let old: Vec<String> = self
            .items
            .iter()
            .filter(|(_, s)| self.slots[**s as usize].day < from)
            .map(|(id, _)| id.clone())
            .collect();
        for id in old {
            self.forget(&id);
        }
    }

    /// The rising and falling terms on day `now` (this week: `now` and the six days
    /// before), the largest change first, at most `limit` each, each with up to
    /// `stories` ids of this week's items.
    pub(crate) fn rank(
        &self,
        now: Day,
        limit: usize,
        stories: usize,
    ) -> (Vec<Ranked>, Vec<Ranked>) {
        let mut rising: Vec<(f64, u32, u32, [u32; WEEKS])> = Vec::new();
        let mut falling: Vec<(f64, u32, u32, [u32; WEEKS])> = Vec::new();
        for (ix, entry) in self.terms.iter().enumerate() {
            if entry.total < MIN_COUNT {
                continue;
            }
            let mut weeks = [0u32; WEEKS];
            for (back, count) in (0..).zip(weeks.iter_mut().rev()) {
                // Week `back` weeks before this one: its seven days, found by two searches.
                let last: Day = now - 7 * back;
                let (from, to) = (short_day(last - 6), short_day(last));
                let start = entry.mentions.partition_point(|m| m.day < from);
                let end = entry.mentions.partition_point(|m| m.day <= to);
                *count = u32::try_from(end - start).unwrap_or(u32::MAX);
            }
            let this = weeks[WEEKS - 1];
            let (base, before) = base_mean(&weeks);
            let change = (f64::from(this) + 1.0) / (before + 1.0);
            let ix = u32::try_from(ix).expect("fewer than 2^32 terms");
            if this >= MIN_COUNT && change > 1.0 {
                rising.push((change, this, ix, weeks));
            } else if before >= f64::from(MIN_COUNT) && change < 1.0 {
                falling.push((change, base, ix, weeks));
            }
        }
        // Larger change first; then the larger count; then the term's text, so equal
        // trends always come in one order.
        let by = |a: &(f64, u32, u32, [u32; WEEKS]), b: &(f64, u32, u32, [u32; WEEKS])| {
            b.1.cmp(&a.1).then_with(|| {
                self.terms[a.2 as usize]
                    .text
                    .cmp(&self.terms[b.2 as usize].text)
            })
        };
        rising.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| by(a, b)));
        falling.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| by(a, b)));
        let finish = |list: Vec<(f64, u32, u32, [u32; WEEKS])>| {
            list.into_iter()
                .take(limit)
                .map(|(change, _, ix, weeks)| {
                    let entry = &self.terms[ix as usize];
                    Ranked {
                        text: entry.text.clone(),
                        kind: entry.kind,
                        weeks,
                        before: base_mean(&weeks).1,
                        change,
                        story_ids: self.newest(entry, now, stories),
                    }
                })
                .collect()
        };
        (finish(rising), finish(falling))
    }
}

/// The items of the [`BASE_WEEKS`] weeks before this one, and their mean.
fn base_mean(weeks: &[u32; WEEKS]) -> (u32, f64) {
    let base: u32 = weeks[WEEKS - 1 - BASE_WEEKS as usize..WEEKS - 1]
        .iter()
        .sum();
    (base, f64::from(base) / f64::from(BASE_WEEKS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Vec<Term> {
        vec![Term {
            key: text.to_lowercase(),
            text: text.into(),
            kind: TrendKind::Name,
        }]
    }

    /// `n` items mentioning `term` on day `day`, ids `prefix-day-i`.
    fn add(c: &mut Counts, now: Day, term: &str, day: Day, n: usize) {
        for i in 0..n {
            c.apply(
                &format!("{term}-{day}-{i}"),
                now,
                Some((day * 86_400_000 + i64::try_from(i).unwrap(), name(term))),
            );
        }
    }

    #[test]
    fn a_term_rising_from_nothing_ranks_above_a_steady_larger_one() {
        let now = 20_000;
        let mut c = Counts::default();
        for week in 0..5 {
            add(&mut c, now, "Steady", now - week * 7 - 1, 40);
        }
        add(&mut c, now, "Riser", now - 2, 12);
        add(&mut c, now, "Stray", now, 1);
        let (rising, falling) = c.rank(now, 10, 3);
        let texts: Vec<&str> = rising.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Riser"],
            "steady and one stray mention are not rising"
        );
        assert_eq!(rising[0].weeks, [0, 0, 0, 0, 0, 0, 0, 12]);
        assert!((rising[0].change - 13.0).abs() < 1e-9);
        assert_eq!(rising[0].story_ids.len(), 3);
        assert!(falling.is_empty());
        // Once Steady stops, it falls.
        for i in 0..40 {
            c.apply(&format!("Steady-{}-{i}", now - 1), now, None);
        }
        let (_, falling) = c.rank(now, 10, 3);
        assert_eq!(falling[0].text, "Steady");
        assert_eq!(falling[0].weeks[WEEKS - 1], 0);
    }

    #[test]
    fn an_update_replaces_and_a_removal_takes_back() {
        let now = 20_000;
        let mut c = Counts::default();
        for _ in 0..3 {
            add(&mut c, now, "Twice", now, 4);
        }
        let (rising, _) = c.rank(now, 10, 10);
        assert_eq!(
            rising[0].weeks[WEEKS - 1],
            4,
            "writing an item again does not count it twice"
        );
        c.apply(
            "Twice-20000-0",
            now,
            Some((now * 86_400_000, name("Other"))),
        );
        c.apply("Twice-20000-1", now, None);
        let (rising, _) = c.rank(now, 10, 10);
        assert_eq!(rising.len(), 0, "2 left: under the floor");
        c.apply("Twice-20000-2", now, None);
        c.apply("Twice-20000-3", now, None);
        assert_eq!(c.items(), 1);
        assert!(c.keys.contains_key("other") && !c.keys.contains_key("twice"));
    }

    #[test]
    fn weeks_split_on_their_days_and_the_newest_stories_come_by_whole_days() {
        let now = 20_000;
        let mut c = Counts::default();
        // Out of order, as an import may bring them: this week's first day, last week's
        // last, this week's last (3 items), and the chart's first day.
        add(&mut c, now, "Term", now - 6, 1);
        add(&mut c, now, "Term", now - 7, 2);
        add(&mut c, now, "Term", now, 3);
        add(&mut c, now, "Term", now - KEPT_DAYS + 1, 4);
        let entry = &c.terms[c.keys["term"] as usize];
        let days: Vec<i32> = entry.mentions.iter().map(|m| m.day).collect();
        assert!(days.is_sorted(), "mentions in day order: {days:?}");
        let (rising, _) = c.rank(now, 10, 10);
        assert_eq!(rising[0].weeks, [4, 0, 0, 0, 0, 0, 2, 4]);
        // Newest first, by publication time: today's, then the week's first day's.
        assert_eq!(
            c.newest(entry, now, 2),
            [format!("Term-{now}-2"), format!("Term-{now}-1")]
        );
        let four = c.newest(entry, now, 4);
        assert_eq!(four.len(), 4);
        assert_eq!(four[3], format!("Term-{}-0", now - 6));
        // Taking back one of today's items leaves the others and the order.
        c.apply(&format!("Term-{now}-1"), now, None);
        let (rising, _) = c.rank(now, 10, 10);
        assert_eq!(rising[0].weeks, [4, 0, 0, 0, 0, 0, 2, 3]);
        let entry = &c.terms[c.keys["term"] as usize];
        assert_eq!(
            c.newest(entry, now, 3),
            [
                format!("Term-{now}-2"),
                format!("Term-{now}-0"),
                format!("Term-{}-0", now - 6)
            ]
        );
    }

    #[test]
    fn the_kept_days_are_the_charts_weeks() {
        assert_eq!(usize::try_from(KEPT_DAYS).unwrap(), 7 * WEEKS);
    }

    #[test]
    fn old_days_are_neither_counted_nor_kept() {
        let now = 20_000;
        let mut c = Counts::default();
        add(&mut c, now, "Old", now - KEPT_DAYS, 5);
        assert_eq!(c.items(), 0);
        add(&mut c, now, "Aging", now - KEPT_DAYS + 1, 5);
        assert_eq!(c.items(), 5);
        c.prune(now + 1);
        assert_eq!(c.items(), 0);
    }
}
