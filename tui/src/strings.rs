//! Every text the terminal reader shows, in one place, so wording stays consistent with
//! the web app (docs/product.md §2 and §8 give most of them) and can be reviewed at once.

/// The product name in the header.
pub const TITLE: &str = "Radar";
/// The header title for signed-in subscribers.
pub const TITLE_PREMIUM: &str = "Radar Premium";

/// Tab labels, in the order of their number keys.
pub const TAB_FEED: &str = "Feed";
/// Drops tab.
pub const TAB_DROPS: &str = "Drops";
/// TV mode tab.
pub const TAB_TV: &str = "TV";
/// Favourites tab.
pub const TAB_FAVS: &str = "Favs";
/// Read items tab.
pub const TAB_READ: &str = "Read";
/// Hidden items tab.
pub const TAB_TRASH: &str = "Trash";
/// Shared items tab.
pub const TAB_SHARED: &str = "Shared";
/// The Alerts tab.
pub const TAB_ALERTS: &str = "Alerts";

/// Header, right side, when nobody is signed in.
pub fn signed_out_hint(sign_in: &str) -> String {
    format!("Not signed in · {sign_in}: sign in")
}

/// Bottom line when there is no message, with the keys in force ("?: help · q: quit").
pub fn key_hint(help: &str, quit: &str) -> String {
    format!("{help}: help · {quit}: quit")
}

// ---- Feed ----
/// While the feed loads.
pub const LOADING_NEWS: &str = "Loading news…";
/// Title of the feed's error state.
pub const ERROR_LOADING_NEWS: &str = "Error loading news";
/// Shown under every error state, with the reload key in force ("Press r to try again.").
pub fn retry_hint(reload: &str) -> String {
    format!("Press {reload} to try again.")
}
/// The feed and Drops with nothing to show.
pub const NO_NEWS: &str = "No news items available";
/// Footer of the feed for subscribers while more items remain (after its key).
pub const READ_MORE: &str = "Read More";
/// Footer of the feed while the next page loads.
pub const LOADING_MORE: &str = "Loading…";
/// Footer of the feed for free and anonymous readers while more items remain.
pub const SUBSCRIBE_NOW: &str = "Subscribe Now";
/// Where to subscribe, after [`SUBSCRIBE_NOW`].
pub fn subscribe_at(server: &str) -> String {
    format!("{}/subscribe", server.trim_end_matches('/'))
}
/// Read More when the server offers no next page but has more: the reader's allowance.
pub const MORE_IS_PREMIUM: &str = "Read More is for subscribers. Subscribe Now to read on.";
/// Nothing more to load.
pub const NO_MORE: &str = "You are all caught up.";

// ---- Item details ----
/// Source name when the URL gives none.
pub const SOURCE: &str = "Source";
/// Items without a URL.
pub const NO_SOURCE_URL: &str = "No source URL";
/// Before the URL in the detail pane.
pub const MORE: &str = "More";
/// How many outlets report a story, its card's own included ("5 sources").
pub fn sources(n: u32) -> String {
    format!("{n} source{}", if n == 1 { "" } else { "s" })
}
/// The heading of a story's other outlets in the reader.
pub const OTHER_SOURCES: &str = "Other sources";
/// One of a story's other outlets in the reader ("Reuters — Amazon doubles …").
pub fn outlet(source: &str, title: &str) -> String {
    format!("{source} — {title}")
}
/// Marker of a favourite in lists.
pub const MARK_FAVORITE: &str = "♥";
/// Marker of a read item in lists.
pub const MARK_READ: &str = "✓";
/// Beside the favourite marker in the detail pane.
pub const FAVOURITE: &str = "Favourite";
/// Beside the read marker in the detail pane.
pub const READ: &str = "Read";
/// Key hints of the detail pane and the reader, each after its key ("o open").
pub const HINT_OPEN: &str = "open";
/// Favourite key hint, by whether the item is a favourite.
pub fn hint_favorite(is_favorite: bool) -> &'static str {
    if is_favorite {
        "unfavourite"
    } else {
        "favourite"
    }
}
/// Read key hint, by whether the item is read.
pub fn hint_read(is_read: bool) -> &'static str {
    if is_read { "unread" } else { "read" }
}
/// Hide key hint.
pub const HINT_HIDE: &str = "hide";
/// Restore key hint (Trash).
pub const HINT_RESTORE: &str = "Restore";
/// Share key hint.
pub const HINT_SHARE: &str = "share";
/// Reader key hint of the detail pane.
pub const HINT_READER: &str = "full text";
/// Hint of the reader: scrolling.
pub const HINT_SCROLL: &str = "scroll";
/// Hint of the reader: leaving it.
pub const HINT_BACK: &str = "back";
/// "Shared on LinkedIn 3 hours ago".
pub fn shared_on(platform: &str, when: &str) -> String {
    let platform = if platform == "linkedin" {
        "LinkedIn"
    } else {
        platform
    };
    format!("Shared on {platform} {when}")
}

