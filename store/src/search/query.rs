//! The search box's syntax, read into a tantivy query.
//!
//! What a reader may type:
//! - `word`: the item has the word (or another form of it: "distilled" finds
//!   "distillation") in its title, summary, short text or content. Every word must match.
//! - `"a phrase"`: these words next to each other, in this order, in one field.
//! - `-word`, `-"a phrase"`, `-source:name`: leave out items that have it.
//! - `source:name`: from that source: its name as shown on cards, spaces left out
//!   ("source:theverge" for The Verge), or its host ("source:theverge.com"). Several
//!   `source:` terms mean any of them.
//! - `after:YYYY-MM-DD`: published on that day (UTC) or later; `before:YYYY-MM-DD`: published
//!   before that day. `after:2026-01-01 before:2026-02-01` is January.
//!
//! Anything else with a colon (`10:30`, `re:invent`) is plain text. A query must have at
//! least one word, phrase, `source:` or date; exclusions only narrow it. Whatever is wrong
//! comes back as a [`QueryError`] whose message says what and how to write it instead.

use std::fmt;
use std::ops::Bound;

use chrono::{NaiveDate, NaiveTime};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, Explanation, Occur, PhraseQuery,
    Query, RangeQuery, Scorer, TermQuery, Weight,
};
use tantivy::schema::IndexRecordOption;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocId, DocSet, Score, SegmentReader, Term};

use super::analyzer::Analyzer;
use super::index::Fields;

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// Most words, phrases and operators in one query.
const MAX_CLAUSES: usize = 32;

/// The analyzer of every text field and of the words of a query: split on anything that
/// is not a letter or digit, drop tokens over 40 bytes, lower-case, fold accents, reduce
/// English words to their stem. Changing it changes the index: bump `FORMAT` in `index`.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::from(Analyzer::default())
}

/// A query a reader typed that cannot be run; the message says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QueryError {}

fn fail<T>(message: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(message.into()))
}

/// Words or a phrase, after analysis: one term, or several at consecutive positions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Text(pub Vec<String>);

/// A parsed, analysed search query; build one with [`SearchQuery::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SearchQuery {
    pub(crate) must: Vec<Text>,
    pub(crate) must_not: Vec<Text>,
    pub(crate) sources: Vec<String>,
    pub(crate) not_sources: Vec<String>,
    pub(crate) after: Option<NaiveDate>,
    pub(crate) before: Option<NaiveDate>,
}

/// One space-separated piece of the raw query.
struct Piece {
    negated: bool,
    /// `source`, `after` or `before` when the piece is an operator.
    operator: Option<&'static str>,
    value: String,
}

const OPERATORS: [&str; 3] = ["source", "after", "before"];

/// Splits a raw query into pieces: words, quoted phrases, `name:value` operators, each
/// maybe preceded by `-`.
fn pieces(q: &str) -> Result<Vec<Piece>, QueryError> {
    let mut out = Vec::new();
    let mut rest = q.trim_start();
    while !rest.is_empty() {
        let negated = rest.len() > 1 && rest.starts_with('-') && !rest[1..].starts_with(' ');
        if negated {
            rest = &rest[1..];
        }
        let mut operator = None;
        if let Some(colon) = rest.find(':') {
            let name = &rest[..colon];
            if let Some(op) = OPERATORS.iter().find(|o| o.eq_ignore_ascii_case(name)) {
                operator = Some(*op);
                rest = &rest[colon + 1..];
            }
        }
        let (value, quoted, after) = if let Some(inner) = rest.strip_prefix('"') {
            let Some(end) = inner.find('"') else {
                return fail(format!(
                    "a quote is not closed: add a closing \" after \"{}",
                    inner.trim_end()
                ));
            };
            (&inner[..end], true, &inner[end + 1..])
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            (&rest[..end], false, &rest[end..])
        };
        if let Some(op) = operator
            && value.trim().is_empty()
        {
            return fail(format!(
                "{op}: needs a value right after the colon, e.g. {}",
                example(op)
            ));
        }
        if quoted && operator.is_none() && value.trim().is_empty() {
            return fail("a phrase in quotes is empty: put words between the quotes");
        }
        out.push(Piece {
            negated,
            operator,
            value: value.to_string(),
        });
        rest = after.trim_start();
    }
    Ok(out)
}

fn example(op: &str) -> &'static str {
    match op {
        "source" => "source:theverge",
        "after" => "after:2026-01-31",
        _ => "before:2026-01-31",
    }
}

fn date(op: &str, value: &str) -> Result<NaiveDate, QueryError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").or_else(|_| {
        fail(format!(
            "{op}:{value} is not a date: write it as YYYY-MM-DD, e.g. {}",
            example(op)
        ))
    })
}

