//! `pbrain-wuzi play`: the board page. A small web server inside the binary serves an embedded
//! page (plain HTML, CSS, JavaScript and SVG; nothing fetched at run time) on which people play
//! Gomoku or Connect Four against wuzi, Gomoku against Gomocup brains named on the command
//! line, and either game with each other at one screen or across a network. The server owns every game and judges every move with the engine's rules
//! code; the page only draws and asks, through the JSON API under `/api/` (see the README).
//!
//! Modules, in the direction data flows:
//! - [`server`]: HTTP on `tiny_http`, limits, the clock thread.
//! - [`api`]: routes, request checking, JSON answers, the embedded assets.
//! - [`lobby`]: the games, their ids and secrets, expiry.
//! - [`driver`]: a game behind its lock; starts the computers and the analysis.
//! - [`computer`]: wuzi's levels and searches, Connect Four through [`crate::connect4`]'s
//!   player, Gomocup brains through the arena's engine layer.
//! - [`game`]: one game's state: seats, moves, undo/redo, clocks, requests, chat, result.
//! - [`position`]: the games as one type ([`position::Position`]); [`gomoku`]: Gomoku on the
//!   engine's board and rules; Connect Four is [`crate::connect4::Position`].
//! - [`records`]: PSQ and SGF out (the arena's writers) and in.

pub mod api;
pub mod computer;
pub mod driver;
pub mod game;
pub mod gomoku;
pub mod lobby;
pub mod position;
pub mod records;
pub mod server;

use std::{
    fmt,
    io::{self, Write},
    path::PathBuf,
    sync::Arc,
};

use anyhow::{bail, Context as _};

use self::{api::Server, driver::Context, lobby::Lobby};
use crate::arena::{cli::parse_engine, engine::EngineSpec};

/// A refused request: an HTTP status (4xx, or 503 when the server is full) and a message for
/// the person or program that sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

impl ApiError {
    fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed or names something impossible.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }

    /// 403: the sender does not hold the seat that may do this.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(403, message)
    }

    /// 404: no such game or route.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, message)
    }

    /// 405: wrong method.
    pub fn method(message: impl Into<String>) -> ApiError {
        ApiError::new(405, message)
    }

    /// 409: not now (not your turn, the game is over, nothing to undo, …).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }

    /// 413: the body is too large.
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(413, message)
    }

    /// 422: a well-formed move the rules do not allow (occupied, off the board, forbidden).
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(422, message)
    }

    /// 503: the server is full or busy.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(503, message)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

/// Opening files loaded at start: each file's name and its non-empty lines with their numbers.
pub type Openings = Vec<(String, Vec<(usize, String)>)>;

/// Default address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// Default number of games held.
pub const DEFAULT_MAX_GAMES: usize = 64;
/// Default hash table per game, in MiB.
pub const DEFAULT_HASH_MB: usize = 16;

/// `pbrain-wuzi play --help`.
pub const HELP: &str = "\
pbrain-wuzi play: play Gomoku in the browser against wuzi, Gomocup brains or people.

USAGE:
    pbrain-wuzi play [OPTIONS]

Starts a web server and prints the address of its board page.

OPTIONS:
    --listen ADDR:PORT   where to listen (default 127.0.0.1:8080; another free port if it
                         is taken). 0.0.0.0:PORT lets people on other machines join
                         network games through the invitation link
    --open               also open the page in the default browser
    --engine KEY=VALUE…  a Gomocup brain to offer as an opponent, with the keys of
                         `pbrain-wuzi match --help` (cmd=PATH name=NAME turn=T …);
                         may be given several times
    --openings FILE      an opening file to start games from (Gomocup offsets or
                         c-gomoku-cli positions, one per line); may be repeated
    --records DIR        write every finished game there (PSQ and SGF)
    --threads N          search threads shared by the games (default: all cores)
    --hash MB            hash table per game for wuzi (default 16; 64 games: 1 GiB)
    --max-games N        games held at once (default 64; idle games expire)
    -h, --help           this text
";

/// The command line of `play`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Address to listen on.
    pub listen: String,
    /// Open the page in a browser.
    pub open: bool,
    /// Brains offered as opponents.
    pub engines: Vec<EngineSpec>,
    /// Opening files.
    pub openings: Vec<PathBuf>,
    /// Records folder.
    pub records: Option<PathBuf>,
    /// Search threads.
    pub threads: usize,
    /// Hash per game in MiB.
    pub hash_mb: usize,
    /// Games held.
    pub max_games: usize,
}

