//! The JSON API under `/api/` and the embedded page: one function from a request (method,
//! path, query, body) to a response, so the HTTP layer ([`super::server`]) only moves bytes.
//! Every answer to a bad request is a 4xx with `{"error": "…"}` and leaves the game as it was.
//! The README documents every route.

use std::{collections::HashMap, sync::Arc, time::Duration};

use serde::{Deserialize, Serialize};

use super::{
    computer::MAX_LEVEL,
    driver::GameCell,
    game::{Player, RequestKind, Setup},
    lobby::Lobby,
    position::{Variant, Xy},
    records::{self, Format},
    ApiError, Openings,
};
use crate::{
    arena::{clock::TimeControl, openings},
    board::{MAX_SIZE, MIN_SIZE},
    rules::Rule,
};

/// Longest request body, in bytes (a record upload is the largest).
pub const MAX_BODY_BYTES: usize = records::MAX_RECORD_BYTES + 4096;
/// How long a long poll waits for a change.
pub const POLL_WAIT: Duration = Duration::from_secs(25);
/// Longest hint search.
pub const MAX_HINT_MS: u64 = 30_000;
/// Longest time per move for wuzi and for the clock settings.
pub const MAX_MOVE_MS: u64 = 600_000;
/// Longest game clock.
pub const MAX_GAME_MS: u64 = 4 * 60 * 60 * 1000;

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
    /// Body.
    pub body: Vec<u8>,
}

impl Response {
    fn json<T: Serialize>(status: u16, value: &T) -> Response {
        match serde_json::to_vec(value) {
            Ok(body) => Response {
                status,
                content_type: "application/json",
                headers: Vec::new(),
                body,
            },
            Err(e) => Response::error(&ApiError {
                status: 500,
                message: format!("cannot encode the answer: {e}"),
            }),
        }
    }

    /// The answer to a refused request.
    pub fn error(e: &ApiError) -> Response {
        #[derive(Serialize)]
        struct Body<'a> {
            error: &'a str,
        }
        let body = serde_json::to_vec(&Body { error: &e.message })
            .unwrap_or_else(|_| b"{\"error\":\"?\"}".to_vec());
        Response {
            status: e.status,
            content_type: "application/json",
            headers: Vec::new(),
            body,
        }
    }

    fn asset(content_type: &'static str, text: &'static str) -> Response {
        Response {
            status: 200,
            content_type,
            headers: vec![("Cache-Control", "no-cache".to_string())],
            body: text.as_bytes().to_vec(),
        }
    }
}

/// The page's files, embedded in the binary.
const ASSETS: [(&str, &str, &str); 4] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("assets/index.html"),
    ),
    (
        "/assets/style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "/assets/board.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/board.js"),
    ),
    (
        "/assets/app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
];

/// Everything the handler needs.
pub struct Server {
    /// The games.
    pub lobby: Lobby,
    /// Opening files loaded at start.
    pub openings: Openings,
    /// Who can reach the server, for the page's invitation links.
    pub reach: Reach,
}

/// Who can reach the server: only this machine (a loopback address), or other machines too,
/// at the addresses this machine has on its networks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// True when the server listens on a loopback address.
    pub loopback_only: bool,
    /// This machine's address on its main network (where other machines find it), if known.
    pub addresses: Vec<String>,
}

impl Reach {
    /// The reach of a server listening on `listen` (`HOST:PORT`).
    pub fn of(listen: &str) -> Reach {
        let host = listen.rsplit_once(':').map_or(listen, |(h, _)| h);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let ip: Option<std::net::IpAddr> = host.parse().ok();
        let loopback_only = match ip {
            Some(ip) => ip.is_loopback(),
            None => host.eq_ignore_ascii_case("localhost"),
        };
        let addresses = match ip {
            Some(ip) if ip.is_unspecified() => primary_address().into_iter().collect(),
            Some(ip) if !ip.is_loopback() => vec![ip.to_string()],
            _ => Vec::new(),
        };
        Reach {
            loopback_only,
            addresses,
        }
    }
}

