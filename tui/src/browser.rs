//! Which command opens a link: `$BROWSER`, else the platform's opener.
//!
//! `$BROWSER` follows the usual convention: a `:`-separated list of commands, tried in
//! order until one starts. Each command is split into words as a POSIX shell would
//! (quotes and backslashes, no expansion; [`shlex`], which the build already carries for
//! `cc`, so no new crate), so `firefox --new-tab` and `"my browser" --private` work.
//! `%u` (or the older `%s`) in a word is replaced by the URL, `%%` by `%`; a command
//! without either gets the URL as its last argument.

/// One command to try: the program and its arguments, the URL already in them.
pub type Launch = Vec<String>;

/// The commands to try, in order, for `url`, given `$BROWSER`'s value (`None` when it
/// is unset). An empty `$BROWSER` (or only separators) means the platform's opener.
pub fn commands(browser: Option<&str>, url: &str) -> Result<Vec<Launch>, String> {
    let mut launches = Vec::new();
    for entry in browser.unwrap_or_default().split(':') {
        let words = shlex::split(entry).ok_or_else(|| {
            format!("$BROWSER entry {entry:?} has an unclosed quote or ends in a backslash")
        })?;
        if words.is_empty() {
            continue;
        }
        let mut placed = false;
        let mut launch: Launch = words
            .iter()
            .map(|word| {
                let (word, has_url) = substitute(word, url);
                placed |= has_url;
                word
            })
            .collect();
        if !placed {
            launch.push(url.to_string());
        }
        launches.push(launch);
    }
    if launches.is_empty() {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        launches.push(vec![opener.to_string(), url.to_string()]);
    }
    Ok(launches)
}

/// `word` with `%u`/`%s` replaced by `url` and `%%` by `%`; answers whether the URL went in.
fn substitute(word: &str, url: &str) -> (String, bool) {
    let mut out = String::with_capacity(word.len());
    let mut placed = false;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('u' | 's')) => {
                chars.next();
                out.push_str(url);
                placed = true;
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            (c, _) => out.push(c),
        }
    }
    (out, placed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://example.com/a?b=c&d=%20";

    fn words(list: &[&str]) -> Launch {
        list.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn arguments_are_split_like_a_shell_and_the_url_appended() {
        assert_eq!(
            commands(Some("firefox --new-tab"), URL).unwrap(),
            [words(&["firefox", "--new-tab", URL])]
        );
        assert_eq!(
            commands(
                Some("'/opt/my browser/run' --profile \"work stuff\" -x\\ y"),
                URL
            )
            .unwrap(),
            [words(&[
                "/opt/my browser/run",
                "--profile",
                "work stuff",
                "-x y",
                URL
            ])]
        );
    }

    #[test]
    fn percent_u_places_the_url() {
        assert_eq!(
            commands(Some("browser --url=%u --new-window"), URL).unwrap(),
            [vec![
                "browser".to_string(),
                format!("--url={URL}"),
                "--new-window".to_string()
            ]]
        );
        // The older %s works too; %% is a percent sign and not the URL.
        assert_eq!(
            commands(Some("w3m %s"), URL).unwrap(),
            [words(&["w3m", URL])]
        );
        assert_eq!(
            commands(Some("echo 100%% %u"), URL).unwrap(),
            [words(&["echo", "100%", URL])]
        );
        assert_eq!(
            commands(Some("echo 100%%u"), URL).unwrap(),
            [words(&["echo", "100%u", URL])]
        );
        // A percent sign of the URL itself is not read again.
        assert_eq!(
            commands(Some("b %u"), "x%u").unwrap(),
            [words(&["b", "x%u"])]
        );
    }

    #[test]
    fn a_list_is_tried_in_order_and_empty_means_the_opener() {
        assert_eq!(
            commands(Some("firefox --new-tab %u:lynx"), URL).unwrap(),
            [words(&["firefox", "--new-tab", URL]), words(&["lynx", URL])]
        );
        let opener = commands(None, URL).unwrap();
        assert_eq!(opener.len(), 1);
        assert_eq!(opener[0][1], URL);
        assert_eq!(commands(Some(" : "), URL).unwrap(), opener);
        assert_eq!(commands(Some(""), URL).unwrap(), opener);
    }

    #[test]
    fn an_unclosed_quote_is_an_error_naming_the_entry() {
        let e = commands(Some("firefox 'new tab"), URL).unwrap_err();
        assert_eq!(
            e,
            "$BROWSER entry \"firefox 'new tab\" has an unclosed quote or ends in a backslash"
        );
    }
}
