//! Every text the terminal reader shows, in one place, so wording stays consistent with
//! the web app (spec sections 2 and 8 give most of them) and can be reviewed at once.

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

/// Header, right side, when nobody is signed in.
pub const SIGNED_OUT_HINT: &str = "Not signed in · i: sign in";

/// Bottom line when there is no message.
pub const KEY_HINT: &str = "?: help · q: quit";

// ---- Feed ----
/// While the feed loads.
pub const LOADING_NEWS: &str = "Loading news…";
/// Title of the feed's error state.
pub const ERROR_LOADING_NEWS: &str = "Error loading news";
/// Shown under every error state.
pub const RETRY_HINT: &str = "Press R to try again.";
/// The feed and Drops with nothing to show.
pub const NO_NEWS: &str = "No news items available";
/// Footer of the feed for subscribers while more items remain.
pub const READ_MORE: &str = "m: Read More";
/// Footer of the feed while the next page loads.
pub const LOADING_MORE: &str = "Loading…";
/// Footer of the feed for free and anonymous readers while more items remain.
pub const SUBSCRIBE_NOW: &str = "Subscribe Now";
/// Where to subscribe, after [`SUBSCRIBE_NOW`].
pub fn subscribe_at(server: &str) -> String {
    format!("{}/subscribe", server.trim_end_matches('/'))
}
/// When a free reader presses `m`.
pub const MORE_IS_PREMIUM: &str =
    "Free accounts read the newest 5 stories. Subscribe Now to read more.";
/// Nothing more to load.
pub const NO_MORE: &str = "You are all caught up.";

// ---- Item details ----
/// Source name when the URL gives none.
pub const SOURCE: &str = "Source";
/// Items without a URL.
pub const NO_SOURCE_URL: &str = "No source URL";
/// Before the URL in the detail pane.
pub const MORE: &str = "More";
/// Marker of a favourite in lists.
pub const MARK_FAVORITE: &str = "♥";
/// Marker of a read item in lists.
pub const MARK_READ: &str = "✓";
/// Beside the favourite marker in the detail pane.
pub const FAVOURITE: &str = "Favourite";
/// Beside the read marker in the detail pane.
pub const READ: &str = "Read";
/// Key hints of the detail pane.
pub const HINT_OPEN: &str = "o open";
/// Favourite key hint, by whether the item is a favourite.
pub fn hint_favorite(is_favorite: bool) -> &'static str {
    if is_favorite {
        "f unfavourite"
    } else {
        "f favourite"
    }
}
/// Read key hint, by whether the item is read.
pub fn hint_read(is_read: bool) -> &'static str {
    if is_read { "r unread" } else { "r read" }
}
/// Hide key hint.
pub const HINT_HIDE: &str = "x hide";
/// Restore key hint (Trash).
pub const HINT_RESTORE: &str = "u Restore";
/// Share key hint.
pub const HINT_SHARE: &str = "s share";
/// "Shared on LinkedIn 3 hours ago".
pub fn shared_on(platform: &str, when: &str) -> String {
    let platform = if platform == "linkedin" {
        "LinkedIn"
    } else {
        platform
    };
    format!("Shared on {platform} {when}")
}

// ---- Favs, Read, Trash, Shared (spec section 2) ----
/// Favs when signed out.
pub const PLEASE_SIGN_IN: &str = "Please Sign In";
/// Under [`PLEASE_SIGN_IN`].
pub const SIGN_IN_FOR_FAVS: &str = "Press i to sign in and keep your favourite stories.";
/// Favs empty.
pub const NO_FAVS: &str = "No Favs Yet";
/// Under [`NO_FAVS`].
pub const NO_FAVS_HINT: &str = "Press f on a story to keep it here.";
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
/// Any list while it loads.
pub const LOADING: &str = "Loading…";
/// When a signed-out reader asks for a signed-in view.
pub fn sign_in_to_see(view: &str) -> String {
    format!("Sign in to see {view} (press i).")
}
/// When a signed-out reader tries to mark an item.
pub const SIGN_IN_TO_MARK: &str = "Sign in to keep favourites, read and hidden items (press i).";

// ---- Drops (spec section 2) ----
/// Paywall title.
pub const PREMIUM_CONTENT: &str = "Premium Content";
/// Paywall text.
pub const PAYWALL: &str = "You've reached the free limit of 5 stories. Subscribe now to unlock unlimited access to all AI news.";
/// Paywall note.
pub const PAYWALL_NOTE: &str =
    "Premium members get unlimited drops, priority updates and exclusive AI insights.";
/// Paywall button.
pub const SUBSCRIBE_BUTTON: &str = "Subscribe Now";
/// "3 / 5" under a story.
pub fn position(n: usize, of: usize) -> String {
    format!("{n} / {of}")
}
/// Keys under a story.
pub const DROPS_KEYS: &str = "space/j: next · k: back · r: read · o: open · s: share";
/// Keys under the paywall.
pub const PAYWALL_KEYS: &str = "k: back · 1: Feed";

