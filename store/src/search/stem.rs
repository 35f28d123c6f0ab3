//! The English stemmer of the search analyzer, with a small memory of the words it
//! stemmed last.
//!
//! Snowball stemming took over a third of the indexing threads' time (perf over
//! `bash bench/search.sh`), and text repeats its words: most tokens were stemmed a moment
//! before. A memory only pays if a lookup costs less than stemming, so it is one flat
//! table of fixed-size slots, each holding a word and its stem inline, found by the word's
//! hash: a lookup touches one cache line and never follows a pointer. A slot keeps the
//! stem as how much of the word it keeps and the few bytes that follow, so slots are 32
//! bytes and the table 1 MB. A word that hashes to a taken slot replaces its occupant.
//! The stems are those of tantivy's own `Stemmer` filter: the same Snowball English
//! stemmer, called the same way (`analyzer`'s tests compare the two).

use std::hash::Hasher;

use rustc_hash::FxHasher;

/// Slots of the table: a power of two.
const SLOTS: usize = 32_768;
/// Words a copy stems before it makes its table. Indexing stems millions of words per
/// copy; a query, or the highlighting of a page of results, a few thousand, for which
/// making the table (1 MB, its pages faulted in as words land on them) would cost more
/// than it saves: measured, it added a millisecond to each search.
pub(crate) const WARM_UP: u32 = 20_000;
/// Longest word kept, in bytes; longer words are stemmed each time.
const LONGEST: usize = 23;
/// Longest change a stem makes after the part of the word it keeps ("ational" becomes
/// "ate", "ies" "i", "hoping" "hope"), in bytes; a word whose stem changes more is
/// stemmed each time.
const TAIL: usize = 6;
/// A slot of 32 bytes: the word's length (0 for an empty slot: the tokenizer never makes an
/// empty token), how many of its bytes the stem keeps, the length of the stem's tail, the
/// tail, the word.
const SLOT: usize = 3 + TAIL + LONGEST;

/// The stemmer and its table, made after [`WARM_UP`] words.
pub(crate) struct Stems {
    stemmer: frostem::Stemmer,
    table: Vec<u8>,
    /// Words stemmed before the table was made.
    uncached: u32,
}

impl Default for Stems {
    fn default() -> Self {
        Self {
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
            table: Vec::new(),
            uncached: 0,
        }
    }
}

/// A copy starts with nothing remembered: tantivy copies the analyzer for each segment it
/// writes and each query parses with a fresh one, and copying a filled table would cost
/// more than refilling it.
impl Clone for Stems {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Stems {
    /// Replaces `word` by its stem. `word` must be lower-cased first. frostem answers `Cow::Borrowed` only when the stem is
    /// the word itself, so only an owned answer replaces it.
    pub(crate) fn stem_in_place(&mut self, word: &mut String) {
        let len = word.len();
        if len == 0 || len > LONGEST {
            self.stem_uncached(word);
            return;
        }
        if self.table.is_empty() {
            if self.uncached < WARM_UP {
                self.uncached += 1;
                self.stem_uncached(word);
                return;
            }
            self.table = vec![0; SLOTS * SLOT];
        }
        let mut hash = FxHasher::default();
        hash.write(word.as_bytes());
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a hash's low bits pick the slot"
        )]
        let at = (hash.finish() as usize & (SLOTS - 1)) * SLOT;
        let slot = &mut self.table[at..at + SLOT];
        let (head, known) = slot.split_at_mut(3 + TAIL);
        if usize::from(head[0]) == len && &known[..len] == word.as_bytes() {
            let (keep, tail) = (usize::from(head[1]), &head[3..3 + usize::from(head[2])]);
            if let Ok(tail) = std::str::from_utf8(tail)
                && word.is_char_boundary(keep)
            {
                word.truncate(keep);
                word.push_str(tail);
                return;
            }
        }
        let stemmed = self.stemmer.stem(word);
        // The stem as the part of the word it keeps and what follows that.
        let mut keep = word
            .bytes()
            .zip(stemmed.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !word.is_char_boundary(keep) {
            keep -= 1;
        }
        let tail = &stemmed.as_bytes()[keep..];
        if tail.len() <= TAIL {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "keep <= len <= LONGEST (23), tail <= TAIL (6)"
            )]
            let lengths = [len as u8, keep as u8, tail.len() as u8];
            head[..3].copy_from_slice(&lengths);
            head[3..3 + tail.len()].copy_from_slice(tail);
            known[..len].copy_from_slice(word.as_bytes());
        }
        if let std::borrow::Cow::Owned(stemmed) = stemmed {
            *word = stemmed;
        }
    }

    fn stem_uncached(&self, word: &mut String) {
        if let std::borrow::Cow::Owned(stemmed) = self.stemmer.stem(word) {
            *word = stemmed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_that_takes_another_words_slot_gets_its_own_stem() {
        let mut stems = Stems {
            uncached: WARM_UP,
            ..Stems::default()
        };
        let stem = |stems: &mut Stems, w: &str| {
            let mut w = w.to_string();
            stems.stem_in_place(&mut w);
            w
        };
        let snowball = frostem::Stemmer::new(frostem::Algorithm::English);
        // Far more words than slots: every slot is taken over many times.
        for i in 0..SLOTS * 4 {
            let w = format!("walk{i}ings");
            let expected = snowball.stem(&w).into_owned();
            assert_ne!(expected, w);
            assert_eq!(stem(&mut stems, &w), expected);
            assert_eq!(stem(&mut stems, &w), expected, "remembered");
        }
        assert_eq!(stem(&mut stems, "connections"), "connect");
        assert_eq!(stem(&mut stems, "connections"), "connect");
        assert_eq!(stems.table.len(), SLOTS * SLOT, "the table never grows");
    }
}
