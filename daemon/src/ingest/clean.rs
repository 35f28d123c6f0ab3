//! HTML to clean text: feeds put markup, entities and scripts in their summaries; readers
//! get paragraphs of plain text.
//!
//! A small tag stripper rather than a full HTML parser: block-level tags become paragraph
//! breaks, `<br>` a line break, `script`/`style` content is dropped, entities are decoded
//! and runs of white space collapse. Malformed markup degrades to text, never to a panic.

use radar_store::display::strip_citations;

/// Block-level elements: their start and end break paragraphs.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figure",
    "figcaption",
    "hr",
    "dl",
    "dt",
    "dd",
    "aside",
    "main",
    "nav",
];

/// Elements whose content is never text for readers.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "svg", "head",
];

/// Turns an HTML fragment into plain text: paragraphs separated by a blank line, each
/// paragraph on one line with single spaces.
pub fn html_to_text(html: &str) -> String {
    let mut raw = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        raw.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        // A comment runs to `-->`, whatever it contains.
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(gt) = tag_end(after) else {
            // A lone '<' (as in "a < b") is text.
            raw.push('<');
            rest = after;
            continue;
        };
        let tag = &after[..gt];
        rest = &after[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            // `<!DOCTYPE>`, `<?xml?>`, `< b`: not an element, nothing to keep.
            if !tag.starts_with('!') && !tag.starts_with('?') {
                raw.push('<');
                raw.push_str(tag);
                raw.push('>');
            }
            continue;
        }
        if !closing && DROPPED.contains(&name.as_str()) && !tag.ends_with('/') {
            rest = skip_element(rest, &name);
            continue;
        }
        if name == "br" {
            raw.push('\n');
        } else if BLOCKS.contains(&name.as_str()) {
            raw.push_str("\n\n");
        } else if matches!(name.as_str(), "td" | "th") {
            raw.push(' ');
        }
    }
    raw.push_str(rest);
    normalize_space(&cp1252_controls(&decode_entities(&raw)))
}

/// C1 control characters (U+0080 to U+009F) read as the windows-1252 characters at those
/// bytes, as browsers do: they come from `&#147;`-style references and from cp1252 text
/// labelled Latin-1, and almost always mean curly quotes and dashes. The five that
/// windows-1252 leaves undefined are dropped.
fn cp1252_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
        return s.into();
    }
    s.chars()
        .filter_map(|c| match u8::try_from(u32::from(c)) {
            Ok(byte @ 0x80..=0x9f) => {
                let bytes = [byte];
                let (decoded, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
                decoded.chars().next().filter(|d| !d.is_control())
            }
            _ => Some(c),
        })
        .collect::<String>()
        .into()
}

/// Where a tag that starts after '<' ends ('>' outside quotes), if it looks like a tag.
fn tag_end(s: &str) -> Option<usize> {
    let first = s.chars().next()?;
    if !(first.is_ascii_alphabetic() || matches!(first, '/' | '!' | '?')) {
        return None;
    }
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The text after the end tag of `name` (case-insensitive); all of it is dropped.
fn skip_element<'a>(s: &'a str, name: &str) -> &'a str {
    let lower = s.to_ascii_lowercase();
    let close = format!("</{name}");
    match lower.find(&close) {
        Some(at) => s[at..].find('>').map_or("", |gt| &s[at + gt + 1..]),
        None => "",
    }
}

/// Decodes character references: the common named ones and every numeric one.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after.find(';').filter(|&e| e > 0 && e <= 10);
        let decoded = end.and_then(|e| entity(&after[..e]));
        if let (Some(e), Some(c)) = (end, decoded) {
            out.push(c);
            rest = &after[e + 1..];
        } else {
            out.push('&');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| *c != '\0');
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "hellip" => '…',
        "mdash" => '—',
        "ndash" => '–',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "bull" => '•',
        "middot" => '·',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "euro" => '€',
        "pound" => '£',
        "deg" => '°',
        "times" => '×',
        _ => return None,
    })
}

