//! Yixin-Board's analysis commands: the N best moves (`YXNBEST`), blocked moves (`YXBLOCK`),
//! balanced moves (`YXBALANCEONE`/`TWO`), the moves that do not lose (`YXSEARCHDEFEND`), the
//! swap2 and Soosorv-8 opening steps, the hash table (usage, to and from a file), the engine's
//! limits (`YXSHOWINFO`) and the database commands (wuzi has no database).
//!
//! Formats are the ones Yixin-Board parses (`main.c`, `iochannelout_watch`): everything but a
//! move is a `MESSAGE`, `ERROR` or `UNKNOWN` line, since it takes any other line for a move;
//! the opening steps answer `MESSAGE SWAP2 …` / `MESSAGE SOOSORV …` with the square as two
//! numbers `x y`. Every search here runs like a move's (same time limits, YXSTOP, realtime
//! lines), and a command that ends with a move plays it on the brain's board, as Rapfi does.

use std::{
    fs::File,
    io::{self, BufReader, BufWriter, Write},
    time::Instant,
};

use super::{
    coord, line_summary, moves_text, summary, Flow, Job, Session, MAX_THREADS, MAX_TT_BYTES,
    NO_GAME,
};
use crate::{
    board::{Board, Cell, Pos},
    movegen,
    protocol::{Coord, Reply},
    search::{self, Score, SearchResult, WIN_THRESHOLD},
    tt::TranspositionTable,
};

/// Most moves `YXNBEST` reports.
pub const MAX_NBEST: i64 = 64;

/// Swap2, second player with three stones: a position whose score is within this of even
/// gets two more stones (a balanced pair) and the choice of colour goes back to the opener;
/// otherwise wuzi takes the better colour. Three-stone openings score from about -500 to
/// -1100 for white at depth 6 (black's extra stone), so most are a plain choice.
pub const SWAP2_BALANCED: Score = 150;

/// Soosorv-8: one more fifth move is declared for each this much that black leads by after
/// the fourth move (1 to 8 fifth moves).
pub const SOOSORV_SCORE_PER_FIFTH: Score = 300;

/// Most fifth moves of Soosorv-8.
pub const SOOSORV_MAX_FIFTHS: i64 = 8;

/// Moves per MESSAGE line when listing many.
const MOVES_PER_LINE: usize = 15;

impl<W: Write> Session<W> {
    /// Checks that a game is on and a square is free; the error line otherwise.
    fn board_for_search(&self) -> Option<String> {
        match self.board.as_ref() {
            None => Some(NO_GAME.into()),
            Some(b) if b.is_full() => Some("board is full".into()),
            Some(_) => None,
        }
    }

    /// Plays the move of a finished search and prints its summary and the move.
    pub(super) fn play_searched(&mut self, result: Option<SearchResult>) -> io::Result<Flow> {
        let (board, best, result) = match (self.board.as_mut(), result) {
            (Some(b), Some(r)) => match r.best {
                Some(p) => (b, p, r),
                None => return self.send(Reply::Error("board is full".into())),
            },
            _ => return self.send(Reply::Error("board is full".into())),
        };
        board.make(best);
        self.ponder_ready = true;
        self.send(Reply::Message(summary(&result)))?;
        self.send(Reply::Move(coord(best)))
    }

