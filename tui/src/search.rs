//! `/` search with the server's full-text search (`GET /api/search`): the prompt, the
//! results as the server sent them, and the selected one. The server decides everything
//! a search answers (syntax, ranking, how many results a reader may see): a free reader
//! gets its first page and `hasMore` without a cursor (the paywall line), a subscriber
//! pages on with `nextCursor`. Highlights come as code point ranges of the text
//! (`radar_api::search::Highlighted`) and are drawn with [`spans`].

use radar_api::search::SearchHit;
use ratatui::style::Style;
use ratatui::text::Span;

use crate::load::Load;

/// The results of the query in force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// Every result loaded so far, best first.
    pub hits: Vec<SearchHit>,
    /// Where the next page starts; none when nothing more may be read now.
    pub next_cursor: Option<String>,
    /// Whether the server has more results than these, readable or not.
    pub has_more: bool,
    /// How many results the reader can reach, as the server counted them.
    pub total: u64,
    /// Whether the next page is on its way.
    pub loading_more: bool,
    /// Move to the first new result when the next page arrives (`n` past the end).
    pub step_on_arrival: bool,
}

impl Results {
    /// Whether the server said the reader may not see more results: more exist, but no
    /// cursor was given (free readers).
    pub fn allowance_reached(&self) -> bool {
        self.has_more && self.next_cursor.is_none()
    }

    /// How many results to announce, and whether more exist beyond the reader's reach
    /// (shown as "5+").
    pub fn count(&self) -> (usize, bool) {
        let total = usize::try_from(self.total).unwrap_or(usize::MAX);
        let found = total.max(self.hits.len());
        (found, self.has_more && found <= self.hits.len())
    }
}

/// The search: what is being typed, the query in force and its results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Search {
    /// The prompt's text while typing.
    pub input: String,
    /// Whether the prompt is open.
    pub editing: bool,
    /// The query in force (empty: none sent yet).
    pub query: String,
    /// The server's answer to it.
    pub results: Load<Results>,
    /// The selected result.
    pub selected: usize,
}

impl Search {
    /// A prompt opened with `/`, holding the query in force so it can be corrected.
    pub fn prompt(last: Option<Search>) -> Search {
        match last {
            Some(s) => Search {
                input: s.query.clone(),
                editing: true,
                ..s
            },
            None => Search {
                editing: true,
                ..Search::default()
            },
        }
    }

    /// Whether results (or their loading or error state) are on screen.
    pub fn in_force(&self) -> bool {
        !self.query.is_empty()
    }

    /// The selected result, kept inside the list.
    pub fn selection(&self, len: usize) -> usize {
        self.selected.min(len.saturating_sub(1))
    }
}

/// `text` cut into spans, the code point ranges in `ranges` (`[start, end)`, sorted, as
/// the server sends them) in `highlight` style. Ranges past the end are cut short, and
/// ones out of order or overlapping are skipped, so a bad answer never panics.
pub fn spans(
    text: &str,
    ranges: &[[usize; 2]],
    plain: Style,
    highlight: Style,
) -> Vec<Span<'static>> {
    // Byte offset of every code point, and of the end.
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let chars = bytes.len() - 1;
    let mut spans = Vec::new();
    let mut at = 0;
    for &[start, end] in ranges {
        let (start, end) = (start.min(chars), end.min(chars));
        if start < at || end <= start {
            continue;
        }
        if start > at {
            spans.push(Span::styled(
                text[bytes[at]..bytes[start]].to_string(),
                plain,
            ));
        }
        spans.push(Span::styled(
            text[bytes[start]..bytes[end]].to_string(),
            highlight,
        ));
        at = end;
    }
    if at < chars {
        spans.push(Span::styled(text[bytes[at]..].to_string(), plain));
    }
    spans
}

