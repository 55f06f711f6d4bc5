//! An HTTP/1.1 request to the server's one port (a connection whose first bytes are
//! `GET `): the page's files, or the upgrade to a WebSocket that carries the text
//! protocol. Every answer but the upgrade is followed by a close, so a connection
//! makes one request; nothing here waits for a body (a GET has none).

use reversi_games::registry::Module;

use super::assets;

/// The longest request head taken (request line and headers, blank line included);
/// a longer one is answered 400.
pub const MAX_HEAD: usize = 4096;
/// The most headers a request may have.
const MAX_HEADERS: usize = 32;
/// The path of the WebSocket.
pub const SOCKET_PATH: &str = "/ws";
/// The path Prometheus scrapes (spec/DEPLOY.md).
pub const METRICS_PATH: &str = "/metrics";
/// The path a load balancer's health check asks (spec/DEPLOY.md).
pub const HEALTH_PATH: &str = "/health";
/// Where the store's pages are (`pages.rs`).
pub const PAGE_PREFIXES: [&str; 4] = ["/players/", "/leaderboard/", "/games/", "/tournaments"];
/// The WebSocket version this server speaks (RFC 6455).
const WEBSOCKET_VERSION: &str = "13";

/// The operator's HTTP routes (spec/DEPLOY.md), answered from the supervisor's own
/// state: nothing is read from elsewhere while the loop waits.
#[derive(Clone, Copy)]
pub struct Operator<'a> {
    /// The text of `GET /metrics`, made when asked; `None`: the route is not served.
    pub metrics: Option<&'a dyn Fn() -> String>,
    /// Whether the server takes new games: `GET /health` says so (200, else 503).
    pub takes_games: bool,
    /// With `--cluster`, the line `GET /health` adds: joined, or alone (spec/DEPLOY.md §4).
    pub cluster: Option<&'a str>,
}

/// What to do with the bytes of a request so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The head is incomplete: read more.
    Wait,
    /// Send this response, then close.
    Respond(Vec<u8>),
    /// Send this `101` response; the connection speaks WebSocket from byte `used` on.
    Upgrade { response: Vec<u8>, used: usize },
    /// A path of the store's pages (one of [`PAGE_PREFIXES`]): made off the loop
    /// (spec/STORE.md §11), then close.
    Page(String),
}

/// Judges `input`, which starts with `GET `: the operator's routes are answered
/// from `operator`, the page's files for `games`.
pub fn screen(input: &[u8], games: &[&'static Module], operator: &Operator<'_>) -> Answer {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let used = match request.parse(input) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) if input.len() >= MAX_HEAD => {
            return bad(&format!("the request head is longer than {MAX_HEAD} bytes"))
        }
        Ok(httparse::Status::Partial) => return Answer::Wait,
        Err(httparse::Error::TooManyHeaders) => {
            return bad(&format!("more than {MAX_HEADERS} headers"))
        }
        Err(e) => return bad(&format!("malformed request: {e}")),
    };
    if used > MAX_HEAD {
        return bad(&format!("the request head is longer than {MAX_HEAD} bytes"));
    }
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_owned())
    };
    if header("content-length").is_some_and(|n| n != "0") || header("transfer-encoding").is_some() {
        return bad("a GET request has no body");
    }
    // RFC 6455 §11.3.1 and §11.3.5: these appear once at most.
    for once in ["sec-websocket-key", "sec-websocket-version"] {
        let count = request
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(once))
            .count();
        if count > 1 {
            return bad(&format!("{once} appears {count} times"));
        }
    }
    let target = request.path.unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or(target);
    if path == SOCKET_PATH {
        return upgrade(&header, used);
    }
    if let Some(answer) = operator_route(path, operator) {
        return Answer::Respond(answer);
    }
    if PAGE_PREFIXES.iter().any(|prefix| path.starts_with(prefix)) {
        return Answer::Page(path.to_owned());
    }
    match assets::find(path, games) {
        Some((kind, body)) => Answer::Respond(response("200 OK", kind, &[], &body)),
        None => Answer::Respond(response(
            "404 Not Found",
            assets::PLAIN,
            &[],
            format!("404 Not Found: nothing at {path} (the page is at /)\n").as_bytes(),
        )),
    }
}

