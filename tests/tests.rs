//! End-to-end tests: each starts the real `radar` binary (see `util`) on a temporary
//! data directory and a free port on 127.0.0.1, and talks to it over HTTP or runs its
//! commands. Nothing here reaches beyond this machine.

mod util;

/// The foundation: demo data, the news feed, its caps, marks and durability.
mod foundation;

/// The reading loop: refilled feeds, paging, subscription changes per request, the item reader, takeaways.
mod reading_loop;

/// The web app served from the binary: routes, 404 status, caching, compression.
mod web;

/// The reader API of docs/product.md §7: 401s, waitlist, profile, API key, metadata, weekly summaries, OpenAPI.
mod reader_api;

/// The Insights tab: reads by topic and source, the comparison from 20 readers, stories missed, privacy.
mod insights;

/// Payments: the test checkout end to end, Stripe against a local stub, the signed webhook.
mod payments;

/// The public news API: pagination, sorting, validation, quotas and their persistence.
mod public_api;

/// The embedded auth service: the Supabase Auth protocol, tokens on /api, mailed links.
mod auth;

/// The auth service's last GoTrue differences: error forms per API version, redirect globs, e-mail change, reauthentication.
mod auth_gotrue;

/// The admin commands, live and offline: users, waitlist, subscribers, items, feeds, summaries, outbox.
mod admin;

/// The terminal reader, `radar tui`, driven in tmux: sign-in, marks, Drops paywall, TV mode, search,
/// keys.toml, $BROWSER, a server that is not Radar, layout at three sizes, Ctrl-Z.
mod tui;

/// Feeds against a local fixture server: every format, 304, 500, timeouts, back-off, no duplicates.
mod feeds;

/// Weekly summaries on the demo data: dates, counts, content from the week, empty weeks, the LLM stub and fallback.
mod summaries;

/// Hardening: connection timeouts and cap, early 413, bounded hashing memory, private files, synced writes, one e-mail rule.
mod hardening;

/// Connections: the cap per client, JSON bodies of hyper's own refusals, a drain that answers every request sent before SIGTERM.
mod connections;
/// A full disk: 507 for writes while reads go on, writes resuming without a restart, a start
/// on a full disk, and start-up errors that name their real cause.
mod disk_full;

/// Full-text search: the query syntax, caps, hidden items, highlights, feed updates, reindex and rebuilds on start.
mod search;

/// Trends: a rise from nothing above a steady term, no stop words, updates and removals, a restart, the public endpoint.
mod trends;

/// Nothing acknowledged is lost: marks on items of an import in progress survive kill -9, a deleted journal refuses the start.
mod journal;

/// Several daemons over one PostgreSQL database: one install whatever node answers, global quotas and limits, readiness.
mod cluster;

/// Moving an install between a data directory and PostgreSQL, both ways: accounts, marks, keys and the feed kept.
mod migrate;

/// Custom news alerts: matching new items, one mail per interval, unsubscribing signed out.
mod alerts;

/// Stories: five outlets as one card with five sources, read whole, counted once, merges that keep cursors, the switch.
mod stories;
