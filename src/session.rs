//! The running brain: stdin reader thread, settings, game state, and the one stdout writer.
//!
//! The reader thread turns bytes into [`Command`]s (decoding lossily, so no input can stop it)
//! and sends them, numbered and time-stamped, over a channel to the engine thread, which owns
//! everything else. Three things take effect at once, while a search runs: `YXSTOP`/`STOP`
//! (the search returns its best move so far), `END` (the search stops and nothing more is
//! printed) and end of input (searches stop early; the commands already received are still
//! answered, then the brain exits). Commands that arrive during a search wait in the channel and
//! are answered after the move, so no reply ever interleaves with the move line.
//!
//! Only [`Out`] writes to stdout; it flushes every line, and a failed write (the manager closed
//! the pipe) ends the session quietly.
//!
//! With `INFO pondering 1`, after each move the engine thread searches the position on the
//! opponent's time until the next command arrives (the reader counts every command at once),
//! so the hash table holds the answers to its likely moves; commands that leave the position
//! as it was (INFO, ABOUT, YXSHOWFORBID, …) let the pondering go on afterwards. Yixin-Board's
//! analysis commands live in [`yixin`].

mod yixin;

use std::{
    collections::HashMap,
    io::{self, BufRead, BufReader, Read, Write},
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc, Arc,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::Context;

use crate::{
    board::{Board, Cell, Pos, Stone},
    params::Params,
    protocol::{Command, Coord, Field, Info, ParseError, Parser, Reply},
    rules::{self, PatternTable, Rule},
    search::{self, Limits, Progress, Score, SearchResult, Searcher},
    time::{ClockWatch, TimeControl},
    tt::TranspositionTable,
};

/// Longest input line kept; the rest of a longer line is discarded.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Memory assumed when the manager sends no `max_memory` (or 0): Gomocup's 350 MB.
pub const DEFAULT_MEMORY_BYTES: i64 = 367_001_600;
/// Share of the memory budget given to the transposition table (the rest covers pattern tables,
/// boards, stacks and the allocator), as a divisor.
pub const TT_MEMORY_DIVISOR: i64 = 4;
/// Upper bound on the transposition table, whatever the budget.
pub const MAX_TT_BYTES: i64 = 256 << 20;

/// Flags the reader thread sets for the engine thread.
#[derive(Debug, Default)]
struct Shared {
    /// Sequence number of the latest YXSTOP/STOP (or `u64::MAX` after end of input): a search
    /// for a request with a smaller number stops.
    stop_seq: AtomicU64,
    /// END was received: stop and print nothing more.
    quit: AtomicBool,
    /// Sequence number of the latest command received (a ponder search stops when it grows).
    latest_seq: AtomicU64,
}

enum Event {
    Command {
        seq: u64,
        at: Instant,
        parsed: Result<Command, ParseError>,
    },
    Eof,
}

/// Runs the protocol on `input`/`output` until END, end of input, or a closed output pipe.
pub fn run<R, W>(input: R, output: W) -> anyhow::Result<()>
where
    R: Read + Send + 'static,
    W: Write,
{
    run_with_threads(input, output, 1)
}

/// [`run`] with `threads` search threads until the manager sends `INFO thread_num`.
pub fn run_with_threads<R, W>(input: R, output: W, threads: i64) -> anyhow::Result<()>
where
    R: Read + Send + 'static,
    W: Write,
{
    let shared = Arc::new(Shared::default());
    let (tx, rx) = mpsc::channel();
    let reader_shared = Arc::clone(&shared);
    thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_commands(input, &tx, &reader_shared))
        .context("cannot start the stdin reader thread")?;
    let mut session = Session::new(Out { inner: output }, shared);
    session.set_threads(threads);
    loop {
        if session.wants_ponder() {
            session.ponder();
        }
        let event = match rx.recv() {
            Ok(event) => event,
            Err(_) => break,
        };
        let flow = match event {
            Event::Eof => break,
            Event::Command { seq, at, parsed } => {
                let flow = session.handle(seq, at, parsed);
                session.handled = seq;
                flow
            }
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => break,
            Err(e) => {
                log::debug!("output closed: {e}");
                break;
            }
        }
    }
    Ok(())
}

