//! Opening an item is reading it: the reader view tells the server where the item was
//! opened from, and the server decides whether that reads it (an item with no mark,
//! opened from the feed, Drops, TV or search, with mark-on-open on in the profile). An
//! item read that way stays in the feed, drawn as read, until the feed is read again.
//! The header's unread count is the server's. Marking the feed as read is one cut-off
//! on the server, which an undo puts back.

use std::time::Instant;

use radar_api::{Mark, NewsItem, Opened, OpenedFrom, ReadBeforeState, UnreadCount};

use super::{App, Request, StatusKind, View};
use crate::api::ApiResult;
use crate::keys::{Command, Context};
use crate::strings;

impl View {
    /// The list this view shows, as the server names it.
    fn opened_from(self) -> OpenedFrom {
        match self {
            View::Feed => OpenedFrom::Feed,
            View::Drops => OpenedFrom::Drops,
            View::Tv => OpenedFrom::Tv,
            View::Favs => OpenedFrom::Favorites,
            View::Read => OpenedFrom::Read,
            View::Trash => OpenedFrom::Hidden,
            View::Shared => OpenedFrom::Shared,
            // New stories an alert found, as a search finds them: opening one reads it.
            View::Alerts => OpenedFrom::Search,
        }
    }
}

impl App {
    /// The reader view opened `item` from `view` (or from search results): tells the
    /// server, when signed in and when no change of the item waits for it.
    pub(super) fn opened(&mut self, item: &NewsItem, view: View, searching: bool) {
        let Some(user) = self.user_id() else {
            return;
        };
        if self.pending.of(user).any(|p| p.item.id == item.id) {
            return;
        }
        let from = if searching {
            OpenedFrom::Search
        } else {
            view.opened_from()
        };
        self.requests.push(Request::OpenItem {
            id: item.id.clone(),
            from,
        });
    }

    pub(super) fn on_item_opened(&mut self, id: &str, result: ApiResult<Opened>) {
        // Reading goes on: an opening the server did not hear of leaves the item unread.
        let Ok(opened) = result else {
            return;
        };
        self.on_success();
        if !opened.marked_read {
            return;
        }
        let waiting = self
            .user_id()
            .is_some_and(|u| self.pending.of(u).any(|p| p.item.id == id));
        let item = self
            .reader
            .as_ref()
            .map(|r| &r.item)
            .filter(|i| i.id == id)
            .or_else(|| {
                self.feed
                    .data()
                    .and_then(|f| f.items.iter().find(|i| i.id == id))
            })
            .cloned();
        if let (false, Some(item)) = (waiting, item) {
            self.read_on_open.insert(item.id.clone());
            self.marks.set(Mark::Read, &item);
        }
        if self.marks.list(Mark::Read).data().is_some() {
            self.requests.push(Request::LoadMarks(Mark::Read));
        }
        self.requests.push(Request::LoadUnread);
    }

    pub(super) fn on_unread(&mut self, result: ApiResult<UnreadCount>) {
        if let Ok(count) = result {
            self.unread = Some(count.unread);
        }
    }

    /// `A` in the Feed: everything in it without a mark counts as read (the web's "Mark
    /// feed as read", all stories); `U` puts the cut-off it replaced back.
    pub(super) fn mark_feed_read(&mut self, undo: bool, now: Instant) {
        if self.user_id().is_none() {
            let text = strings::sign_in_to_mark(&self.key(Context::Global, Command::SignIn));
            self.say(text, StatusKind::Info, now);
        } else if self.view != View::Feed {
            let text =
                strings::mark_feed_read_in_feed(&self.key(Context::Global, Command::View(1)));
            self.say(text, StatusKind::Info, now);
        } else if !undo {
            self.requests.push(Request::MarkFeedRead);
        } else if let Some(previous) = self.undo_read_before {
            self.requests.push(Request::PutReadBefore(previous));
        } else {
            self.say(strings::NOTHING_TO_UNDO, StatusKind::Info, now);
        }
    }

