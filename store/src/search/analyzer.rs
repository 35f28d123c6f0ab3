//! The analyzer of every text field and of the words of a query, in one pass.
//!
//! What it does is tantivy's chain `SimpleTokenizer`, `RemoveLongFilter::limit(40)`,
//! `LowerCaser`, `AsciiFoldingFilter`, `Stemmer(English)`: split on anything that is not a
//! letter or digit, drop words of 40 bytes or more (they still take their position),
//! lower-case, fold accents, reduce English words to their stem. Run as that chain, each
//! layer walked every token again: the tokenizer decoded each character and copied the
//! word, then each filter looked at it once more. They took a fifth of an import's CPU
//! (perf over `radar items import` of news-sized items). Here an ASCII word is found
//! byte by byte, copied and lower-cased once, and goes straight to the remembering
//! stemmer of `stem`; a word with other characters is lower-cased and folded by
//! tantivy's own filters, so its tokens are theirs. The tests compare the two on every
//! kind of word.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, SimpleTokenizer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

use super::stem::Stems;

/// Words of this many bytes or more are left out (tantivy's `RemoveLongFilter::limit`).
const TOO_LONG: usize = 40;

/// The analyzer; register it, or wrap it in a `TextAnalyzer`.
#[derive(Clone)]
pub(crate) struct Analyzer {
    token: Token,
    stems: Stems,
    /// tantivy's lower-casing and folding, for the words that are not all ASCII.
    unicode: TextAnalyzer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            token: Token::default(),
            stems: Stems::default(),
            unicode: TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .build(),
        }
    }
}

impl Tokenizer for Analyzer {
    type TokenStream<'a> = Words<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Words<'a> {
        self.token.reset();
        Words {
            text,
            at: 0,
            token: &mut self.token,
            stems: &mut self.stems,
            unicode: &mut self.unicode,
        }
    }
}

/// The words of one text, each analysed as it is reached.
pub(crate) struct Words<'a> {
    text: &'a str,
    /// Where the rest of the text starts, in bytes.
    at: usize,
    token: &'a mut Token,
    stems: &'a mut Stems,
    unicode: &'a mut TextAnalyzer,
}

impl Words<'_> {
    /// The next run of letters and digits from `at`, and whether it is all ASCII.
    fn next_word(&mut self) -> Option<(usize, usize, bool)> {
        let from = self.skip(|c| !c.is_alphanumeric(), |b| !b.is_ascii_alphanumeric())?;
        self.at = from;
        let ascii_end = self.skip(char::is_alphanumeric, u8::is_ascii_alphanumeric);
        let to = ascii_end.unwrap_or(self.text.len());
        let ascii = self.text.as_bytes()[from..to].is_ascii();
        self.at = to;
        Some((from, to, ascii))
    }

    /// The offset of the first character from `at` that `keep_going` (or, for an ASCII
    /// byte, `keep_going_ascii`, its faster twin) does not accept; `None` at the end.
    fn skip(
        &self,
        keep_going: impl Fn(char) -> bool,
        keep_going_ascii: impl Fn(&u8) -> bool,
    ) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut i = self.at;
        while i < bytes.len() {
            if bytes[i].is_ascii() {
                if !keep_going_ascii(&bytes[i]) {
                    return Some(i);
                }
                i += 1;
            } else {
                let c = self.text[i..].chars().next()?;
                if !keep_going(c) {
                    return Some(i);
                }
                i += c.len_utf8();
            }
        }
        None
    }
}

impl TokenStream for Words<'_> {
    fn advance(&mut self) -> bool {
        loop {
            // Every word takes a position, a word left out too, as in tantivy's chain.
            self.token.position = self.token.position.wrapping_add(1);
            let Some((from, to, ascii)) = self.next_word() else {
                return false;
            };
            if to - from >= TOO_LONG {
                continue;
            }
            let word = &self.text[from..to];
            self.token.offset_from = from;
            self.token.offset_to = to;
            self.token.text.clear();
            if ascii {
                self.token.text.push_str(word);
                self.token.text.make_ascii_lowercase();
            } else {
                // The word is letters and digits alone, so tantivy's tokenizer finds it
                // whole, as one token.
                let mut folded = self.unicode.token_stream(word);
                if folded.advance() {
                    self.token.text.push_str(&folded.token().text);
                }
            }
            self.stems.stem_in_place(&mut self.token.text);
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{Language, RemoveLongFilter, Stemmer};

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        analyzer
            .token_stream(text)
            .process(&mut |t| out.push(t.clone()));
        out
    }

    fn tantivys_chain() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(TOO_LONG))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .filter(Stemmer::new(Language::English))
            .build()
    }

    #[test]
    fn tokens_are_those_of_tantivys_chain_whether_stems_are_remembered_or_not() {
        let mut ours = TextAnalyzer::from(Analyzer::default());
        let mut theirs = tantivys_chain();
        // Suffixes stripped, letters changed (happy → happi), capitals, digits, words
        // longer than a slot and longer than the limit (their position is kept), words
        // outside ASCII (accents folded, scripts kept, a capital that lower-cases to
        // two characters), punctuation of every kind, and text that starts and ends
        // inside a word.
        let text = "Running models were DISTILLED; the runner runs, connections connected \
                    fruitlessly. Happy happily generously generous agreed agreement. GPT-4o \
                    and o3-mini at 10:30 re:invent U.S. internationalization-internationalizations \
                    pneumonoultramicroscopicsilicovolcanoconiosis x naïve café Ärger ÉCOLE \
                    İstanbul ΣΊΣΥΦΟΣ 東京タワー überdurchschnittlichkeiten fiancée’s “quoted” \
                    — dash…ellipsis\ttab\nnewline ½ ²³ x²y Ⅻ ｆｕｌｌｗｉｄｔｈ end";
        let first = tokens(&mut ours, text);
        assert_eq!(first, tokens(&mut theirs, text));
        assert!(first.iter().any(|t| t.text == "happi"), "{first:?}");
        assert!(first.iter().any(|t| t.text == "naiv"), "{first:?}");
        // Past the stemmer's warm-up, and twice over: the second pass is served from
        // its table.
        for _ in 0..=super::super::stem::WARM_UP as usize / first.len() {
            tokens(&mut ours, text);
        }
        assert_eq!(tokens(&mut ours, text), first);
        assert_eq!(tokens(&mut ours, text), first);
        for edge in [
            "",
            " ",
            "word",
            "...",
            "é",
            "a b",
            "ÉÉ,é",
            &"long".repeat(10),
        ] {
            assert_eq!(
                tokens(&mut ours, edge),
                tokens(&mut theirs, edge),
                "{edge:?}"
            );
        }
    }

    #[test]
    fn every_character_below_0x3000_splits_and_folds_as_in_tantivy() {
        let mut ours = TextAnalyzer::from(Analyzer::default());
        let mut theirs = tantivys_chain();
        // Every character of the first 0x3000 code points, each between two words, so
        // each is seen as a separator or as part of a word.
        let mut text = String::new();
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            text.push_str("ab");
            text.push(c);
            text.push_str("Cd ");
        }
        assert_eq!(tokens(&mut ours, &text), tokens(&mut theirs, &text));
    }
}
