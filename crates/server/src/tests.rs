//! The server end to end: a real server on 127.0.0.1:0 asked by the std client of [`crate::client`], its answers
//! checked against `retro_query` itself.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use retro_driver::EngineArgs;
use retro_driver::generate::{GenerateArgs, generate};

use crate::client::{Client, Response, escape};
use retro_query::Tablebase;

/// The 3- and 4-man chess tables shipped with the repository.
fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess")
}

/// Starts a server over `tablebase` on a free loopback port, for the rest of the test binary's life.
fn start(tablebase: Arc<Tablebase>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || crate::run(listener, tablebase).unwrap());
    addr
}

/// One chess server shared by the tests, and its tablebase.
fn chess() -> &'static (SocketAddr, Arc<Tablebase>) {
    static SERVER: OnceLock<(SocketAddr, Arc<Tablebase>)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let tablebase = Arc::new(Tablebase::open(&shipped()).unwrap());
        (start(Arc::clone(&tablebase)), tablebase)
    })
}

fn get(addr: SocketAddr, target: &str) -> Response {
    Client::connect(addr).unwrap().get(target).unwrap()
}

/// A JSON error body: `{"error":"..."}` on one line.
fn assert_error(response: &Response, status: u16, needle: &str) {
    assert_eq!(response.status, status, "{response:?}");
    assert!(
        response.body.starts_with("{\"error\":\"") && response.body.ends_with("\"}"),
        "{response:?}"
    );
    assert!(!response.body.contains('\n'), "{response:?}");
    assert!(response.body.contains(needle), "{needle}: {response:?}");
    assert_eq!(response.header("access-control-allow-origin"), Some("*"));
}

const FENS: &[&str] = &[
    "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
    "8/8/8/4k3/8/8/8/KR6 b - - 0 1",
    "8/8/8/8/8/8/k3P3/4K3 w - - 0 1",
    "8/8/3k4/8/8/8/8/KBN5 w - - 0 1",
    "8/8/8/2k5/8/8/1r6/KR6 w - - 0 1",
    "8/8/8/8/3Pp3/8/8/K6k b - d3 0 1",
    "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",
    "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
];

#[test]
fn chess_answers_are_the_querys_answers() {
    let (addr, tablebase) = chess();
    let mut client = Client::connect(*addr).unwrap();
    for fen in FENS {
        let expected = tablebase.probe("chess", fen).unwrap().to_json();
        // The same connection for every request (keep-alive); `+` and `_` for spaces as lichess's clients send
        // them, and percent-escapes.
        for target in [
            format!("/standard?fen={}", fen.replace(' ', "+")),
            format!("/standard?fen={}", fen.replace(' ', "_")),
            format!("/standard?fen={}", escape(fen)),
            format!("/chess?fen={}", escape(fen)),
        ] {
            let response = client.get(&target).unwrap();
            assert_eq!(response.status, 200, "{target}: {response:?}");
            assert_eq!(response.body, expected, "{target}");
            assert_eq!(response.header("access-control-allow-origin"), Some("*"));
            assert!(
                response
                    .header("content-type")
                    .unwrap()
                    .starts_with("application/json")
            );
        }
    }
    // lichess's fields, in the answer for a won position.
    let body = client
        .get(&format!("/standard?fen={}", escape(FENS[0])))
        .unwrap()
        .body;
    for field in [
        "\"category\":\"win\"",
        "\"dtz\":null",
        "\"checkmate\":false",
        "\"stalemate\":false",
        "\"insufficient_material\":false",
        "\"uci\":",
        "\"san\":",
        "\"fen\":",
    ] {
        assert!(body.contains(field), "{field}: {body}");
    }
}