/// Reads lines until end of input, forwarding complete commands.
fn read_commands<R: Read>(input: R, tx: &mpsc::Sender<Event>, shared: &Shared) {
    let mut reader = BufReader::new(input);
    let mut parser = Parser::new();
    let mut line = Vec::new();
    let mut seq = 0u64;
    loop {
        match read_line_capped(&mut reader, &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::warn!("stdin: {e}");
                break;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let parsed = match parser.feed(&text) {
            Some(p) => p,
            None => continue,
        };
        seq += 1;
        shared.latest_seq.store(seq, Ordering::SeqCst);
        let end = matches!(parsed, Ok(Command::End));
        match parsed {
            Ok(Command::Stop) => shared.stop_seq.store(seq, Ordering::SeqCst),
            Ok(Command::End) => shared.quit.store(true, Ordering::SeqCst),
            _ => {}
        }
        let event = Event::Command {
            seq,
            at: Instant::now(),
            parsed,
        };
        if tx.send(event).is_err() || end {
            return;
        }
    }
    if parser.in_block() {
        log::debug!("end of input inside a BOARD block");
    }
    shared.stop_seq.store(u64::MAX, Ordering::SeqCst);
    let _ = tx.send(Event::Eof);
}

/// Reads one line (without the `\n`) into `buf`, keeping at most [`MAX_LINE_BYTES`].
/// Returns the number of bytes consumed (0 at end of input).
fn read_line_capped<R: BufRead>(reader: &mut R, buf: &mut Vec<u8>) -> io::Result<usize> {
    buf.clear();
    let mut consumed = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(consumed);
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let keep = used - usize::from(done);
        let room = MAX_LINE_BYTES.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..keep.min(room)]);
        reader.consume(used);
        consumed += used;
        if done {
            return Ok(consumed);
        }
    }
}

/// The only writer of stdout: one line per reply, flushed at once.
struct Out<W: Write> {
    inner: W,
}

impl<W: Write> Out<W> {
    fn send(&mut self, reply: &Reply) -> io::Result<()> {
        writeln!(self.inner, "{reply}")?;
        self.inner.flush()
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// Settings from INFO, kept across games.
#[derive(Clone, Debug)]
struct Settings {
    time: TimeControl,
    rule: Rule,
    max_memory: i64,
    threads: i64,
    /// Threads asked for (`INFO thread_num`, `--threads`); `threads` is fewer when
    /// `max_memory` cannot hold them.
    threads_wanted: i64,
    max_nodes: u64,
    max_depth: i32,
    /// `INFO hash_size` in KB (0: from `max_memory`).
    hash_kb: i64,
    /// `INFO time_increment`, when sent (trusted over the increment learned from the clock).
    increment: Option<i64>,
    /// `INFO start_depth`.
    start_depth: i32,
    /// `INFO pondering 1`.
    pondering: bool,
    /// Realtime analysis lines (`INFO show_detail` bit 0, `YXSHOWINFO`).
    realtime: bool,
    /// `INFO nbestsym` not 0: `YXNBEST` lists symmetric moves separately.
    nbest_symmetric: bool,
    /// The search's constants (`INFO param_<name>`).
    params: Params,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            time: TimeControl::default(),
            rule: Rule::Freestyle,
            max_memory: 0,
            threads: 1,
            threads_wanted: 1,
            max_nodes: 0,
            max_depth: search::MAX_DEPTH,
            hash_kb: 0,
            increment: None,
            start_depth: 1,
            pondering: false,
            realtime: false,
            nbest_symmetric: false,
            params: Params::default(),
        }
    }
}

/// What a search is for, beyond the ordinary best move (see [`Session::search_with`]).
#[derive(Clone, Debug, Default)]
struct Job {
    /// Root moves to report with their own line (0 or 1: the ordinary search).
    lines: usize,
    /// Root moves not to search, besides the YXBLOCK squares.
    exclude: Vec<Pos>,
    /// A balanced move (`false`) or pair (`true`) with this target score.
    balance: Option<(bool, Score)>,
    /// Search on the opponent's time: no time limit, stopped by the next command, silent.
    ponder: bool,
}

struct Session<W: Write> {
    out: Out<W>,
    shared: Arc<Shared>,
    settings: Settings,
    tables: HashMap<Rule, Arc<PatternTable>>,
    board: Option<Board>,
    tt: Option<TranspositionTable>,
    /// Search threads beyond the first, built when `thread_num` asks for more than one.
    pool: Option<rayon::ThreadPool>,
    /// Learns the clock's increment from `time_left` (reset by START and RESTART).
    clock: ClockWatch,
    /// Squares the search never plays (YXBLOCK); kept across games until YXBLOCKRESET.
    blocked: Vec<Pos>,
    /// The last command changed nothing since our move: the position may be pondered.
    ponder_ready: bool,
    /// Sequence number of the last command handled.
    handled: u64,
    /// The multi-PV lines the last search printed with its last progress line.
    shown_lines: Vec<search::Line>,
}

/// Most search threads accepted from `INFO thread_num` or `--threads`.
pub const MAX_THREADS: i64 = 64;
/// Memory set aside per search thread (its stack, its copies of the board in its malloc
/// arena: measured on 20x20, 64 threads thinking 50 s took 80 MB more than one thread, about
/// 1.3 MB each): with `max_memory` set, the threads get at most half of it (8 threads in
/// 64 MB, 43 in Gomocup's 350 MB).
pub const THREAD_MEMORY_BYTES: i64 = 4 << 20;

const NO_GAME: &str = "no game started (send START first)";

