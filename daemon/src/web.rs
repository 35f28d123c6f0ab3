//! The web app, embedded in the binary from `web/dist` at build time.
//!
//! Hashed assets under `/assets/` are cached for a year; `index.html` is never cached, so
//! a new release reaches browsers at once. A path that is one of the app's routes gets the
//! app with 200; any other path gets the app too (it renders its 404 page) but with status
//! 404, so crawlers and scripts learn the truth.
//!
//! `index.html` carries the client configuration (`GET /api/config`'s answer) inline, so the
//! app starts its auth client without a round trip first; `/index.html` itself is that page
//! too, since the service worker keeps it to start the app offline. `sw.js` and the
//! manifest are served like any file outside `/assets/`: never cached, so a new service
//! worker is found at once.
//!
//! Nothing here is compressed per request. The build writes a brotli (`.br`, quality 11) and
//! a gzip (`.gz`, level 9) copy of each text asset (`web/scripts/precompress.ts`), and a
//! client that accepts one gets that copy as it is; `index.html` with the configuration is
//! compressed once, at the first request. Such answers are [`Prepared`], which the
//! compression layer leaves alone (see [`crate::compression`]).

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;
use std::io::Write as _;

use crate::error::ApiError;
use crate::state::AppState;

#[derive(Embed)]
#[folder = "../web/dist"]
struct Assets;

/// The app's client-side routes (docs/product.md §2); everything else is its 404 page.
const APP_ROUTES: &[&str] = &[
    "/",
    "/register",
    "/forgot-password",
    "/reset-password",
    "/auth/callback",
    "/app",
    "/subscribe",
    "/subscribe/success",
    "/upcoming-features",
    "/api-docs",
    "/weekly-summary",
    "/insights",
    "/trends",
    "/profile",
    "/tv-mode",
    "/alerts",
    "/unsubscribe",
];

fn is_app_route(path: &str) -> bool {
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    APP_ROUTES.contains(&path)
        || path
            .strip_prefix("/weekly-summary/")
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

/// Serves static files and the app's routes; unknown `/api` and `/auth` paths get JSON 404.
pub(crate) fn router() -> Router<AppState> {
    Router::new().fallback(serve_app)
}

/// Where the app's `index.html` expects the inline configuration.
const CONFIG_MARKER: &str = "<!--radar-config-->";

/// `index.html` with the client configuration in a JSON script element. `<` is escaped so no
/// value can close the element.
fn with_config(index: &[u8], config: &impl serde::Serialize) -> Vec<u8> {
    let html = String::from_utf8_lossy(index);
    let json = serde_json::to_string(config)
        .expect("the client config serializes")
        .replace('<', "\\u003c");
    let script = format!(r#"<script id="radar-config" type="application/json">{json}</script>"#);
    html.replacen(CONFIG_MARKER, &script, 1).into_bytes()
}

/// Marks an answer whose body is final as it is (a file of the build, or `index.html`
/// compressed at start): the compression layer passes it through untouched.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared;

/// A content coding the daemon has copies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Coding {
    fn suffix(self) -> &'static str {
        match self {
            Coding::Brotli => ".br",
            Coding::Gzip => ".gz",
            Coding::Identity => "",
        }
    }

    fn header(self) -> Option<HeaderValue> {
        match self {
            Coding::Brotli => Some(HeaderValue::from_static("br")),
            Coding::Gzip => Some(HeaderValue::from_static("gzip")),
            Coding::Identity => None,
        }
    }
}

