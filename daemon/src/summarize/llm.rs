//! The optional LLM summariser: one call to an OpenAI-compatible
//! `POST {RADAR_LLM_URL}/chat/completions` with `RADAR_LLM_MODEL` and the bearer key
//! `RADAR_LLM_KEY`, within `RADAR_LLM_TIMEOUT` seconds (default 60). Any failure is an
//! error string; the caller falls back to the local summariser.

use std::time::Duration;

use radar_store::display::strip_citations;
use radar_store::{KeyPoint, NewsItem};
use serde_json::json;

use super::Draft;
use super::week::Week;
use crate::ingest::clean::truncate_words;

/// Where and how to call the model.
#[derive(Clone)]
pub struct LlmConfig {
    /// Base URL, e.g. `https://api.example.com/v1` (without `/chat/completions`).
    pub url: String,
    /// Model name.
    pub model: String,
    /// Bearer key (never logged).
    pub key: String,
    /// Whole-request timeout.
    pub timeout: Duration,
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "secrets and connections are left out on purpose"
)]
impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl LlmConfig {
    /// The configuration from `RADAR_LLM_URL`, `RADAR_LLM_MODEL`, `RADAR_LLM_KEY` and
    /// `RADAR_LLM_TIMEOUT`; none unless the first three are all set.
    pub fn from_env() -> Option<Self> {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let timeout = var("RADAR_LLM_TIMEOUT")
            .and_then(|t| t.parse().ok())
            .unwrap_or(60);
        Some(Self {
            url: var("RADAR_LLM_URL")?,
            model: var("RADAR_LLM_MODEL")?,
            key: var("RADAR_LLM_KEY")?,
            timeout: Duration::from_secs(timeout),
        })
    }
}

/// Most characters of item text sent to the model.
const PROMPT_BUDGET: usize = 60_000;

const SYSTEM: &str = "You write the weekly AI news summary of a news reader for professionals. \
Use only the items given. Write plain text without markdown: first a line 'Title: ' followed by a \
headline of at most 80 characters saying what the week was about, then one paragraph of two or three \
sentences giving the gist of the week, then three to six paragraphs, each on one theme, separated by \
blank lines. Follow each story you mention with its source link in parentheses, as given.";

/// Most stories listed in the sources paragraph added under the model's text.
const MAX_SOURCES: usize = 30;

fn prompt(items: &[NewsItem], week: &Week) -> String {
    let mut s = format!(
        "Items published in ISO week {} ({} to {}):\n",
        week.label(),
        week.start().date_naive(),
        week.last_second().date_naive()
    );
    let per_item = (PROMPT_BUDGET / items.len().max(1)).clamp(200, 2000);
    for i in items {
        let line = format!(
            "- {} | {} | {} | {}\n",
            i.published_date.date_naive(),
            i.title,
            i.url.as_deref().unwrap_or("no link"),
            truncate_words(&strip_citations(&i.summary), per_item)
        );
        if s.len() + line.len() > PROMPT_BUDGET {
            break;
        }
        s.push_str(&line);
    }
    s
}

/// Asks the model for the week's summary.
pub async fn summarize(
    http: &reqwest::Client,
    cfg: &LlmConfig,
    items: &[NewsItem],
    week: &Week,
) -> Result<Draft, String> {
    let text = complete(http, cfg, SYSTEM, &prompt(items, week)).await?;
    let mut d = draft(&text)?;
    d.content.extend(sources(items));
    Ok(d)
}

const KEY_POINTS_SYSTEM: &str = "You write 'All You Need to Know', the week's biggest AI news \
stories in one sentence each, for professionals. Use only the reports given. For each numbered \
story write one plain sentence of at most 40 words saying what happened and why it matters, without \
links or markdown. Answer with exactly one line per story, in the order given, each starting with \
the story's number and a period.";

/// Asks the model to tell each of the week's biggest stories (`points`, chosen and
/// sourced by the local ranking) in one sentence of its own, from the reports behind it.
/// Answers one sentence per point, in order; anything else is an error and the caller
/// keeps the extractive sentences.
pub async fn key_point_sentences(
    http: &reqwest::Client,
    cfg: &LlmConfig,
    points: &[KeyPoint],
    items: &[NewsItem],
) -> Result<Vec<String>, String> {
    let mut prompt = String::from("The week's biggest stories, each with its reports:\n");
    for (n, point) in points.iter().enumerate() {
        prompt.push_str(&format!("{}. {}\n", n + 1, point.text));
        for source in &point.sources {
            if let Some(item) = items.iter().find(|i| i.url.as_deref() == Some(&source.url)) {
                prompt.push_str(&format!(
                    "   - {}: {} | {}\n",
                    source.name,
                    item.title,
                    truncate_words(&strip_citations(&item.summary), 400)
                ));
            }
        }
    }
    let text = complete(http, cfg, KEY_POINTS_SYSTEM, &prompt).await?;
    numbered_lines(&text, points.len())
}

