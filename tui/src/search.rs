//! `/` search over the items loaded in the view on screen: every word of the query must
//! occur (ignoring case) in the title, summary or full text; `n` and `N` step through
//! the matches and the list marks the matched words. The server's search
//! (`GET /api/search`) replaces this once the daemon offers it.

use radar_api::NewsItem;

/// The search: what is being typed, and the query in force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Search {
    /// The prompt's text while typing.
    pub input: String,
    /// Whether the prompt is open.
    pub editing: bool,
    /// The query in force (empty: none).
    pub query: String,
}

impl Search {
    /// A prompt opened with `/`, starting from the last query.
    pub fn prompt(last: Option<&Search>) -> Search {
        Search {
            input: String::new(),
            editing: true,
            query: last.map(|s| s.query.clone()).unwrap_or_default(),
        }
    }

    /// The query's words, lower-cased.
    pub fn words(&self) -> Vec<String> {
        words(&self.query)
    }

    /// Whether `item` holds every word of the query.
    pub fn matches(&self, item: &NewsItem) -> bool {
        let words = self.words();
        if words.is_empty() {
            return false;
        }
        let text = format!("{}\n{}\n{}", item.title, item.summary, item.content).to_lowercase();
        words.iter().all(|w| text.contains(w.as_str()))
    }
}

/// The lower-case words of a query.
pub fn words(query: &str) -> Vec<String> {
    query.split_whitespace().map(str::to_lowercase).collect()
}

/// Byte ranges of `text` where any of `words` occurs (ignoring case), in order and not
/// overlapping: what the list draws highlighted.
pub fn highlights(text: &str, words: &[String]) -> Vec<(usize, usize)> {
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths (rare letters); highlight nothing then.
    if lower.len() != text.len() {
        return Vec::new();
    }
    let mut ranges: Vec<(usize, usize)> = words
        .iter()
        .filter(|w| !w.is_empty())
        .flat_map(|w| {
            lower
                .match_indices(w.as_str())
                .map(|(at, m)| (at, at + m.len()))
                .collect::<Vec<_>>()
        })
        .collect();
    ranges.sort();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some((_, end)) if a <= *end => *end = (*end).max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// The index of the next (or, `back`, previous) position from `from` whose flag is
/// set, wrapping around; `from` itself counts last.
pub fn step(flags: &[bool], from: usize, back: bool) -> Option<usize> {
    let n = flags.len();
    (1..=n)
        .map(|k| {
            if back {
                (from + n - k % n) % n
            } else {
                (from + k) % n
            }
        })
        .find(|i| flags[*i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::item;

    #[test]
    fn every_word_must_occur_in_some_field() {
        let s = Search {
            query: "STORY  explains".into(),
            ..Default::default()
        };
        assert!(s.matches(&item(3)));
        let s = Search {
            query: "story nowhere".into(),
            ..Default::default()
        };
        assert!(!s.matches(&item(3)));
        assert!(!Search::default().matches(&item(3)), "no query, no match");
    }

    #[test]
    fn highlights_merge_and_ignore_case() {
        let words = vec!["mod".to_string(), "models".to_string()];
        assert_eq!(
            highlights("About Models and mod", &words),
            [(6, 12), (17, 20)]
        );
        assert!(highlights("x", &[]).is_empty());
    }

    #[test]
    fn stepping_wraps_both_ways() {
        let flags = [true, false, true, false];
        assert_eq!(step(&flags, 0, false), Some(2));
        assert_eq!(step(&flags, 2, false), Some(0));
        assert_eq!(step(&flags, 0, true), Some(2));
        assert_eq!(step(&flags, 3, true), Some(2));
        assert_eq!(step(&[false, false], 0, false), None);
        assert_eq!(step(&[true], 0, false), Some(0));
    }
}