/// The address this machine sends from on its default route: a UDP socket "connected" to a
/// public address learns it without sending anything. `None` offline.
fn primary_address() -> Option<String> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then(|| ip.to_string())
}

fn parse_body<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::too_large("the request body is too large"));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("bad JSON body: {e}")))
}

/// Splits `a=b&c=d` (no decoding needed: the values are hex secrets and numbers).
fn query_map(query: &str) -> HashMap<&str, &str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

impl Server {
    /// Answers one request. `body` is at most [`MAX_BODY_BYTES`] + 1 bytes (the server stops
    /// reading there).
    pub fn handle(&self, method: &str, url: &str, body: &[u8]) -> Response {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let query = query_map(query);
        if body.len() > MAX_BODY_BYTES {
            return Response::error(&ApiError::too_large("the request body is too large"));
        }
        if !path.starts_with("/api/") {
            return match (method, ASSETS.iter().find(|a| a.0 == path)) {
                ("GET" | "HEAD", Some(&(_, ty, text))) => Response::asset(ty, text),
                (_, Some(_)) => Response::error(&ApiError::method("use GET")),
                (_, None) => Response::error(&ApiError::not_found("no such page")),
            };
        }
        let parts: Vec<&str> = path["/api/".len()..].split('/').collect();
        let result = match (method, parts.as_slice()) {
            ("GET", ["info"]) => Ok(self.info()),
            ("POST", ["games"]) => self.create(body),
            ("GET", ["games", id]) => self.state(id, &query),
            ("GET", ["games", id, file]) => self.record(id, file),
            ("POST", ["games", id, action]) => self.act(id, action, body),
            (_, ["info"] | ["games"] | ["games", _] | ["games", _, _]) => {
                Err(ApiError::method("method not allowed here"))
            }
            _ => Err(ApiError::not_found("no such API route")),
        };
        result.unwrap_or_else(|e| Response::error(&e))
    }

    fn info(&self) -> Response {
        #[derive(Serialize)]
        struct EngineInfo {
            index: usize,
            name: String,
            time_ms: u64,
        }
        #[derive(Serialize)]
        struct OpeningFile {
            index: usize,
            name: String,
            count: usize,
        }
        #[derive(Serialize)]
        struct Info {
            version: &'static str,
            games: Vec<&'static str>,
            rules: Vec<&'static str>,
            min_size: usize,
            max_size: usize,
            max_level: u8,
            engines: Vec<EngineInfo>,
            openings: Vec<OpeningFile>,
            loopback_only: bool,
            addresses: Vec<String>,
        }
        let context = self.lobby.context();
        Response::json(
            200,
            &Info {
                version: env!("CARGO_PKG_VERSION"),
                games: vec!["gomoku", "connect4"],
                rules: Rule::ALL.iter().map(|r| r.name()).collect(),
                min_size: MIN_SIZE,
                max_size: MAX_SIZE,
                max_level: MAX_LEVEL,
                engines: context
                    .engines
                    .iter()
                    .enumerate()
                    .map(|(index, e)| EngineInfo {
                        index,
                        name: e.name.clone(),
                        time_ms: e.tc.turn_ms,
                    })
                    .collect(),
                openings: self
                    .openings
                    .iter()
                    .enumerate()
                    .map(|(index, (name, lines))| OpeningFile {
                        index,
                        name: name.clone(),
                        count: lines.len(),
                    })
                    .collect(),
                loopback_only: self.reach.loopback_only,
                addresses: self.reach.addresses.clone(),
            },
        )
    }