/// The answer to an operator's route, if `path` is one that is served.
fn operator_route(path: &str, operator: &Operator<'_>) -> Option<Vec<u8>> {
    match (path, operator.metrics) {
        (METRICS_PATH, Some(metrics)) => Some(response(
            "200 OK",
            crate::metrics::CONTENT_TYPE,
            &[],
            metrics().as_bytes(),
        )),
        (HEALTH_PATH, _) if operator.takes_games => {
            let body = match operator.cluster {
                Some(line) => format!("taking games\n{line}\n"),
                None => "taking games\n".to_owned(),
            };
            Some(response("200 OK", assets::PLAIN, &[], body.as_bytes()))
        }
        (HEALTH_PATH, _) => Some(response(
            "503 Service Unavailable",
            assets::PLAIN,
            &[],
            b"draining: no new games here\n",
        )),
        _ => None,
    }
}

/// The WebSocket handshake (RFC 6455 §4.2): the upgrade headers, version 13 and a key.
fn upgrade(header: &dyn Fn(&str) -> Option<String>, used: usize) -> Answer {
    let has_token = |name: &str, token: &str| {
        header(name).is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    if !has_token("upgrade", "websocket") || !has_token("connection", "upgrade") {
        return bad(&format!(
            "{SOCKET_PATH} is the WebSocket: the request needs `Upgrade: websocket` and \
             `Connection: Upgrade`"
        ));
    }
    if header("sec-websocket-version").as_deref() != Some(WEBSOCKET_VERSION) {
        return Answer::Respond(response(
            "426 Upgrade Required",
            assets::PLAIN,
            &[("Sec-WebSocket-Version", WEBSOCKET_VERSION)],
            format!("426 Upgrade Required: only WebSocket version {WEBSOCKET_VERSION}\n")
                .as_bytes(),
        ));
    }
    let Some(key) = header("sec-websocket-key").filter(|k| is_key(k)) else {
        return bad("a WebSocket upgrade needs a Sec-WebSocket-Key of 16 bytes in base64");
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let head = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    Answer::Upgrade {
        response: head.into_bytes(),
        used,
    }
}

/// Whether `key` looks like 16 bytes in base64: 22 characters of the alphabet and `==`.
fn is_key(key: &str) -> bool {
    let b64 = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    key.len() == 24 && key.ends_with("==") && key.bytes().take(22).all(b64)
}

/// A 400 answer saying why.
fn bad(why: &str) -> Answer {
    Answer::Respond(response(
        "400 Bad Request",
        assets::PLAIN,
        &[],
        format!("400 Bad Request: {why}\n").as_bytes(),
    ))
}

/// A whole response whose connection closes after it.
pub fn response(status: &str, kind: &str, extra: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games() -> Vec<&'static Module> {
        reversi_games::registry::all().iter().collect()
    }

    const PAGE_ONLY: Operator<'static> = Operator {
        metrics: None,
        takes_games: true,
        cluster: None,
    };

    fn respond(request: &str) -> String {
        respond_to(request, &PAGE_ONLY)
    }

    fn respond_to(request: &str, operator: &Operator<'_>) -> String {
        match screen(request.as_bytes(), &games(), operator) {
            Answer::Respond(bytes) => String::from_utf8(bytes).unwrap(),
            other => panic!("{request:?}: {other:?}"),
        }
    }

    const UPGRADE: &str = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\
        Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
        Sec-WebSocket-Version: 13\r\n\r\n";

    #[test]
    fn the_page_and_its_files_are_served_and_nothing_else() {
        let page = respond("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(page.contains("Content-Type: text/html"));
        assert!(page.contains("Connection: close"));
        assert!(respond("GET /?x=1 HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 200"));
        let games = respond("GET /games HTTP/1.1\r\n\r\n");
        assert!(games.contains("\r\n\r\nreversi\t"), "{games}");
        let missing = respond("GET /etc/passwd HTTP/1.1\r\n\r\n");
        assert!(missing.starts_with("HTTP/1.1 404 Not Found"));
        assert!(missing.ends_with("nothing at /etc/passwd (the page is at /)\n"));
    }

    #[test]
    fn a_request_comes_whole_before_it_is_answered() {
        let request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        for cut in 4..request.len() {
            assert_eq!(
                screen(&request[..cut], &games(), &PAGE_ONLY),
                Answer::Wait,
                "{cut}"
            );
        }
    }

    #[test]
    fn bad_requests_get_400_with_the_reason() {
        for (request, why) in [
            ("GET /\r\n\r\n", "malformed request"),
            (
                "GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
                "has no body",
            ),
            ("GET /ws HTTP/1.1\r\n\r\n", "needs `Upgrade: websocket`"),
            (
                "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\
                 Sec-WebSocket-Version: 13\r\n\r\n",
                "Sec-WebSocket-Key",
            ),
        ] {
            let answer = respond(request);
            assert!(
                answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
                "{answer}"
            );
            assert!(answer.contains(why), "{request:?}: {answer}");
        }
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(respond(&many).contains(&format!("more than {MAX_HEADERS} headers")));
        let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_HEAD));
        assert!(respond(&long).contains("longer than 4096 bytes"));
        for twice in [
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
        ] {
            let doubled = UPGRADE.replace(twice, &format!("{twice}\r\n{twice}"));
            let answer = respond(&doubled);
            assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
            assert!(answer.contains("appears 2 times"), "{answer}");
        }
        let old = UPGRADE.replace("Version: 13", "Version: 8");
        let answer = respond(&old);
        assert!(answer.starts_with("HTTP/1.1 426"));
        assert!(answer.contains("Sec-WebSocket-Version: 13\r\n"));
    }

    #[test]
    fn the_upgrade_answers_with_the_accept_key_of_rfc_6455() {
        let mut input = UPGRADE.as_bytes().to_vec();
        input.extend([0x81, 0x80]);
        match screen(&input, &games(), &PAGE_ONLY) {
            Answer::Upgrade { response, used } => {
                let response = String::from_utf8(response).unwrap();
                assert!(response.starts_with("HTTP/1.1 101 Switching Protocols\r\n"));
                // The example of RFC 6455 §1.3.
                assert!(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
                assert_eq!(used, UPGRADE.len());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn metrics_are_served_only_when_the_operator_asked_for_them() {
        let request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        assert!(respond(request).starts_with("HTTP/1.1 404"));
        let text = || "reversid_pending_connections 0\n# EOF\n".to_owned();
        let operator = Operator {
            metrics: Some(&text),
            takes_games: true,
            cluster: None,
        };
        let answer = respond_to(request, &operator);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.contains("Content-Type: application/openmetrics-text;"));
        assert!(answer.ends_with("\r\n\r\nreversid_pending_connections 0\n# EOF\n"));
    }

    #[test]
    fn health_says_whether_the_server_takes_games() {
        let request = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
        let serving = respond(request);
        assert!(serving.starts_with("HTTP/1.1 200 OK\r\n"), "{serving}");
        let drained = Operator {
            metrics: None,
            takes_games: false,
            cluster: None,
        };
        let answer = respond_to(request, &drained);
        assert!(
            answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{answer}"
        );
    }
    #[test]
    fn health_adds_the_cluster_line_when_there_is_a_cluster() {
        let request = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
        assert!(respond(request).ends_with("\r\n\r\ntaking games\n"));
        let alone = Operator {
            metrics: None,
            takes_games: true,
            cluster: Some("alone: PostgreSQL unreachable since 2026-11-26T19:40:03Z (x)"),
        };
        let answer = respond_to(request, &alone);
        assert!(
            answer.starts_with("HTTP/1.1 200 OK\r\n"),
            "a host alone still serves"
        );
        assert!(answer.ends_with(
            "\r\n\r\ntaking games\nalone: PostgreSQL unreachable since 2026-11-26T19:40:03Z (x)\n"
        ));
    }
}