impl<W: Write> Session<W> {
    fn new(out: Out<W>, shared: Arc<Shared>) -> Self {
        Session {
            out,
            shared,
            settings: Settings::default(),
            tables: HashMap::new(),
            board: None,
            tt: None,
            pool: None,
            clock: ClockWatch::default(),
            blocked: Vec::new(),
            ponder_ready: false,
            handled: 0,
            shown_lines: Vec::new(),
        }
    }

    /// Sets the number of search threads (1 = the sequential search).
    fn set_threads(&mut self, threads: i64) {
        self.settings.threads_wanted = threads;
        let mut threads = threads.clamp(1, MAX_THREADS);
        if self.settings.max_memory > 0 {
            let fit = (self.settings.max_memory / 2 / THREAD_MEMORY_BYTES).max(1);
            if threads > fit {
                log::info!(
                    "{threads} threads do not fit in max_memory {}: {fit} threads",
                    self.settings.max_memory
                );
                threads = fit;
            }
        }
        if threads == self.settings.threads {
            return;
        }
        self.settings.threads = threads;
        self.pool = None;
        if threads > 1 {
            match rayon::ThreadPoolBuilder::new()
                .num_threads(threads as usize)
                .thread_name(|i| format!("search-{i}"))
                .build()
            {
                Ok(pool) => self.pool = Some(pool),
                Err(e) => log::warn!("cannot start {threads} search threads: {e}"),
            }
        }
    }

    fn table(&mut self, rule: Rule) -> Arc<PatternTable> {
        Arc::clone(
            self.tables
                .entry(rule)
                .or_insert_with(|| Arc::new(PatternTable::new(rule))),
        )
    }

    fn send(&mut self, reply: Reply) -> io::Result<Flow> {
        self.out.send(&reply)?;
        Ok(Flow::Continue)
    }

    fn handle(
        &mut self,
        seq: u64,
        at: Instant,
        parsed: Result<Command, ParseError>,
    ) -> io::Result<Flow> {
        let command = match parsed {
            Ok(c) => c,
            Err(e @ ParseError::Unknown(_)) => return self.send(Reply::Unknown(e.to_string())),
            Err(e) => return self.send(Reply::Error(e.to_string())),
        };
        if !keeps_position(&command) {
            self.ponder_ready = false;
        }
        match command {
            Command::Start { width, height } => self.start(width, height),
            Command::Restart => match self.board.as_ref() {
                Some(b) => {
                    let (w, h) = (b.width(), b.height());
                    self.new_board(w, h);
                    self.clock.new_game();
                    self.send(Reply::Ok)
                }
                None => self.send(Reply::Error(NO_GAME.into())),
            },
            Command::Begin => self.play_move(seq, at),
            Command::Turn(c) => self.turn(c, seq, at),
            Command::Board {
                stones,
                problems,
                reply,
            } => self.set_position(&stones, problems, reply, seq, at),
            Command::Swap2Board { stones, problems } => self.swap2(&stones, problems, seq, at),
            Command::Info(info) => {
                self.info(info);
                Ok(Flow::Continue)
            }
            Command::End => Ok(Flow::Quit),
            Command::About => self.send(Reply::About {
                name: "wuzi".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                author: "The wuzi developers".into(),
                country: "International".into(),
            }),
            Command::Takeback(c) => self.takeback(c),
            Command::Play(c) => self.play(c),
            Command::Stop => Ok(Flow::Continue),
            Command::ShowForbid => self.show_forbid(),
            Command::HashClear => {
                if let Some(tt) = &self.tt {
                    tt.clear();
                }
                Ok(Flow::Continue)
            }
            Command::NBest(n) => self.nbest(n, seq, at),
            Command::Block {
                squares,
                problems,
                undo,
            } => self.block(&squares, problems, undo),
            Command::BlockReset => {
                self.blocked.clear();
                Ok(Flow::Continue)
            }
            Command::Balance { two, bias } => self.balance(two, bias, seq, at),
            Command::Swap2Step(step) => self.swap2_step(step, seq, at),
            Command::Soosorv {
                step,
                count,
                stones,
                problems,
            } => self.soosorv(step, count, &stones, problems, seq, at),
            Command::SearchDefend => self.search_defend(seq, at),
            Command::ShowHashUsage => self.show_hash_usage(),
            Command::HashDump(path) => self.hash_dump(&path),
            Command::HashLoad(path) => self.hash_load(&path),
            Command::ShowInfo => self.show_info(),
            Command::Database(name) => self.database(name),
            Command::Unsupported(name) => {
                self.send(Reply::Error(format!("{name} is not supported by wuzi")))
            }
        }
    }

    fn start(&mut self, width: i32, height: i32) -> io::Result<Flow> {
        let range = crate::board::MIN_SIZE as i32..=crate::board::MAX_SIZE as i32;
        if !range.contains(&width) || !range.contains(&height) {
            return self.send(Reply::Error(format!(
                "unsupported board size {width}x{height} (sizes 5 to 32 are supported, 20 is the Gomocup size)"
            )));
        }
        self.new_board(width as usize, height as usize);
        self.clock.new_game();
        // The table's memory is claimed now, not in the first move's time (64 MB take tens
        // of milliseconds to touch).
        self.tt();
        self.send(Reply::Ok)
    }