    fn create(&self, body: &[u8]) -> Result<Response, ApiError> {
        let req: CreateRequest = parse_body(body)?;
        let setup = self.setup(req)?;
        let persons: Vec<bool> = setup.players.iter().map(Player::is_person).collect();
        // A game between two computers gives its creator the seats' secrets as the host's.
        let computers_only = !persons.iter().any(|&p| p);
        let black = setup.black_seat;
        let (cell, tokens) = self.lobby.create(setup)?;
        #[derive(Serialize)]
        struct SeatToken {
            token: Option<String>,
            colour: &'static str,
        }
        #[derive(Serialize)]
        struct Created {
            id: String,
            seats: Vec<SeatToken>,
        }
        let id = cell.read(|g| g.id().to_string());
        let seats = (0..2)
            .map(|s| SeatToken {
                token: (persons[s] || computers_only).then(|| tokens[s].clone()),
                colour: if s == black { "black" } else { "white" },
            })
            .collect();
        Ok(Response::json(201, &Created { id, seats }))
    }

    /// Checks a new-game request and turns it into a [`Setup`].
    fn setup(&self, req: CreateRequest) -> Result<Setup, ApiError> {
        match req.game.as_deref().unwrap_or("gomoku") {
            "gomoku" => {}
            "connect4" => return self.connect4_setup(req),
            other => {
                return Err(ApiError::bad(format!(
                    "unknown game `{other}` (gomoku, connect4)"
                )))
            }
        }
        let parsed_record = match &req.record {
            Some(text) => Some(records::parse(text)?),
            None => None,
        };
        let rule = match (&req.rule, parsed_record.as_ref().and_then(|p| p.rule)) {
            (Some(name), _) => Rule::from_name(name)
                .ok_or_else(|| ApiError::bad(format!("unknown rule `{name}`")))?,
            (None, Some(rule)) => rule,
            (None, None) => Rule::Freestyle,
        };
        let size = match &parsed_record {
            Some(p) => p.size,
            None => req.size.unwrap_or(15),
        };
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(ApiError::bad(format!(
                "board size {size}: sizes {MIN_SIZE}..{MAX_SIZE} are supported"
            )));
        }
        let (players, black_seat, tc) = self.seats_and_clock(&req)?;
        let (start, origin) = self.start_position(&req, size)?;
        let (moves, cursor, origin) = match parsed_record {
            Some(p) => {
                let cursor = if req.replay.unwrap_or(false) {
                    0
                } else {
                    p.moves.len()
                };
                (p.moves, cursor, "opened record".to_string())
            }
            None => (Vec::new(), 0, origin),
        };
        Ok(Setup {
            variant: Variant::Gomoku { rule, size },
            players,
            black_seat,
            tc,
            start,
            moves,
            cursor,
            origin,
        })
    }

    /// Checks a new Connect Four game: its size (default 7×6), players and clock; it starts
    /// from the empty board.
    fn connect4_setup(&self, req: CreateRequest) -> Result<Setup, ApiError> {
        let gomoku_only = [
            ("rule", req.rule.is_some()),
            ("size", req.size.is_some()),
            ("start", req.start.is_some()),
            ("opening", req.opening.is_some()),
            ("opening_text", req.opening_text.is_some()),
            ("record", req.record.is_some()),
            ("replay", req.replay.is_some()),
        ];
        if let Some((key, _)) = gomoku_only.iter().find(|(_, given)| *given) {
            return Err(ApiError::bad(format!(
                "`{key}` is for Gomoku; Connect Four takes `width` and `height`"
            )));
        }
        let (width, height) = (req.width.unwrap_or(7), req.height.unwrap_or(6));
        if !Variant::connect4_fits(width, height) {
            return Err(ApiError::bad(format!(
                "Connect Four on {width}×{height}: at least 4×4, at most 9 columns, and \
                 width × (height + 1) at most 64 (7×6, 7×7, 6×7, 8×7, …)"
            )));
        }
        let (players, black_seat, tc) = self.seats_and_clock(&req)?;
        if players.iter().any(|p| matches!(p, Player::Engine { .. })) {
            return Err(ApiError::bad("Gomocup brains play Gomoku only"));
        }
        Ok(Setup {
            variant: Variant::ConnectFour { width, height },
            players,
            black_seat,
            tc,
            start: Vec::new(),
            moves: Vec::new(),
            cursor: 0,
            origin: String::new(),
        })
    }

    /// The players, the seat with black (the first player) and the clock of a new game.
    fn seats_and_clock(
        &self,
        req: &CreateRequest,
    ) -> Result<([Player; 2], usize, TimeControl), ApiError> {
        let players = match req.players.as_deref() {
            Some([a, b]) => [self.player(a)?, self.player(b)?],
            Some(_) => return Err(ApiError::bad("`players` needs exactly two entries")),
            None => [Player::Local, Player::Local],
        };
        if players.iter().all(|p| *p == Player::Remote) {
            return Err(ApiError::bad("at most one seat can be a remote person"));
        }
        let black_seat = match req.black.unwrap_or(0) {
            0 => 0,
            1 => 1,
            _ => {
                return Err(ApiError::bad(
                    "`black` is 0 or 1 (the seat that plays black)",
                ))
            }
        };
        let clock = req.clock.unwrap_or_default();
        if clock.turn_ms > MAX_MOVE_MS || clock.game_ms > MAX_GAME_MS || clock.inc_ms > MAX_MOVE_MS
        {
            return Err(ApiError::bad("the clock's times are too long"));
        }
        let tc = TimeControl {
            turn_ms: clock.turn_ms,
            game_ms: clock.game_ms,
            inc_ms: if clock.game_ms > 0 { clock.inc_ms } else { 0 },
        };
        Ok((players, black_seat, tc))
    }

    /// The set-up stones: by hand, an opening of a loaded file, or an opening line.
    fn start_position(
        &self,
        req: &CreateRequest,
        size: usize,
    ) -> Result<(Vec<Xy>, String), ApiError> {
        let given = [
            req.start.is_some(),
            req.opening.is_some(),
            req.opening_text.is_some(),
            req.record.is_some(),
        ];
        if given.iter().filter(|&&g| g).count() > 1 {
            return Err(ApiError::bad(
                "give at most one of `start`, `opening`, `opening_text` and `record`",
            ));
        }
        if let Some(start) = &req.start {
            let signed: Vec<(i64, i64)> = start.iter().map(|&[x, y]| (x, y)).collect();
            let stones = openings::validate(&signed, size).map_err(ApiError::bad)?;
            return Ok((stones, "position set up by hand".to_string()));
        }
        if let Some(text) = &req.opening_text {
            if text.len() > 2000 {
                return Err(ApiError::too_large("the opening is too long"));
            }
            let stones = openings::parse_line(text, openings::Format::Auto, size)
                .map_err(|e| ApiError::bad(format!("opening: {e}")))?
                .ok_or_else(|| ApiError::bad("the opening is empty"))?;
            let stones = openings::validate(&stones, size)
                .map_err(|e| ApiError::bad(format!("opening: {e}")))?;
            return Ok((stones, format!("opening {}", text.trim())));
        }
        if let Some(choice) = &req.opening {
            let (name, lines) = self
                .openings
                .get(choice.file)
                .ok_or_else(|| ApiError::bad("no such opening file"))?;
            // The openings usable on this board, in file order.
            let usable: Vec<(usize, Vec<Xy>)> = lines
                .iter()
                .filter_map(|(line, text)| {
                    let stones =
                        openings::parse_line(text, openings::Format::Auto, size).ok()??;
                    openings::validate(&stones, size).ok().map(|s| (*line, s))
                })
                .collect();
            if usable.is_empty() {
                return Err(ApiError::bad(format!(
                    "{name} has no opening for a {size}×{size} board"
                )));
            }
            let index = match choice.index {
                Some(n) if n >= 1 && n <= usable.len() => n - 1,
                Some(n) => {
                    return Err(ApiError::bad(format!(
                        "opening {n}: {name} has {} openings for this board",
                        usable.len()
                    )))
                }
                None => rand::Rng::gen_range(&mut rand::thread_rng(), 0..usable.len()),
            };
            let (line, stones) = usable[index].clone();
            return Ok((stones, format!("{name} line {line}")));
        }
        Ok((Vec::new(), String::new()))
    }

    fn player(&self, p: &PlayerRequest) -> Result<Player, ApiError> {
        match p.kind.as_str() {
            "local" | "person" => Ok(Player::Local),
            "remote" => Ok(Player::Remote),
            "wuzi" => {
                let level = p.level.unwrap_or(MAX_LEVEL);
                if !(1..=MAX_LEVEL).contains(&level) {
                    return Err(ApiError::bad(format!("wuzi's level is 1..{MAX_LEVEL}")));
                }
                let time_ms = p.time_ms.unwrap_or(1000);
                if !(10..=MAX_MOVE_MS).contains(&time_ms) {
                    return Err(ApiError::bad("wuzi's time per move is 10 ms .. 10 min"));
                }
                Ok(Player::Wuzi { level, time_ms })
            }
            "engine" => {
                let engines = &self.lobby.context().engines;
                let index = p
                    .engine
                    .ok_or_else(|| ApiError::bad("`engine` (its index) is missing"))?;
                let spec = engines.get(index).ok_or_else(|| {
                    ApiError::bad(format!(
                        "no engine {index} (the server has {})",
                        engines.len()
                    ))
                })?;
                let time_ms = p.time_ms.unwrap_or(spec.tc.turn_ms.max(100));
                if !(10..=MAX_MOVE_MS).contains(&time_ms) {
                    return Err(ApiError::bad(
                        "an engine's time per move is 10 ms .. 10 min",
                    ));
                }
                Ok(Player::Engine {
                    index,
                    name: spec.name.clone(),
                    time_ms,
                })
            }
            other => Err(ApiError::bad(format!(
                "unknown player kind `{other}` (local, remote, wuzi, engine)"
            ))),
        }
    }

    fn state(&self, id: &str, query: &HashMap<&str, &str>) -> Result<Response, ApiError> {
        let cell = self.lobby.get(id)?;
        let token = query.get("seat").copied().filter(|t| !t.is_empty());
        if let Some(t) = token {
            cell.update(|g, now| g.seen(t, now));
        }
        let since = match query.get("since") {
            Some(v) => Some(
                v.parse::<u64>()
                    .map_err(|_| ApiError::bad("`since` must be a number"))?,
            ),
            None => None,
        };
        let view = match since {
            Some(v) => {
                let game = cell.wait_change(v, POLL_WAIT);
                game.view(token, std::time::Instant::now())
            }
            None => cell.read(|g| g.view(token, std::time::Instant::now())),
        };
        Ok(Response::json(200, &view))
    }

    fn record(&self, id: &str, file: &str) -> Result<Response, ApiError> {
        let cell = self.lobby.get(id)?;
        let format = file
            .strip_prefix("record.")
            .and_then(Format::parse)
            .ok_or_else(|| ApiError::not_found("records are record.psq and record.sgf"))?;
        let text = cell
            .read(|g| records::text(g, format, g.round() as usize + 1))
            .ok_or_else(|| ApiError::conflict("this game has no record in that format"))?;
        let short: String = id.chars().take(8).collect();
        Ok(Response {
            status: 200,
            content_type: "text/plain; charset=utf-8",
            headers: vec![(
                "Content-Disposition",
                format!(
                    "attachment; filename=\"wuzi-{short}.{}\"",
                    format.extension()
                ),
            )],
            body: text.into_bytes(),
        })
    }

    fn act(&self, id: &str, action: &str, body: &[u8]) -> Result<Response, ApiError> {
        let cell = self.lobby.get(id)?;
        let req: ActionRequest = parse_body(body)?;
        let token = req.seat.as_str();
        match action {
            "move" => {
                let x = req.x.ok_or_else(|| ApiError::bad("`x` is missing"))?;
                let y = req.y.ok_or_else(|| ApiError::bad("`y` is missing"))?;
                cell.update(|g, now| g.play(token, x, y, now))?
            }
            "undo" => cell.update(|g, now| g.undo(token, now))?,
            "redo" => cell.update(|g, now| g.redo(token, now))?,
            "goto" => {
                let ply = req.ply.ok_or_else(|| ApiError::bad("`ply` is missing"))?;
                cell.update(|g, now| g.goto(token, ply, now))?
            }
            "resume" => cell.update(|g, now| g.resume(token, now))?,
            "resign" => cell.update(|g, now| g.resign(token, now))?,
            "request" => {
                let kind = req
                    .kind
                    .as_deref()
                    .and_then(RequestKind::parse)
                    .ok_or_else(|| {
                        ApiError::bad("`kind` is takeback, draw, new_game or new_game_swapped")
                    })?;
                cell.update(|g, now| g.request(token, kind, now))?
            }
            "respond" => {
                let accept = req
                    .accept
                    .ok_or_else(|| ApiError::bad("`accept` is missing"))?;
                cell.update(|g, now| g.respond(token, accept, now))?
            }
            "chat" => {
                let text = req.text.as_deref().unwrap_or("");
                cell.update(|g, now| g.chat(token, text, now))?
            }
            "stop" => cell.update(|g, now| g.move_now(token, now))?,
            "hint" => {
                let ms = req.ms.unwrap_or(1000);
                if !(10..=MAX_HINT_MS).contains(&ms) {
                    return Err(ApiError::bad(format!(
                        "a hint takes 10 .. {MAX_HINT_MS} ms"
                    )));
                }
                let epoch = cell.read(|g| g.check_hint(token))?;
                cell.start_hint(epoch, ms);
            }
            "analysis" => {
                let on = req.on.ok_or_else(|| ApiError::bad("`on` is missing"))?;
                cell.update(|g, now| g.set_analysis(token, on, now))?
            }
            _ => return Err(ApiError::not_found(format!("no action `{action}`"))),
        }
        Ok(ok_state(&cell, token))
    }
}