// ---- Favs, Read, Trash, Shared (docs/product.md §2) ----
/// Favs when signed out.
pub const PLEASE_SIGN_IN: &str = "Please Sign In";
/// Under [`PLEASE_SIGN_IN`].
pub fn sign_in_for_favs(sign_in: &str) -> String {
    format!("Press {sign_in} to sign in and keep your favourite stories.")
}
/// Favs empty.
pub const NO_FAVS: &str = "No Favs Yet";
/// Under [`NO_FAVS`].
pub fn no_favs_hint(favorite: &str) -> String {
    format!("Press {favorite} on a story to keep it here.")
}
/// Favs error without a message.
pub const FAVS_FAILED: &str = "Failed to load favs. Please try again later.";
/// Title of the Favs error state.
pub const ERROR: &str = "Error";
/// Read error.
pub const ERROR_LOADING_READ: &str = "Error loading read items";
/// Trash error.
pub const ERROR_LOADING_HIDDEN: &str = "Error loading hidden items";
/// Shared error.
pub const ERROR_LOADING_SHARED: &str = "Error loading shared items";
/// Read empty.
pub const NO_READ: &str = "No read items";
/// Trash empty.
pub const TRASH_EMPTY: &str = "Trash is empty";
/// Shared empty.
pub const NO_SHARED: &str = "No shared items";
/// The Alerts view before any alert found anything.
pub const NO_ALERT_HITS: &str = "Nothing found by your alerts yet";
/// Where alerts are set up.
pub const ALERTS_HINT: &str = "Save a search as an alert on the web app's Alerts page (/alerts).";
/// The Alerts view could not load.
pub const ERROR_LOADING_ALERTS: &str = "Error loading what your alerts found";

/// The line above an item an alert found: which alert.
pub fn found_by(query: &str, when: &str) -> String {
    format!("Found by your alert “{query}” {when}")
}
/// Any list while it loads.
pub const LOADING: &str = "Loading…";
/// When a signed-out reader asks for a signed-in view.
pub fn sign_in_to_see(view: &str, sign_in: &str) -> String {
    format!("Sign in to see {view} (press {sign_in}).")
}
/// When a signed-out reader tries to mark an item.
pub fn sign_in_to_mark(sign_in: &str) -> String {
    format!("Sign in to keep favourites, read and hidden items (press {sign_in}).")
}

// ---- Drops (docs/product.md §2) ----
/// Paywall title.
pub const PREMIUM_CONTENT: &str = "Premium Content";
/// Paywall text, naming the stories the server allowed (docs/product.md §9's "5" for a free reader:
/// the number is the server's, never the reader's).
pub fn paywall(allowed: usize) -> String {
    format!(
        "You've reached the free limit of {allowed} stories. Subscribe now to unlock unlimited access to all AI news."
    )
}
/// Paywall note.
pub const PAYWALL_NOTE: &str =
    "Premium members get unlimited drops, priority updates and exclusive AI insights.";
/// Paywall button.
pub const SUBSCRIBE_BUTTON: &str = "Subscribe Now";
/// "3 / 5" under a story.
pub fn position(n: usize, of: usize) -> String {
    format!("{n} / {of}")
}
/// Keys under a story: "space: next · k: back ...", from the key table.
pub const DROPS_HINTS: [&str; 6] = ["next", "back", "full text", "read", "open", "share"];
/// Keys under the paywall, from the key table.
pub const PAYWALL_HINTS: [&str; 3] = ["Subscribe Now", "back", "Feed"];

