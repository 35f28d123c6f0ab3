//! How admin answers are printed: aligned tables for people, JSON (`--json`) for scripts.
//!
//! Everything goes through [`out!`], never `println!`: `println!` panics when the reader
//! closed the pipe (`radar items list | head -1`), where a Unix tool stops quietly. The
//! write error travels up like any other and `main` ends with status 0 on a broken pipe.

use chrono::{DateTime, Utc};
use radar_daemon::admin::AdminResponse;

/// `println!` that answers the write's `std::io::Result` instead of panicking.
macro_rules! out {
    () => {{
        use std::io::Write as _;
        writeln!(std::io::stdout())
    }};
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)
    }};
}
pub(crate) use out;

/// Whether an error is stdout's reader having gone away: not a failure of the command.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints the answer's data as pretty JSON (`--json`).
pub fn json(answer: &AdminResponse) -> anyhow::Result<()> {
    let value = serde_json::to_value(answer)?;
    out!("{}", serde_json::to_string_pretty(&value["data"])?)?;
    Ok(())
}

/// A table printed with columns aligned to their widest cell.
pub struct Table {
    headers: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers.
    pub fn new(headers: &[&'static str]) -> Self {
        Self {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Prints the table, or `empty` when there are no rows.
    pub fn print(&self, empty: &str) -> std::io::Result<()> {
        if self.rows.is_empty() {
            return out!("{empty}");
        }
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let line = |cells: Vec<&str>| {
            let last = cells.len().saturating_sub(1);
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i == last {
                        c.to_string()
                    } else {
                        format!("{c:<w$}", w = widths[i])
                    }
                })
                .collect();
            out!("{}", parts.join("  ").trim_end())
        };
        line(self.headers.clone())?;
        for row in &self.rows {
            line(row.iter().map(String::as_str).collect())?;
        }
        Ok(())
    }
}

/// A date-time as `2026-11-22 10:04`.
pub fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// An optional date-time, `-` when absent.
pub fn maybe(t: Option<DateTime<Utc>>) -> String {
    t.map_or_else(|| "-".to_string(), when)
}

/// `s` cut to `n` characters with an ellipsis.
pub fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// When a subscription ends: `through 2027-01-31` when it ends at a midnight UTC (the
/// form `--until DATE` gives), else the instant.
pub fn until(t: DateTime<Utc>) -> String {
    use chrono::Timelike;
    if t.num_seconds_from_midnight() == 0 && t.nanosecond() == 0 {
        format!("through {}", (t - chrono::Duration::days(1)).date_naive())
    } else {
        format!("until {}", when(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscription_ends_read_as_days() {
        let t: DateTime<Utc> = "2027-02-01T00:00:00Z".parse().unwrap();
        assert_eq!(until(t), "through 2027-01-31");
        let t: DateTime<Utc> = "2027-02-01T10:30:00Z".parse().unwrap();
        assert_eq!(until(t), "until 2027-02-01 10:30");
        assert_eq!(cut("abcdef", 4), "abc…");
    }
}