/// The codings `Accept-Encoding` allows, best first (brotli, gzip, none), per RFC 9110
/// section 12.5.3: `q=0` refuses a coding, `*` stands for those not named, and no header
/// at all allows only the identity here (a client that sends none may not decode).
fn accepted(headers: &HeaderMap) -> impl Iterator<Item = Coding> {
    let (mut br, mut gzip, mut any) = (None, None, None);
    for value in headers.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for part in value.split(',') {
            let mut fields = part.split(';');
            let name = fields.next().unwrap_or_default().trim();
            let allowed = fields
                .filter_map(|p| {
                    let p = p.trim();
                    p.strip_prefix("q=").or_else(|| p.strip_prefix("Q="))
                })
                .all(|q| q.trim().parse::<f32>().is_ok_and(|q| q > 0.0));
            if name.eq_ignore_ascii_case("br") {
                br = Some(allowed);
            } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(allowed);
            } else if name == "*" {
                any = Some(allowed);
            }
        }
    }
    let br = br.or(any).unwrap_or(false);
    let gzip = gzip.or(any).unwrap_or(false);
    [
        br.then_some(Coding::Brotli),
        gzip.then_some(Coding::Gzip),
        Some(Coding::Identity),
    ]
    .into_iter()
    .flatten()
}

/// An answer of prepared bytes in the best coding the client accepts, with `Vary` when
/// other codings exist.
fn prepared(
    status: StatusCode,
    content_type: HeaderValue,
    cache: &'static str,
    (coding, body): (Coding, Bytes),
    varies: bool,
) -> Response {
    let mut res = (status, body).into_response();
    let headers = res.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Some(value) = coding.header() {
        headers.insert(CONTENT_ENCODING, value);
    }
    if varies {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    res.extensions_mut().insert(Prepared);
    res
}

/// An embedded file's bytes, without a copy when they are in the binary (release builds).
#[expect(
    clippy::ptr_arg,
    reason = "the Cow tells bytes borrowed for the whole run from an owned copy"
)]
fn bytes(data: &std::borrow::Cow<'static, [u8]>) -> Bytes {
    match data {
        std::borrow::Cow::Borrowed(b) => Bytes::from_static(b),
        std::borrow::Cow::Owned(v) => Bytes::from(v.clone()),
    }
}

/// A file of the build, in the best coding of which the build wrote a copy.
fn asset(path: &str, request: &HeaderMap) -> Option<Response> {
    // `index.html` is only ever served with the configuration in it (see `serve_app`).
    let name = path
        .strip_prefix('/')
        .filter(|p| !p.is_empty() && *p != "index.html")?;
    let file = Assets::get(name)?;
    let copies =
        [Coding::Brotli, Coding::Gzip].map(|c| Assets::get(&format!("{name}{}", c.suffix())));
    let body = accepted(request).find_map(|coding| match coding {
        Coding::Brotli => copies[0].as_ref().map(|f| (coding, bytes(&f.data))),
        Coding::Gzip => copies[1].as_ref().map(|f| (coding, bytes(&f.data))),
        Coding::Identity => Some((coding, bytes(&file.data))),
    })?;
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let cache = if path.starts_with("/assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    Some(prepared(
        StatusCode::OK,
        HeaderValue::from_str(mime.as_ref()).expect("mime types are valid headers"),
        cache,
        body,
        copies.iter().any(Option::is_some),
    ))
}

/// `index.html` with the configuration, as is and compressed; made at the first request,
/// since the configuration is known only once the daemon has its state.
pub struct IndexPage {
    plain: Bytes,
    brotli: Bytes,
    gzip: Bytes,
}

impl IndexPage {
    fn new(html: Vec<u8>) -> Self {
        let mut brotli = Vec::new();
        {
            // Quality 11 (the highest), a 4 MiB window: the page is a few KiB, made once.
            let mut w = brotli::CompressorWriter::new(&mut brotli, 4096, 11, 22);
            w.write_all(&html).expect("compressing into memory");
        }
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gzip.write_all(&html).expect("compressing into memory");
        let gzip = gzip.finish().expect("compressing into memory");
        Self {
            plain: html.into(),
            brotli: brotli.into(),
            gzip: gzip.into(),
        }
    }

    fn best(&self, request: &HeaderMap) -> (Coding, Bytes) {
        let coding = accepted(request).next().unwrap_or(Coding::Identity);
        let body = match coding {
            Coding::Brotli => &self.brotli,
            Coding::Gzip => &self.gzip,
            Coding::Identity => &self.plain,
        };
        (coding, body.clone())
    }
}