// ---- TV mode (docs/product.md §2) ----
/// "3 of 5".
pub fn tv_position(n: usize, of: usize) -> String {
    format!("{n} of {of}")
}
/// "Next in 7s".
pub fn next_in(secs: u64) -> String {
    format!("Next in {secs}s")
}
/// Shown instead of the countdown while paused.
pub const PAUSED: &str = "Paused";
/// What TV mode's keys do, after each key: pause, interval, next, previous, exit.
pub fn tv_hints(paused: bool, interval: u64) -> [String; 5] {
    let pause = if paused { "Resume" } else { "Pause" };
    [
        pause.to_string(),
        format!("interval {interval}s"),
        "next".into(),
        "previous".into(),
        "Exit TV Mode".into(),
    ]
}
/// Joins (key, what) hints as "key: what · key: what".
pub fn hints<S: AsRef<str>>(pairs: &[(String, S)]) -> String {
    pairs
        .iter()
        .map(|(k, what)| format!("{k}: {}", what.as_ref()))
        .collect::<Vec<_>>()
        .join(" · ")
}

// ---- Sign in (docs/product.md §5 and §8) ----
/// Title of the sign-in form.
pub const SIGN_IN: &str = "Sign in";
/// Field label.
pub const EMAIL: &str = "E-mail";
/// Field label.
pub const PASSWORD: &str = "Password";
/// Keys of the form.
pub const SIGN_IN_KEYS: &str = "Tab: next field · Enter: sign in · Esc: cancel";
/// While the request runs.
pub const SIGNING_IN: &str = "Signing in…";
/// Validation (docs/product.md §5).
pub const MISSING_FIELDS: &str = "Missing fields - Please enter both email and password";
/// Sign-in failure, followed by the provider's message.
pub fn sign_in_failed(message: &str) -> String {
    format!("Sign in failed - {message}")
}
/// Sign-in success.
pub const WELCOME_BACK: &str = "Welcome back!";
/// Sign-out success.
pub const SIGNED_OUT: &str = "Signed out - You have been successfully signed out";
/// Sign-out failure.
pub const SIGN_OUT_FAILED: &str = "Sign out failed - Failed to sign out. Please try again.";
/// `i` while signed in.
pub fn signed_in_as(email: &str, sign_out: &str) -> String {
    format!("Signed in as {email}. Press {sign_out} to sign out.")
}
/// When the session can no longer be refreshed.
pub fn session_expired(sign_in: &str) -> String {
    format!("Your session has expired. Press {sign_in} to sign in again.")
}
/// When the session could not be saved.
pub fn session_not_saved(err: &str) -> String {
    format!("Signed in, but the session could not be saved: {err}")
}

// ---- Marks (docs/product.md §8) ----
/// Restore success.
pub const ITEM_RESTORED: &str =
    "Item restored - The item has been removed from trash and is visible in the feed again";
/// Restore failure.
pub const RESTORE_FAILED: &str = "Error restoring item - Could not restore the item";
/// Mark failures: the local state stays changed.
pub fn mark_warning(mark: radar_api::Mark, on: bool) -> &'static str {
    use radar_api::Mark::{Favorite, Hidden, Read};
    match (mark, on) {
        (Favorite, true) => {
            "Warning - Server had issues saving your favorite, but your app state has been updated."
        }
        (Favorite, false) => {
            "Warning - Server had issues removing your favorite, but your app state has been updated."
        }
        (Hidden, true) => {
            "Warning - Server had issues hiding this item, but your app state has been updated."
        }
        (Hidden, false) => {
            "Warning - Server had issues unhiding this item, but your app state has been updated."
        }
        (Read, true) => {
            "Warning - Server had issues marking this item as read, but your app state has been updated."
        }
        (Read, false) => {
            "Warning - Server had issues unmarking this item as read, but your app state has been updated."
        }
    }
}
/// A mark the server did not get: the warning of docs/product.md §8, and where the mark is now.
pub fn kept_locally(mark: radar_api::Mark, on: bool) -> String {
    format!(
        "{} The change is kept on this computer and sent when the server is back.",
        mark_warning(mark, on)
    )
}
/// A mark the server refused: the warning of docs/product.md §8 and the server's reason.
pub fn mark_refused(mark: radar_api::Mark, on: bool, reason: &str) -> String {
    format!("{} The server said: {reason}", mark_warning(mark, on))
}
/// The file of waiting marks could not be written.
pub fn pending_not_saved(err: &str) -> String {
    format!(
        "Marks waiting for the server could not be kept on disk ({err}); they are sent while the reader runs."
    )
}
/// The file of waiting marks could not be read at start.
pub fn pending_unreadable(path: &str, err: &str) -> String {
    format!("Marks waiting for the server could not be read ({err}); the file is kept as {path}.")
}
/// Confirmations of marks.
pub fn mark_done(mark: radar_api::Mark, on: bool) -> &'static str {
    use radar_api::Mark::{Favorite, Hidden, Read};
    match (mark, on) {
        (Favorite, true) => "Added to Favs",
        (Favorite, false) => "Removed from Favs",
        (Hidden, true) => "Moved to Trash",
        (Hidden, false) => "Restored",
        (Read, true) => "Marked as read",
        (Read, false) => "Marked as unread",
    }
}
/// After a share.
pub const SHARED_ON_LINKEDIN: &str = "Shared on LinkedIn";
/// A key that does nothing in this view.
pub const NOT_HERE: &str = "That action is not available in this view.";
/// Opening a link failed.
pub fn cannot_open(err: &str) -> String {
    format!("Could not open the browser: {err}")
}
/// Opening a link.
pub fn opening(url: &str) -> String {
    format!("Opening {url}")
}