/// Collapses white space inside paragraphs; paragraphs are separated by one blank line.
fn normalize_space(s: &str) -> String {
    s.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Splits text into sentences: at '.', '!' or '?' (with closing quotes or brackets)
/// followed by white space and a capital, digit or quote. Common abbreviations, initials
/// and decimals do not end a sentence.
pub fn sentences(text: &str) -> Vec<String> {
    const ABBREVIATIONS: &[&str] = &[
        "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "corp",
        "jr", "sr", "st", "no", "approx",
    ];
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        if matches!(c, '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len()
                && matches!(
                    chars[j].1,
                    '"' | '\'' | '”' | '’' | ')' | ']' | '.' | '!' | '?'
                )
            {
                j += 1;
            }
            let end_byte = chars.get(j).map_or(text.len(), |(b, _)| *b);
            let next_starts = chars[j..]
                .iter()
                .skip_while(|(_, c)| c.is_whitespace())
                .map(|(_, c)| *c)
                .next();
            let has_space = chars.get(j).is_some_and(|(_, c)| c.is_whitespace());
            let boundary = match next_starts {
                None => true,
                Some(n) => {
                    has_space
                        && (n.is_uppercase()
                            || n.is_ascii_digit()
                            || matches!(n, '"' | '“' | '‘' | '('))
                }
            };
            if boundary && c == '.' {
                let word: String = text[start..chars[i].0]
                    .rsplit(|ch: char| ch.is_whitespace() || ch == '(')
                    .next()
                    .unwrap_or("")
                    .to_lowercase();
                let initial = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
                if ABBREVIATIONS.contains(&word.as_str())
                    || initial
                    || (word.contains('.') && word.len() <= 4)
                {
                    i = j;
                    continue;
                }
            }
            if boundary {
                let s = text[start..end_byte].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = end_byte;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    let tail = text[start..].trim();
    if !tail.is_empty() {
        out.push(tail.to_string());
    }
    out
}

/// Longest `short` text, in characters.
pub const SHORT_MAX: usize = 200;

/// The brief text for Drops when a feed gives none: the summary's first sentence without
/// citation markers, cut on a word boundary with an ellipsis if it exceeds 200 characters.
pub fn derive_short(summary: &str) -> String {
    let clean = strip_citations(summary);
    let first = sentences(&clean).into_iter().next().unwrap_or_default();
    truncate_words(&first, SHORT_MAX)
}

/// `s` cut to at most `max` characters on a word boundary, with '…' when cut.
pub fn truncate_words(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max - 1).collect();
    let at_word = match cut.rfind(char::is_whitespace) {
        Some(at) if at > max / 2 => &cut[..at],
        _ => &cut[..],
    };
    format!("{}…", at_word.trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_and_keeps_paragraphs() {
        let html = "<p>Hello <b>world</b>!</p><p>Second&nbsp;para<br/>line two</p>";
        assert_eq!(html_to_text(html), "Hello world!\n\nSecond para line two");
        assert_eq!(
            html_to_text("<div><ul><li>One</li><li>Two</li></ul></div>"),
            "One\n\nTwo"
        );
    }

    #[test]
    fn drops_scripts_styles_and_comments() {
        let html = "<style>p{color:red}</style>Text<script>alert('<p>x</p>')</script> more<!-- <p>hidden</p> -->.";
        assert_eq!(html_to_text(html), "Text more.");
        assert_eq!(html_to_text("<SCRIPT type=x>bad()</SCRIPT>ok"), "ok");
    }

    #[test]
    fn decodes_entities_and_survives_bad_markup() {
        assert_eq!(
            html_to_text("AT&amp;T &lt;3 &#8220;quotes&#x201D; &unknown; & more"),
            "AT&T <3 “quotes” &unknown; & more"
        );
        assert_eq!(html_to_text("a < b and c > d"), "a < b and c > d");
        assert_eq!(html_to_text("<p unterminated"), "<p unterminated");
        assert_eq!(html_to_text("<a href=\"x>y\">link</a> text"), "link text");
        assert_eq!(
            html_to_text("&#0; &#xFFFFFFFF; fine"),
            "&#0; &#xFFFFFFFF; fine"
        );
        assert_eq!(html_to_text(""), "");
    }

    #[test]
    fn cp1252_references_and_controls_become_quotes() {
        // Regression (issue 15): cp1252 quotes stayed as control characters.
        assert_eq!(
            html_to_text("&#147;Hi&#148; it&#146;s \u{93}here\u{94} \u{96} now\u{81}"),
            "\u{201c}Hi\u{201d} it\u{2019}s \u{201c}here\u{201d} \u{2013} now"
        );
    }

    #[test]
    fn splits_sentences_but_not_abbreviations_or_decimals() {
        let s = sentences(
            "OpenAI released GPT-5.5 today. It costs $2.50 per million tokens, e.g. for chat. Dr. Smith agreed! Is it U.S. only? No.",
        );
        assert_eq!(
            s,
            [
                "OpenAI released GPT-5.5 today.",
                "It costs $2.50 per million tokens, e.g. for chat.",
                "Dr. Smith agreed!",
                "Is it U.S. only?",
                "No."
            ]
        );
        assert_eq!(
            sentences("He said \"stop.\" Then left."),
            ["He said \"stop.\"", "Then left."]
        );
        assert_eq!(
            sentences("no terminal punctuation"),
            ["no terminal punctuation"]
        );
        assert!(sentences("  ").is_empty());
    }

    #[test]
    fn short_is_the_first_sentence_within_200_chars() {
        assert_eq!(
            derive_short("Chips got faster [1]. More follows."),
            "Chips got faster."
        );
        let long = format!("{}.", "word ".repeat(80).trim());
        let short = derive_short(&long);
        assert!(
            short.chars().count() <= SHORT_MAX,
            "{}",
            short.chars().count()
        );
        assert!(short.ends_with('…') && !short.contains("wor…"));
        assert_eq!(derive_short(""), "");
    }

    #[test]
    fn never_panics_on_odd_input() {
        // A small deterministic generator over the characters that matter to the parsers.
        let alphabet: Vec<char> = "<>&;#x/!?-.\"' aZ9éé…\n[1]pscriptSTYLE=".chars().collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2_000 {
            let len = usize::try_from(seed % 40).unwrap();
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[usize::try_from(seed % alphabet.len() as u64).unwrap()]
                })
                .collect();
            let clean = html_to_text(&text);
            let _ = sentences(&clean);
            let _ = sentences(&text);
            assert!(derive_short(&text).chars().count() <= SHORT_MAX);
        }
    }
}
