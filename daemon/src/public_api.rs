//! The public news API (docs/product.md §3, §5, §6 and §9): `GET /api/v1/news` with the header
//! `X-API-Key`, for programs outside the web app, and `GET /api/v1/trends`, this week's
//! trends (as `GET /api/trends` answers them), with the same key and the same quota.
//!
//! - Query: `page` (from 1, default 1), `limit` (1 to 100, default 20), `sort`
//!   (`published_date`, `title` or `id`, default `published_date`), `order` (`asc` or
//!   `desc`, default `desc`). A bad value, a repeated parameter or an unknown parameter is
//!   400 `invalid_parameter` with a message that starts with the parameter's name. A page
//!   past the end answers no items (with the true `total`).
//! - Key: missing or unknown is 401 (see `radar_store`'s `api_keys`).
//! - Quota: per key owner per UTC day (`--api-free-quota`, default 100, and
//!   `--api-premium-quota`, default 10,000, for subscribers), counted in memory and
//!   written to disk every second and on shutdown, so it survives a restart (a crash
//!   forgets at most the last second's counts; see `radar_store`'s `quotas`). Every request with a valid key counts, whatever its answer, except a refused
//!   one. Answers after the key check carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`
//!   (after this request) and `X-RateLimit-Reset` (Unix time in seconds of the next UTC
//!   midnight, when the counter starts over); over quota is 429 `rate_limited` with
//!   `Retry-After` in seconds until then.
//! - Listing: `radar_store`'s `catalogue` walks a maintained index per sort order, so no
//!   request loads or sorts every item.
//! - Search: `q` (the search box's syntax, see `radar_store`'s `search`) lists the matching
//!   items best first instead, with the same `page` and `limit` and `total` counting every
//!   match; pages reach down to the best 10,000. `sort` and `order` do not apply with `q`
//!   (400). A malformed `q` is 400 `invalid_query`.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use axum::extract::{FromRequestParts, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use lru::LruCache;
use radar_api::public::{Pagination, PublicItem, PublicPage};
use radar_api::trends::TrendsPage;
use radar_store::{QuotaUse, SearchQuery, SortBy, SortOrder, User};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{Json, RawJson};
use crate::state::AppState;

/// Settings of the public news API.
#[derive(Debug, Clone, clap::Args)]
pub struct ApiConfig {
    /// Requests per UTC day for a free account's API key.
    #[arg(long, env = "RADAR_API_FREE_QUOTA", default_value_t = 100)]
    pub api_free_quota: u64,

    /// Requests per UTC day for a subscriber's API key.
    #[arg(long, env = "RADAR_API_PREMIUM_QUOTA", default_value_t = 10_000)]
    pub api_premium_quota: u64,
}

/// Default page size.
pub(crate) const DEFAULT_LIMIT: u64 = 20;
/// Largest page size.
pub(crate) const MAX_LIMIT: u64 = 100;

/// The public API routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_public_news))
        .routes(routes!(get_public_trends))
}

/// A caller authenticated by `X-API-Key`: the key's owner, shared with the store's cache
/// of parsed accounts.
#[derive(Debug, Clone)]
pub(crate) struct ApiKeyUser(pub std::sync::Arc<User>);

impl FromRequestParts<AppState> for ApiKeyUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Self::from_headers(&parts.headers, state).await
    }
}

impl ApiKeyUser {
    /// The key's owner as the request's headers name it (see [`MaybeAuthUser::from_headers`]).
    ///
    /// [`MaybeAuthUser::from_headers`]: crate::extract::MaybeAuthUser::from_headers
    pub(crate) async fn from_headers(
        headers: &HeaderMap,
        state: &AppState,
    ) -> Result<Self, ApiError> {
        let key = headers
            .get("x-api-key")
            .and_then(|k| k.to_str().ok())
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                ApiError::unauthorized("Send your API key in the X-API-Key header (see /api-docs).")
            })?;
        let unknown = || {
            ApiError::unauthorized("This API key is not valid. Get your current key on /api-docs.")
        };
        let owner = state.store.api_key_owner(key).await?.ok_or_else(unknown)?;
        Ok(Self(
            state.store.user_shared(&owner).await?.ok_or_else(unknown)?,
        ))
    }
}