// ---- Errors of the connection ----
/// The server cannot be reached.
pub fn unreachable(server: &str) -> String {
    format!("Cannot reach the Radar server at {server}. Is `radar serve` running?")
}
/// The server did not answer in time.
pub fn too_slow(server: &str) -> String {
    format!("The Radar server at {server} did not answer in time.")
}
/// `server` answered `asked` (`GET /api/news`) with `answered` (`200 OK, text/html`),
/// which Radar never does; `expected` says what Radar answers.
pub fn not_radar(server: &str, asked: &str, answered: &str, expected: &str) -> String {
    format!(
        "{server} is not a Radar server: {asked} answered {answered}; {expected}. \
         Check --server (or RADAR_SERVER)."
    )
}
/// What a Radar server answers, for [`not_radar`].
pub const RADAR_ANSWERS_JSON: &str = "a Radar server answers JSON";
/// What a Radar server answers at `/api/config`, for [`not_radar`].
pub const RADAR_HAS_ANON_KEY: &str = "a Radar server's config has its anonKey";
/// JSON in a shape Radar does not answer, for [`not_radar`].
pub fn not_radars_json(err: &str) -> String {
    format!("its JSON is not in Radar's shape ({err})")
}

// ---- Help ----
/// Title of the help overlay.
pub const HELP_TITLE: &str = "Keys";
/// Bottom of the help overlay, with its keys in force ("j/k: scroll · Esc: close").
pub fn help_close(down: &str, up: &str, close: &str) -> String {
    format!("{down}/{up}: scroll · {close}: close")
}

// ---- Key takeaways (docs/product.md §2; subscribers, feed only) ----
/// Title of the takeaways overlay.
pub const TAKEAWAYS_TITLE: &str = "Personalized Key Takeaways";
/// Keys of the takeaways overlay.
pub const TAKEAWAYS_CLOSE: &str = "Esc: Close";
/// `t` in the Feed for a reader the server does not count as a subscriber.
pub const TAKEAWAYS_ARE_PREMIUM: &str =
    "Key takeaways are for subscribers. Subscribe Now to unlock them.";
/// While the takeaways load.
pub const LOADING_TAKEAWAYS: &str = "Loading key takeaways…";
/// Title of the takeaways' error state.
pub const TAKEAWAYS_FAILED: &str = "Key takeaways could not be loaded";

// ---- Trends (docs/product.md §17) ----
/// Title of the trends overlay.
pub const TRENDS_TITLE: &str = "Trends";
/// Keys of the trends overlay.
pub const TRENDS_KEYS: &str = "Esc: Close  j/k: Scroll  r: Reload";
/// What the overlay shows, under its title.
pub const TRENDS_ABOUT: &str = "This week against the four before, by change, not by size.";
/// While the trends load.
pub const LOADING_TRENDS: &str = "Loading trends…";
/// Title of the trends' error state.
pub const TRENDS_FAILED: &str = "Trends could not be loaded";
/// What to do about it.
pub const TRENDS_RETRY: &str = "Press r to try again.";
/// The rising list's heading.
pub const RISING: &str = "Rising";
/// The falling list's heading.
pub const FALLING: &str = "Falling";
/// An empty list.
pub const NO_TRENDS: &str = "Nothing this week.";
/// Under the lists, for a free reader.
pub fn trends_free_limit(limit: usize) -> String {
    format!("Free accounts see the top {limit} of each list; subscribers see more.")
}
/// How a change reads: "×13" rising, "−82%" falling.
pub fn trend_change(change: f64) -> String {
    if change >= 1.0 {
        if change >= 10.0 {
            format!("×{change:.0}")
        } else {
            format!("×{change:.1}")
        }
    } else {
        format!("−{:.0}%", (1.0 - change) * 100.0)
    }
}
/// A trend's counts: this week against the weeks before.
pub fn trend_counts(this_week: u32, before: f64) -> String {
    format!("{this_week} this week, {before:.1} a week before")
}

