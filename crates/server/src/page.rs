//! The web page at `/`: HTML, CSS and plain JavaScript from `web/`, embedded in the binary (no build step, no
//! external assets). The script asks the same API as any client.

use axum::http::header;
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const STYLE: &str = include_str!("../web/style.css");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            // The page changes with the binary: always ask.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub(crate) async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

pub(crate) async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

pub(crate) async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}