/// The validated query of `GET /api/v1/news`.
#[derive(Debug, Clone, PartialEq, Eq, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PublicQuery {
    /// Page number, from 1 (default 1).
    #[param(required = false, minimum = 1, default = 1)]
    pub page: u64,
    /// Items per page, 1 to 100 (default 20).
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    pub limit: u64,
    /// `published_date` (default), `title` or `id`.
    #[param(required = false, value_type = String, pattern = "^(published_date|title|id)$", default = "published_date")]
    pub sort: SortBy,
    /// `desc` (default) or `asc`.
    #[param(required = false, value_type = String, pattern = "^(asc|desc)$", default = "desc")]
    pub order: SortOrder,
    /// Search: words, "phrases", -exclusions, `source:NAME`, `after:`/`before:YYYY-MM-DD`;
    /// results best first (then `sort` and `order` must be left out).
    #[param(required = false, value_type = String)]
    pub q: Option<SearchQuery>,
}

fn invalid(message: String) -> ApiError {
    ApiError::bad_request("invalid_parameter", message)
}

impl PublicQuery {
    /// Parses and validates a raw query string; errors name the parameter.
    pub(crate) fn parse(raw: Option<&str>) -> Result<Self> {
        let mut q = Self {
            page: 1,
            limit: DEFAULT_LIMIT,
            sort: SortBy::default(),
            order: SortOrder::default(),
            q: None,
        };
        // Which parameters were given (a bit each, in `PARAMETERS`' order), and the first
        // of `sort` and `order`: an unknown parameter is refused where it is met, so only
        // the five need remembering, without an allocation per request.
        const PARAMETERS: [&str; 5] = ["page", "limit", "sort", "order", "q"];
        let mut seen = 0u8;
        let mut sort_or_order = None;
        for (name, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            if let Some(at) = PARAMETERS.iter().position(|p| *p == name) {
                if seen & (1 << at) != 0 {
                    return Err(invalid(format!("{name} is given more than once")));
                }
                seen |= 1 << at;
                if matches!(at, 2 | 3) {
                    sort_or_order.get_or_insert(PARAMETERS[at]);
                }
            }
            match name.as_ref() {
                "page" => {
                    q.page = value
                        .parse::<u64>()
                        .ok()
                        .filter(|p| *p >= 1)
                        .ok_or_else(|| {
                            invalid(format!("page must be a whole number from 1, not {value:?}"))
                        })?;
                }
                "limit" => {
                    q.limit = value
                        .parse::<u64>()
                        .ok()
                        .filter(|l| (1..=MAX_LIMIT).contains(l))
                        .ok_or_else(|| {
                            invalid(format!(
                                "limit must be a whole number from 1 to {MAX_LIMIT}, not {value:?}"
                            ))
                        })?;
                }
                "sort" => {
                    q.sort = value
                        .parse()
                        .map_err(|e: radar_store::Error| invalid(e.to_string()))?;
                }
                "order" => {
                    q.order = value
                        .parse()
                        .map_err(|e: radar_store::Error| invalid(e.to_string()))?;
                }
                "q" => {
                    q.q =
                        Some(SearchQuery::parse(&value).map_err(|e| {
                            ApiError::bad_request("invalid_query", format!("q: {e}"))
                        })?);
                }
                other => {
                    return Err(invalid(format!(
                        "{other} is not a parameter of this endpoint (page, limit, sort, order, q)"
                    )));
                }
            }
        }
        if q.q.is_some()
            && let Some(by) = sort_or_order
        {
            return Err(invalid(format!(
                "{by} does not apply with q: search results come best first; leave {by} out"
            )));
        }
        if q.q.is_some() && q.page.saturating_mul(q.limit) > radar_store::MAX_DEPTH as u64 {
            return Err(invalid(format!(
                "page: a search serves its best {} results, so page × limit must stay within that; narrow the query instead",
                radar_store::MAX_DEPTH
            )));
        }
        Ok(q)
    }
}