/// The app's page for this state, made once.
fn index_page(state: &AppState) -> Option<&IndexPage> {
    state
        .index_page
        .get_or_init(|| {
            let index = Assets::get("index.html")?;
            let config = crate::client_config::client_config(state);
            Some(IndexPage::new(with_config(&index.data, &config)))
        })
        .as_ref()
}

async fn serve_app(State(state): State<AppState>, uri: Uri, request: HeaderMap) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") || path.starts_with("/auth/v1") {
        return ApiError::not_found(format!(
            "There is no endpoint at {path}. See /api/openapi.json for the API."
        ))
        .into_response();
    }
    if let Some(res) = asset(path, &request) {
        return res;
    }
    // The service worker keeps `/index.html` to start the app offline: the page, with 200.
    let status = if is_app_route(path) || path == "/index.html" {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    };
    match index_page(&state) {
        Some(page) => prepared(
            status,
            HeaderValue::from_static("text/html; charset=utf-8"),
            "no-cache",
            page.best(&request),
            true,
        ),
        None => ApiError::not_found("The web app is not built into this binary.").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn asking(accept: &[&str]) -> Vec<Coding> {
        let mut headers = HeaderMap::new();
        for a in accept {
            headers.append(ACCEPT_ENCODING, HeaderValue::from_str(a).unwrap());
        }
        accepted(&headers).collect()
    }

    #[test]
    fn codings_are_offered_as_the_client_accepts_them() {
        use Coding::*;
        assert_eq!(asking(&[]), [Identity]);
        assert_eq!(asking(&["gzip, deflate, br"]), [Brotli, Gzip, Identity]);
        assert_eq!(asking(&["gzip"]), [Gzip, Identity]);
        assert_eq!(asking(&["BR;q=1.0", "x-gzip"]), [Brotli, Gzip, Identity]);
        assert_eq!(asking(&["br;q=0, gzip;q=0.5"]), [Gzip, Identity]);
        assert_eq!(asking(&["*"]), [Brotli, Gzip, Identity]);
        assert_eq!(asking(&["*;q=0.1, br;q=0"]), [Gzip, Identity]);
        assert_eq!(asking(&["identity"]), [Identity]);
        assert_eq!(asking(&["gzip;q=zero"]), [Identity]);
    }

    #[test]
    fn the_page_is_compressed_once_in_both_codings() {
        let html = b"<!doctype html><title>Radar</title>".repeat(50);
        let page = IndexPage::new(html.clone());
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip, br"));
        let (coding, body) = page.best(&headers);
        assert_eq!(coding, Coding::Brotli);
        assert!(body.len() < html.len());
        let mut out = Vec::new();
        brotli::Decompressor::new(&body[..], 4096)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, html);
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let (coding, body) = page.best(&headers);
        assert_eq!(coding, Coding::Gzip);
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, html);
        assert_eq!(
            page.best(&HeaderMap::new()),
            (Coding::Identity, html.into())
        );
    }

    #[test]
    fn a_prepared_answer_names_its_coding_and_varies() {
        let res = prepared(
            StatusCode::OK,
            HeaderValue::from_static("text/javascript"),
            "no-cache",
            (Coding::Brotli, Bytes::from_static(b"x")),
            true,
        );
        assert_eq!(res.headers()[CONTENT_ENCODING], "br");
        assert_eq!(res.headers()[VARY], "accept-encoding");
        assert!(res.extensions().get::<Prepared>().is_some());
    }

    #[test]
    fn config_is_inlined_and_cannot_close_its_element() {
        let index = b"<head><!--radar-config--></head>";
        let html = String::from_utf8(with_config(
            index,
            &serde_json::json!({ "anonKey": "k</script><script>x" }),
        ))
        .unwrap();
        assert_eq!(
            html,
            r#"<head><script id="radar-config" type="application/json">{"anonKey":"k\u003c/script>\u003cscript>x"}</script></head>"#
        );
    }

    #[test]
    fn app_routes_include_summary_deep_links_only() {
        assert!(is_app_route("/"));
        assert!(is_app_route("/app/"));
        assert!(is_app_route("/weekly-summary/abc"));
        assert!(!is_app_route("/weekly-summary/abc/def"));
        assert!(!is_app_route("/nope"));
    }
}