    /// Whether END arrived during the last search (then nothing more is printed).
    fn quitting(&self) -> bool {
        self.shared.quit.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// `YXNBEST n`: the n best moves, one `MESSAGE multipv k depth d ev s pv …` line each,
    /// then the best is played like a move. Unless `INFO nbestsym` is set, moves equivalent by
    /// a symmetry of the position are listed once.
    pub(super) fn nbest(&mut self, n: i64, seq: u64, at: Instant) -> io::Result<Flow> {
        if let Some(error) = self.board_for_search() {
            return self.send(Reply::Error(error));
        }
        let exclude = match (self.settings.nbest_symmetric, self.board.as_ref()) {
            (false, Some(board)) => symmetric_duplicates(board),
            _ => Vec::new(),
        };
        let job = Job {
            lines: n.clamp(1, MAX_NBEST) as usize,
            exclude,
            ..Job::default()
        };
        let result = self.search_with(seq, at, &job);
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        if let Some(r) = &result {
            // Printed with the last progress line already, unless the search went on after it.
            if r.lines != self.shown_lines {
                for (k, line) in r.lines.iter().enumerate() {
                    self.send(Reply::Message(line_summary(k, line)))?;
                }
            }
        }
        self.play_searched(result)
    }

    /// `YXBLOCK` / `YXBLOCKUNDO`: squares the search never plays, added or removed. No
    /// answer, or one `ERROR` line naming the squares that were skipped.
    pub(super) fn block(
        &mut self,
        squares: &[Coord],
        mut problems: Vec<String>,
        undo: bool,
    ) -> io::Result<Flow> {
        let board = match self.board.as_ref() {
            Some(b) => b,
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        for &c in squares {
            match board.pos(c.x as i64, c.y as i64) {
                Some(p) if undo => self.blocked.retain(|&q| q != p),
                Some(p) if !self.blocked.contains(&p) => self.blocked.push(p),
                Some(_) => {}
                None => problems.push(format!("skipped {c}: outside the board")),
            }
        }
        if problems.is_empty() {
            return Ok(Flow::Continue);
        }
        let name = if undo { "YXBLOCKUNDO" } else { "YXBLOCK" };
        self.send(Reply::Error(format!("{name}: {}", problems.join("; "))))
    }

    /// `YXBALANCEONE n`: the move after which the side to move's score is closest to `n`,
    /// played and answered like a move. `YXBALANCETWO n`: a move and the opponent's answer
    /// after which the side to move (to move again) scores closest to `n`; both are played
    /// and answered on one line, `x1,y1 x2,y2`.
    pub(super) fn balance(
        &mut self,
        two: bool,
        bias: i64,
        seq: u64,
        at: Instant,
    ) -> io::Result<Flow> {
        if let Some(error) = self.board_for_search() {
            return self.send(Reply::Error(error));
        }
        let bias = bias.clamp(-(WIN_THRESHOLD as i64) + 1, WIN_THRESHOLD as i64 - 1) as Score;
        let job = Job {
            balance: Some((two, bias)),
            ..Job::default()
        };
        let result = self.search_with(seq, at, &job);
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        if !two {
            return self.play_searched(result);
        }
        let result = match result {
            Some(r) if r.best.is_some() => r,
            _ => return self.send(Reply::Error("board is full".into())),
        };
        let pair = self.play_pair(&result, seq);
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        self.send(Reply::Message(summary(&result)))?;
        self.send(Reply::Moves(pair.into_iter().map(coord).collect()))
    }

    /// Plays the first two moves of a balanced pair's line on the board (the answer searched
    /// for when the line has only one move) and returns them.
    fn play_pair(&mut self, result: &SearchResult, seq: u64) -> Vec<Pos> {
        let mut played = Vec::new();
        let first = match result.best {
            Some(p) => p,
            None => return played,
        };
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return played,
        };
        board.make(first);
        played.push(first);
        let second = match result.pv.get(1) {
            // The line's answer, unless it is a YXBLOCK square (then the search finds another).
            Some(&p) if board.is_empty(p) && !self.blocked.contains(&p) => Some(p),
            _ => self.search(seq, Instant::now()).and_then(|r| r.best),
        };
        if let (Some(p), Some(board)) = (second, self.board.as_mut()) {
            if !board.is_full() {
                board.make(p);
                played.push(p);
            }
        }
        self.ponder_ready = true;
        played
    }

    /// `YXSEARCHDEFEND`: every candidate move searched with its own line; `MESSAGE` lines list
    /// the moves that do not lose and those that do (those the opponent's continuous fours
    /// refute at the root first; with realtime lines on, each lost one is a `REALTIME LOSE`),
    /// then the best is played like a move. Squares the move generator does not consider
    /// (far from the stones, or not answering a four or open three) are not listed.
    pub(super) fn search_defend(&mut self, seq: u64, at: Instant) -> io::Result<Flow> {
        if let Some(error) = self.board_for_search() {
            return self.send(Reply::Error(error));
        }
        let job = Job {
            lines: crate::board::NUM_CELLS,
            ..Job::default()
        };
        let result = self.search_with(seq, at, &job);
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        if let Some(r) = &result {
            let (lost, kept): (Vec<&search::Line>, Vec<&search::Line>) =
                r.lines.iter().partition(|l| l.score <= -WIN_THRESHOLD);
            let kept: Vec<Pos> = kept.iter().map(|l| l.mv).collect();
            let lost: Vec<Pos> = r
                .refuted
                .iter()
                .copied()
                .chain(lost.iter().map(|l| l.mv))
                .collect();
            let head = format!(
                "defend: {} of {} moves do not lose",
                kept.len(),
                kept.len() + lost.len()
            );
            self.send_moves(&head, &kept)?;
            self.send_moves("lost", &lost)?;
        }
        self.play_searched(result)
    }

    /// `MESSAGE head: a b c …`, split over several lines when long (`head (2/3): …`).
    fn send_moves(&mut self, head: &str, moves: &[Pos]) -> io::Result<Flow> {
        if moves.is_empty() {
            return self.send(Reply::Message(format!("{head}: none")));
        }
        let chunks = (moves.len() + MOVES_PER_LINE - 1) / MOVES_PER_LINE;
        for (k, chunk) in moves.chunks(MOVES_PER_LINE).enumerate() {
            let text = if k == 0 {
                format!("{head}: {}", moves_text(chunk))
            } else {
                format!("{head} ({}/{chunks}): {}", k + 1, moves_text(chunk))
            };
            self.send(Reply::Message(text))?;
        }
        Ok(Flow::Continue)
    }

    /// `YXSWAP2STEP1..3`: Yixin-Board's swap2 with wuzi as a player.
    ///
    /// * 1 (wuzi opens, empty board): three stones, `MESSAGE SWAP2 MOVE1 x y` … `MOVE3`.
    /// * 2 (wuzi is white before three stones given by YXBOARD): `MESSAGE SWAP2 SWAP1 YES`
    ///   (wuzi takes black) when black stands better by more than [`SWAP2_BALANCED`],
    ///   `… SWAP1 NO` (stays white; the GUI then asks for the fourth move) when white does, else
    ///   a balanced pair as `MESSAGE SWAP2 MOVE4 x y` and `… MOVE5 x y`.
    /// * 3 (wuzi opened, five stones): `MESSAGE SWAP2 SWAP2 YES` to stay black, `… NO` to take
    ///   white (the GUI then asks for the sixth move).
    pub(super) fn swap2_step(&mut self, step: u8, seq: u64, at: Instant) -> io::Result<Flow> {
        let (w, h, stones) = match self.board.as_ref() {
            Some(b) => (b.width(), b.height(), b.stone_count()),
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        if step == 1 {
            self.new_board(w, h);
            let opening = super::swap2_opening(w, h);
            self.place(&opening);
            for (k, c) in opening.iter().enumerate() {
                let text = format!("SWAP2 MOVE{} {} {}", k + 1, c.x, c.y);
                self.send(Reply::Message(text))?;
            }
            self.ponder_ready = true;
            return Ok(Flow::Continue);
        }
        let wanted = if step == 2 { 3 } else { 5 };
        if stones != wanted {
            return self.send(Reply::Error(format!(
                "YXSWAP2STEP{step}: expected {wanted} stones (sent with YXBOARD), found {stones}"
            )));
        }
        // White to move in both steps: the score is white's.
        let score = match self.search(seq, at) {
            Some(r) => r.score,
            None => return self.send(Reply::Error("board is full".into())),
        };
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        if step == 3 {
            let answer = if score > 0 { "NO" } else { "YES" };
            return self.send(Reply::Message(format!("SWAP2 SWAP2 {answer}")));
        }
        if score < -SWAP2_BALANCED {
            return self.send(Reply::Message("SWAP2 SWAP1 YES".into()));
        }
        if score > SWAP2_BALANCED {
            return self.send(Reply::Message("SWAP2 SWAP1 NO".into()));
        }
        let job = Job {
            balance: Some((true, 0)),
            ..Job::default()
        };
        let result = match self.search_with(seq, Instant::now(), &job) {
            Some(r) if r.best.is_some() => r,
            _ => return self.send(Reply::Message("SWAP2 SWAP1 NO".into())),
        };
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        let pair = self.play_pair(&result, seq);
        for (k, &p) in pair.iter().enumerate() {
            let text = format!("SWAP2 MOVE{} {} {}", k + 4, p.x(), p.y());
            self.send(Reply::Message(text))?;
        }
        Ok(Flow::Continue)
    }

    /// `YXSOOSORVSTEP1..6`: Yixin-Board's Soosorv-8 renju opening with wuzi as a player
    /// (steps 2 to 6 bring the stones so far):
    ///
    /// * 1 (wuzi opens): one of the 26 standard openings, the third stone the most balanced of
    ///   the 5×5 centre: `MESSAGE SOOSORV MOVE1 x y` … `MOVE3`.
    /// * 2 (three stones, wuzi white): `MESSAGE SOOSORV SWAP1 YES` to take black, `… NO`.
    /// * 3 (three stones, wuzi white): the most balanced fourth move and the number of fifth
    ///   moves, `MESSAGE SOOSORV MOVE4 x y n` (more fifth moves the more black leads).
    /// * 4 n (four stones, wuzi black): `MESSAGE SOOSORV SWAP2 YES` to take white when the n-th
    ///   best fifth move (white will pick the worst for black) favours white, `… NO`.
    /// * 5 n (four stones, wuzi black): n fifth moves, no two equivalent by symmetry:
    ///   `MESSAGE SOOSORV MOVE5 REFRESH`, `… MOVE5 x y` for each, `… MOVE5 DONE`.
    /// * 6 (four stones and black's proposals, wuzi white): the proposal worst for black,
    ///   `MESSAGE SOOSORV MOVE5C x y`, played on the board.
    pub(super) fn soosorv(
        &mut self,
        step: u8,
        count: i64,
        stones: &[Coord],
        problems: Vec<String>,
        seq: u64,
        at: Instant,
    ) -> io::Result<Flow> {
        if let Some(flow) = self.restart_board(problems)? {
            return Ok(flow);
        }
        let (opening, proposals) = if step == 6 {
            stones.split_at(stones.len().min(4))
        } else {
            (stones, &[][..])
        };
        let placed = self.place(opening);
        let wanted = match step {
            1 => 0,
            2 | 3 => 3,
            _ => 4,
        };
        if placed != wanted {
            return self.send(Reply::Error(format!(
                "YXSOOSORVSTEP{step}: expected {wanted} stones, got {placed}"
            )));
        }
        let count = count.clamp(1, SOOSORV_MAX_FIFTHS) as usize;
        match step {
            1 => self.soosorv_open(seq, at),
            2 => {
                let score = self.search(seq, at).map_or(0, |r| r.score);
                if self.quitting() {
                    return Ok(Flow::Quit);
                }
                let answer = if score < 0 { "YES" } else { "NO" };
                self.send(Reply::Message(format!("SOOSORV SWAP1 {answer}")))
            }
            3 => {
                let job = Job {
                    balance: Some((false, 0)),
                    ..Job::default()
                };
                let result = self.search_with(seq, at, &job);
                if self.quitting() {
                    return Ok(Flow::Quit);
                }
                let (mv, score) = match result {
                    Some(SearchResult {
                        best: Some(p),
                        score,
                        ..
                    }) => (p, score),
                    _ => return self.send(Reply::Error("board is full".into())),
                };
                if let Some(b) = self.board.as_mut() {
                    b.make(mv);
                }
                self.ponder_ready = true;
                // `score` is white's after its fourth move: black leads by its negation.
                let fifths = soosorv_fifths(-score);
                let text = format!("SOOSORV MOVE4 {} {} {fifths}", mv.x(), mv.y());
                self.send(Reply::Message(text))
            }
            4 | 5 => {
                let exclude = self
                    .board
                    .as_ref()
                    .map_or_else(Vec::new, symmetric_duplicates);
                let job = Job {
                    lines: count,
                    exclude: exclude.clone(),
                    ..Job::default()
                };
                let result = self.search_with(seq, at, &job);
                if self.quitting() {
                    return Ok(Flow::Quit);
                }
                let lines = result.map(|r| r.lines).unwrap_or_default();
                if step == 4 {
                    // White picks the fifth move worst for black among the n black offers.
                    let value = lines.iter().map(|l| l.score).min().unwrap_or(0);
                    let answer = if value < 0 { "YES" } else { "NO" };
                    return self.send(Reply::Message(format!("SOOSORV SWAP2 {answer}")));
                }
                let mut fifths: Vec<Pos> = lines.iter().map(|l| l.mv).collect();
                if let Some(board) = self.board.as_mut() {
                    fill_proposals(board, &mut fifths, &exclude, count);
                }
                self.send(Reply::Message("SOOSORV MOVE5 REFRESH".into()))?;
                for p in fifths {
                    let text = format!("SOOSORV MOVE5 {} {}", p.x(), p.y());
                    self.send(Reply::Message(text))?;
                }
                self.send(Reply::Message("SOOSORV MOVE5 DONE".into()))
            }
            _ => self.soosorv_choose(proposals, seq, at),
        }
    }

    /// Soosorv step 1: the centre, a diagonal neighbour, then the most balanced third stone
    /// within two of the centre.
    fn soosorv_open(&mut self, seq: u64, at: Instant) -> io::Result<Flow> {
        let (w, h) = match self.board.as_ref() {
            Some(b) => (b.width() as i32, b.height() as i32),
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        let (cx, cy) = (w / 2, h / 2);
        let first_two = [Coord::new(cx, cy), Coord::new(cx + 1, cy + 1)];
        self.place(&first_two);
        let outside: Vec<Pos> = match self.board.as_ref() {
            Some(b) => b
                .squares()
                .filter(|&p| {
                    let (x, y) = (p.x() as i32, p.y() as i32);
                    (x - cx).abs() > 2 || (y - cy).abs() > 2
                })
                .collect(),
            None => Vec::new(),
        };
        let job = Job {
            balance: Some((false, 0)),
            exclude: outside,
            ..Job::default()
        };
        let third = self.search_with(seq, at, &job).and_then(|r| r.best);
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        let third = match third {
            Some(p) => coord(p),
            None => Coord::new(cx, cy + 2),
        };
        self.place(&[third]);
        self.ponder_ready = true;
        for (k, c) in first_two.iter().chain(Some(&third)).enumerate() {
            let text = format!("SOOSORV MOVE{} {} {}", k + 1, c.x, c.y);
            self.send(Reply::Message(text))?;
        }
        Ok(Flow::Continue)
    }

    /// Soosorv step 6: the proposed fifth move with the lowest score for black, each searched
    /// with its own line (a proposal the search did not reach counts as even).
    fn soosorv_choose(&mut self, proposals: &[Coord], seq: u64, at: Instant) -> io::Result<Flow> {
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return self.send(Reply::Error(NO_GAME.into())),
        };
        let mut candidates: Vec<Pos> = Vec::new();
        for c in proposals {
            if let Some(p) = board.pos(c.x as i64, c.y as i64) {
                if movegen::is_legal(board, p) && !candidates.contains(&p) {
                    candidates.push(p);
                }
            }
        }
        if candidates.is_empty() {
            return self.send(Reply::Error(
                "YXSOOSORVSTEP6: no legal fifth move proposed".into(),
            ));
        }
        let exclude: Vec<Pos> = board
            .squares()
            .filter(|p| !candidates.contains(p))
            .collect();
        let job = Job {
            lines: candidates.len(),
            exclude,
            ..Job::default()
        };
        // The choice must be one of the proposals even where the YXBLOCK squares say no.
        let blocked = std::mem::take(&mut self.blocked);
        let result = self.search_with(seq, at, &job);
        self.blocked = blocked;
        if self.quitting() {
            return Ok(Flow::Quit);
        }
        let lines = result.map(|r| r.lines).unwrap_or_default();
        let score = |p: Pos| lines.iter().find(|l| l.mv == p).map_or(0, |l| l.score);
        let chosen = candidates
            .iter()
            .copied()
            .min_by_key(|&p| score(p))
            .unwrap_or(candidates[0]);
        if let Some(b) = self.board.as_mut() {
            b.make(chosen);
        }
        let text = format!("SOOSORV MOVE5C {} {}", chosen.x(), chosen.y());
        self.send(Reply::Message(text))
    }

    /// Plays these squares in order on the board (black first), skipping those off the board
    /// or taken; returns how many were played.
    fn place(&mut self, stones: &[Coord]) -> usize {
        let board = match self.board.as_mut() {
            Some(b) => b,
            None => return 0,
        };
        let mut placed = 0;
        for c in stones {
            if let Some(p) = board.pos(c.x as i64, c.y as i64) {
                if board.is_empty(p) {
                    board.make(p);
                    placed += 1;
                }
            }
        }
        placed
    }

    /// `YXSHOWHASHUSAGE`: `MESSAGE hash usage N.N% of M KB`.
    pub(super) fn show_hash_usage(&mut self) -> io::Result<Flow> {
        let tt = self.tt();
        let permille = tt.usage_permille();
        let text = format!(
            "hash usage {}.{}% of {} KB",
            permille / 10,
            permille % 10,
            tt.bytes() >> 10
        );
        self.send(Reply::Message(text))
    }

    /// `YXHASHDUMP path`: writes the hash table to the file (`MESSAGE` on success, `ERROR`
    /// otherwise).
    pub(super) fn hash_dump(&mut self, path: &str) -> io::Result<Flow> {
        if path.is_empty() {
            return self.send(Reply::Error("YXHASHDUMP: no file name".into()));
        }
        let tt = self.tt();
        let written = File::create(path).and_then(|file| {
            let mut out = BufWriter::new(file);
            tt.dump(&mut out)?;
            out.flush()
        });
        let reply = match written {
            Ok(()) => Reply::Message(format!(
                "hash table ({} KB) written to {path}",
                tt.bytes() >> 10
            )),
            Err(e) => Reply::Error(format!("YXHASHDUMP: cannot write {path}: {e}")),
        };
        self.send(reply)
    }

    /// `YXHASHLOAD path`: replaces the hash table by the one in the file (`MESSAGE` on
    /// success; `ERROR` for a missing or damaged file, the table staying as it was).
    pub(super) fn hash_load(&mut self, path: &str) -> io::Result<Flow> {
        if path.is_empty() {
            return self.send(Reply::Error("YXHASHLOAD: no file name".into()));
        }
        let loaded = File::open(path).and_then(|file| {
            TranspositionTable::load(&mut BufReader::new(file), MAX_TT_BYTES as usize)
        });
        let reply = match loaded {
            Ok(tt) => {
                let text = format!("hash table ({} KB) read from {path}", tt.bytes() >> 10);
                self.tt = Some(tt);
                Reply::Message(text)
            }
            Err(e) => Reply::Error(format!("YXHASHLOAD: cannot read {path}: {e}")),
        };
        self.send(reply)
    }

    /// `YXSHOWINFO`: the limits Yixin-Board asks for (`MESSAGE INFO MAX_THREAD_NUM n`,
    /// `MESSAGE INFO MAX_HASH_SIZE k` with the table at most 2^k KB), and realtime lines on.
    pub(super) fn show_info(&mut self) -> io::Result<Flow> {
        self.settings.realtime = true;
        let mut log2_kb = 0;
        while (1i64 << (log2_kb + 1)) * 1024 <= MAX_TT_BYTES {
            log2_kb += 1;
        }
        self.send(Reply::Message(format!(
            "wuzi {}",
            env!("CARGO_PKG_VERSION")
        )))?;
        self.send(Reply::Message(format!("INFO MAX_THREAD_NUM {MAX_THREADS}")))?;
        self.send(Reply::Message(format!("INFO MAX_HASH_SIZE {log2_kb}")))
    }

    /// A database command: the queries Yixin-Board sends after every move are answered with
    /// nothing (there are no records); any other gets one `MESSAGE` saying it was ignored.
    pub(super) fn database(&mut self, name: &str) -> io::Result<Flow> {
        if name.starts_with("YXQUERYDATABASE") {
            return Ok(Flow::Continue);
        }
        self.send(Reply::Message(format!(
            "wuzi has no database: {name} ignored"
        )))
    }
}

/// Soosorv-8: how many fifth moves to declare when black leads by `lead` after the fourth.
fn soosorv_fifths(lead: Score) -> i64 {
    (1 + i64::from(lead.max(0) / SOOSORV_SCORE_PER_FIFTH)).clamp(1, SOOSORV_MAX_FIFTHS)
}

/// Tops `fifths` up to `count` distinct legal moves from the move generator's order (then any
/// square near the stones), skipping the excluded (symmetric) squares.
fn fill_proposals(board: &mut Board, fifths: &mut Vec<Pos>, exclude: &[Pos], count: usize) {
    let list = movegen::generate(board, None);
    let near: Vec<Pos> = board.candidates().iter().collect();
    for p in list.moves.into_iter().chain(near) {
        if fifths.len() >= count {
            return;
        }
        if !fifths.contains(&p) && !exclude.contains(&p) && movegen::is_legal(board, p) {
            fifths.push(p);
        }
    }
}

/// A board symmetry: `(x, y)` to its image, `mx`, `my` being the largest column and row.
type Symmetry = fn(usize, usize, usize, usize) -> (usize, usize);

/// The mirror images and the half turn, valid on any board.
const MIRRORS: [Symmetry; 3] = [
    |x, y, mx, _| (mx - x, y),
    |x, y, _, my| (x, my - y),
    |x, y, mx, my| (mx - x, my - y),
];

/// The symmetries that exchange rows and columns, valid on square boards only.
const DIAGONALS: [Symmetry; 4] = [
    |x, y, _, _| (y, x),
    |x, y, mx, _| (mx - y, x),
    |x, y, mx, _| (y, mx - x),
    |x, y, mx, _| (mx - y, mx - x),
];

/// Empty squares that a symmetry of the position (one that maps every stone onto a stone of
/// the same colour) maps onto an earlier empty square: leaving them out keeps one move of
/// each set of equivalent moves.
pub(super) fn symmetric_duplicates(board: &Board) -> Vec<Pos> {
    let (w, h) = (board.width(), board.height());
    let cell_at = |x: usize, y: usize| board.cell(Pos::from_xy(x, y));
    let (mx, my) = (w - 1, h - 1);
    let diagonals: &[Symmetry] = if w == h { &DIAGONALS } else { &[] };
    let fixing: Vec<Symmetry> = MIRRORS
        .iter()
        .chain(diagonals)
        .copied()
        .filter(|map| {
            (0..h).all(|y| {
                (0..w).all(|x| {
                    let (u, v) = map(x, y, mx, my);
                    cell_at(u, v) == cell_at(x, y)
                })
            })
        })
        .collect();
    let mut duplicates = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if cell_at(x, y) != Cell::Empty {
                continue;
            }
            let earlier = fixing.iter().any(|map| {
                let (u, v) = map(x, y, mx, my);
                (v, u) < (y, x)
            });
            if earlier {
                duplicates.push(Pos::from_xy(x, y));
            }
        }
    }
    duplicates
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{PatternTable, Rule};