fn rate_headers(headers: &mut HeaderMap, q: &QuotaUse) {
    headers.insert("x-ratelimit-limit", HeaderValue::from(q.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(q.remaining));
    headers.insert(
        "x-ratelimit-reset",
        HeaderValue::from(q.reset_at.timestamp()),
    );
}

/// A page of the news catalogue for programs, by API key, within a daily quota.
#[utoipa::path(get, path = "/api/v1/news", tag = "public api", params(
    PublicQuery,
    ("X-API-Key" = String, Header, description = "Your API key (GET /api/key)"),
), responses(
    (status = 200, body = PublicPage, headers(
        ("X-RateLimit-Limit" = u64, description = "Requests allowed per UTC day"),
        ("X-RateLimit-Remaining" = u64, description = "Requests left today"),
        ("X-RateLimit-Reset" = i64, description = "Unix time (s) when the quota starts over"),
    )),
    (status = 400, body = crate::error::ErrorBody, description = "A bad parameter, named in the message"),
    (status = 401, body = crate::error::ErrorBody, description = "Missing or unknown API key"),
    (status = 429, body = crate::error::ErrorBody, description = "Daily quota used up; see Retry-After"),
))]
pub(crate) async fn get_public_news(
    State(s): State<AppState>,
    ApiKeyUser(owner): ApiKeyUser,
    RawQuery(raw): RawQuery,
) -> Response {
    public_news(&s, &owner, raw.as_deref()).await
}

/// The answer of `GET /api/v1/news` for a key's owner and a raw query, quota counted.
pub(crate) async fn public_news(s: &AppState, owner: &User, raw: Option<&str>) -> Response {
    metered(s, owner, || async {
        page(s, raw)
            .await
            .unwrap_or_else(IntoResponse::into_response)
    })
    .await
}

/// This week's rising and falling terms for programs, by API key, within the same daily
/// quota as the news (see `GET /api/trends`; a free account's key gets the first few, a
/// subscriber's more). It takes no parameters.
#[utoipa::path(get, path = "/api/v1/trends", tag = "public api", params(
    ("X-API-Key" = String, Header, description = "Your API key (GET /api/key)"),
), responses(
    (status = 200, body = TrendsPage, headers(
        ("X-RateLimit-Limit" = u64, description = "Requests allowed per UTC day"),
        ("X-RateLimit-Remaining" = u64, description = "Requests left today"),
        ("X-RateLimit-Reset" = i64, description = "Unix time (s) when the quota starts over"),
    )),
    (status = 400, body = crate::error::ErrorBody, description = "A parameter was given (this endpoint takes none)"),
    (status = 401, body = crate::error::ErrorBody, description = "Missing or unknown API key"),
    (status = 429, body = crate::error::ErrorBody, description = "Daily quota used up; see Retry-After"),
))]
pub(crate) async fn get_public_trends(
    State(s): State<AppState>,
    ApiKeyUser(owner): ApiKeyUser,
    RawQuery(raw): RawQuery,
) -> Response {
    metered(&s, &owner, || async {
        if let Some((name, _)) =
            url::form_urlencoded::parse(raw.as_deref().unwrap_or_default().as_bytes()).next()
        {
            return invalid(format!(
                "{name} is not a parameter of this endpoint (it takes none)"
            ))
            .into_response();
        }
        let subscriber = s.store.is_subscriber(&owner);
        match s.store.trends(subscriber, Utc::now()).await {
            Ok(page) => Json(page).into_response(),
            Err(e) => ApiError::from(e).into_response(),
        }
    })
    .await
}