    pub(super) fn on_read_before(
        &mut self,
        undo: bool,
        result: ApiResult<ReadBeforeState>,
        now: Instant,
    ) {
        match result {
            Ok(state) => {
                self.on_success();
                self.unread = Some(state.unread);
                let text = if undo {
                    self.undo_read_before = None;
                    strings::feed_read_undone(state.unread)
                } else {
                    self.undo_read_before = Some(state.previous);
                    let key = self.key(Context::List, Command::UndoMarkFeedRead);
                    strings::feed_marked_read(state.unread, &key)
                };
                self.say(text, StatusKind::Success, now);
                self.load_feed();
            }
            Err(e) => self.say(strings::mark_feed_read_failed(&e), StatusKind::Error, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use radar_api::ItemMarks;
    use ratatui::crossterm::event::KeyCode;

    use super::*;
    use crate::app::{Action, FeedFetch};
    use crate::testing::*;

    fn opened(app: &mut App, id: &str, marked_read: bool) {
        let marks = ItemMarks {
            read: marked_read,
            ..ItemMarks::default()
        };
        answer_opening(app, id, Ok(Opened { marked_read, marks }));
    }

    fn answer_opening(app: &mut App, id: &str, result: ApiResult<Opened>) {
        let epoch = app.epoch;
        let action = Action::ItemOpened {
            epoch,
            id: id.into(),
            result,
        };
        app.update(action, Instant::now());
    }

    #[test]
    fn opening_tells_the_server_where_from_and_keeps_a_read_item_in_place() {
        let now = Instant::now();
        let mut app = subscriber();
        assert_eq!(app.unread, Some(64), "the count is the feed's total");
        app.update(ch('j'), now);
        app.update(key(KeyCode::Enter), now);
        assert_eq!(
            app.take_requests(),
            vec![Request::OpenItem {
                id: "item-1".into(),
                from: OpenedFrom::Feed,
            }]
        );
        opened(&mut app, "item-1", true);
        assert!(app.marks.has(Mark::Read, "item-1"));
        assert!(
            app.take_requests().contains(&Request::LoadUnread),
            "the count is read again"
        );
        app.update(key(KeyCode::Esc), now);
        assert_eq!(app.feed_items().len(), 20, "it stays in the feed");
        assert_eq!(app.current_item().unwrap().id, "item-1");
        let epoch = app.epoch;
        app.update(
            Action::UnreadLoaded {
                epoch,
                result: Ok(UnreadCount { unread: 63 }),
            },
            now,
        );
        assert_eq!(app.unread, Some(63));
        let header = screen(&app, 100, 30);
        assert_shows(&header, "1 Feed (63)");

        // The next feed answer is the server's: the item read on opening is gone.
        let epoch = app.epoch;
        let rest: Vec<_> = items(21).into_iter().filter(|i| i.id != "item-1").collect();
        app.update(
            Action::FeedLoaded {
                epoch,
                fetch: FeedFetch::Refill(1),
                result: Ok(sub_page(rest, Some("c1"), 63)),
            },
            now,
        );
        assert!(app.feed_items().iter().all(|i| i.id != "item-1"));
    }

    fn read_before_saved(app: &mut App, undo: bool, result: ApiResult<ReadBeforeState>) {
        let epoch = app.epoch;
        let action = Action::ReadBeforeSaved {
            epoch,
            undo,
            result,
        };
        app.update(action, Instant::now());
    }

    fn api_error(status: Option<u16>, message: &str) -> crate::api::ApiError {
        crate::api::ApiError {
            status,
            message: message.into(),
        }
    }

    fn status(app: &App) -> &str {
        &app.status.as_ref().expect("a message").text
    }

    #[test]
    fn a_marks_the_feed_read_and_u_puts_the_cut_off_back() {
        let now = Instant::now();
        let mut app = subscriber();
        app.take_requests();
        app.update(ch('A'), now);
        assert_eq!(app.take_requests(), vec![Request::MarkFeedRead]);
        let cut = crate::testing::now();
        let state = ReadBeforeState {
            read_before: Some(cut),
            previous: None,
            unread: 0,
        };
        read_before_saved(&mut app, false, Ok(state));
        assert_eq!(app.unread, Some(0));
        assert_eq!(
            status(&app),
            "Marked as read. 0 stories left to read. Press U to undo."
        );
        assert_eq!(
            app.take_requests(),
            vec![Request::LoadFeed(FeedFetch::First)],
            "the feed is read again"
        );

        app.update(ch('U'), now);
        assert_eq!(app.take_requests(), vec![Request::PutReadBefore(None)]);
        let state = ReadBeforeState {
            read_before: None,
            previous: Some(cut),
            unread: 64,
        };
        read_before_saved(&mut app, true, Ok(state));
        assert_eq!(status(&app), "Undone. 64 stories left to read.");
        assert_eq!(app.unread, Some(64));
        app.take_requests();
        app.update(ch('U'), now);
        assert!(app.take_requests().is_empty(), "one undo per mark");
        assert_eq!(status(&app), strings::NOTHING_TO_UNDO);
    }

    #[test]
    fn marking_the_feed_read_needs_the_feed_a_reader_and_a_server() {
        let now = Instant::now();
        let mut app = anonymous();
        app.update(ch('A'), now);
        assert!(app.take_requests().is_empty());
        assert!(status(&app).starts_with("Sign in"), "{}", status(&app));

        let mut app = subscriber();
        lists(&mut app);
        app.update(ch('4'), now);
        app.take_requests();
        app.update(ch('A'), now);
        assert!(app.take_requests().is_empty());
        assert_eq!(status(&app), "Marking as read is for the Feed (press 1).");

        let mut app = subscriber();
        app.update(ch('A'), now);
        app.take_requests();
        read_before_saved(&mut app, false, Err(api_error(None, "connection refused")));
        assert!(status(&app).starts_with("Could not mark as read"));
        assert_eq!(app.unread, Some(64), "the count stays the server's last");
        app.update(ch('U'), now);
        assert!(app.take_requests().is_empty(), "nothing was marked");
    }

    #[test]
    fn an_opening_the_server_refused_leaves_the_item_unread() {
        let now = Instant::now();
        let mut app = subscriber();
        app.update(key(KeyCode::Enter), now);
        app.take_requests();
        answer_opening(
            &mut app,
            "item-0",
            Err(api_error(Some(404), "item not found")),
        );
        assert!(!app.marks.has(Mark::Read, "item-0"));
        assert!(app.read_on_open.is_empty());
        assert!(app.take_requests().is_empty(), "nothing to read again");
        assert!(app.reader.is_some(), "reading goes on");
    }

    #[test]
    fn an_opening_that_read_nothing_changes_nothing() {
        let now = Instant::now();
        let mut app = free();
        app.update(key(KeyCode::Enter), now);
        app.take_requests();
        opened(&mut app, "item-0", false);
        assert!(!app.marks.has(Mark::Read, "item-0"));
        assert!(app.take_requests().is_empty());
        assert_eq!(app.unread, Some(5));
    }

    #[test]
    fn a_visitor_opens_without_asking_and_search_results_say_so() {
        let now = Instant::now();
        let mut app = anonymous();
        app.update(key(KeyCode::Enter), now);
        assert!(app.reader.is_some());
        assert!(app.take_requests().is_empty());
        assert!(!screen(&app, 100, 30).join("\n").contains("Feed ("));

        let mut app = subscriber();
        searched(&mut app, "model", subscriber_results(2..4, None, 2));
        app.take_requests();
        app.update(key(KeyCode::Enter), now);
        assert!(app.take_requests().contains(&Request::OpenItem {
            id: "item-2".into(),
            from: OpenedFrom::Search,
        }));
    }

    #[test]
    fn n_in_a_reader_opened_from_search_reads_the_next_result_with_its_words_marked() {
        let now = Instant::now();
        let mut app = subscriber();
        searched(&mut app, "story", subscriber_results(3..6, None, 3));
        app.update(key(KeyCode::Enter), now);
        assert_eq!(app.reader.as_ref().unwrap().item.id, "item-3");
        assert_eq!(app.reader.as_ref().unwrap().matched, ["story"]);
        app.update(ch('n'), now);
        assert_eq!(app.reader.as_ref().unwrap().item.id, "item-4");
        app.update(ch('N'), now);
        app.update(ch('N'), now);
        assert_eq!(app.reader.as_ref().unwrap().item.id, "item-5", "N wraps");
        // Without a search, n does nothing in the reader.
        let mut app = subscriber();
        app.update(key(KeyCode::Enter), now);
        app.update(ch('n'), now);
        assert_eq!(app.reader.as_ref().unwrap().item.id, "item-0");
        assert!(app.reader.as_ref().unwrap().matched.is_empty());
    }
}
