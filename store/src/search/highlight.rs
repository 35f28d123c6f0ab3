//! The matched words of a result, marked for clients that never parse HTML.
//!
//! Each highlighted text comes with its own `text` (the field as cards show it, citation
//! markers stripped, see [`display::strip_citations`]) and `ranges`: `[start, end)` pairs
//! in Unicode code points of that text, sorted and never overlapping. A client renders
//! `text`, marking `chars[start..end]`; in JavaScript, `Array.from(text)` indexes code
//! points. The title and summary are marked whole; the content (or else the short text)
//! gives a snippet of about 200 characters around its best matches, when it has any.

use std::ops::Range;

use tantivy::Searcher;
use tantivy::query::Query;
use tantivy::snippet::{SnippetGenerator, collapse_overlapped_ranges};

use super::index::Fields;
use crate::{NewsItem, Result, display};
use radar_api::search::{Highlighted, Highlights, Snippet};

/// Longest snippet, in bytes of text (tantivy counts a fragment's length in bytes).
const SNIPPET_BYTES: usize = 200;

/// Marks the words of one query in results.
pub(crate) struct Highlighter {
    title: SnippetGenerator,
    /// The summary, marked whole (it shares the body field with the short text and
    /// content).
    summary: SnippetGenerator,
    /// A snippet of the content or the short text.
    snippet: SnippetGenerator,
}

impl Highlighter {
    /// A highlighter for `query`'s terms as the searcher's index spells them.
    pub(super) fn new(searcher: &Searcher, query: &dyn Query, f: &Fields) -> Result<Self> {
        let whole = |field| -> Result<SnippetGenerator> {
            let mut g = SnippetGenerator::create(searcher, query, field)?;
            // One fragment from the first byte: the whole field.
            g.set_max_num_chars(usize::MAX);
            Ok(g)
        };
        let part = |field| -> Result<SnippetGenerator> {
            let mut g = SnippetGenerator::create(searcher, query, field)?;
            g.set_max_num_chars(SNIPPET_BYTES);
            Ok(g)
        };
        Ok(Self {
            title: whole(f.title)?,
            summary: whole(f.body)?,
            snippet: part(f.body)?,
        })
    }

    /// The marked title, summary and snippet of one item.
    pub(super) fn highlights(&self, item: &NewsItem) -> Highlights {
        let snippet = [("content", &item.content), ("short", &item.short)]
            .into_iter()
            .find_map(|(field, text)| {
                let text = display::strip_citations(text);
                let s = self.snippet.snippet(&text);
                (!s.is_empty()).then(|| Snippet {
                    field: field.to_string(),
                    ranges: code_point_ranges(s.fragment(), s.highlighted()),
                    text: s.fragment().to_string(),
                })
            });
        Highlights {
            title: whole(&self.title, &item.title),
            summary: whole(&self.summary, &item.summary),
            snippet,
        }
    }
}

fn whole(generator: &SnippetGenerator, text: &str) -> Highlighted {
    let text = display::strip_citations(text);
    let s = generator.snippet(&text);
    let start = s.fragment_range().start;
    let ranges: Vec<Range<usize>> = s
        .highlighted()
        .iter()
        .map(|r| r.start + start..r.end + start)
        .collect();
    Highlighted {
        ranges: code_point_ranges(&text, &ranges),
        text,
    }
}

/// Byte ranges of `text` as sorted, merged `[start, end)` code point ranges.
fn code_point_ranges(text: &str, bytes: &[Range<usize>]) -> Vec<[usize; 2]> {
    let mut out = Vec::new();
    let (mut byte, mut chars) = (0, 0);
    let mut to_chars = |target: usize| {
        chars += text[byte..target].chars().count();
        byte = target;
        chars
    };
    for r in collapse_overlapped_ranges(bytes) {
        let start = to_chars(r.start);
        let end = to_chars(r.end);
        out.push([start, end]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_code_points_and_merge_overlaps() {
        let text = "Café → GPT and café";
        // "Café" is bytes 0..5, "café" is the last 5 bytes.
        let end = text.len();
        let got = code_point_ranges(text, &[end - 5..end, 0..5, 0..3]);
        assert_eq!(got, [[0, 4], [15, 19]]);
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars[15..19].iter().collect::<String>(), "café");
    }
}