#[test]
fn bad_positions_missing_tables_and_unknown_paths_are_json_errors() {
    let (addr, _) = chess();
    let cases: &[(&str, u16, &str)] = &[
        ("/standard?fen=not+a+fen", 400, ""),
        ("/standard?fen=8/8/8/8/8/8/8/KK5k+w+-+-+0+1", 400, ""),
        ("/standard", 400, "missing"),
        ("/standard?other=1", 400, "missing"),
        // Five men: the shipped tables stop at four.
        (
            "/standard?fen=8/8/8/3k4/8/8/1r6/KRQ5+w+-+-+0+1",
            404,
            "KQRvKR",
        ),
        ("/go?position=x", 404, "unknown game"),
        ("/standard/extra", 404, "no such path"),
        ("/tictactoe?position=xx./oo./...", 404, ""),
        ("/tictactoe?position=", 400, ""),
    ];
    for (target, status, needle) in cases {
        assert_error(&get(*addr, target), *status, needle);
    }
    let mut client = Client::connect(*addr).unwrap();
    let post = client
        .send(b"POST /standard HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    assert_eq!(post.status, 405, "{post:?}");
}

#[test]
fn games_lists_every_game_and_the_tables_it_has() {
    let (addr, _) = chess();
    let response = get(*addr, "/games");
    assert_eq!(response.status, 200);
    for game in Tablebase::games() {
        assert!(
            response.body.contains(&format!("{{\"name\":\"{game}\"")),
            "{game}: {}",
            response.body
        );
    }
    assert!(response.body.contains("\"endpoint\":\"/standard\""));
    assert!(response.body.contains("\"KQvK\""), "{}", response.body);
    assert!(response.body.contains("\"KPvKP\""), "{}", response.body);
}

#[test]
fn the_page_is_served_with_its_script_and_style() {
    let (addr, _) = chess();
    let page = get(*addr, "/");
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        page.body.contains("<script src=\"/app.js\">"),
        "{}",
        page.body
    );
    let script = get(*addr, "/app.js");
    assert_eq!(script.status, 200);
    assert!(
        script
            .header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(script.body.contains("/standard"));
    let style = get(*addr, "/style.css");
    assert!(
        style
            .header("content-type")
            .unwrap()
            .starts_with("text/css")
    );
}

#[test]
fn other_games_answer_as_the_query_does() {
    let dir = tempfile::tempdir().unwrap();
    generate(&GenerateArgs {
        game: "tictactoe".into(),
        out: dir.path().to_path_buf(),
        engine: EngineArgs {
            quiet: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let tablebase = Arc::new(Tablebase::open(dir.path()).unwrap());
    let addr = start(Arc::clone(&tablebase));
    let mut client = Client::connect(addr).unwrap();
    for position in ["xx./oo./...", ".../.../...", "xox/oxx/o.."] {
        let expected = tablebase.probe("tictactoe", position).unwrap().to_json();
        let response = client
            .get(&format!("/tictactoe?position={}", escape(position)))
            .unwrap();
        assert_eq!(response.status, 200, "{response:?}");
        assert_eq!(response.body, expected);
    }
    assert_error(
        &client.get("/tictactoe?position=xq./.../...").unwrap(),
        400,
        "",
    );
    assert!(client.get("/games").unwrap().body.contains("\"tables\":["));
}

/// A small xorshift: the fuzz loop is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random query value: raw bytes, percent-escapes (valid or not, of any byte), FEN-like text, or a huge run.
fn fuzz_value(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    match rng.below(5) {
        0 => {
            for _ in 0..rng.below(40) {
                out.push(rng.next() as u8);
            }
        }
        1 => {
            for _ in 0..rng.below(30) {
                out.extend_from_slice(format!("%{:02X}", rng.next() as u8).as_bytes());
                if rng.below(4) == 0 {
                    out.extend_from_slice(b"%G");
                }
            }
        }
        2 => {
            let mut fen = FENS[rng.below(FENS.len())].as_bytes().to_vec();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(fen.len());
                fen[at] = b"KQRBNPkqrbnp12345678/ wb-"[rng.below(25)];
            }
            out = escape(&String::from_utf8_lossy(&fen)).into_bytes();
        }
        3 => out.resize(1000 + rng.below(100_000), b"a1/%+"[rng.below(5)]),
        _ => {
            for _ in 0..rng.below(20) {
                out.extend_from_slice(format!("{}", rng.next()).as_bytes());
                out.push(b"/+&=%"[rng.below(5)]);
            }
        }
    }
    out
}

#[test]
fn random_queries_get_well_formed_answers_and_never_stop_the_server() {
    let (addr, tablebase) = chess();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let paths = [
        "/standard",
        "/chess",
        "/tictactoe",
        "/dobutsu",
        "/games",
        "/x",
    ];
    let keys = ["fen", "position", "", "fen[]"];
    let mut statuses = std::collections::BTreeMap::new();
    let mut client = Client::connect(*addr).unwrap();
    for _ in 0..3000 {
        let mut request = format!(
            "GET {}?{}=",
            paths[rng.below(paths.len())],
            keys[rng.below(keys.len())]
        )
        .into_bytes();
        request.extend(fuzz_value(&mut rng));
        request.extend_from_slice(b" HTTP/1.1\r\nHost: localhost\r\n\r\n");
        let response = match client.send(&request) {
            Ok(r) => r,
            // The server may close a connection after a request it cannot parse: a new one goes on.
            Err(_) => {
                client = Client::connect(*addr).unwrap();
                client.send(&request).unwrap()
            }
        };
        assert!(
            matches!(response.status, 200 | 400 | 404 | 414 | 431),
            "{:?}: {response:?}",
            String::from_utf8_lossy(&request[..request.len().min(200)])
        );
        if response.status != 200 && !response.body.is_empty() {
            assert!(response.body.starts_with("{\"error\":"), "{response:?}");
        }
        *statuses.entry(response.status).or_insert(0) += 1;
    }
    // Every kind of answer came up, and the server still answers.
    for status in [200, 400, 404] {
        assert!(statuses.contains_key(&status), "{statuses:?}");
    }
    let fen = FENS[0];
    let response = get(*addr, &format!("/standard?fen={}", escape(fen)));
    assert_eq!(
        response.body,
        tablebase.probe("chess", fen).unwrap().to_json()
    );
}

#[test]
fn concurrent_clients_get_their_own_answers() {
    let (addr, tablebase) = chess();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let addr = *addr;
            let tablebase = Arc::clone(tablebase);
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).unwrap();
                for i in 0..200 {
                    let fen = FENS[(t + i) % FENS.len()];
                    let response = client
                        .get(&format!("/standard?fen={}", escape(fen)))
                        .unwrap();
                    assert_eq!(
                        response.body,
                        tablebase.probe("chess", fen).unwrap().to_json()
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn a_taken_address_is_a_one_line_error() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let e = crate::serve(&shipped(), &addr).unwrap_err();
    let message = format!("{e:#}");
    assert!(
        message.starts_with(&format!("cannot listen on {addr}")),
        "{message}"
    );
    assert!(!message.contains('\n'), "{message}");
    let e = crate::serve(Path::new("/nonexistent/retro"), "127.0.0.1:0").unwrap_err();
    assert!(!format!("{e:#}").contains('\n'), "{e:#}");
}
