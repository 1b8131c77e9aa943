//! Protocol fuzzing: seeded streams of commands, valid and malformed, sent to the real brain
//! (`pbrain-wuzi` of this build), with its answers checked against a model of the protocol.
//!
//! A stream is a few dozen *units*: one command (one line, or a block up to `DONE`) with what
//! the brain must answer to it. Units cover every command wuzi knows (START, RECTSTART,
//! RESTART, BEGIN, TURN, BOARD, YXBOARD, SWAP2BOARD, INFO with every key, ABOUT, TAKEBACK,
//! PLAY, YXSTOP, the Yixin-Board commands), malformed variants of each, unknown words, empty
//! lines, CR LF, odd case and spacing, lines of up to 1 MB, invalid UTF-8 and binary garbage.
//! After a unit the generator either waits for the answers or sends the next one at once, so
//! commands arrive while the brain thinks; YXSTOP, END and end of input come at random moments.
//!
//! Invariants checked:
//! * exactly one answer line per request (`MESSAGE`/`DEBUG` lines aside), in order, of the
//!   right kind (`OK`, `ERROR`, `UNKNOWN`, the ABOUT line, `FORBID`, a move, `SWAP`);
//! * every move is on the board, on a square the model knows to be empty, and not a YXBLOCK
//!   square; the model plays it;
//! * nothing is printed for INFO, YXSTOP, YXBOARD, empty lines (no line no unit expects);
//! * each answer comes within its time (the move time plus a slack for a loaded machine);
//! * after END the brain prints no more than the answers already due and exits; after end of
//!   input it answers everything received and exits, with status 0, within a short time;
//! * stderr never contains `panicked`; output lines are UTF-8 and short;
//! * the peak resident memory (`VmHWM`, Linux) stays within `INFO max_memory` when the stream
//!   fixes it at the start.
//!
//! The CI run plays the fixed [`SEEDS`] (about half a minute on two cores). Longer runs:
//!
//! | variable | meaning |
//! |---|---|
//! | `WUZI_FUZZ_SECONDS=N` | play fresh seeds (from `WUZI_FUZZ_SEED`, default the clock) for N seconds, report every failure at the end |
//! | `WUZI_FUZZ_SEED=S` | alone: play only stream S (to reproduce a failure) |
//! | `WUZI_FUZZ_UNITS=N` | units per stream (default 40) |
//! | `WUZI_TIME_SCALE=F` | multiply every slack (default 1) |
//!
//! The second test, `sigstop_between_moves_still_answers_in_time`, suspends the brain with
//! SIGSTOP between moves (as the Gomocup judge does) and checks the next move comes in time.

use std::collections::{HashSet, VecDeque};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// The streams of the CI run: 1 to 24, then streams that once failed (2001359: 16 threads
/// in 128 MB went over `max_memory` while each split copied the board for every helper).
const SEEDS: [u64; 25] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 2001359,
];
/// Units per stream unless `WUZI_FUZZ_UNITS` says otherwise.
const DEFAULT_UNITS: usize = 40;
/// Time allowed beyond the move time for an answer (multiplied by `WUZI_TIME_SCALE`).
const SLACK_MS: u64 = 2500;
/// Time the brain gets to exit after END or end of input.
const EXIT_MS: u64 = 2000;
/// Longest input line the brain keeps (`session::MAX_LINE_BYTES`).
const MAX_LINE_BYTES: usize = 1 << 20;
/// Longest output line accepted.
const MAX_OUTPUT_LINE: usize = 4096;
/// Below this, `INFO max_memory` is not achievable by any brain (code, stacks, pattern tables).
const MEMORY_FLOOR: i64 = 48 << 20;
/// How many transcript events a failure report shows.
const REPORT_EVENTS: usize = 60;

/// Every word that starts a command (protocol.rs `KEYWORDS`, the database and unsupported
/// Yixin commands).
const KEYWORDS: &[&str] = &[
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "INFO",
    "END",
    "ABOUT",
    "TAKEBACK",
    "PLAY",
    "YXSTOP",
    "STOP",
    "YXSHOWFORBID",
    "YXHASHCLEAR",
    "YXNBEST",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    "YXBALANCEONE",
    "YXBALANCETWO",
    "YXSWAP2STEP1",
    "YXSWAP2STEP2",
    "YXSWAP2STEP3",
    "YXSOOSORVSTEP1",
    "YXSOOSORVSTEP2",
    "YXSOOSORVSTEP3",
    "YXSOOSORVSTEP4",
    "YXSOOSORVSTEP5",
    "YXSOOSORVSTEP6",
    "YXSEARCHDEFEND",
    "YXSHOWHASHUSAGE",
    "YXHASHDUMP",
    "YXHASHLOAD",
    "YXSHOWINFO",
    "YXQUERYDATABASEALL",
    "YXQUERYDATABASEALLT",
    "YXQUERYDATABASEONE",
    "YXQUERYDATABASETEXT",
    "YXEDITTVDDATABASE",
    "YXEDITTEXTDATABASE",
    "YXEDITLABELDATABASE",
    "YXDELETEDATABASEONE",
    "YXDELETEDATABASEALL",
    "YXSETBESTMOVEDATABASE",
    "YXCLEARBESTMOVEDATABASE",
    "YXSETDATABASE",
    "YXDBTOPOS",
    "YXDBTOTXT",
    "YXDBTOTXTALL",
    "YXTXTTODB",
    "YXLIBTODB",
    "YXDBTOLIB",
    "YXDBSPLIT",
    "YXDBMERGE",
    "YXSAVEDATABASE",
    "YXDBCHECK",
    "YXDBFIX",
    "YXBLOCKPATH",
    "YXBLOCKPATHUNDO",
    "YXBLOCKPATHRESET",
];

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn time_scale() -> f64 {
    std::env::var("WUZI_TIME_SCALE")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(1.0)
}

fn scaled(ms: u64) -> Duration {
    Duration::from_millis((ms as f64 * time_scale()) as u64)
}

// ---------------------------------------------------------------------------------------------
// The brain process
// ---------------------------------------------------------------------------------------------

/// One line of the conversation, for failure reports.
#[derive(Clone, Debug)]
enum Event {
    Sent(String),
    Got(String),
    Note(String),
}

/// A running brain: its stdin, its stdout lines as they arrive, its stderr.
struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    stderr: Arc<Mutex<Vec<u8>>>,
    spawned: Instant,
    events: Vec<(Duration, Event)>,
}