/// The words a result matched, as the server marked them in its title, summary and
/// snippet, lower-cased and each once: what the reader marks in the full text, so the
/// server's matching (stems, accents) decides there too.
pub fn matched_words(hit: &SearchHit) -> Vec<String> {
    let h = &hit.highlights;
    let mut words: Vec<String> = Vec::new();
    let marked = [
        (&h.title.text, &h.title.ranges),
        (&h.summary.text, &h.summary.ranges),
    ]
    .into_iter()
    .chain(h.snippet.as_ref().map(|s| (&s.text, &s.ranges)));
    for (text, ranges) in marked {
        let chars: Vec<char> = text.chars().collect();
        for &[start, end] in ranges {
            if start < end && end <= chars.len() {
                let word: String = chars[start..end].iter().collect::<String>().to_lowercase();
                if !words.contains(&word) {
                    words.push(word);
                }
            }
        }
    }
    words
}

/// The code point ranges of the words of `text` that are one of `words` (lower-cased),
/// in the shape [`spans`] takes. A word is a run of letters and digits.
pub fn word_ranges(text: &str, words: &[String]) -> Vec<[usize; 2]> {
    let mut ranges = Vec::new();
    if words.is_empty() {
        return ranges;
    }
    let mut start = None;
    let mut word = String::new();
    for (i, c) in text.chars().chain([' ']).enumerate() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
            word.extend(c.to_lowercase());
        } else if let Some(s) = start.take() {
            if words.contains(&word) {
                ranges.push([s, i]);
            }
            word.clear();
        }
    }
    ranges
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
    use ratatui::style::Modifier;

    fn texts(spans: &[Span]) -> Vec<(String, bool)> {
        spans
            .iter()
            .map(|s| {
                (
                    s.content.to_string(),
                    s.style.add_modifier.contains(Modifier::BOLD),
                )
            })
            .collect()
    }

    fn bold() -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    #[test]
    fn the_words_a_result_matched_are_found_again_in_any_text() {
        let mut hit = crate::testing::hit(4);
        hit.highlights.summary = radar_api::search::Highlighted {
            text: "Über-café modèles".into(),
            ranges: vec![[5, 9], [10, 17], [0, 99]],
        };
        assert_eq!(matched_words(&hit), ["story", "café", "modèles"]);
        let text = "A Story of CAFÉ life: storytelling, café-modèles.";
        let ranges = word_ranges(text, &matched_words(&hit));
        assert_eq!(ranges, [[2, 7], [11, 15], [36, 40], [41, 48]]);
        let chars: Vec<char> = text.chars().collect();
        let words: Vec<String> = ranges
            .iter()
            .map(|[a, b]| chars[*a..*b].iter().collect())
            .collect();
        assert_eq!(words, ["Story", "CAFÉ", "café", "modèles"]);
        assert!(word_ranges(text, &[]).is_empty());
    }

    #[test]
    fn ranges_count_code_points_not_bytes() {
        // "Zürich" has a two-byte ü: byte offsets would cut "Modelle" wrongly (or panic).
        let got = spans("Zürich – Modelle", &[[0, 6], [9, 16]], Style::new(), bold());
        assert_eq!(
            texts(&got),
            [
                ("Zürich".to_string(), true),
                (" – ".to_string(), false),
                ("Modelle".to_string(), true),
            ]
        );
        // An emoji is one code point (and four bytes).
        let got = spans("🚀 launch", &[[2, 8]], Style::new(), bold());
        assert_eq!(
            texts(&got),
            [("🚀 ".to_string(), false), ("launch".to_string(), true)]
        );
    }

    #[test]
    fn bad_ranges_are_cut_or_skipped() {
        let got = spans(
            "Open models",
            &[[5, 99], [0, 4], [3, 3]],
            Style::new(),
            bold(),
        );
        assert_eq!(
            texts(&got),
            [("Open ".to_string(), false), ("models".to_string(), true)]
        );
        assert_eq!(
            texts(&spans("abc", &[], Style::new(), bold())),
            [("abc".to_string(), false)]
        );
        assert!(spans("", &[[0, 2]], Style::new(), bold()).is_empty());
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

    #[test]
    fn the_prompt_starts_from_the_query_in_force() {
        let fresh = Search::prompt(None);
        assert!(fresh.editing && fresh.input.is_empty() && !fresh.in_force());
        let last = Search {
            query: "open weights".into(),
            results: Load::Loaded(Results::default()),
            ..Search::default()
        };
        let again = Search::prompt(Some(last));
        assert_eq!(again.input, "open weights");
        assert!(again.editing && again.in_force());
    }
}