impl SearchQuery {
    /// Reads what a reader typed (see the module documentation for the syntax).
    pub fn parse(q: &str) -> Result<Self, QueryError> {
        let q = q.trim();
        if q.is_empty() {
            return fail("the query is empty: type the words to search for");
        }
        if q.chars().count() > MAX_QUERY_CHARS {
            return fail(format!(
                "the query is longer than {MAX_QUERY_CHARS} characters: shorten it"
            ));
        }
        let pieces = pieces(q)?;
        if pieces.len() > MAX_CLAUSES {
            return fail(format!(
                "the query has more than {MAX_CLAUSES} words and operators: shorten it"
            ));
        }
        let mut query = SearchQuery {
            must: Vec::new(),
            must_not: Vec::new(),
            sources: Vec::new(),
            not_sources: Vec::new(),
            after: None,
            before: None,
        };
        let mut analyzer = analyzer();
        for p in pieces {
            match p.operator {
                None => query.add_words(&mut analyzer, &p),
                Some("source") => {
                    let name = p.value.trim().to_lowercase();
                    if p.negated {
                        query.not_sources.push(name);
                    } else {
                        query.sources.push(name);
                    }
                }
                Some(op) => query.add_date(op, &p)?,
            }
        }
        if let (Some(a), Some(b)) = (query.after, query.before)
            && a >= b
        {
            return fail(format!(
                "after:{a} is not earlier than before:{b}, so nothing can match: swap or widen the dates"
            ));
        }
        if query.must.is_empty()
            && query.sources.is_empty()
            && query.after.is_none()
            && query.before.is_none()
        {
            return fail(
                "the query has nothing to search for: add a word, a \"phrase\", source: or a date \
                 (a -exclusion only narrows a search)",
            );
        }
        Ok(query)
    }

    /// Words or a "phrase", analysed as the index analyses text: required, or excluded
    /// when negated. Punctuation alone, or a lone "-", holds nothing to search for.
    fn add_words(&mut self, analyzer: &mut TextAnalyzer, p: &Piece) {
        let mut terms = Vec::new();
        let mut stream = analyzer.token_stream(&p.value);
        while let Some(token) = stream.next() {
            terms.push(token.text.clone());
        }
        if terms.is_empty() {
            return;
        }
        if p.negated {
            self.must_not.push(Text(terms));
        } else {
            self.must.push(Text(terms));
        }
    }

    /// `after:` or `before:` a day, each given once and never negated.
    fn add_date(&mut self, op: &str, p: &Piece) -> Result<(), QueryError> {
        if p.negated {
            let other = if op == "after" { "before" } else { "after" };
            return fail(format!(
                "-{op}: cannot be excluded: use {other}: instead, e.g. {}",
                example(other)
            ));
        }
        let day = date(op, p.value.trim())?;
        let slot = if op == "after" {
            &mut self.after
        } else {
            &mut self.before
        };
        if slot.replace(day).is_some() {
            return fail(format!("{op}: is given twice: keep one"));
        }
        Ok(())
    }

    /// The tantivy query: every word and phrase is required in some text field (titles
    /// count double), exclusions are left out, and `source:` and dates filter without
    /// changing the score, so a query of filters alone lists by recency.
    pub(crate) fn to_query(&self, f: &Fields) -> Box<dyn Query> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &self.must {
            clauses.push((Occur::Must, text_query(f, t)));
        }
        for t in &self.must_not {
            clauses.push((Occur::MustNot, Box::new(Guarded(text_query(f, t)))));
        }
        let source = |s: &String| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(f.source, s),
                IndexRecordOption::Basic,
            ))
        };
        if !self.sources.is_empty() {
            let any = BooleanQuery::union(self.sources.iter().map(source).collect());
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(any), 0.0)),
            ));
        }
        for s in &self.not_sources {
            clauses.push((Occur::MustNot, source(s)));
        }
        if self.after.is_some() || self.before.is_some() {
            let bound = |d: Option<NaiveDate>, inclusive: bool| match d {
                None => Bound::Unbounded,
                Some(d) => {
                    let millis = d.and_time(NaiveTime::MIN).and_utc().timestamp_millis();
                    let term = Term::from_field_i64(f.published, millis);
                    if inclusive {
                        Bound::Included(term)
                    } else {
                        Bound::Excluded(term)
                    }
                }
            };
            let range = RangeQuery::new(bound(self.after, true), bound(self.before, false));
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        Box::new(BooleanQuery::new(clauses))
    }
}

/// An exclusion that answers a probe below its current document itself. tantivy 0.27's
/// exclusion probes its set with targets below a phrase scorer that already ran out, which
/// the phrase scorer refuses (a debug assertion): `-"a phrase"` would fail in debug builds.
#[derive(Debug)]
struct Guarded(Box<dyn Query>);

impl Clone for Guarded {
    fn clone(&self) -> Self {
        Self(self.0.box_clone())
    }
}