// ---- TV mode (spec section 2) ----
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
/// Keys of TV mode.
pub fn tv_keys(paused: bool, interval: u64) -> String {
    let pause = if paused { "Resume" } else { "Pause" };
    format!("space: {pause} · t: interval {interval}s · n/p: next/previous · Esc: Exit TV Mode")
}

// ---- Sign in (spec sections 5 and 8) ----
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
/// Validation (spec section 5).
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
pub fn signed_in_as(email: &str) -> String {
    format!("Signed in as {email}. Press O to sign out.")
}
/// When the session can no longer be refreshed.
pub const SESSION_EXPIRED: &str = "Your session has expired. Press i to sign in again.";
/// When the session could not be saved.
pub fn session_not_saved(err: &str) -> String {
    format!("Signed in, but the session could not be saved: {err}")
}

// ---- Marks (spec section 8) ----
/// Restore success.
pub const ITEM_RESTORED: &str =
    "Item restored - The item has been removed from trash and is visible in the feed again";
/// Restore failure.
pub const RESTORE_FAILED: &str = "Error restoring item - Could not restore the item";
/// Mark failures: the local state stays changed.
pub fn mark_warning(mark: radar_api::Mark, on: bool) -> &'static str {
    use radar_api::Mark::*;
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
/// Confirmations of marks.
pub fn mark_done(mark: radar_api::Mark, on: bool) -> &'static str {
    use radar_api::Mark::*;
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
/// The answer could not be read.
pub fn bad_answer(err: &str) -> String {
    format!("The server's answer could not be read: {err}")
}

// ---- Help ----
/// Title of the help overlay.
pub const HELP_TITLE: &str = "Keys";
/// Bottom of the help overlay.
pub const HELP_CLOSE: &str = "Esc: close";
/// The help overlay, one (keys, what) pair a line.
pub const HELP: &[(&str, &str)] = &[
    ("1-7 Tab ← →", "switch view (h/l too)"),
    ("j k ↓ ↑", "move; g/G first/last"),
    ("Enter o", "open the source in the browser"),
    ("f", "favourite / unfavourite"),
    ("r", "mark read / unread"),
    ("x", "hide (move to Trash)"),
    ("u", "restore from Trash"),
    ("s", "share on LinkedIn"),
    ("m", "more stories (subscribers)"),
    ("t", "Feed: key takeaways (subscribers)"),
    ("space j", "Drops: next story"),
    ("space t n p", "TV: pause, interval, next, previous"),
    ("R", "reload / try again"),
    ("i  O", "sign in / sign out"),
    ("?  Esc", "help / close"),
    ("q  Ctrl-C", "quit"),
];

// ---- Key takeaways (spec section 2; subscribers, feed only) ----
/// Title of the takeaways overlay.
pub const TAKEAWAYS_TITLE: &str = "Personalized Key Takeaways";
/// Keys of the takeaways overlay.
pub const TAKEAWAYS_CLOSE: &str = "Esc: Close";
/// `t` in the Feed for a reader who is not a subscriber.
pub const TAKEAWAYS_ARE_PREMIUM: &str =
    "Key takeaways are for subscribers. Subscribe Now to unlock them.";
/// A takeaway card: title, tags, description.
pub type Card = (&'static str, [&'static str; 2], &'static str);
/// The cards of the six themes, in the order they are tried (the web app's texts).
pub const TAKEAWAY_THEMES: [Card; 6] = [
    (
        "AI Adoption",
        ["AI", "Strategy"],
        "Look at where this AI development could take repetitive work off your plate and sharpen decisions.",
    ),
    (
        "Machine Learning in Practice",
        ["Machine Learning", "Data"],
        "Check which of your processes produce the data a learning system would need to help.",
    ),
    (
        "Generative AI Opportunities",
        ["Generative AI", "Content"],
        "Consider how generated drafts, code or images could speed up the work you deliver.",
    ),
    (
        "Digital Transformation",
        ["Technology", "Digital"],
        "Think about which tools your team relies on that this shift could change.",
    ),
    (
        "Product Development",
        ["Product", "Development"],
        "Ask how this changes what users will expect from the products you build.",
    ),
    (
        "Business Impact",
        ["Business", "Enterprise"],
        "Weigh the cost, risk and advantage this could bring to your organisation.",
    ),
];
/// Cards that fill up to three when fewer themes match.
pub const TAKEAWAY_FALLBACKS: [Card; 3] = [
    (
        "Stay Informed",
        ["Industry", "Trends"],
        "Keep this development in mind as context for conversations in your field.",
    ),
    (
        "Skill Growth",
        ["Learning", "Career"],
        "Note any skills this story suggests will matter more in the coming months.",
    ),
    (
        "Plan Ahead",
        ["Planning", "Strategy"],
        "Decide whether this deserves a follow-up with your team or can simply be watched.",
    ),
];
/// The focus when no theme matches.
pub const TAKEAWAY_GENERAL: &str = "general industry awareness";
/// The summary line: "This story matters most for a, b and c."
pub fn takeaway_summary(focus: &[String]) -> String {
    let list = match focus {
        [] => TAKEAWAY_GENERAL.to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    format!("This story matters most for {list}.")
}