impl Brain {
    fn spawn() -> Brain {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the brain starts");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let n = match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&buf[..n]);
                while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                    let mut line: Vec<u8> = pending.drain(..=i).collect();
                    line.pop();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    let text = match String::from_utf8(line) {
                        Ok(t) => t,
                        Err(e) => {
                            format!("\u{0}not UTF-8: {}", String::from_utf8_lossy(e.as_bytes()))
                        }
                    };
                    if tx.send((Instant::now(), text)).is_err() {
                        return;
                    }
                }
            }
            if !pending.is_empty() {
                let text = format!("\u{0}unterminated: {}", String::from_utf8_lossy(&pending));
                let _ = tx.send((Instant::now(), text));
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = sink.lock() {
                    s.extend_from_slice(&buf[..n]);
                }
            }
        });
        Brain {
            child,
            stdin,
            lines,
            stderr,
            spawned: Instant::now(),
            events: Vec::new(),
        }
    }

    fn note(&mut self, event: Event) {
        self.events.push((self.spawned.elapsed(), event));
    }

    /// Writes bytes; false when the pipe is closed.
    fn write(&mut self, bytes: &[u8]) -> bool {
        let ok = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(bytes).and_then(|_| stdin.flush()).is_ok(),
            None => false,
        };
        let shown = String::from_utf8_lossy(bytes);
        for line in shown.split_terminator('\n') {
            let line = if line.len() > 100 {
                let mut end = 80;
                while !line.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}… ({} bytes)", &line[..end], line.len())
            } else {
                line.to_string()
            };
            self.note(Event::Sent(line));
        }
        ok
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
        self.note(Event::Note("end of input".into()));
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Peak resident memory in bytes (`VmHWM`), Linux only.
    fn peak_memory(&self) -> Option<i64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    fn stderr_text(&self) -> String {
        self.stderr
            .lock()
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .unwrap_or_default()
    }

    /// The last events and stderr, for a failure report.
    fn report(&self) -> String {
        let mut text = String::new();
        // DEBUG and realtime lines can be hundreds: they are left out of the report.
        let shown: Vec<&(Duration, Event)> = self
            .events
            .iter()
            .filter(|(_, e)| {
                !matches!(e, Event::Got(l) if l.starts_with("DEBUG") || l.starts_with("MESSAGE REALTIME"))
            })
            .collect();
        let skip = shown.len().saturating_sub(REPORT_EVENTS);
        for (at, event) in &shown[skip..] {
            let (tag, line) = match event {
                Event::Sent(l) => (">", l),
                Event::Got(l) => ("<", l),
                Event::Note(l) => ("#", l),
            };
            text.push_str(&format!("  {:>7.3}s {tag} {line}\n", at.as_secs_f64()));
        }
        let stderr = self.stderr_text();
        if !stderr.is_empty() {
            let tail: String = stderr
                .chars()
                .rev()
                .take(2000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            text.push_str(&format!("  stderr: {tail}\n"));
        }
        text
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// The model of the brain's game
// ---------------------------------------------------------------------------------------------

type Sq = (i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Empty,
    Stone,
    Wall,
}

#[derive(Clone, Debug)]
struct Grid {
    w: i64,
    h: i64,
    cells: Vec<Cell>,
}

impl Grid {
    fn new(w: i64, h: i64) -> Grid {
        Grid {
            w,
            h,
            cells: vec![Cell::Empty; (w * h) as usize],
        }
    }
    fn on(&self, (x, y): Sq) -> bool {
        (0..self.w).contains(&x) && (0..self.h).contains(&y)
    }
    fn get(&self, sq: Sq) -> Option<Cell> {
        if self.on(sq) {
            Some(self.cells[(sq.1 * self.w + sq.0) as usize])
        } else {
            None
        }
    }
    fn set(&mut self, sq: Sq, cell: Cell) {
        if self.on(sq) {
            let w = self.w;
            self.cells[(sq.1 * w + sq.0) as usize] = cell;
        }
    }
    fn is_empty(&self, sq: Sq) -> bool {
        self.get(sq) == Some(Cell::Empty)
    }
    fn full(&self) -> bool {
        !self.cells.contains(&Cell::Empty)
    }
    fn stones(&self) -> usize {
        self.cells.iter().filter(|&&c| c == Cell::Stone).count()
    }
    fn empties(&self) -> Vec<Sq> {
        let mut v = Vec::new();
        for y in 0..self.h {
            for x in 0..self.w {
                if self.is_empty((x, y)) {
                    v.push((x, y));
                }
            }
        }
        v
    }
}

/// The brain's board as far as the model knows it.
#[derive(Clone, Debug)]
enum Game {
    None,
    Known(Grid),
    /// A Yixin step played stones the model did not follow; the size is known.
    Unknown(i64, i64),
}

impl Game {
    fn size(&self) -> Option<(i64, i64)> {
        match self {
            Game::None => None,
            Game::Known(g) => Some((g.w, g.h)),
            Game::Unknown(w, h) => Some((*w, *h)),
        }
    }
}

/// What a unit means to the brain (resolved against the model when its answer is due).
#[derive(Clone, Debug)]
enum Sem {
    /// No answer, no effect on the game (INFO, YXSTOP, empty lines, dropped blocks, …).
    Silent,
    Start(i64, i64),
    Restart,
    Begin,
    Turn(Sq),
    Board {
        stones: Vec<(Sq, u8)>,
        reply: bool,
    },
    Swap2Board(Vec<Sq>),
    About,
    Takeback(Sq),
    Play(Sq),
    ShowForbid,
    /// YXNBEST, YXBALANCEONE, YXSEARCHDEFEND: a move, or ERROR without a game or square.
    Search,
    BalanceTwo,
    Block {
        squares: Vec<Sq>,
        undo: bool,
        bad: bool,
    },
    BlockReset,
    Swap2Step(u8),
    /// YXSOOSORVSTEPn: perhaps one ERROR line; the board is unknown afterwards.
    Opaque,
    Error,
    Unknown,
}

impl Sem {
    /// Whether the brain searches for it (its answer may take the move time).
    fn searches(&self) -> u64 {
        match self {
            Sem::Begin | Sem::Turn(_) | Sem::Search | Sem::Swap2Board(_) => 1,
            Sem::Board { reply: true, .. } => 1,
            Sem::BalanceTwo | Sem::Swap2Step(_) | Sem::Opaque => 3,
            _ => 0,
        }
    }
}

/// The answer line due for a unit.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    None,
    Ok,
    Error,
    Unknown,
    About,
    Forbid,
    Move,
    /// A move or ERROR (e.g. every empty square is a YXBLOCK square).
    MoveOrError,
    /// PLAY: the same square, or ERROR (a renju foul).
    Echo(Sq),
    Opening(Vec<Sq>),
    SwapOrMove,
    PairOrError,
    /// Zero or one ERROR line (the generator sends ABOUT next, so it is never ambiguous).
    OptError,
}

struct Model {
    game: Game,
    blocked: HashSet<Sq>,
}

fn swap2_opening(w: i64, h: i64) -> Vec<Sq> {
    let (cx, cy) = (w / 2, h / 2);
    vec![(cx, cy), (cx + 1, cy - 1), (cx + 2, cy + 1)]
}

fn parse_move(text: &str) -> Option<Sq> {
    let (x, y) = text.split_once(',')?;
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !ok(x) || !ok(y) {
        return None;
    }
    Some((x.parse().ok()?, y.parse().ok()?))
}

impl Model {
    fn new() -> Model {
        Model {
            game: Game::None,
            blocked: HashSet::new(),
        }
    }

    /// Applies what a unit does before its answer and says which answer is due.
    fn resolve(&mut self, sem: &Sem) -> Want {
        let size = self.game.size();
        let move_want = |m: &Model| {
            if m.blocked.is_empty() {
                Want::Move
            } else {
                Want::MoveOrError
            }
        };
        match sem {
            Sem::Silent => Want::None,
            Sem::Error => Want::Error,
            Sem::Unknown => Want::Unknown,
            Sem::About => Want::About,
            Sem::ShowForbid => Want::Forbid,
            Sem::BlockReset => {
                self.blocked.clear();
                Want::None
            }
            Sem::Start(w, h) => {
                if (5..=32).contains(w) && (5..=32).contains(h) {
                    self.game = Game::Known(Grid::new(*w, *h));
                    Want::Ok
                } else {
                    Want::Error
                }
            }
            Sem::Restart => match size {
                Some((w, h)) => {
                    self.game = Game::Known(Grid::new(w, h));
                    Want::Ok
                }
                None => Want::Error,
            },
            Sem::Begin | Sem::Search => match &self.game {
                Game::None => Want::Error,
                Game::Unknown(..) => Want::MoveOrError,
                Game::Known(g) if g.full() => Want::Error,
                Game::Known(_) => move_want(self),
            },
            Sem::BalanceTwo => match &self.game {
                Game::Known(g) if !g.full() => Want::PairOrError,
                Game::Unknown(..) => Want::PairOrError,
                _ => Want::Error,
            },
            Sem::Turn(sq) => {
                let want = move_want(self);
                match &mut self.game {
                    Game::None => Want::Error,
                    Game::Unknown(..) => Want::MoveOrError,
                    Game::Known(g) => {
                        if !g.is_empty(*sq) {
                            Want::Error
                        } else {
                            g.set(*sq, Cell::Stone);
                            if g.full() {
                                Want::Error
                            } else {
                                want
                            }
                        }
                    }
                }
            }
            Sem::Board { stones, reply } => {
                let (w, h) = match size {
                    Some(s) => s,
                    None => return if *reply { Want::Error } else { Want::None },
                };
                // As the session does: stones where the square is still empty, walls at the end
                // where no stone came.
                let mut g = Grid::new(w, h);
                let mut walls = Vec::new();
                for &(sq, field) in stones {
                    if !g.is_empty(sq) {
                        continue;
                    }
                    if field == 3 {
                        walls.push(sq);
                    } else {
                        g.set(sq, Cell::Stone);
                    }
                }
                for sq in walls {
                    if g.is_empty(sq) {
                        g.set(sq, Cell::Wall);
                    }
                }
                let full = g.full();
                self.game = Game::Known(g);
                if !*reply {
                    Want::None
                } else if full {
                    Want::Error
                } else {
                    move_want(self)
                }
            }
            Sem::Swap2Board(stones) => {
                let (w, h) = match size {
                    Some(s) => s,
                    None => return Want::Error,
                };
                let mut g = Grid::new(w, h);
                let mut placed = 0;
                for &sq in stones {
                    if g.is_empty(sq) {
                        g.set(sq, Cell::Stone);
                        placed += 1;
                    }
                }
                if placed == 0 {
                    let opening = swap2_opening(w, h);
                    for &sq in &opening {
                        g.set(sq, Cell::Stone);
                    }
                    self.game = Game::Known(g);
                    return Want::Opening(opening);
                }
                self.game = Game::Known(g);
                if placed % 2 == 0 {
                    Want::Error
                } else {
                    Want::SwapOrMove
                }
            }
            Sem::Takeback(sq) => match &mut self.game {
                Game::None => Want::Error,
                Game::Unknown(..) => Want::OptError,
                Game::Known(g) => {
                    if g.get(*sq) == Some(Cell::Stone) {
                        g.set(*sq, Cell::Empty);
                        Want::Ok
                    } else {
                        Want::Error
                    }
                }
            },
            Sem::Play(sq) => match &self.game {
                Game::Known(g) if g.is_empty(*sq) => Want::Echo(*sq),
                Game::Unknown(..) => Want::Echo(*sq),
                _ => Want::Error,
            },
            Sem::Block { squares, undo, bad } => {
                let (w, h) = match size {
                    Some(s) => s,
                    None => return Want::Error,
                };
                let mut off = false;
                for &sq in squares {
                    if !((0..w).contains(&sq.0) && (0..h).contains(&sq.1)) {
                        off = true;
                    } else if *undo {
                        self.blocked.remove(&sq);
                    } else {
                        self.blocked.insert(sq);
                    }
                }
                if off || *bad {
                    Want::Error
                } else {
                    Want::None
                }
            }
            Sem::Swap2Step(step) => {
                let (w, h) = match size {
                    Some(s) => s,
                    None => return Want::Error,
                };
                if *step == 1 {
                    let mut g = Grid::new(w, h);
                    for sq in swap2_opening(w, h) {
                        g.set(sq, Cell::Stone);
                    }
                    self.game = Game::Known(g);
                    return Want::None;
                }
                let wanted = if *step == 2 { 3 } else { 5 };
                let stones = match &self.game {
                    Game::Known(g) => g.stones(),
                    _ => {
                        self.game = Game::Unknown(w, h);
                        return Want::OptError;
                    }
                };
                if stones != wanted {
                    return Want::Error;
                }
                self.game = Game::Unknown(w, h);
                Want::OptError
            }
            Sem::Opaque => {
                if let Some((w, h)) = size {
                    self.game = Game::Unknown(w, h);
                    Want::OptError
                } else {
                    Want::Error
                }
            }
        }
    }

    /// Checks a move of the brain and plays it.
    fn take_move(&mut self, line: &str) -> Result<Sq, String> {
        let sq = parse_move(line).ok_or_else(|| format!("`{line}` is not a move `x,y`"))?;
        if self.blocked.contains(&sq) {
            // Allowed only when every free square is blocked (the search then ignores the list).
            let all_blocked = match &self.game {
                Game::Known(g) => g.empties().iter().all(|e| self.blocked.contains(e)),
                _ => true,
            };
            if !all_blocked {
                return Err(format!("move {line} is a YXBLOCK square"));
            }
        }
        match &mut self.game {
            Game::Known(g) => {
                if !g.on(sq) {
                    return Err(format!("move {line} is off the {}x{} board", g.w, g.h));
                }
                if !g.is_empty(sq) {
                    return Err(format!("move {line} is on an occupied square"));
                }
                g.set(sq, Cell::Stone);
            }
            Game::Unknown(w, h) => {
                if !((0..*w).contains(&sq.0) && (0..*h).contains(&sq.1)) {
                    return Err(format!("move {line} is off the {w}x{h} board"));
                }
            }
            Game::None => return Err(format!("move {line} without a game")),
        }
        Ok(sq)
    }

    /// Checks an answer line against the answer due; Ok(false) when an optional ERROR was not
    /// this line (the line is then matched against the next unit).
    fn accept(&mut self, want: &Want, line: &str) -> Result<bool, String> {
        let error = line.starts_with("ERROR");
        let fail = |what: &str| Err(format!("expected {what}, got `{line}`"));
        match want {
            Want::None => unreachable!("a unit without answer is never matched"),
            Want::OptError => Ok(error),
            Want::Ok if line == "OK" => Ok(true),
            Want::Ok => fail("OK"),
            Want::Error if error => Ok(true),
            Want::Error => fail("ERROR …"),
            Want::Unknown if line.starts_with("UNKNOWN") => Ok(true),
            Want::Unknown => fail("UNKNOWN …"),
            Want::About => {
                if line.starts_with("name=\"") && line.contains("version=\"") {
                    Ok(true)
                } else {
                    fail("the ABOUT line")
                }
            }
            Want::Forbid => {
                let body = match line
                    .strip_prefix("FORBID ")
                    .and_then(|b| b.strip_suffix('.'))
                {
                    Some(b) if b.len() % 4 == 0 && b.bytes().all(|c| c.is_ascii_digit()) => b,
                    _ => return fail("FORBID xxyy…."),
                };
                if let Game::Known(g) = &self.game {
                    for k in (0..body.len()).step_by(4) {
                        let x: i64 = body[k..k + 2].parse().unwrap_or(-1);
                        let y: i64 = body[k + 2..k + 4].parse().unwrap_or(-1);
                        if !g.is_empty((x, y)) {
                            return Err(format!("FORBID lists {x},{y}, not an empty square"));
                        }
                    }
                }
                Ok(true)
            }
            Want::Move => self.take_move(line).map(|_| true),
            Want::MoveOrError if error => Ok(true),
            Want::MoveOrError => self.take_move(line).map(|_| true),
            Want::Echo(_) if error => Ok(true),
            Want::Echo(sq) => {
                if parse_move(line) != Some(*sq) {
                    return fail(&format!("the PLAY square {},{}", sq.0, sq.1));
                }
                if let Game::Known(g) = &mut self.game {
                    g.set(*sq, Cell::Stone);
                }
                Ok(true)
            }
            Want::Opening(squares) => {
                let text: Vec<String> = squares.iter().map(|(x, y)| format!("{x},{y}")).collect();
                if line == text.join(" ") {
                    Ok(true)
                } else {
                    fail(&text.join(" "))
                }
            }
            Want::SwapOrMove if line == "SWAP" => Ok(true),
            Want::SwapOrMove => self.take_move(line).map(|_| true),
            Want::PairOrError if error => Ok(true),
            Want::PairOrError => {
                let words: Vec<&str> = line.split(' ').collect();
                if words.is_empty() || words.len() > 2 {
                    return fail("one or two moves");
                }
                for w in words {
                    self.take_move(w)?;
                }
                Ok(true)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

/// One command as bytes (one or several lines) and what it means.
struct Unit {
    bytes: Vec<u8>,
    sem: Sem,
    /// A BOARD block left open: the next unit must start with a command keyword.
    open_block: bool,
}

/// What the generator remembers of the settings it sent (they apply in order).
struct Gen {
    rng: StdRng,
    /// Last `timeout_turn` the brain accepted.
    timeout_turn: i64,
    /// The board size of the last START the brain accepted (approximate: for coordinates).
    size: Option<(i64, i64)>,
    /// `max_memory` fixed for the whole stream (0: not checked).
    memory_limit: i64,
    /// Scratch directory for paths that must not exist.
    missing_dir: String,
}

fn line(rng: &mut StdRng, text: &str) -> Vec<u8> {
    let mut v = text.as_bytes().to_vec();
    if rng.gen_bool(0.15) {
        v.push(b'\r');
    }
    v.push(b'\n');
    v
}

/// Random capitalisation of a keyword (the protocol is case-insensitive).
fn casing(rng: &mut StdRng, word: &str) -> String {
    match rng.gen_range(0..10) {
        0 => word.to_ascii_lowercase(),
        1 => word
            .chars()
            .map(|c| {
                if rng.gen_bool(0.5) {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect(),
        _ => word.to_string(),
    }
}

/// `x,y` with optional spaces around the comma and the numbers.
fn coord_text(rng: &mut StdRng, (x, y): Sq) -> String {
    if rng.gen_bool(0.1) {
        format!(" {x} , {y} ")
    } else {
        format!("{x},{y}")
    }
}

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut rng = StdRng::seed_from_u64(seed);
        let memory_limit = *[0, 0, 64 << 20, 128 << 20, 367_001_600]
            .choose(&mut rng)
            .unwrap_or(&0);
        Gen {
            rng,
            timeout_turn: 30_000,
            size: None,
            memory_limit,
            missing_dir: format!("/nonexistent-wuzi-fuzz-{seed}"),
        }
    }

    /// A square: mostly an empty one of the model's board, sometimes any on the board,
    /// sometimes off it.
    fn square(&mut self, model: &Model) -> Sq {
        let (w, h) = self.size.unwrap_or((15, 15));
        match self.rng.gen_range(0..20) {
            0 => (self.rng.gen_range(-3..w + 3), self.rng.gen_range(-3..h + 3)),
            1..=3 => (self.rng.gen_range(0..w), self.rng.gen_range(0..h)),
            _ => {
                if let Game::Known(g) = &model.game {
                    let empties = g.empties();
                    if let Some(&sq) = empties.choose(&mut self.rng) {
                        return sq;
                    }
                }
                (self.rng.gen_range(0..w), self.rng.gen_range(0..h))
            }
        }
    }

    fn simple(&mut self, text: &str, sem: Sem) -> Unit {
        Unit {
            bytes: line(&mut self.rng, text),
            sem,
            open_block: false,
        }
    }

    /// The INFO line that brings the move time back within 50..200 ms when needed.
    fn time_fix(&mut self) -> Option<Unit> {
        if (0..=300).contains(&self.timeout_turn) && !self.rng.gen_bool(0.1) {
            return None;
        }
        let t = self.rng.gen_range(50..=200);
        self.timeout_turn = t;
        Some(self.simple(&format!("INFO timeout_turn {t}"), Sem::Silent))
    }

    fn info(&mut self) -> Unit {
        let r = &mut self.rng;
        let number = |r: &mut StdRng| -> String {
            match r.gen_range(0..12) {
                0 => "abc".into(),
                1 => String::new(),
                2 => "99999999999999999999999".into(),
                3 => format!("-{}", r.gen_range(0..100_000)),
                4 => "2147483647".into(),
                5 => format!("+{}", r.gen_range(0..1000)),
                6 => "1.5".into(),
                _ => r.gen_range(0..400).to_string(),
            }
        };
        let key = *[
            "timeout_turn",
            "timeout_match",
            "time_left",
            "max_memory",
            "game_type",
            "rule",
            "thread_num",
            "max_node",
            "max_depth",
            "pondering",
            "show_detail",
            "hash_size",
            "time_increment",
            "start_depth",
            "nbestsym",
            "caution_factor",
            "checkmate",
            "vcthread",
            "usedatabase",
            "thread_split_depth",
            "folder",
            "evaluate",
            "no_such_key",
            "",
        ]
        .choose(r)
        .unwrap_or(&"rule");
        let value = match key {
            "timeout_turn" => {
                let v = if r.gen_bool(0.7) {
                    r.gen_range(0..=300).to_string()
                } else {
                    number(r)
                };
                if let Ok(n) = v.parse::<i64>() {
                    self.timeout_turn = n;
                }
                v
            }
            "rule" => {
                if r.gen_bool(0.8) {
                    ["0", "1", "2", "4", "5", "8", "9", "3", "16", "-1"]
                        .choose(r)
                        .unwrap_or(&"0")
                        .to_string()
                } else {
                    number(r)
                }
            }
            "thread_num" => ["1", "2", "3", "4", "0", "-2", "64", "1000", "x"]
                .choose(r)
                .unwrap_or(&"1")
                .to_string(),
            "max_memory" => {
                if self.memory_limit > 0 {
                    // The limit stays fixed: only values the brain ignores.
                    ["abc", "", "1.5", "99999999999999999999999"]
                        .choose(r)
                        .unwrap_or(&"abc")
                        .to_string()
                } else {
                    ["0", "1048576", "67108864", "367001600", "-5", "abc"]
                        .choose(r)
                        .unwrap_or(&"0")
                        .to_string()
                }
            }
            "hash_size" => ["0", "1", "1024", "65536", "1048576", "-5", "z"]
                .choose(r)
                .unwrap_or(&"0")
                .to_string(),
            "pondering" => ["0", "1", "1", "2"].choose(r).unwrap_or(&"0").to_string(),
            "time_left" => ["2147483647", "0", "-100", "500", "100000", "abc"]
                .choose(r)
                .unwrap_or(&"0")
                .to_string(),
            "folder" => ["C:\\Program Files\\x y", "/tmp/a b", ""]
                .choose(r)
                .unwrap_or(&"")
                .to_string(),
            "evaluate" => "7,7".into(),
            _ => number(r),
        };
        let text = format!("{} {key} {value}", casing(r, "INFO"));
        self.simple(text.trim_end(), Sem::Silent)
    }

    fn board_unit(&mut self, reply: bool) -> Unit {
        let (w, h) = self.size.unwrap_or((15, 15));
        let n = match self.rng.gen_range(0..10) {
            0 => 0,
            1 => (w * h) as usize,
            2 => (w * h) as usize - 1,
            _ => self.rng.gen_range(1..=12usize.min((w * h) as usize)),
        };
        let mut all: Vec<Sq> = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).collect();
        all.shuffle(&mut self.rng);
        let mut bytes = {
            let t = casing(&mut self.rng, if reply { "BOARD" } else { "YXBOARD" });
            line(&mut self.rng, &t)
        };
        let mut stones = Vec::new();
        for (i, &sq) in all.iter().take(n).enumerate() {
            let field = if self.rng.gen_bool(0.05) {
                3
            } else {
                (i % 2 + 1) as u8
            };
            match self.rng.gen_range(0..30) {
                0 => bytes.extend(line(&mut self.rng, &format!("{},{}", sq.0, sq.1))),
                1 => bytes.extend(line(&mut self.rng, &format!("{},{},4", sq.0, sq.1))),
                2 => bytes.extend(line(&mut self.rng, "x,y,z")),
                3 => bytes.extend(line(&mut self.rng, "")),
                4 => {
                    let off = (sq.0 + w, sq.1);
                    bytes.extend(line(&mut self.rng, &format!("{},{},1", off.0, off.1)));
                    stones.push((off, 1));
                }
                5 => {
                    // A duplicate of an earlier stone.
                    if let Some(&(prev, f)) = stones.last() {
                        let (px, py): Sq = prev;
                        bytes.extend(line(&mut self.rng, &format!("{px},{py},{f}")));
                        stones.push((prev, f));
                    }
                }
                6 => {
                    let mut garbage = vec![0xffu8];
                    for _ in 0..self.rng.gen_range(0..40) {
                        let b: u8 = self.rng.gen();
                        if b != b'\n' {
                            garbage.push(b);
                        }
                    }
                    garbage.push(b'\n');
                    bytes.extend(garbage);
                }
                _ => {}
            }
            let text = format!("{},{field}", coord_text(&mut self.rng, sq));
            bytes.extend(line(&mut self.rng, &text));
            stones.push((sq, field));
        }
        if self.rng.gen_bool(0.08) {
            // Dropped by the next command.
            return Unit {
                bytes,
                sem: Sem::Silent,
                open_block: true,
            };
        }
        bytes.extend({
            let t = casing(&mut self.rng, "DONE");
            line(&mut self.rng, &t)
        });
        Unit {
            bytes,
            sem: Sem::Board { stones, reply },
            open_block: false,
        }
    }

    fn swap2board(&mut self) -> Unit {
        let (w, h) = self.size.unwrap_or((15, 15));
        let n = *[0usize, 3, 5, 3, 0, 2, 1]
            .choose(&mut self.rng)
            .unwrap_or(&0);
        let mut bytes = line(&mut self.rng, "SWAP2BOARD");
        let mut stones = Vec::new();
        for _ in 0..n {
            let sq = (self.rng.gen_range(0..w), self.rng.gen_range(0..h));
            bytes.extend({
                let t = coord_text(&mut self.rng, sq);
                line(&mut self.rng, &t)
            });
            stones.push(sq);
        }
        if self.rng.gen_bool(0.1) {
            bytes.extend(line(&mut self.rng, "bad line"));
        }
        bytes.extend(line(&mut self.rng, "DONE"));
        Unit {
            bytes,
            sem: Sem::Swap2Board(stones),
            open_block: false,
        }
    }

    fn start(&mut self) -> Unit {
        let r = &mut self.rng;
        let (text, w, h) = match r.gen_range(0..12) {
            0 => ("START 4".to_string(), 4, 4),
            1 => ("START 33".to_string(), 33, 33),
            2 => ("RECTSTART 20,15".to_string(), 20, 15),
            3 => {
                let (w, h) = (r.gen_range(5..=32), r.gen_range(5..=32));
                (format!("RECTSTART {w},{h}"), w, h)
            }
            4 => ("start 15 15".to_string(), 15, 15),
            5 => ("START 7".to_string(), 7, 7),
            6 => ("START 32".to_string(), 32, 32),
            7 => ("START 5".to_string(), 5, 5),
            8 => ("START 20".to_string(), 20, 20),
            _ => ("START 15".to_string(), 15, 15),
        };
        if (5..=32).contains(&w) && (5..=32).contains(&h) {
            self.size = Some((w, h));
        }
        self.simple(&text, Sem::Start(w, h))
    }

    /// A line of garbage: never a keyword (it starts with byte 0xff), never empty.
    fn garbage(&mut self) -> Unit {
        let mut bytes = vec![0xffu8];
        let n = if self.rng.gen_bool(0.1) {
            self.rng.gen_range(1000..100_000)
        } else {
            self.rng.gen_range(0..200)
        };
        for _ in 0..n {
            let b: u8 = self.rng.gen();
            if b != b'\n' {
                bytes.push(b);
            }
        }
        bytes.push(b'\n');
        Unit {
            bytes,
            sem: Sem::Unknown,
            open_block: false,
        }
    }

    /// A huge line (up to a little over 1 MB).
    fn huge(&mut self) -> Unit {
        let n = *[
            1000usize,
            100_000,
            MAX_LINE_BYTES - 10,
            MAX_LINE_BYTES + 1000,
        ]
        .choose(&mut self.rng)
        .unwrap_or(&1000);
        match self.rng.gen_range(0..4) {
            0 => Unit {
                bytes: [vec![b'A'; n], vec![b'\n']].concat(),
                sem: Sem::Unknown,
                open_block: false,
            },
            1 => Unit {
                bytes: [b"INFO folder ".to_vec(), vec![b'x'; n], vec![b'\n']].concat(),
                sem: Sem::Silent,
                open_block: false,
            },
            2 => Unit {
                bytes: [b"ABOUT".to_vec(), vec![b' '; n], vec![b'\n']].concat(),
                sem: Sem::About,
                open_block: false,
            },
            _ => Unit {
                bytes: [b"UNKNOWNCMD ".to_vec(), vec![0xc3; n], vec![b'\n']].concat(),
                sem: Sem::Unknown,
                open_block: false,
            },
        }
    }

    /// One unit of any kind; `searching` sems may need a time fix first (done by the caller).
    fn unit(&mut self, model: &Model) -> Unit {
        let k = self.rng.gen_range(0..100);
        match k {
            0..=5 => self.start(),
            6..=7 => {
                let t = casing(&mut self.rng, "RESTART");
                self.simple(&t, Sem::Restart)
            }
            8..=10 => {
                let t = casing(&mut self.rng, "BEGIN");
                self.simple(&t, Sem::Begin)
            }
            11..=30 => {
                let sq = self.square(model);
                let text = format!(
                    "{} {}",
                    casing(&mut self.rng, "TURN"),
                    coord_text(&mut self.rng, sq)
                );
                self.simple(&text, Sem::Turn(sq))
            }
            31..=37 => self.board_unit(true),
            38..=39 => self.board_unit(false),
            40..=41 => self.swap2board(),
            42..=53 => self.info(),
            54..=55 => {
                let t = casing(&mut self.rng, "ABOUT");
                self.simple(&t, Sem::About)
            }
            56..=57 => {
                let sq = self.square(model);
                let text = format!("TAKEBACK {}", coord_text(&mut self.rng, sq));
                self.simple(&text, Sem::Takeback(sq))
            }
            58 => {
                let sq = self.square(model);
                self.simple(&format!("PLAY {},{}", sq.0, sq.1), Sem::Play(sq))
            }
            59..=61 => {
                let word = if self.rng.gen_bool(0.7) {
                    "YXSTOP"
                } else {
                    "STOP"
                };
                self.simple(word, Sem::Silent)
            }
            62 => self.simple("YXSHOWFORBID", Sem::ShowForbid),
            63 => self.simple("YXHASHCLEAR", Sem::Silent),
            64 => {
                let n = self.rng.gen_range(-1..6);
                self.simple(&format!("YXNBEST {n}"), Sem::Search)
            }
            65 => {
                let bias = self.rng.gen_range(-500..500);
                self.simple(&format!("YXBALANCEONE {bias}"), Sem::Search)
            }
            66 => self.simple("YXBALANCETWO", Sem::BalanceTwo),
            67 => self.simple("YXSEARCHDEFEND", Sem::Search),
            68 => {
                let undo = self.rng.gen_bool(0.3);
                let mut bytes = line(&mut self.rng, if undo { "YXBLOCKUNDO" } else { "YXBLOCK" });
                let mut squares = Vec::new();
                for _ in 0..self.rng.gen_range(0..3) {
                    let sq = self.square(model);
                    bytes.extend(line(&mut self.rng, &format!("{},{}", sq.0, sq.1)));
                    squares.push(sq);
                }
                let bad = self.rng.gen_bool(0.1);
                if bad {
                    bytes.extend(line(&mut self.rng, "1,2,3"));
                }
                bytes.extend(line(&mut self.rng, "DONE"));
                Unit {
                    bytes,
                    sem: Sem::Block { squares, undo, bad },
                    open_block: false,
                }
            }
            69 => self.simple("YXBLOCKRESET", Sem::BlockReset),
            70 => {
                let step = self.rng.gen_range(1..=3);
                self.simple(&format!("YXSWAP2STEP{step}"), Sem::Swap2Step(step))
            }
            71 => {
                let step = self.rng.gen_range(1..=6);
                let mut bytes = line(&mut self.rng, &format!("YXSOOSORVSTEP{step} 2"));
                if step >= 2 {
                    for _ in 0..self.rng.gen_range(0..6) {
                        let sq = self.square(model);
                        bytes.extend(line(&mut self.rng, &format!("{},{}", sq.0, sq.1)));
                    }
                    bytes.extend(line(&mut self.rng, "DONE"));
                }
                Unit {
                    bytes,
                    sem: Sem::Opaque,
                    open_block: false,
                }
            }
            72 => self.simple("YXSHOWHASHUSAGE", Sem::Silent),
            73 => self.simple("YXSHOWINFO", Sem::Silent),
            74 => {
                let word = if self.rng.gen_bool(0.5) {
                    "YXHASHDUMP"
                } else {
                    "YXHASHLOAD"
                };
                let path = format!("{}/hash.bin", self.missing_dir);
                let text = if self.rng.gen_bool(0.5) {
                    format!("{word} {path}\n")
                } else {
                    format!("{word}\n{path}\n")
                };
                Unit {
                    bytes: text.into_bytes(),
                    sem: Sem::Error,
                    open_block: false,
                }
            }
            75 => {
                let text = match self.rng.gen_range(0..4) {
                    0 => "YXQUERYDATABASEALL\n7,7\nDONE\n".to_string(),
                    1 => format!("YXSETDATABASE {}/db\n", self.missing_dir),
                    2 => "YXSAVEDATABASE\n".to_string(),
                    _ => "YXDBCHECK\n".to_string(),
                };
                Unit {
                    bytes: text.into_bytes(),
                    sem: Sem::Silent,
                    open_block: false,
                }
            }
            76 => {
                let text = if self.rng.gen_bool(0.5) {
                    "YXBLOCKPATH\n1,1\nDONE\n"
                } else {
                    "YXBLOCKPATHRESET\n"
                };
                Unit {
                    bytes: text.as_bytes().to_vec(),
                    sem: Sem::Error,
                    open_block: false,
                }
            }
            77..=84 => {
                // Malformed variants of known commands.
                let text = *[
                    "TURN",
                    "TURN 3",
                    "TURN a,b",
                    "TURN 1,2,3",
                    "TURN 99999999999,1",
                    "turn 1;2",
                    "START",
                    "START abc",
                    "START 15 15 15",
                    "START 99999999999",
                    "RECTSTART 20",
                    "RECTSTART a,b",
                    "TAKEBACK",
                    "TAKEBACK x",
                    "PLAY",
                    "PLAY 1",
                    "YXNBEST",
                    "YXNBEST many",
                    "YXBALANCEONE x",
                    "YXBALANCETWO 1 2",
                ]
                .choose(&mut self.rng)
                .unwrap_or(&"TURN");
                self.simple(text, Sem::Error)
            }
            85..=87 => self.garbage(),
            88..=89 => {
                let text = *["FOO", "DONE", "hello world", "BOARDX", "3,4,1", "TURNX 1,1"]
                    .choose(&mut self.rng)
                    .unwrap_or(&"FOO");
                self.simple(text, Sem::Unknown)
            }
            90..=92 => {
                let text = *["", " ", "\t", "  \t ", "\r"]
                    .choose(&mut self.rng)
                    .unwrap_or(&"");
                Unit {
                    bytes: format!("{text}\n").into_bytes(),
                    sem: Sem::Silent,
                    open_block: false,
                }
            }
            93..=94 => self.huge(),
            _ => {
                // A valid command padded with whitespace (a long line that stays valid).
                let pad = " ".repeat(self.rng.gen_range(1..5000));
                let text = format!("{pad}ABOUT{pad}");
                self.simple(&text, Sem::About)
            }
        }
    }
}

/// The first word of a unit's first line, as the brain's parser sees it.
fn first_word(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let text = String::from_utf8_lossy(&bytes[..end]);
    text.split_whitespace().next().unwrap_or("").to_string()
}

// ---------------------------------------------------------------------------------------------
// A stream
// ---------------------------------------------------------------------------------------------

/// A unit sent, not yet answered.
struct Pending {
    sem: Sem,
    want: Option<Want>,
    sent: Instant,
    /// Time the brain may spend on it, beyond the slack.
    budget: Duration,
    label: String,
}

#[derive(Default, Debug, Clone)]
struct Stats {
    units: usize,
    answers: usize,
    moves: usize,
    bytes: usize,
    peak_memory: i64,
    /// Longest answer time beyond the move time, in ms.
    worst_late_ms: i64,
}

struct Stream {
    brain: Brain,
    model: Model,
    pending: VecDeque<Pending>,
    last_answer: Instant,
    stats: Stats,
    memory_limit: i64,
    ended: bool,
}

impl Stream {
    fn fail(&self, seed: u64, why: &str) -> String {
        format!(
            "stream {seed}: {why}\n  reproduce: WUZI_FUZZ_SEED={seed} cargo test --release --test fuzz\n{}",
            self.brain.report()
        )
    }

    fn check_memory(&mut self) -> Result<(), String> {
        if let Some(peak) = self.brain.peak_memory() {
            self.stats.peak_memory = self.stats.peak_memory.max(peak);
            if self.memory_limit >= MEMORY_FLOOR && peak > self.memory_limit {
                return Err(format!(
                    "peak memory {} MB over INFO max_memory {} MB",
                    peak >> 20,
                    self.memory_limit >> 20
                ));
            }
        }
        Ok(())
    }

    /// Resolves the units at the front that need no answer; true when an answer is due.
    fn settle(&mut self) -> bool {
        while let Some(front) = self.pending.front_mut() {
            if front.want.is_none() {
                let want = self.model.resolve(&front.sem);
                front.want = Some(want);
            }
            if front.want == Some(Want::None) {
                self.pending.pop_front();
                continue;
            }
            return true;
        }
        false
    }

    /// Matches one output line.
    fn on_line(&mut self, at: Instant, text: String) -> Result<(), String> {
        self.brain.note(Event::Got(text.clone()));
        if text.starts_with('\u{0}') {
            return Err(format!("bad output line {text:?}"));
        }
        if text.len() > MAX_OUTPUT_LINE {
            return Err(format!("output line of {} bytes", text.len()));
        }
        if text.starts_with("MESSAGE") || text.starts_with("DEBUG") {
            return Ok(());
        }
        loop {
            if !self.settle() {
                return Err(format!("`{text}` answers no command"));
            }
            let front = match self.pending.front() {
                Some(f) => f,
                None => return Err(format!("`{text}` answers no command")),
            };
            let want = front.want.clone().unwrap_or(Want::None);
            let label = front.label.clone();
            let consumed = self
                .model
                .accept(&want, &text)
                .map_err(|e| format!("answer to `{label}`: {e}"))?;
            self.pending.pop_front();
            if consumed {
                self.last_answer = at;
                self.stats.answers += 1;
                if matches!(
                    want,
                    Want::Move | Want::MoveOrError | Want::SwapOrMove | Want::PairOrError
                ) && !text.starts_with("ERROR")
                {
                    self.stats.moves += 1;
                }
                return Ok(());
            }
        }
    }

    /// Waits until every answer due has come.
    fn drain(&mut self) -> Result<(), String> {
        while self.settle() {
            let (sent, budget, label) = match self.pending.front() {
                Some(f) => (f.sent, f.budget, f.label.clone()),
                None => break,
            };
            let start = sent.max(self.last_answer);
            let deadline = start + budget + scaled(SLACK_MS);
            let now = Instant::now();
            if now > deadline {
                return Err(format!("no answer to `{label}` in time"));
            }
            let wait = (deadline - now).min(Duration::from_millis(50));
            match self.brain.lines.recv_timeout(wait) {
                Ok((at, text)) => {
                    let late = at.saturating_duration_since(start).as_millis() as i64
                        - budget.as_millis() as i64;
                    self.stats.worst_late_ms = self.stats.worst_late_ms.max(late);
                    self.on_line(at, text)?;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the brain closed its output before answering `{label}`"
                    ))
                }
            }
            self.check_memory()?;
        }
        Ok(())
    }

    /// Takes the lines already there without waiting.
    fn poll(&mut self) -> Result<(), String> {
        while let Ok((at, text)) = self.brain.lines.try_recv() {
            self.on_line(at, text)?;
        }
        self.check_memory()
    }

    fn send(&mut self, unit: &Unit, budget_ms: i64) {
        let label = {
            let text = String::from_utf8_lossy(&unit.bytes);
            let first = text.lines().next().unwrap_or("").to_string();
            if first.len() > 60 {
                let mut end = 50;
                while !first.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}…", &first[..end])
            } else {
                first
            }
        };
        let searches = unit.sem.searches();
        let budget = Duration::from_millis(budget_ms.max(0) as u64 * searches);
        self.pending.push_back(Pending {
            sem: unit.sem.clone(),
            want: None,
            sent: Instant::now(),
            budget,
            label,
        });
        self.stats.units += 1;
        self.stats.bytes += unit.bytes.len();
        let ok = self.brain.write(&unit.bytes);
        if !ok && !self.ended {
            self.brain.note(Event::Note("write failed".into()));
        }
    }

    /// Waits for the brain to exit; checks its status and stderr, and matches what it printed.
    fn finish(&mut self, eof: bool) -> Result<(), String> {
        let deadline = Instant::now() + scaled(EXIT_MS) + self.pending_budget();
        loop {
            match self.brain.child.try_wait() {
                Ok(Some(status)) => {
                    // Everything printed before the exit.
                    while let Ok((at, text)) =
                        self.brain.lines.recv_timeout(Duration::from_millis(500))
                    {
                        self.on_line(at, text)?;
                    }
                    if !status.success() {
                        return Err(format!("the brain exited with {status}"));
                    }
                    break;
                }
                Ok(None) => {}
                Err(e) => return Err(format!("wait: {e}")),
            }
            if Instant::now() > deadline {
                return Err("the brain did not exit in time".into());
            }
            if let Ok((at, text)) = self.brain.lines.recv_timeout(Duration::from_millis(20)) {
                self.on_line(at, text)?;
            }
            let _ = self.check_memory();
        }
        if eof && self.settle() {
            let label = self
                .pending
                .front()
                .map(|f| f.label.clone())
                .unwrap_or_default();
            return Err(format!("end of input: `{label}` was never answered"));
        }
        let stderr = self.brain.stderr_text();
        if stderr.contains("panicked") {
            return Err("the brain panicked".into());
        }
        Ok(())
    }

    fn pending_budget(&self) -> Duration {
        // After END or end of input every search stops at once; the queue is quick.
        Duration::from_millis(50 * self.pending.len() as u64)
    }
}

/// Plays one stream; the failure report on a broken invariant.
fn run_stream(seed: u64, units: usize) -> Result<Stats, String> {
    let mut gen = Gen::new(seed);
    let brain = Brain::spawn();
    let mut stream = Stream {
        brain,
        model: Model::new(),
        pending: VecDeque::new(),
        last_answer: Instant::now(),
        stats: Stats::default(),
        memory_limit: gen.memory_limit,
        ended: false,
    };
    let result = play(&mut gen, &mut stream, units);
    match result {
        Ok(()) => Ok(stream.stats.clone()),
        Err(why) => Err(stream.fail(seed, &why)),
    }
}

fn play(gen: &mut Gen, stream: &mut Stream, units: usize) -> Result<(), String> {
    if gen.memory_limit > 0 {
        let text = format!("INFO max_memory {}", gen.memory_limit);
        let unit = gen.simple(&text, Sem::Silent);
        stream.send(&unit, 0);
    }
    // Most streams start with a game, as managers do.
    if gen.rng.gen_bool(0.9) {
        let unit = gen.start();
        stream.send(&unit, 0);
    }
    let mut open_block = false;
    let mut after_opt_error = false;
    for _ in 0..units {
        let unit = loop {
            let unit = if after_opt_error {
                gen.simple("ABOUT", Sem::About)
            } else {
                gen.unit(&stream.model)
            };
            if open_block && !is_keyword(&first_word(&unit.bytes)) {
                continue;
            }
            break unit;
        };
        let resync = matches!(unit.sem, Sem::Opaque | Sem::Swap2Step(2 | 3));
        if unit.sem.searches() > 0 {
            if let Some(fix) = gen.time_fix() {
                stream.send(&fix, 0);
            }
        }
        let budget = gen.timeout_turn;
        stream.send(&unit, budget);
        open_block = unit.open_block;
        if after_opt_error {
            after_opt_error = false;
            // Back to a board the model knows.
            let fix = loop {
                let fix = if gen.rng.gen_bool(0.5) {
                    gen.simple("RESTART", Sem::Restart)
                } else {
                    gen.board_unit(false)
                };
                if !fix.open_block {
                    break fix;
                }
            };
            stream.send(&fix, 0);
        }
        if resync {
            after_opt_error = true;
        }
        stream.poll()?;
        // Wait for the answers, or go on while the brain thinks.
        if open_block || after_opt_error {
            continue;
        }
        if gen.rng.gen_bool(0.6) {
            stream.drain()?;
        } else if gen.rng.gen_bool(0.5) {
            thread::sleep(Duration::from_millis(gen.rng.gen_range(0..80)));
        }
    }
    if after_opt_error {
        let unit = gen.simple("ABOUT", Sem::About);
        stream.send(&unit, 0);
    }
    // The end: END or end of input, perhaps while thinking.
    if gen.rng.gen_bool(0.5) {
        stream.drain()?;
    } else {
        thread::sleep(Duration::from_millis(gen.rng.gen_range(0..150)));
    }
    let eof = gen.rng.gen_bool(0.4);
    if eof {
        stream.brain.close_stdin();
    } else {
        stream.ended = true;
        let text = if gen.rng.gen_bool(0.2) { "end" } else { "END" };
        stream.brain.write(format!("{text}\n").as_bytes());
        if gen.rng.gen_bool(0.3) {
            // Lines after END are never read.
            stream.brain.write(b"ABOUT\nTURN 1,1\n");
        }
    }
    stream.finish(eof)
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn fuzz_protocol_streams() {
    let units = env_u64("WUZI_FUZZ_UNITS").map_or(DEFAULT_UNITS, |u| u as usize);
    let seconds = env_u64("WUZI_FUZZ_SECONDS");
    let seed = env_u64("WUZI_FUZZ_SEED");
    let started = Instant::now();
    let mut total = Stats::default();
    let mut streams = 0usize;
    let mut failures = Vec::new();
    let run = |s: u64, total: &mut Stats, failures: &mut Vec<String>| match run_stream(s, units) {
        Ok(stats) => {
            total.units += stats.units;
            total.answers += stats.answers;
            total.moves += stats.moves;
            total.bytes += stats.bytes;
            total.peak_memory = total.peak_memory.max(stats.peak_memory);
            total.worst_late_ms = total.worst_late_ms.max(stats.worst_late_ms);
        }
        Err(report) => {
            eprintln!("{report}");
            failures.push(report);
        }
    };
    match (seconds, seed) {
        (Some(seconds), base) => {
            let mut s = base.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_secs())
                    * 1000
            });
            while started.elapsed() < Duration::from_secs(seconds) {
                run(s, &mut total, &mut failures);
                streams += 1;
                s += 1;
                if streams % 100 == 0 {
                    eprintln!(
                        "fuzz: {streams} streams, {} failures, {:.0} s",
                        failures.len(),
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        (None, Some(s)) => {
            run(s, &mut total, &mut failures);
            streams = 1;
        }
        (None, None) => {
            for &s in &SEEDS {
                run(s, &mut total, &mut failures);
                streams += 1;
            }
        }
    }
    eprintln!(
        "fuzz: {streams} streams, {} units ({} MB), {} answers, {} moves, peak memory {} MB, worst answer {} ms past its move time, {:.1} s, {} failures",
        total.units,
        total.bytes >> 20,
        total.answers,
        total.moves,
        total.peak_memory >> 20,
        total.worst_late_ms,
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing streams:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Sends a signal with the system's `kill`.
#[cfg(unix)]
fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{sig} {pid} failed");
}

/// Waits for the next answer line (MESSAGE/DEBUG skipped), up to `limit`.
#[cfg(unix)]
fn next_answer(brain: &mut Brain, limit: Duration) -> Option<(Instant, String)> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match brain.lines.recv_timeout(left) {
            Ok((at, text)) => {
                brain.note(Event::Got(text.clone()));
                if !text.starts_with("MESSAGE") && !text.starts_with("DEBUG") {
                    return Some((at, text));
                }
            }
            Err(_) => return None,
        }
    }
}

/// The Gomocup judge suspends a brain while its opponent thinks (SIGSTOP) and resumes it
/// (SIGCONT) before sending the opponent's move; the brain must still answer within its move
/// time. Checked for a brain that ponders and for one that does not, with the move sent right
/// after the resume and while still suspended.
#[cfg(unix)]
#[test]
fn sigstop_between_moves_still_answers_in_time() {
    const TURN_MS: u64 = 500;
    for (pondering, sent_while_stopped) in
        [(false, false), (true, false), (false, true), (true, true)]
    {
        let mut brain = Brain::spawn();
        let setup = format!(
            "START 15\nINFO timeout_turn {TURN_MS}\nINFO timeout_match 180000\nINFO time_left 180000\nINFO pondering {}\n",
            u8::from(pondering)
        );
        brain.write(setup.as_bytes());
        let ok = next_answer(&mut brain, Duration::from_secs(5));
        assert_eq!(ok.map(|l| l.1).as_deref(), Some("OK"), "{}", brain.report());
        let mut model = Model::new();
        model.game = Game::Known(Grid::new(15, 15));
        let mut time_left = 180_000i64;
        for k in 0..4 {
            let sq = *model_empties(&model)
                .get(k * 7 + 3)
                .expect("an empty square");
            if let Game::Known(g) = &mut model.game {
                g.set(sq, Cell::Stone);
            }
            let stop = Duration::from_millis(300 + 400 * k as u64);
            signal(brain.pid(), "STOP");
            brain.note(Event::Note(format!("SIGSTOP for {stop:?}")));
            let turn = format!("INFO time_left {time_left}\nTURN {},{}\n", sq.0, sq.1);
            let resumed;
            if sent_while_stopped {
                brain.write(turn.as_bytes());
                thread::sleep(stop);
                signal(brain.pid(), "CONT");
                resumed = Instant::now();
            } else {
                thread::sleep(stop);
                signal(brain.pid(), "CONT");
                resumed = Instant::now();
                brain.write(turn.as_bytes());
            }
            brain.note(Event::Note("SIGCONT".into()));
            let limit = Duration::from_millis(TURN_MS) + scaled(250);
            let answer = next_answer(&mut brain, scaled(5000));
            let (at, text) = match answer {
                Some(a) => a,
                None => panic!("no move after SIGCONT\n{}", brain.report()),
            };
            let took = at.saturating_duration_since(resumed);
            assert!(
                took <= limit,
                "move {k} (pondering {pondering}, sent while stopped {sent_while_stopped}) took {took:?} after SIGCONT, more than {limit:?}\n{}",
                brain.report()
            );
            if let Err(e) = model.take_move(&text) {
                panic!("{e}\n{}", brain.report());
            }
            time_left -= took.as_millis() as i64;
        }
        brain.write(b"END\n");
        let deadline = Instant::now() + scaled(EXIT_MS);
        loop {
            if let Ok(Some(status)) = brain.child.try_wait() {
                assert!(status.success(), "exit status {status}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no exit after END\n{}",
                brain.report()
            );
            thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !brain.stderr_text().contains("panicked"),
            "{}",
            brain.report()
        );
    }
}

#[cfg(unix)]
fn model_empties(model: &Model) -> Vec<Sq> {
    match &model.game {
        Game::Known(g) => g.empties(),
        _ => Vec::new(),
    }
}