/// Counts a request against the key owner's daily quota and answers `answer`'s response
/// when allowed, else 429; either way with the quota's headers.
async fn metered<F: Future<Output = Response>>(
    s: &AppState,
    owner: &User,
    answer: impl FnOnce() -> F,
) -> Response {
    let quota = if s.store.is_subscriber(owner) {
        s.config.api.api_premium_quota
    } else {
        s.config.api.api_free_quota
    };
    let now = Utc::now();
    let used = match s.store.consume_quota(&owner.id, quota, now).await {
        Ok(u) => u,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let mut res = if used.allowed {
        answer().await
    } else {
        let wait = (used.reset_at - now).num_seconds().max(1).unsigned_abs();
        ApiError::too_many(
            "rate_limited",
            format!("This key has used its {quota} requests for today (UTC). The quota starts over at midnight UTC."),
            wait,
        )
        .into_response()
    };
    rate_headers(res.headers_mut(), &used);
    res
}

/// The answer for a valid key: a search, or a page of the listing, kept ready as JSON
/// for every client asking the same page until the items change (see [`Pages`]).
async fn page(s: &AppState, raw: Option<&str>) -> Result<Response> {
    let q = PublicQuery::parse(raw)?;
    let Some(search) = &q.q else {
        return Ok(RawJson(listing(s, &q).await?).into_response());
    };
    let (items, total) = s.store.search_catalogue(search, q.page, q.limit).await?;
    Ok(Json(PublicPage {
        pagination: Pagination::of(total, q.page, q.limit),
        items: items.into_iter().map(PublicItem::from).collect(),
    })
    .into_response())
}

/// A page of the listing as JSON: the kept one while the items' version is the one it
/// was built at, else built now and kept.
async fn listing(s: &AppState, q: &PublicQuery) -> Result<Arc<[u8]>> {
    let key = (q.sort, q.order, q.page, q.limit);
    let version = s.store.items_version().await?;
    if let Some(json) = s.public_pages.get(&key, version) {
        return Ok(json);
    }
    let (items, total) = s
        .store
        .public_page(q.sort, q.order, q.page, q.limit)
        .await?;
    let json: Arc<[u8]> = serde_json::to_vec(&PublicPage {
        pagination: Pagination::of(total, q.page, q.limit),
        items: items.into_iter().map(PublicItem::from).collect(),
    })
    .map_err(ApiError::internal)?
    .into();
    // Built from items of `version` at the newest: a write meanwhile moved the version
    // on, so this page is never served after that write.
    s.public_pages.keep(key, version, json.clone());
    Ok(json)
}

/// Which page of the listing: sort, order, page number and limit.
type PageKey = (SortBy, SortOrder, u64, u64);

/// Pages of the public listing kept ready: API clients mostly poll the first few pages
/// of a few orders, so a small cache answers nearly every request. Each page is kept
/// with the items' version it was built at, which the store answers for every process
/// sharing its backend.
pub struct Pages(Mutex<LruCache<PageKey, Versioned>>);

/// A page's JSON and the items' version it was built at.
type Versioned = (u64, Arc<[u8]>);

/// How many pages are kept.
const PAGES_KEPT: usize = 256;

impl Default for Pages {
    fn default() -> Self {
        Self(Mutex::new(LruCache::new(
            NonZeroUsize::new(PAGES_KEPT).expect("non-zero"),
        )))
    }
}

impl Pages {
    fn get(&self, key: &PageKey, version: u64) -> Option<Arc<[u8]>> {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match kept.get(key) {
            Some((v, json)) if *v == version => Some(json.clone()),
            _ => None,
        }
    }

    fn keep(&self, key: PageKey, version: u64, json: Arc<[u8]>) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .put(key, (version, json));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(raw: &str) -> String {
        PublicQuery::parse(Some(raw)).unwrap_err().message
    }

    #[test]
    fn defaults_and_values() {
        let q = PublicQuery::parse(None).unwrap();
        assert_eq!(
            (q.page, q.limit, q.sort, q.order),
            (1, 20, SortBy::PublishedDate, SortOrder::Desc)
        );
        let q = PublicQuery::parse(Some("page=3&limit=100&sort=title&order=asc")).unwrap();
        assert_eq!(
            (q.page, q.limit, q.sort, q.order),
            (3, 100, SortBy::Title, SortOrder::Asc)
        );
    }

    #[test]
    fn errors_name_the_parameter() {
        assert!(err("page=0").starts_with("page"));
        assert!(err("page=-1").starts_with("page"));
        assert!(err("page=").starts_with("page"));
        assert!(err("limit=101").starts_with("limit"));
        assert!(err("limit=0").starts_with("limit"));
        assert!(err("limit=abc").starts_with("limit"));
        assert!(err("sort=name").starts_with("sort"));
        assert!(err("order=up").starts_with("order"));
        assert!(err("pgae=2").starts_with("pgae"));
        assert!(err("page=1&page=2").starts_with("page"));
        assert!(err("q=").starts_with("q: the query is empty"));
        assert!(err("q=ai&sort=title").starts_with("sort does not apply with q"));
        assert!(err("order=asc&q=ai").starts_with("order does not apply with q"));
        assert!(err("q=ai&page=101&limit=100").starts_with("page: a search serves"));
        assert!(PublicQuery::parse(Some("q=ai&page=100&limit=100")).is_ok());
        assert_eq!(
            PublicQuery::parse(Some("q=%22open+weights%22&page=2"))
                .unwrap()
                .q,
            Some(SearchQuery::parse("\"open weights\"").unwrap())
        );
    }
}