/// The game's state after an action, as its player sees it.
fn ok_state(cell: &Arc<GameCell>, token: &str) -> Response {
    Response::json(
        200,
        &cell.read(|g| g.view(Some(token), std::time::Instant::now())),
    )
}

#[derive(Deserialize)]
struct PlayerRequest {
    kind: String,
    level: Option<u8>,
    time_ms: Option<u64>,
    engine: Option<usize>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct ClockRequest {
    #[serde(default)]
    turn_ms: u64,
    #[serde(default)]
    game_ms: u64,
    #[serde(default)]
    inc_ms: u64,
}

#[derive(Deserialize)]
struct OpeningChoice {
    file: usize,
    /// 1-based among the file's openings usable on the board; none: at random.
    index: Option<usize>,
}

#[derive(Deserialize)]
struct CreateRequest {
    game: Option<String>,
    rule: Option<String>,
    size: Option<usize>,
    width: Option<usize>,
    height: Option<usize>,
    players: Option<Vec<PlayerRequest>>,
    black: Option<usize>,
    clock: Option<ClockRequest>,
    start: Option<Vec<[i64; 2]>>,
    opening: Option<OpeningChoice>,
    opening_text: Option<String>,
    record: Option<String>,
    replay: Option<bool>,
}

#[derive(Deserialize)]
struct ActionRequest {
    seat: String,
    x: Option<i64>,
    y: Option<i64>,
    ply: Option<usize>,
    kind: Option<String>,
    accept: Option<bool>,
    text: Option<String>,
    ms: Option<u64>,
    on: Option<bool>,
}
