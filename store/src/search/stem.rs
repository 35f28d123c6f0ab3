//! The English stemmer of the search analyzer, with a memory of the words it stemmed.
//!
//! Snowball stemming took about a quarter of tantivy's indexing threads' time (perf over
//! `bash bench/search.sh`), and news text repeats its words: most tokens were stemmed a
//! moment before. Every copy of the analyzer (tantivy gives each indexing thread its own)
//! keeps the stems of up to [`REMEMBERED`] words and forgets them all at once when full,
//! so its memory stays bounded without the bookkeeping of an LRU. The stems are the
//! Snowball English stemmer's, exactly those of tantivy's own `Stemmer` filter.

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Words remembered per analyzer copy: the common vocabulary of news text fits, and at
/// about 60 bytes a word the memory stays near 4 MB.
const REMEMBERED: usize = 65_536;
/// Longer tokens are stemmed each time: rare, and not worth keeping.
const LONGEST_REMEMBERED: usize = 24;

/// A token filter stemming English, remembering stems. Tokens must be lower-cased first.
#[derive(Clone, Copy, Default)]
pub(crate) struct CachedStemmer;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner,
            stems: Stems::default(),
        }
    }
}

/// The filter around its inner tokenizer, with its stems.
pub(crate) struct CachedStemmerFilter<T> {
    inner: T,
    stems: Stems,
}

/// A copy starts with nothing remembered: copies are made per thread, and copying a full
/// memory would cost more than refilling it.
impl<T: Clone> Clone for CachedStemmerFilter<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            stems: Stems::default(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stems: &mut self.stems,
        }
    }
}

/// The token stream: each token's text is replaced by its stem.
pub(crate) struct CachedStemmerStream<'a, T> {
    tail: T,
    stems: &'a mut Stems,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        self.stems.stem_in_place(&mut self.tail.token_mut().text);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// Words and their stems.
struct Stems {
    stemmer: frostem::Stemmer,
    known: FxHashMap<Box<str>, Box<str>>,
}

impl Default for Stems {
    fn default() -> Self {
        Self {
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
            known: FxHashMap::default(),
        }
    }
}

impl Stems {
    /// Replaces `word` by its stem.
    fn stem_in_place(&mut self, word: &mut String) {
        if let Some(stem) = self.known.get(word.as_str()) {
            if **stem != **word {
                word.clear();
                word.push_str(stem);
            }
            return;
        }
        let stem = self.stemmer.stem(word).into_owned();
        if word.len() <= LONGEST_REMEMBERED {
            if self.known.len() >= REMEMBERED {
                self.known.clear();
            }
            self.known
                .insert(word.as_str().into(), stem.as_str().into());
        }
        *word = stem;
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{
        Language, LowerCaser, SimpleTokenizer, Stemmer, TextAnalyzer, TokenStream as _,
    };

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        analyzer
            .token_stream(text)
            .process(&mut |t| out.push(t.text.clone()));
        out
    }

    #[test]
    fn stems_are_tantivys_whether_remembered_or_not() {
        let mut ours = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(CachedStemmer)
            .build();
        let mut theirs = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build();
        let text = "Running models were distilled; the runner runs, connections connected \
                    fruitlessly. Running models were distilled again: generously generous \
                    internationalization-internationalizations x";
        // Twice over: the second pass is served from what the first remembered.
        for _ in 0..2 {
            assert_eq!(tokens(&mut ours, text), tokens(&mut theirs, text));
        }
    }

    #[test]
    fn memory_is_bounded_and_refills_after_forgetting() {
        let mut stems = Stems::default();
        for i in 0..REMEMBERED + 10 {
            let mut w = format!("walking{i}");
            stems.stem_in_place(&mut w);
            assert!(stems.known.len() <= REMEMBERED);
        }
        assert_eq!(
            stems.known.len(),
            10,
            "forgotten all at once when full, then refilled"
        );
        let mut long = "a".repeat(LONGEST_REMEMBERED + 1) + "ing";
        stems.stem_in_place(&mut long);
        assert_eq!(stems.known.len(), 10, "long words are not remembered");
        let mut w = "connections".to_string();
        stems.stem_in_place(&mut w);
        assert_eq!(w, "connect");
    }
}