    fn new_board(&mut self, width: usize, height: usize) {
        let table = self.table(self.settings.rule);
        self.board = Board::new(width, height, table);
    }

    /// Reports a parsed opening's problems and empties the board for it, keeping its size;
    /// `Some` is the flow to return when there is no game to empty (after its `ERROR`).
    fn restart_board(&mut self, problems: Vec<String>) -> io::Result<Option<Flow>> {
        for problem in problems {
            self.send(Reply::Debug(problem))?;
        }
        match self.board.as_ref().map(|b| (b.width(), b.height())) {
            Some((w, h)) => {
                self.new_board(w, h);
                Ok(None)
            }
            None => self.send(Reply::Error(NO_GAME.into())).map(Some),
        }
    }

    fn info(&mut self, info: Info) {
        let s = &mut self.settings;
        match info {
            Info::TimeoutTurn(v) => s.time.timeout_turn = v,
            Info::TimeoutMatch(v) => s.time.timeout_match = v,
            Info::TimeLeft(v) => {
                s.time.time_left = Some(v);
                self.clock.time_left_sent();
            }
            Info::MaxMemory(v) => {
                if v != s.max_memory {
                    s.max_memory = v;
                    self.resize_tt();
                    let wanted = self.settings.threads_wanted;
                    self.set_threads(wanted);
                }
            }
            Info::Rule(v) => match Rule::from_info_bits(v) {
                Some(rule) => self.set_rule(rule),
                None => log::warn!("INFO rule {v} is not supported; keeping {}", s.rule.name()),
            },
            Info::ThreadNum(v) => self.set_threads(v),
            Info::MaxNode(v) => s.max_nodes = v.max(0) as u64,
            Info::MaxDepth(v) => {
                s.max_depth = if v <= 0 {
                    search::MAX_DEPTH
                } else {
                    v.min(search::MAX_DEPTH as i64) as i32
                }
            }
            Info::Pondering(v) => s.pondering = v == 1,
            Info::ShowDetail(v) => s.realtime = v & 1 != 0,
            Info::HashSize(v) => {
                if v != s.hash_kb {
                    s.hash_kb = v.max(0);
                    self.resize_tt();
                }
            }
            Info::TimeIncrement(v) => {
                s.increment = Some(v.max(0));
                s.time.increment = v.max(0);
            }
            Info::StartDepth(v) => s.start_depth = v.clamp(1, search::MAX_DEPTH as i64) as i32,
            Info::NBestSym(v) => s.nbest_symmetric = v != 0,
            Info::Accepted(key, v) => log::debug!("INFO {key} {v}: accepted, not used"),
            Info::Param(name, v) => match s.params.set(&name, v) {
                Ok(()) => log::info!("search parameters: {}", s.params.changed().join(" ")),
                Err(e) => log::warn!("INFO param_{name}: {e}"),
            },
            Info::GameType(_) | Info::Folder(_) | Info::Evaluate(_) => {}
            Info::Invalid { key, value } => log::warn!("INFO {key}: invalid value `{value}`"),
            Info::Unknown { key, .. } => log::debug!("INFO {key}: ignored"),
        }
    }

    /// Switches the rule; a game in progress is replayed under the new rule.
    fn set_rule(&mut self, rule: Rule) {
        if rule == self.settings.rule {
            return;
        }
        self.settings.rule = rule;
        let table = self.table(rule);
        if let Some(old) = self.board.take() {
            self.board = rebuild(&old, table);
        }
    }

    fn turn(&mut self, c: Coord, seq: u64, at: Instant) -> io::Result<Flow> {
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        match board.pos(c.x as i64, c.y as i64) {
            None => self.send(Reply::Error(format!("TURN {c}: outside the board"))),
            Some(p) if !board.is_empty(p) => {
                self.send(Reply::Error(format!("TURN {c}: square is occupied")))
            }
            Some(p) => {
                board.make(p);
                self.play_move(seq, at)
            }
        }
    }