/// The `count` sentences of an answer numbered `1.` to `count.` (or `1)`), one per line,
/// in order; an error when any is missing, empty or out of order.
fn numbered_lines(text: &str, count: usize) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(count);
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((number, rest)) = line.split_once(['.', ')']) else {
            continue;
        };
        if number.trim().parse::<usize>().ok() != Some(out.len() + 1) {
            continue;
        }
        let sentence = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        if sentence.is_empty() {
            break;
        }
        out.push(truncate_words(&sentence, 400));
        if out.len() == count {
            return Ok(out);
        }
    }
    Err(format!(
        "the LLM told {} of the {count} key points, one per numbered line",
        out.len()
    ))
}

/// One chat completion: the model's text for a system and a user message.
async fn complete(
    http: &reqwest::Client,
    cfg: &LlmConfig,
    system: &str,
    user: &str,
) -> Result<String, String> {
    let url = endpoint(&cfg.url);
    let body = json!({
        "model": cfg.model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
        "temperature": 0.2,
    });
    let res = http
        .post(&url)
        .bearer_auth(&cfg.key)
        .timeout(cfg.timeout)
        .json(&body)
        .send()
        .await
        .map_err(|e| {
            if e.is_timeout() {
                format!("the LLM did not answer within {} s", cfg.timeout.as_secs())
            } else {
                format!("cannot reach the LLM at {url}: {e}")
            }
        })?;
    let status = res.status();
    if !status.is_success() {
        let text = res.text().await.unwrap_or_default();
        return Err(format!(
            "the LLM answered {status}: {}",
            truncate_words(text.trim(), 200)
        ));
    }
    let answer: serde_json::Value = res
        .json()
        .await
        .map_err(|e| format!("the LLM's answer is not JSON: {e}"))?;
    answer["choices"][0]["message"]["content"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "the LLM's answer has no choices[0].message.content".to_string())
}

/// A last paragraph linking the week's stories to their sources, so the content leads to
/// every original whatever the model wrote: "Sources: Title (https://...); ...".
fn sources(items: &[NewsItem]) -> Option<String> {
    let linked: Vec<String> = items
        .iter()
        .filter_map(|i| Some(format!("{} ({})", i.title, i.url.as_deref()?)))
        .take(MAX_SOURCES)
        .collect();
    (!linked.is_empty()).then(|| format!("Sources: {}.", linked.join("; ")))
}

/// The chat-completions URL of a base URL (given with or without the path).
fn endpoint(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    }
}

/// Splits the model's text into the title (a first line `Title: ...`, if any), the summary
/// (first paragraph) and content paragraphs.
fn draft(text: &str) -> Result<Draft, String> {
    let text = text.replace("\r\n", "\n");
    let text = text.trim_start();
    let (title, text) = match text.split_once('\n') {
        Some((first, rest)) if first.trim_start().to_lowercase().starts_with("title:") => {
            let title = first.trim_start()["title:".len()..]
                .trim()
                .trim_matches(['"', '*', '#'])
                .trim();
            (
                Some(truncate_words(title, 120)).filter(|t| !t.is_empty()),
                rest,
            )
        }
        _ => (None, text),
    };
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    let (summary, rest) = paragraphs
        .split_first()
        .ok_or("the LLM answered an empty text")?;
    let content = if rest.is_empty() {
        vec![summary.clone()]
    } else {
        rest.to_vec()
    };
    Ok(Draft {
        title,
        summary: summary.clone(),
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_found_with_or_without_its_path() {
        assert_eq!(
            endpoint("https://api.example/v1/"),
            "https://api.example/v1/chat/completions"
        );
        assert_eq!(
            endpoint("https://api.example/v1/chat/completions"),
            "https://api.example/v1/chat/completions"
        );
    }

    #[test]
    fn key_points_are_one_numbered_line_each_in_order() {
        let got = numbered_lines(
            "Here they are:\n1. First  story.\n\n2) Second story.\n3. Third.\nThanks.",
            3,
        );
        assert_eq!(got.unwrap(), ["First story.", "Second story.", "Third."]);
        assert!(numbered_lines("1. One.\n3. Three.", 2).is_err(), "a gap");
        assert!(numbered_lines("1. One.\n2.", 2).is_err(), "an empty one");
        assert!(numbered_lines("1. One.", 2).is_err(), "too few");
        assert!(numbered_lines("One.\nTwo.", 2).is_err(), "not numbered");
    }

    #[test]
    fn the_first_paragraph_is_the_summary() {
        let d = draft("Gist of the week.\r\n\r\nModels did  things.\n\n\n\nChips too.\n").unwrap();
        assert_eq!(d.summary, "Gist of the week.");
        assert_eq!(d.content, ["Models did things.", "Chips too."]);
        assert_eq!(d.title, None);
        assert_eq!(draft("Only one.").unwrap().content, ["Only one."]);
        let titled = draft("Title: Agents grow up\nGist.\n\nTheme one.").unwrap();
        assert_eq!(titled.title.as_deref(), Some("Agents grow up"));
        assert_eq!(titled.summary, "Gist.");
        assert_eq!(titled.content, ["Theme one."]);
        assert!(draft(" \n\n ").is_err());
    }
}