    #[test]
    fn symmetric_duplicates_keep_one_square_of_each_orbit() {
        let table = Arc::new(PatternTable::new(Rule::Freestyle));
        let mut board = Board::new(15, 15, Arc::clone(&table)).expect("15x15");
        // Empty board: 8 symmetries; the kept squares are one triangle (36 of 225).
        let kept = 225 - symmetric_duplicates(&board).len();
        assert_eq!(kept, 36);
        // One stone in the centre: still 8 symmetries, the centre is taken.
        board.make(Pos::from_xy(7, 7));
        assert_eq!(224 - symmetric_duplicates(&board).len(), 35);
        // A diagonal neighbour leaves the diagonal mirror only.
        board.make(Pos::from_xy(8, 8));
        let dups = symmetric_duplicates(&board);
        assert!(dups.contains(&Pos::from_xy(7, 9)) ^ dups.contains(&Pos::from_xy(9, 7)));
        // An asymmetric position has no duplicates.
        board.make(Pos::from_xy(3, 9));
        assert!(symmetric_duplicates(&board).is_empty());
    }

    #[test]
    fn more_fifth_moves_the_more_black_leads() {
        assert_eq!(soosorv_fifths(-500), 1);
        assert_eq!(soosorv_fifths(0), 1);
        assert_eq!(soosorv_fifths(SOOSORV_SCORE_PER_FIFTH * 2), 3);
        assert_eq!(soosorv_fifths(WIN_THRESHOLD), SOOSORV_MAX_FIFTHS);
    }
}