    fn set_position(
        &mut self,
        stones: &[(Coord, Field)],
        mut problems: Vec<String>,
        reply: bool,
        seq: u64,
        at: Instant,
    ) -> io::Result<Flow> {
        let (w, h) = match self.board.as_ref() {
            Some(b) => (b.width(), b.height()),
            None => {
                if reply {
                    return self.send(Reply::Error(NO_GAME.into()));
                }
                return Ok(Flow::Continue);
            }
        };
        self.new_board(w, h);
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return Ok(Flow::Continue),
        };
        let own = stones.iter().filter(|s| s.1 == Field::Own).count();
        let opp = stones.iter().filter(|s| s.1 == Field::Opponent).count();
        let me = if own == opp {
            Stone::Black
        } else if own + 1 == opp {
            Stone::White
        } else {
            problems.push(format!(
                "{own} own and {opp} opponent stones: colours inferred from the total"
            ));
            if (own + opp) % 2 == 0 {
                Stone::Black
            } else {
                Stone::White
            }
        };
        let mut walls = Vec::new();
        for &(c, field) in stones {
            let p = match board.pos(c.x as i64, c.y as i64) {
                Some(p) if board.is_empty(p) => p,
                Some(_) => {
                    problems.push(format!("skipped {c}: square already taken"));
                    continue;
                }
                None => {
                    problems.push(format!("skipped {c}: outside the board"));
                    continue;
                }
            };
            match field {
                Field::Own => board.put(p, me),
                Field::Opponent => board.put(p, me.opponent()),
                Field::Wall => walls.push(p),
            }
        }
        for p in walls {
            board.put_wall(p);
        }
        board.set_side_to_move(me);
        for problem in problems {
            self.send(Reply::Debug(problem))?;
        }
        if reply {
            self.play_move(seq, at)
        } else {
            Ok(Flow::Continue)
        }
    }

    fn takeback(&mut self, c: Coord) -> io::Result<Flow> {
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        match board
            .pos(c.x as i64, c.y as i64)
            .map(|p| (p, board.cell(p)))
        {
            Some((p, Cell::Stone(stone))) => {
                board.remove(p);
                board.set_side_to_move(stone);
                self.send(Reply::Ok)
            }
            _ => self.send(Reply::Error(format!("TAKEBACK {c}: no stone there"))),
        }
    }

    fn play(&mut self, c: Coord) -> io::Result<Flow> {
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        match board.pos(c.x as i64, c.y as i64) {
            Some(p) if crate::movegen::is_legal(board, p) => {
                board.make(p);
                self.send(Reply::Move(c))
            }
            _ => self.send(Reply::Error(format!("PLAY {c}: not a legal move"))),
        }
    }

    fn show_forbid(&mut self) -> io::Result<Flow> {
        let squares = match self.board.as_mut() {
            Some(board) => {
                let empties: Vec<Pos> = board.squares().filter(|&p| board.is_empty(p)).collect();
                empties
                    .into_iter()
                    .filter(|&p| rules::is_forbidden_move(board, p))
                    .map(coord)
                    .collect()
            }
            None => Vec::new(),
        };
        self.send(Reply::Forbid(squares))
    }

    /// A new table of the size the settings ask for: at once during a game (the INFO lines
    /// come before the move that is timed), at the next START otherwise.
    fn resize_tt(&mut self) {
        self.tt = None;
        if self.board.is_some() {
            self.tt();
        }
    }

    fn tt(&mut self) -> &TranspositionTable {
        let memory = if self.settings.max_memory <= 0 {
            DEFAULT_MEMORY_BYTES
        } else {
            self.settings.max_memory
        };
        let budget = (memory / TT_MEMORY_DIVISOR).clamp(0, MAX_TT_BYTES);
        let mut bytes = budget as usize;
        if self.settings.hash_kb > 0 {
            // Yixin-Board's hash size, but never beyond a memory limit the manager set.
            let mut wanted = self.settings.hash_kb.saturating_mul(1024).min(MAX_TT_BYTES);
            if self.settings.max_memory > 0 {
                wanted = wanted.min(budget);
            }
            bytes = wanted as usize;
        }
        self.tt
            .get_or_insert_with(|| TranspositionTable::new(bytes))
    }

    /// Searches the current position within the budget; `None` when no game or no free square.
    fn search(&mut self, seq: u64, at: Instant) -> Option<SearchResult> {
        self.search_with(seq, at, &Job::default())
    }

    /// Searches the current position for `job` (the YXBLOCK squares always excluded); `None`
    /// when no game or no free square. Reports progress on stdout as it goes (none when
    /// pondering).
    fn search_with(&mut self, seq: u64, at: Instant, job: &Job) -> Option<SearchResult> {
        let time_left = self.settings.time.time_left;
        let limits = if job.ponder {
            Limits {
                max_depth: self.settings.max_depth,
                max_nodes: 0,
                soft: None,
                hard: None,
            }
        } else {
            if let Some(increment) = self.clock.increment_before_move(time_left) {
                self.settings.time.increment = increment;
            }
            if let Some(increment) = self.settings.increment {
                self.settings.time.increment = increment;
            }
            let moves_to_go = i64::from(self.settings.params.moves_to_go);
            let budget = self.settings.time.budget(moves_to_go);
            Limits {
                max_depth: self.settings.max_depth,
                max_nodes: self.settings.max_nodes,
                soft: budget.soft.map(|soft| at + soft),
                hard: Some(at + budget.hard),
            }
        };
        let shared = Arc::clone(&self.shared);
        let ponder = job.ponder;
        let stop = move || {
            shared.quit.load(Ordering::Relaxed)
                || shared.stop_seq.load(Ordering::Relaxed) > seq
                || (ponder && shared.latest_seq.load(Ordering::Relaxed) > seq)
        };
        let mut exclude = job.exclude.clone();
        exclude.extend(self.blocked.iter().copied());
        let start_depth = self.settings.start_depth;
        let params = self.settings.params;
        let realtime = self.settings.realtime && !ponder;
        self.tt();
        let (board, tt) = match (self.board.as_mut(), self.tt.as_ref()) {
            (Some(b), Some(tt)) if !b.is_full() => (b, tt),
            _ => return None,
        };
        let mut searcher = Searcher::new(tt, limits, &stop)
            .multi_pv(job.lines)
            .exclude(&exclude)
            .start_depth(start_depth)
            .params(params);
        match job.balance {
            Some((false, bias)) => searcher = searcher.balance_one(bias),
            Some((true, bias)) => searcher = searcher.balance_two(bias),
            None => {}
        }
        if let Some(pool) = self.pool.as_ref() {
            searcher = searcher.with_pool(pool);
        }
        let out = &mut self.out;
        let mut lost = Vec::new();
        let mut shown = Vec::new();
        let result = searcher.think_with(board, &mut |progress| {
            if ponder {
                if let Progress::Iteration(r) = progress {
                    log::debug!("pondering: {}", summary(r));
                }
                return;
            }
            // A write error shows again on the move.
            let _ = report(out, &progress, at, realtime, &mut lost, &mut shown);
        });
        self.shown_lines = shown;
        if !ponder {
            let used = i64::try_from(at.elapsed().as_millis()).unwrap_or(i64::MAX);
            self.clock.after_move(time_left, used);
        }
        Some(result)
    }

    /// Whether to ponder now: `INFO pondering 1`, our move was the last thing that happened,
    /// the game goes on, and no command is waiting.
    fn wants_ponder(&self) -> bool {
        let shared = &self.shared;
        self.settings.pondering
            && self.ponder_ready
            && !shared.quit.load(Ordering::SeqCst)
            && shared.stop_seq.load(Ordering::SeqCst) != u64::MAX
            && shared.latest_seq.load(Ordering::SeqCst) <= self.handled
            && self.board.as_ref().map_or(false, |b| !b.is_full())
    }

    /// Searches the position on the opponent's turn, filling the hash table, until the next
    /// command arrives (or the search ends on its own: then it is not started again).
    fn ponder(&mut self) {
        let job = Job {
            ponder: true,
            ..Job::default()
        };
        let seq = self.handled;
        let result = self.search_with(seq, Instant::now(), &job);
        if self.shared.latest_seq.load(Ordering::SeqCst) <= seq {
            self.ponder_ready = false;
        }
        if let Some(r) = result {
            log::debug!("pondered: {}", summary(&r));
        }
    }

    /// Answers a move request: search, play the move on our board, print it.
    fn play_move(&mut self, seq: u64, at: Instant) -> io::Result<Flow> {
        match self.board.as_ref() {
            None => return self.send(Reply::Error(NO_GAME.into())),
            Some(b) if b.is_full() => return self.send(Reply::Error("board is full".into())),
            Some(_) => {}
        }
        let result = self.search(seq, at);
        if self.shared.quit.load(Ordering::SeqCst) {
            return Ok(Flow::Quit);
        }
        self.play_searched(result)
    }

    fn swap2(
        &mut self,
        stones: &[Coord],
        problems: Vec<String>,
        seq: u64,
        at: Instant,
    ) -> io::Result<Flow> {
        if let Some(flow) = self.restart_board(problems)? {
            return Ok(flow);
        }
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return Ok(Flow::Continue),
        };
        let mut placed = 0;
        for &c in stones {
            match board.pos(c.x as i64, c.y as i64) {
                Some(p) if board.is_empty(p) => {
                    board.make(p);
                    placed += 1;
                }
                _ => {}
            }
        }
        if placed == 0 {
            let opening = swap2_opening(board.width(), board.height());
            for c in opening {
                if let Some(p) = board.pos(c.x as i64, c.y as i64) {
                    board.make(p);
                }
            }
            return self.send(Reply::Moves(opening.to_vec()));
        }
        if board.side_to_move() != Stone::White {
            return self.send(Reply::Error(format!(
                "SWAP2BOARD: expected 3 or 5 stones, got {placed}"
            )));
        }
        // White to move: take black (SWAP) if white's best is worse than even, else play white.
        match self.search(seq, at) {
            Some(r) if r.score < 0 => self.send(Reply::Swap),
            Some(SearchResult { best: Some(p), .. }) => {
                if let Some(b) = self.board.as_mut() {
                    b.make(p);
                    self.ponder_ready = true;
                }
                self.send(Reply::Moves(vec![coord(p)]))
            }
            _ => self.send(Reply::Swap),
        }
    }
}

