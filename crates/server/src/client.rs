//! A minimal HTTP/1.1 client over a std `TcpStream`, for the server's tests and benchmark: keep-alive GETs (or
//! raw bytes) and their responses with a `Content-Length` body (or a body up to the close). Not for the open web.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One connection, reused for request after request.
pub struct Client {
    stream: BufReader<TcpStream>,
}

/// A response: its status, headers (names lower-cased) and body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header of that (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn bad(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl Client {
    /// Connects, with a 10-second limit on each read so that a test cannot hang.
    pub fn connect(addr: SocketAddr) -> io::Result<Client> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Client {
            stream: BufReader::new(stream),
        })
    }

    /// `GET target` (a path and query, already escaped), keeping the connection open.
    pub fn get(&mut self, target: &str) -> io::Result<Response> {
        let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        self.send(request.as_bytes())
    }

    /// Sends `request` as it is and reads one response.
    pub fn send(&mut self, request: &[u8]) -> io::Result<Response> {
        self.stream.get_mut().write_all(request)?;
        self.read_response()
    }

    fn read_response(&mut self) -> io::Result<Response> {
        let mut line = String::new();
        if self.stream.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        let status = line
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| bad(format!("not an HTTP/1.1 status line: {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.stream.read_line(&mut line)?;
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            let (name, value) = trimmed
                .split_once(':')
                .ok_or_else(|| bad(format!("not a header: {trimmed:?}")))?;
            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map(|(_, v)| v.parse::<usize>())
            .transpose()
            .map_err(|e| bad(format!("bad content-length: {e}")))?;
        let mut body = Vec::new();
        match length {
            Some(n) => {
                body.resize(n, 0);
                self.stream.read_exact(&mut body)?;
            }
            None => {
                self.stream.read_to_end(&mut body)?;
            }
        }
        let body = String::from_utf8(body).map_err(|e| bad(format!("body not UTF-8: {e}")))?;
        Ok(Response {
            status,
            headers,
            body,
        })
    }
}

/// Percent-escapes everything but letters, digits and `-._~`, for a query value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
