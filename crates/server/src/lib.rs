//! retro's tablebase server, `retro serve --tables DIR`: an HTTP API in the shape of lichess's tablebase API, and a
//! web page to explore the tables with.
//!
//! - `GET /standard?fen=FEN` (also `/chess`): lichess's answer for a chess position: `category`, `dtm`, `dtz`
//!   (always `null`), `checkmate`, `stalemate`, `insufficient_material`, and `moves` best first;
//! - `GET /GAME?position=TEXT` (`/tictactoe`, `/dobutsu`, ...): the same answer for any other game;
//! - `GET /games`: the games, their notation, their endpoint and the tables the directory holds for each;
//! - `GET /`: the page (`web/`, embedded in the binary): boards, values and clickable moves.
//!
//! Every answer is [`retro_query::Answer::to_json`], so the server, the C library, the Python package and
//! `retro probe --json` agree. A bad position is a 400, a missing table or an unknown game or path a 404, each
//! with a body `{"error": "one line"}`; every response carries `Access-Control-Allow-Origin: *`, as lichess's do.
//!
//! A probe takes microseconds, so it runs inline on the runtime's worker; it runs under `catch_unwind`, so that a
//! bug answers a 500 instead of taking a worker down.

pub mod client;
mod page;
#[cfg(test)]
mod tests;

use std::net::TcpListener;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::map_response;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use retro_driver::json;
use retro_query::{QueryError, Tablebase};

/// The address `retro serve` listens on when `--bind` is not given.
pub const DEFAULT_BIND: &str = "127.0.0.1:9000";

/// Opens the tables in `tables`, listens on `bind` and answers until the process is stopped.
pub fn serve(tables: &Path, bind: &str) -> Result<()> {
    let tablebase = Tablebase::open(tables).map_err(|e| anyhow::anyhow!("{e}"))?;
    let listener = TcpListener::bind(bind).with_context(|| format!("cannot listen on {bind}"))?;
    let addr = listener.local_addr()?;
    eprintln!(
        "retro serve: the tables of {} on http://{addr}/",
        tables.display()
    );
    run(listener, Arc::new(tablebase))
}

/// Answers on `listener` until the process is stopped, on a runtime of one worker per core.
pub fn run(listener: TcpListener, tablebase: Arc<Tablebase>) -> Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        axum::serve(listener, router(tablebase)).await
    })?;
    Ok(())
}

/// The routes: the page, `/games`, and one endpoint per game; everything else is a JSON 404.
pub fn router(tablebase: Arc<Tablebase>) -> Router {
    Router::new()
        .route("/", get(page::index))
        .route("/app.js", get(page::script))
        .route("/style.css", get(page::style))
        .route("/games", get(games))
        .route("/{game}", get(probe))
        .fallback(unknown_path)
        .with_state(tablebase)
        .layer(map_response(allow_any_origin))
}

/// lichess's header: any page may ask.
async fn allow_any_origin(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// A JSON body with its status.
fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body,
    )
        .into_response()
}

/// `{"error": "..."}` with its status.
fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, format!("{{\"error\":{}}}", json::string(message)))
}

async fn unknown_path(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        &format!(
            "no such path {:?}: try /games, /standard?fen=FEN or /GAME?position=TEXT",
            uri.path()
        ),
    )
}

/// The game an endpoint names: lichess's `standard` is chess.
fn game_of(endpoint: &str) -> Option<&'static str> {
    let name = if endpoint == "standard" {
        "chess"
    } else {
        endpoint
    };
    Tablebase::games().into_iter().find(|g| *g == name)
}

/// The endpoint of a game, as `/games` lists it.
fn endpoint_of(game: &str) -> String {
    if game == "chess" {
        "/standard".into()
    } else {
        format!("/{game}")
    }
}

/// `GET /standard?fen=...`, `GET /GAME?position=...`.
async fn probe(State(tablebase): State<Arc<Tablebase>>, uri: Uri, query: RawQuery) -> Response {
    // The path is read from the URI, not through a `Path` extractor, whose rejections are not JSON.
    let endpoint = uri.path().trim_start_matches('/');
    let Some(game) = game_of(endpoint) else {
        return error(
            StatusCode::NOT_FOUND,
            &format!(
                "unknown game {endpoint:?} (known: standard, {})",
                Tablebase::games().join(", ")
            ),
        );
    };
    let key = if game == "chess" { "fen" } else { "position" };
    // Either key is taken for any game: `fen` is what lichess's clients send.
    let text = query.0.as_deref().and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == "fen" || k == "position")
            .map(|(_, v)| v.into_owned())
    });
    let Some(text) = text else {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("the position is missing: {}?{key}=...", endpoint_of(game)),
        );
    };
    // lichess's clients write a FEN's spaces as underscores (`fen=8/8/8/8/8/2k5/8/KQ6_w_-_-_0_1`); a FEN has no
    // underscore of its own, so the two spellings cannot be confused.
    let text = if game == "chess" {
        text.replace('_', " ")
    } else {
        text
    };
    match catch_unwind(AssertUnwindSafe(|| tablebase.probe(game, &text))) {
        Ok(Ok(answer)) => json_response(StatusCode::OK, answer.to_json()),
        Ok(Err(e)) => {
            let status = match e {
                QueryError::BadPosition(_) => StatusCode::BAD_REQUEST,
                QueryError::MissingTable(_) | QueryError::UnknownGame { .. } => {
                    StatusCode::NOT_FOUND
                }
                QueryError::Unreadable(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error(status, &e.to_string())
        }
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the probe of {game} {text:?} failed inside the server (a bug)"),
        ),
    }
}

/// `GET /games`: every game, its notation and endpoint, and the tables the directory has for it.
async fn games(State(tablebase): State<Arc<Tablebase>>) -> Response {
    let items: Vec<String> = retro_driver::families()
        .iter()
        .map(|about| {
            let tables: Vec<String> = tables_of(&tablebase.dir().join(about.name))
                .iter()
                .map(|t| json::string(t))
                .collect();
            format!(
                "{{\"name\":{},\"summary\":{},\"endpoint\":{},\"key\":{},\"example_position\":{},\"tables\":[{}]}}",
                json::string(about.name),
                json::string(about.summary),
                json::string(&endpoint_of(about.name)),
                json::string(about.position_key),
                json::string(about.example_position),
                tables.join(",")
            )
        })
        .collect();
    json_response(
        StatusCode::OK,
        format!("{{\"games\":[{}]}}", items.join(",")),
    )
}

/// The names of the tables in a game's folder (the stems of its `.rwdl` files), sorted; none if it is absent.
fn tables_of(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "rwdl").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    names
}