// ---- Subscription ----
/// The server now counts the reader as a subscriber.
pub const NOW_PREMIUM: &str = "Your subscription is active: Radar Premium.";
/// The server no longer counts the reader as a subscriber.
pub const NO_LONGER_PREMIUM: &str = "Your subscription has ended; the free allowance applies.";

// ---- Reader, search, unread ----
/// The reader when the item has no full text: the summary is shown, with this note.
pub const NO_CONTENT: &str = "No full text for this item; this is its summary.";
/// `J`/`K` with nothing unread.
pub const NO_UNREAD: &str = "No unread items here.";
/// The feed was marked as read.
pub fn feed_marked_read(unread: u64, undo: &str) -> String {
    format!(
        "Marked as read. {}. Press {undo} to undo.",
        left_to_read(unread)
    )
}
/// The cut-off was put back.
pub fn feed_read_undone(unread: u64) -> String {
    format!("Undone. {}.", left_to_read(unread))
}
fn left_to_read(unread: u64) -> String {
    let stories = if unread == 1 { "story" } else { "stories" };
    format!("{unread} {stories} left to read")
}
/// Marking as read failed.
pub fn mark_feed_read_failed(e: &impl std::fmt::Display) -> String {
    format!("Could not mark as read ({e}). Check your connection and try again.")
}
/// Marking the feed as read outside the Feed.
pub fn mark_feed_read_in_feed(feed: &str) -> String {
    format!("Marking as read is for the Feed (press {feed}).")
}
/// Undo with nothing to undo.
pub const NOTHING_TO_UNDO: &str = "Nothing to undo.";
/// `/` while signed out: the server searches for signed-in readers.
pub fn sign_in_to_search(sign_in: &str) -> String {
    format!("Sign in to search (press {sign_in}).")
}
/// The search prompt.
pub const SEARCH_PROMPT: &str = "/";
/// Beside the search prompt.
pub const SEARCH_KEYS: &str = "Enter: search · Esc: cancel · Ctrl-u: clear";
/// The title of the results list.
pub fn results_title(query: &str) -> String {
    format!("Search \"{query}\"")
}
/// While the server searches.
pub const SEARCHING: &str = "Searching…";
/// The title of the failed search's message.
pub const SEARCH_FAILED: &str = "Search failed";
/// Under a failed search.
pub fn search_retry_hint(search: &str, reload: &str, leave: &str) -> String {
    format!("Press {search} to change the search, {reload} to try again, {leave} to leave it.")
}
/// A search without results.
pub fn no_results(query: &str) -> String {
    format!("Nothing found for \"{query}\"")
}
/// Under an empty result.
pub fn no_results_hint(search: &str) -> String {
    format!(
        "Try other words, fewer of them, or fewer -exclusions. Press {search} to change the search."
    )
}
/// How many results came (a `+` when the server has more), with the keys in force for
/// next, previous and leave ("n/N: next/previous · Esc: leave the search").
pub fn results_found(
    query: &str,
    found: usize,
    more: bool,
    [next, previous, leave]: [&str; 3],
) -> String {
    let plus = if more { "+" } else { "" };
    let s = if found == 1 && !more { "" } else { "s" };
    format!(
        "{found}{plus} result{s} for \"{query}\" · {next}/{previous}: next/previous · \
         {leave}: leave the search"
    )
}
/// "Result 2 of 5 for "x"".
pub fn result_position(query: &str, at: usize, of: usize, more: bool) -> String {
    let plus = if more { "+" } else { "" };
    format!("Result {at} of {of}{plus} for \"{query}\"")
}
/// The bottom line while results are on screen, with the keys in force for next,
/// previous, read, leave and help ("n/N: next/previous · Enter: read ...").
pub fn search_in_force(query: &str, [next, previous, read, leave, help]: [&str; 5]) -> String {
    format!(
        "Search \"{query}\" · {next}/{previous}: next/previous · {read}: read · \
         {leave}: leave · {help}: help"
    )
}
/// Read More on results for a free reader.
pub const MORE_RESULTS_ARE_PREMIUM: &str =
    "More results are for subscribers. Subscribe Now to see them all.";
/// Nothing more to load.
pub const NO_MORE_RESULTS: &str = "That is every result.";
