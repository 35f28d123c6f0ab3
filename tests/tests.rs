//! End-to-end tests: each starts the real `radar` binary (see `util`) on a temporary
//! data directory and a free port on 127.0.0.1, and talks to it over HTTP or runs its
//! commands. Nothing here reaches beyond this machine.

mod util;

/// The foundation: demo data, the news feed, its caps, marks and durability.
mod foundation;

/// The web app served from the binary: routes, 404 status, caching, compression.
mod web;

/// The embedded auth service: the Supabase Auth protocol, tokens on /api, mailed links.
mod auth;