impl Query for Guarded {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(GuardedWeight(self.0.weight(scoring)?)))
    }
    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.0.query_terms(visitor);
    }
}

struct GuardedWeight(Box<dyn Weight>);

impl Weight for GuardedWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(GuardedScorer(self.0.scorer(reader, boost)?)))
    }
    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        self.0.explain(reader, doc)
    }
}

struct GuardedScorer(Box<dyn Scorer>);

impl DocSet for GuardedScorer {
    fn advance(&mut self) -> DocId {
        self.0.advance()
    }
    fn seek(&mut self, target: DocId) -> DocId {
        if self.0.doc() >= target {
            return self.0.doc();
        }
        self.0.seek(target)
    }
    fn doc(&self) -> DocId {
        self.0.doc()
    }
    fn size_hint(&self) -> u32 {
        self.0.size_hint()
    }
}

impl Scorer for GuardedScorer {
    fn score(&mut self) -> Score {
        self.0.score()
    }
}

/// Words or a phrase in any text field.
fn text_query(f: &Fields, t: &Text) -> Box<dyn Query> {
    let per_field = f
        .text
        .iter()
        .map(|&(field, boost)| {
            let terms: Vec<Term> =
                t.0.iter()
                    .map(|s| Term::from_field_text(field, s))
                    .collect();
            let q: Box<dyn Query> = match terms.len() {
                1 => Box::new(TermQuery::new(
                    terms.into_iter().next().expect("one term"),
                    IndexRecordOption::WithFreqs,
                )),
                _ => Box::new(PhraseQuery::new(terms)),
            };
            #[allow(clippy::float_cmp, reason = "1.0 is the exact default, never computed")]
            let q: Box<dyn Query> = if boost == 1.0 {
                q
            } else {
                Box::new(BoostQuery::new(q, boost))
            };
            (Occur::Should, q)
        })
        .collect();
    Box::new(BooleanQuery::new(per_field))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(q: &str) -> String {
        SearchQuery::parse(q).unwrap_err().0
    }

    fn words(texts: &[Text]) -> Vec<String> {
        texts.iter().map(|t| t.0.join(" ")).collect()
    }

    #[test]
    fn words_are_stemmed_and_phrases_keep_their_order() {
        let q = SearchQuery::parse(r#"Distillation "Machine Learning" GPT-4o"#).unwrap();
        assert_eq!(words(&q.must), ["distil", "machin learn", "gpt 4o"]);
        assert!(q.must_not.is_empty() && q.sources.is_empty());
    }

    #[test]
    fn exclusions_sources_and_dates() {
        let q = SearchQuery::parse(
            r#"chips -nvidia -"data center" source:TheVerge -source:wired.com after:2026-01-01 before:2026-02-01"#,
        )
        .unwrap();
        assert_eq!(words(&q.must), ["chip"]);
        assert_eq!(words(&q.must_not), ["nvidia", "data center"]);
        assert_eq!(q.sources, ["theverge"]);
        assert_eq!(q.not_sources, ["wired.com"]);
        assert_eq!(q.after.unwrap().to_string(), "2026-01-01");
        assert_eq!(q.before.unwrap().to_string(), "2026-02-01");
    }

    #[test]
    fn filters_alone_are_a_query_and_other_colons_are_text() {
        assert!(SearchQuery::parse("source:openai").is_ok());
        assert!(SearchQuery::parse("after:2026-01-01").is_ok());
        let q = SearchQuery::parse("re:invent 10:30").unwrap();
        assert_eq!(words(&q.must), ["re invent", "10 30"]);
        // A lone dash is not an exclusion of nothing.
        assert_eq!(
            words(&SearchQuery::parse("gpt - 5").unwrap().must),
            ["gpt", "5"]
        );
    }

    #[test]
    fn malformed_queries_say_what_is_wrong() {
        assert!(err("").contains("empty"));
        assert!(err("   ").contains("empty"));
        assert!(err(r#"say "hello"#).contains("quote is not closed"));
        assert!(err(r#"a """#).contains("phrase in quotes is empty"));
        assert!(err("source:").contains("source: needs a value"));
        assert!(err("after:yesterday").contains("after:yesterday is not a date"));
        assert!(err("before:2026-02-30").contains("YYYY-MM-DD"));
        assert!(err("ai after:2026-03-01 before:2026-02-01").contains("not earlier"));
        assert!(err("ai after:2026-03-01 after:2026-04-01").contains("twice"));
        assert!(err("-after:2026-03-01 ai").contains("cannot be excluded"));
        assert!(err("-nvidia").contains("nothing to search for"));
        assert!(err("— …").contains("nothing to search for"));
        assert!(err(&"a ".repeat(40)).contains("more than 32"));
        assert!(err(&"x".repeat(501)).contains("longer than 500"));
    }
}