/// Commands after which the position is still the one our last move left: pondering goes on.
fn keeps_position(command: &Command) -> bool {
    matches!(
        command,
        Command::Info(_)
            | Command::About
            | Command::ShowForbid
            | Command::HashClear
            | Command::Block { .. }
            | Command::BlockReset
            | Command::ShowHashUsage
            | Command::ShowInfo
            | Command::Database(_)
            | Command::Unsupported(_)
    )
}

/// Realtime lines (`MESSAGE REALTIME …`, parsed by Yixin-Board) wait until a search has run
/// this long, except the lost moves and the end of each depth.
const REALTIME_AFTER: Duration = Duration::from_millis(200);

/// Prints what a search reports while it runs: the progress line of each completed depth
/// after [`PROGRESS_AFTER`] (after one per line in multi-PV, which are kept in `shown`), and
/// with `realtime` Yixin-Board's
/// lines: the root move being searched (`POS`) and done (`DONE`), each lost move once
/// (`LOSE`), and at each depth the best move, its score and line after a `REFRESH`.
fn report<W: Write>(
    out: &mut Out<W>,
    progress: &Progress<'_>,
    at: Instant,
    realtime: bool,
    lost: &mut Vec<Pos>,
    shown: &mut Vec<search::Line>,
) -> io::Result<()> {
    let line = |kind: &str, p: Pos| Reply::Message(format!("REALTIME {kind} {}", coord(p)));
    match *progress {
        Progress::Enter { mv, .. } if realtime && at.elapsed() >= REALTIME_AFTER => {
            out.send(&line("POS", mv))
        }
        Progress::Leave { mv, score, .. } if realtime => {
            if score <= -search::WIN_THRESHOLD && !lost.contains(&mv) {
                lost.push(mv);
                out.send(&line("LOSE", mv))?;
            }
            if at.elapsed() >= REALTIME_AFTER {
                out.send(&line("DONE", mv))?;
            }
            Ok(())
        }
        Progress::Iteration(r) => {
            log::debug!(
                "depth {} {} nodes {} time {:?}",
                r.depth,
                search::describe_score(r.score),
                r.nodes,
                r.elapsed
            );
            if r.elapsed >= PROGRESS_AFTER {
                if r.lines.len() > 1 {
                    for (k, l) in r.lines.iter().enumerate() {
                        out.send(&Reply::Message(line_summary(k, l)))?;
                    }
                    *shown = r.lines.clone();
                }
                out.send(&Reply::Message(summary(r)))?;
            }
            if realtime {
                if let Some(best) = r.best {
                    out.send(&Reply::Message("REALTIME REFRESH".into()))?;
                    out.send(&line("BEST", best))?;
                    out.send(&Reply::Message(format!("REALTIME VAL {}", r.score)))?;
                    out.send(&Reply::Message(format!(
                        "REALTIME PV {}",
                        moves_text(&r.pv)
                    )))?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `7,7 8,8 …`
fn moves_text(moves: &[Pos]) -> String {
    let text: Vec<String> = moves.iter().map(|&p| coord(p).to_string()).collect();
    text.join(" ")
}

/// One MESSAGE line for line `k` (0-based) of a multi-PV search.
fn line_summary(k: usize, line: &search::Line) -> String {
    format!(
        "multipv {} depth {} {} pv {}",
        k + 1,
        line.depth,
        search::describe_score(line.score),
        moves_text(&line.pv)
    )
}

/// The three stones wuzi opens swap2 with: a modest start near the centre.
fn swap2_opening(w: usize, h: usize) -> [Coord; 3] {
    let (cx, cy) = (w as i32 / 2, h as i32 / 2);
    [
        Coord::new(cx, cy),
        Coord::new(cx + 1, cy - 1),
        Coord::new(cx + 2, cy + 1),
    ]
}

/// The protocol coordinate of a square.
fn coord(p: Pos) -> Coord {
    Coord::new(p.x() as i32, p.y() as i32)
}

/// Searches running longer than this report each completed depth in a MESSAGE line.
const PROGRESS_AFTER: Duration = Duration::from_millis(200);

/// One MESSAGE line describing a search (finished, or its latest completed depth).
fn summary(r: &SearchResult) -> String {
    let ms = r.elapsed.as_millis().max(1) as u64;
    let pv: Vec<String> = r.pv.iter().map(|p| p.to_string()).collect();
    format!(
        "depth {} {} nodes {} nps {} time {}ms pv {}",
        r.depth,
        search::describe_score(r.score),
        r.nodes,
        r.nodes * 1000 / ms,
        ms,
        pv.join(" ")
    )
}

/// The same stones and walls, in the same order and with the same side to move, on a board
/// with another pattern table.
fn rebuild(old: &Board, table: Arc<PatternTable>) -> Option<Board> {
    let mut board = Board::new(old.width(), old.height(), table)?;
    for &p in old.history() {
        if let Cell::Stone(s) = old.cell(p) {
            board.put(p, s);
        }
    }
    let walls: Vec<Pos> = old
        .squares()
        .filter(|&p| old.cell(p) == Cell::Wall)
        .collect();
    for p in walls {
        board.put_wall(p);
    }
    board.set_side_to_move(old.side_to_move());
    Some(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a whole conversation in-process and returns the output lines.
    fn converse(input: &str) -> Vec<String> {
        let mut out = Vec::new();
        run(io::Cursor::new(input.as_bytes().to_vec()), &mut out).expect("session runs");
        String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn moves(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .filter(|l| !l.starts_with("MESSAGE") && !l.starts_with("DEBUG"))
            .cloned()
            .collect()
    }

    #[test]
    fn start_begin_answers_ok_and_the_centre_region() {
        let out = moves(&converse("START 15\nINFO timeout_turn 200\nBEGIN\n"));
        assert_eq!(out, vec!["OK".to_string(), "7,7".to_string()]);
    }

    #[test]
    fn rejects_bad_sizes_and_keeps_going() {
        let out = moves(&converse("START 4\nSTART 33\nSTART 15\n"));
        assert!(out[0].starts_with("ERROR"));
        assert!(out[1].starts_with("ERROR"));
        assert_eq!(out[2], "OK");
    }

    #[test]
    fn blocks_a_four_given_as_board() {
        // Opponent (2) has four in a row on row 0 with one end at the edge: 4,0 must be played.
        let input = "START 15\nINFO timeout_turn 300\nBOARD\n0,0,2\n1,0,2\n2,0,2\n3,0,2\n7,7,1\n8,8,1\n9,9,1\nDONE\n";
        let out = moves(&converse(input));
        assert_eq!(out, vec!["OK".to_string(), "4,0".to_string()]);
    }

    #[test]
    fn takeback_and_errors() {
        let out = moves(&converse(
            "TURN 1,1\nSTART 15\nINFO timeout_turn 100\nTURN 7,7\nTAKEBACK 7,7\nTAKEBACK 0,0\nTURN 99,1\nRESTART\n",
        ));
        assert!(out[0].starts_with("ERROR"), "{out:?}");
        assert_eq!(out[1], "OK");
        // out[2] is our move; taking back the opponent's stone 7,7 works once.
        assert!(out[3] == "OK", "{out:?}");
        assert!(out[4].starts_with("ERROR"));
        assert!(out[5].starts_with("ERROR"));
        assert_eq!(out[6], "OK");
    }

    /// `INFO param_<name>` changes the search (here the node count of a fixed-depth search);
    /// an unknown name or a value out of range changes nothing, and no INFO is answered.
    #[test]
    fn search_parameters_come_from_info() {
        let nodes = |infos: &str| {
            let out = converse(&format!(
                "START 15\nINFO max_depth 5\n{infos}BOARD\n7,7,1\n8,8,2\n8,7,1\n6,9,2\nDONE\n"
            ));
            assert_eq!(moves(&out).len(), 2, "{out:?}");
            let message = out
                .iter()
                .find(|l| l.contains(" nodes "))
                .expect("a search line");
            let words: Vec<&str> = message.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "nodes").expect("nodes");
            words[at + 1].parse::<u64>().expect("a count")
        };
        let base = nodes("");
        assert_eq!(
            nodes("INFO param_no_such 3\nINFO param_rfp_margin 99999\nINFO param_rfp_margin x\n"),
            base
        );
        assert_ne!(
            nodes("INFO param_lmr_first_move 20\nINFO param_rfp_depth 0\n"),
            base
        );
    }

    /// The hash table is allocated when a game starts and when INFO changes its size during a
    /// game, so that the first move's time is not spent touching fresh memory.
    #[test]
    fn the_table_is_claimed_before_the_first_move() {
        let mut session = Session::new(Out { inner: Vec::new() }, Arc::new(Shared::default()));
        let command = |session: &mut Session<Vec<u8>>, c: Command| {
            session.handle(0, Instant::now(), Ok(c)).expect("handled");
        };
        command(&mut session, Command::Info(Info::MaxMemory(40 << 20)));
        assert!(session.tt.is_none(), "no table before a game");
        command(
            &mut session,
            Command::Start {
                width: 15,
                height: 15,
            },
        );
        let bytes = session.tt.as_ref().map(TranspositionTable::bytes);
        assert_eq!(
            bytes,
            Some(8 << 20),
            "a quarter of max_memory, a power of two"
        );
        command(&mut session, Command::Info(Info::MaxMemory(80 << 20)));
        let bytes = session.tt.as_ref().map(TranspositionTable::bytes);
        assert_eq!(bytes, Some(16 << 20), "resized at once");
        command(&mut session, Command::Info(Info::HashSize(1024)));
        let bytes = session.tt.as_ref().map(TranspositionTable::bytes);
        assert_eq!(bytes, Some(1 << 20), "hash_size in KB");
    }

    #[test]
    fn rule_after_start_applies_to_the_game() {
        // Renju, black to move; 6,8 is the only forbidden square (protocol.md §6 item 51).
        let out = moves(&converse(
            "START 15\nINFO rule 4\nYXBOARD\n7,7,1\n7,8,2\n8,6,1\n8,8,2\n7,9,1\n8,5,2\n8,10,1\n8,11,2\nDONE\nYXSHOWFORBID\n",
        ));
        assert_eq!(out, vec!["OK".to_string(), "FORBID 0608.".to_string()]);
    }
}