/// Parses the arguments after `play`; `Ok(None)` for `--help`.
pub fn parse_options(args: &[String]) -> anyhow::Result<Option<Options>> {
    let mut o = Options {
        listen: DEFAULT_LISTEN.to_string(),
        open: false,
        engines: Vec::new(),
        openings: Vec::new(),
        records: None,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        hash_mb: DEFAULT_HASH_MB,
        max_games: DEFAULT_MAX_GAMES,
    };
    let mut i = 0;
    while i < args.len() {
        let option = args[i].as_str();
        i += 1;
        let mut value = |name: &str| -> anyhow::Result<String> {
            let v = args
                .get(i)
                .cloned()
                .with_context(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match option {
            "-h" | "--help" | "help" => return Ok(None),
            "--listen" => o.listen = value(option)?,
            "--open" => o.open = true,
            "--engine" => {
                let mut words = Vec::new();
                while i < args.len() && !args[i].starts_with("--") {
                    words.push(args[i].clone());
                    i += 1;
                }
                let mut spec =
                    parse_engine(&words).map_err(|e| anyhow::anyhow!("--engine: {e}"))?;
                let base = spec.name.clone();
                let mut k = 2;
                while o.engines.iter().any(|e| e.name == spec.name) {
                    spec.name = format!("{base}-{k}");
                    k += 1;
                }
                o.engines.push(spec);
            }
            "--openings" => o.openings.push(PathBuf::from(value(option)?)),
            "--records" => o.records = Some(PathBuf::from(value(option)?)),
            "--threads" => {
                o.threads = value(option)?
                    .parse()
                    .ok()
                    .filter(|&t| (1..=256).contains(&t))
                    .context("--threads needs a number from 1 to 256")?
            }
            "--hash" => {
                o.hash_mb = value(option)?
                    .parse()
                    .ok()
                    .filter(|&m| (1..=4096).contains(&m))
                    .context("--hash needs a number of MiB from 1 to 4096")?
            }
            "--max-games" => {
                o.max_games = value(option)?
                    .parse()
                    .ok()
                    .filter(|&n| (1..=10_000).contains(&n))
                    .context("--max-games needs a number from 1 to 10000")?
            }
            other => bail!("play: unknown option `{other}` (see pbrain-wuzi play --help)"),
        }
    }
    Ok(Some(o))
}

/// Reads the opening files.
fn load_openings(paths: &[PathBuf]) -> anyhow::Result<Openings> {
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the opening file {}", path.display()))?;
        let lines: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#') && !t.starts_with("//")
            })
            .map(|(n, l)| (n + 1, l.to_string()))
            .collect();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        out.push((name, lines));
    }
    Ok(out)
}

/// Builds the server of `options` (not yet listening).
pub fn build(options: &Options) -> anyhow::Result<Arc<Server>> {
    if let Some(dir) = &options.records {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the records folder {}", dir.display()))?;
    }
    let context = Context::new(
        options.threads,
        options.engines.clone(),
        options.hash_mb << 20,
        options.records.clone(),
    )?;
    Ok(Arc::new(Server {
        lobby: Lobby::new(Arc::new(context), options.max_games),
        openings: load_openings(&options.openings)?,
        reach: api::Reach::of(&options.listen),
    }))
}

/// Starts the server on `options.listen`, or on a free port of the same host if that port is
/// taken.
pub fn serve(options: &Options) -> anyhow::Result<server::Running> {
    let app = build(options)?;
    match server::start(Arc::clone(&app), &options.listen) {
        Ok(running) => Ok(running),
        Err(first) => {
            let host = options
                .listen
                .rsplit_once(':')
                .map_or("127.0.0.1", |(h, _)| h);
            server::start(app, &format!("{host}:0")).map_err(|_| first)
        }
    }
}

/// Opens `url` in the default browser (errors are only logged).
fn open_browser(url: &str) {
    let result = if cfg!(target_os = "windows") {
        std::process::Command::new("cmd")
            .args(["/C", "start", "", url])
            .spawn()
    } else if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if let Err(e) = result {
        log::warn!("cannot open a browser ({e}); open {url} yourself");
    }
}

/// Entry point of `pbrain-wuzi play`.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let options = match parse_options(args)? {
        Some(o) => o,
        None => {
            out.write_all(HELP.as_bytes())?;
            return Ok(());
        }
    };
    let running = serve(&options)?;
    let shown_host = if running.addr.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        running.addr.ip().to_string()
    };
    let url = format!("http://{shown_host}:{}/", running.addr.port());
    writeln!(
        out,
        "wuzi play: open {url} in a browser (Ctrl-C stops the server)"
    )?;
    if running.addr.ip().is_unspecified() {
        writeln!(
            out,
            "listening on all interfaces, port {}: other machines use this machine's address",
            running.addr.port()
        )?;
    }
    for e in &options.engines {
        writeln!(out, "engine: {} ({})", e.name, e.program)?;
    }
    out.flush()?;
    if options.open {
        open_browser(&url);
    }
    loop {
        std::thread::park();
    }
}
