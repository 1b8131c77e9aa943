//! How the computers of the play page choose their moves: wuzi in this process (at full strength
//! or at a weaker level), and Gomocup brains as child processes through the arena's engine
//! layer. Both report their progress as [`Thinking`] while they search.
//!
//! **wuzi's levels.** Level [`MAX_LEVEL`] is the engine as it plays in tournaments, with the
//! time per move and the clock. Levels 1 to 4 cap the nodes and add chance: each of the best
//! few candidate moves is searched with a share of the cap, and the move is drawn with weights
//! `exp((score − best) / temperature)`, so a much worse move is rarely chosen, a slightly worse
//! one often, and games differ. A forced win found within the cap is always played.
//!
//! **Brains.** Each brain seat has a worker thread that owns the process: `START` when the game
//! (or its round) is new, the rule and time `INFO`s, and before every move `INFO time_left` and
//! the whole position (`BEGIN` or `BOARD`), so undo and redo need no protocol of their own. The
//! brain's `MESSAGE` lines go to the game's log and, where they carry depth, score, nodes or a
//! principal variation, to its analysis. A crash, a hang (killed at the limit plus the
//! tolerance) or a garbage answer ends the game with that reason; the process is killed and
//! reaped, and started again for the next game.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc,
    },
    thread,
    time::{Duration, Instant},
};

use rand::Rng;

use super::{
    driver::{Context, GameCell},
    game::{MoveJob, Player, Thinking},
    position::{Variant, Xy},
};
use crate::{
    arena::{
        engine::{Engine, EngineSpec, Failure},
        referee::parse_move,
    },
    board::{Board, Pos, Stone},
    connect4,
    movegen::{self, MoveKind},
    search::{self, Limits, SearchResult, Searcher, WIN_THRESHOLD},
    tt::TranspositionTable,
};

/// The strongest level (the engine as it plays in tournaments).
pub const MAX_LEVEL: u8 = 5;
/// Node caps of levels 1 to 4.
pub const LEVEL_NODES: [u64; 4] = [1_500, 10_000, 60_000, 300_000];
/// Sampling temperatures of levels 1 to 4, in evaluation units.
pub const LEVEL_TEMPERATURE: [f64; 4] = [600.0, 300.0, 150.0, 60.0];
/// Candidate moves a weak level considers.
pub const LEVEL_CANDIDATES: usize = 8;
/// Evaluation units shown as 1.0 on the page.
pub const SCORE_UNIT: f64 = 1000.0;
/// Longest analysis search.
pub const ANALYSIS_LIMIT: Duration = Duration::from_secs(600);
/// Time for a brain's ABOUT and START answers.
pub const ENGINE_INIT: Duration = Duration::from_secs(5);
/// Grace after a brain's limit before it is killed (as the arena's default tolerance).
pub const ENGINE_TOLERANCE: Duration = Duration::from_millis(1000);

/// A score as people read it: `+1.3`, `win in 7`, `loss in 4` (plies).
pub fn score_text(score: i32) -> String {
    if score.abs() >= WIN_THRESHOLD {
        search::describe_score(score)
    } else {
        format!("{:+.1}", f64::from(score) / SCORE_UNIT)
    }
}

/// The Gomoku board of `variant` after `moves`; `None` for another game or an illegal list.
pub fn gomoku_board(ctx: &Context, variant: Variant, moves: &[Xy]) -> Option<Board> {
    let (rule, size) = match variant {
        Variant::Gomoku { rule, size } => (rule, size),
        Variant::ConnectFour { .. } => return None,
    };
    let mut board = Board::new(size, size, ctx.table(rule))?;
    for &(x, y) in moves {
        let p = board.pos(x as i64, y as i64)?;
        if !board.is_empty(p) {
            return None;
        }
        board.make(p);
    }
    Some(board)
}

fn xy(p: Pos) -> Xy {
    (p.x(), p.y())
}

/// A search result as the page shows it.
pub fn thinking_of(by: &str, r: &SearchResult, done: bool) -> Thinking {
    let ms = r.elapsed.as_millis() as u64;
    Thinking {
        by: by.to_string(),
        depth: r.depth,
        score: Some(r.score),
        score_text: score_text(r.score),
        nodes: r.nodes,
        nps: (r.nodes * 1000).checked_div(ms).unwrap_or(0),
        ms,
        pv: r.pv.iter().map(|&p| xy(p)).collect(),
        done,
        columns: Vec::new(),
    }
}

/// Runs wuzi's full search on `board` within `limits`, reporting each iteration.
pub fn full_search(
    ctx: &Context,
    tt: &TranspositionTable,
    board: &mut Board,
    limits: Limits,
    stop: &(dyn Fn() -> bool + Sync),
    report: &mut dyn FnMut(&SearchResult),
) -> SearchResult {
    let mut searcher = Searcher::new(tt, limits, stop).with_pool(ctx.pool());
    searcher.think(board, report)
}

/// The limits of a wuzi move: its share of the clock, as the brain computes it.
fn move_limits(job: &MoveJob, start: Instant) -> Limits {
    let game_clock = job.tc.game_ms > 0;
    let tc = crate::time::TimeControl {
        timeout_turn: job.limit.as_millis().min(i64::MAX as u128) as i64,
        timeout_match: job.tc.game_ms as i64,
        time_left: game_clock.then_some(job.time_left_ms),
        increment: job.tc.inc_ms as i64,
    };
    let budget = tc.budget(i64::from(crate::params::Params::default().moves_to_go));
    Limits {
        max_depth: search::MAX_DEPTH,
        max_nodes: u64::MAX,
        soft: budget.soft.map(|s| start + s),
        hard: Some(start + budget.hard),
    }
}

/// A weak level's move: the best few candidates searched with a share of the node cap, one
/// drawn by weight. Returns the move, its score and what to show.
fn weak_move(
    tt: &TranspositionTable,
    board: &mut Board,
    level: u8,
    limits: Limits,
    stop: &(dyn Fn() -> bool + Sync),
    report: &mut dyn FnMut(Thinking),
) -> Option<(Pos, i32)> {
    let index = usize::from(level.clamp(1, MAX_LEVEL - 1)) - 1;
    let cap = LEVEL_NODES[index];
    let list = movegen::generate(board, None);
    let candidates: Vec<Pos> = list.moves.iter().copied().take(LEVEL_CANDIDATES).collect();
    if list.kind == MoveKind::Win || candidates.len() <= 1 {
        let first = candidates.first().copied();
        return first.map(|p| {
            (
                p,
                if list.kind == MoveKind::Win {
                    search::win_in(1)
                } else {
                    0
                },
            )
        });
    }
    let share = Limits {
        max_nodes: (cap / candidates.len() as u64).max(100),
        ..limits
    };
    let start = Instant::now();
    let mut scored: Vec<(Pos, i32, SearchResult)> = Vec::new();
    let mut nodes = 0;
    for &c in &candidates {
        if stop() && !scored.is_empty() {
            break;
        }
        board.make(c);
        let mut searcher = Searcher::new(tt, share, stop);
        let r = searcher.think(board, &mut |_| {});
        board.undo();
        nodes += r.nodes;
        let score = -r.score;
        scored.push((c, score, r));
        let best = scored
            .iter()
            .max_by_key(|s| s.1)
            .map(|s| (s.0, s.1, s.2.pv.clone()));
        if let Some((p, s, pv)) = best {
            let ms = start.elapsed().as_millis() as u64;
            let mut line = vec![xy(p)];
            line.extend(pv.iter().map(|&q| xy(q)));
            report(Thinking {
                by: String::new(),
                depth: 0,
                score: Some(s),
                score_text: score_text(s),
                nodes,
                nps: (nodes * 1000).checked_div(ms).unwrap_or(0),
                ms,
                pv: line,
                done: false,
                columns: Vec::new(),
            });
        }
    }
    let best = scored.iter().map(|s| s.1).max()?;
    if best >= WIN_THRESHOLD {
        return scored.iter().find(|s| s.1 == best).map(|s| (s.0, s.1));
    }
    let temperature = LEVEL_TEMPERATURE[index];
    let weights: Vec<f64> = scored
        .iter()
        .map(|s| (f64::from(s.1 - best) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut draw = rand::thread_rng().gen::<f64>() * total;
    for (s, w) in scored.iter().zip(&weights) {
        if draw < *w {
            return Some((s.0, s.1));
        }
        draw -= w;
    }
    scored.last().map(|s| (s.0, s.1))
}

/// Plays wuzi's move for `job` on this thread and reports it to the game.
pub fn wuzi_move(ctx: &Context, cell: &Arc<GameCell>, job: &MoveJob) {
    let start = Instant::now();
    let level = match job.player {
        Player::Wuzi { level, .. } => level,
        _ => return,
    };
    if let Variant::ConnectFour { .. } = job.variant {
        connect4_move(cell, job, level);
        return;
    }
    let mut board = match gomoku_board(ctx, job.variant, &job.moves) {
        Some(b) => b,
        None => {
            let failure = Failure::Crash("wuzi could not set up the position".to_string());
            cell.update(|g, now| g.computer_failed(job.epoch, failure, now));
            return;
        }
    };
    let tt = cell.table(ctx);
    let limits = move_limits(job, start);
    let stop_flag = Arc::clone(&job.stop);
    let stop = move || stop_flag.load(Ordering::Relaxed);
    let by = match job.colour {
        Stone::Black => "black",
        Stone::White => "white",
    };
    let epoch = job.epoch;
    let chosen = if level >= MAX_LEVEL {
        let r = full_search(ctx, &tt, &mut board, limits, &stop, &mut |r| {
            let t = thinking_of(by, r, false);
            cell.update(|g, _| g.computer_report(epoch, t));
        });
        let t = thinking_of(by, &r, true);
        cell.update(|g, _| g.computer_report(epoch, t));
        r.best.map(|p| (p, r.score))
    } else {
        weak_move(&tt, &mut board, level, limits, &stop, &mut |mut t| {
            t.by = by.to_string();
            cell.update(|g, _| g.computer_report(epoch, t));
        })
    };
    match chosen {
        Some((p, score)) => cell
            .update(|g, now| g.computer_moved(epoch, p.x() as i64, p.y() as i64, Some(score), now)),
        None => {
            let failure = Failure::Crash("wuzi found no move".to_string());
            cell.update(|g, now| g.computer_failed(epoch, failure, now));
        }
    }
}

/// The Connect Four position of `variant` after `moves` (the squares the discs took; their
/// columns are the moves); `None` for Gomoku or an illegal list.
pub fn connect4_position(variant: Variant, moves: &[Xy]) -> Option<connect4::Position> {
    let (width, height) = match variant {
        Variant::ConnectFour { width, height } => (width, height),
        Variant::Gomoku { .. } => return None,
    };
    let mut pos = connect4::Position::new(width, height)?;
    for &(x, _) in moves {
        pos.play(x).ok()?;
    }
    Some(pos)
}

/// The square a disc dropped into column `col` of `pos` takes (`y = 0` at the top).
fn landing(pos: &connect4::Position, col: usize) -> Xy {
    (
        col,
        pos.height() - 1 - pos.column_height(col).min(pos.height() - 1),
    )
}

/// A Connect Four verdict as a score for the page's draw offers: a win, a draw, a loss.
fn verdict_score(v: connect4::Verdict) -> Option<i32> {
    match v {
        connect4::Verdict::Win(_) => Some(1000),
        connect4::Verdict::Draw => Some(0),
        connect4::Verdict::Loss(_) => Some(-1000),
        connect4::Verdict::Unknown | connect4::Verdict::Full => None,
    }
}

/// How good a verdict is for the side to move: quicker wins first, longer losses before
/// shorter ones; a full column last.
fn verdict_rank(v: connect4::Verdict) -> (u8, i64) {
    match v {
        connect4::Verdict::Win(Some(n)) => (6, -i64::from(n)),
        connect4::Verdict::Win(None) => (5, 0),
        connect4::Verdict::Draw => (4, 0),
        connect4::Verdict::Unknown => (3, 0),
        connect4::Verdict::Loss(None) => (2, 0),
        connect4::Verdict::Loss(Some(n)) => (1, i64::from(n)),
        connect4::Verdict::Full => (0, 0),
    }
}

/// wuzi's Connect Four move for `job`: the book, the solver, or the heuristic search within
/// the move's time (a tenth kept for the answer to arrive), at `level`.
fn connect4_move(cell: &Arc<GameCell>, job: &MoveJob, level: u8) {
    let epoch = job.epoch;
    let start = Instant::now();
    let pos = match connect4_position(job.variant, &job.moves) {
        Some(p) => p,
        None => {
            let failure = Failure::Crash("wuzi could not set up the position".to_string());
            cell.update(|g, now| g.computer_failed(epoch, failure, now));
            return;
        }
    };
    let time = (job.limit * 9 / 10).max(Duration::from_millis(10));
    let level = level.clamp(connect4::MIN_LEVEL, connect4::MAX_LEVEL);
    let choice = connect4::Computer::new().best_move(&pos, level, time, &job.stop);
    match choice {
        Some(c) => {
            let how = match c.source {
                connect4::Source::Book => "from the book".to_string(),
                connect4::Source::Solved | connect4::Source::SolvedWeak => "solved".to_string(),
                connect4::Source::Searched(d) => format!("searched {d} plies"),
            };
            let depth = match c.source {
                connect4::Source::Searched(d) => d as i32,
                _ => 0,
            };
            let t = Thinking {
                by: colour_name(job.colour).to_string(),
                depth,
                score: verdict_score(c.verdict),
                score_text: match c.verdict {
                    connect4::Verdict::Unknown => format!("{how}; not solved in the time"),
                    v => format!("{v} ({how})"),
                },
                ms: start.elapsed().as_millis() as u64,
                pv: vec![landing(&pos, c.column)],
                done: true,
                ..Thinking::default()
            };
            let score = verdict_score(c.verdict);
            cell.update(|g, now| {
                g.computer_report(epoch, t);
                g.computer_moved(epoch, c.column as i64, 0, score, now)
            });
        }
        None => {
            let failure = Failure::Crash("wuzi found no move".to_string());
            cell.update(|g, now| g.computer_failed(epoch, failure, now));
        }
    }
}

/// A Connect Four hint or analysis: the verdict of every column, solved in rounds of growing
/// time (each reported) until every column is known, `limit` has passed, or `stop` is set.
pub fn connect4_hints(
    variant: Variant,
    moves: &[Xy],
    by: &str,
    limit: Duration,
    stop: &AtomicBool,
    report: &mut dyn FnMut(Thinking),
) {
    let pos = match connect4_position(variant, moves) {
        Some(p) => p,
        None => return,
    };
    let start = Instant::now();
    let mut computer = connect4::Computer::new();
    let mut round = Duration::from_millis(250).min(limit);
    loop {
        let verdicts = computer.analyse(&pos, round, stop);
        let centre = pos.width() as i64 - 1;
        let mut best = (0..verdicts.len()).max_by_key(|&c| {
            // Equal verdicts: the column nearer the centre, then the left one.
            let off_centre = (2 * c as i64 - centre).abs();
            (verdict_rank(verdicts[c]), -off_centre, std::cmp::Reverse(c))
        });
        let unknown = verdicts.contains(&connect4::Verdict::Unknown);
        if best.map_or(false, |c| verdicts[c] == connect4::Verdict::Unknown) {
            // No column known to win or draw: the heuristic search's choice among the
            // unknown ones, as wuzi would play it.
            let searched = connect4::Computer::new()
                .best_move(&pos, connect4::MAX_LEVEL, round / 4, stop)
                .map(|choice| choice.column)
                .filter(|&c| verdicts.get(c) == Some(&connect4::Verdict::Unknown));
            best = searched.or(best);
        }
        let elapsed = start.elapsed();
        let done = !unknown || elapsed >= limit || stop.load(Ordering::Relaxed);
        report(Thinking {
            by: by.to_string(),
            score: best.and_then(|c| verdict_score(verdicts[c])),
            score_text: best.map_or(String::new(), |c| verdicts[c].to_string()),
            ms: elapsed.as_millis() as u64,
            pv: best.map(|c| landing(&pos, c)).into_iter().collect(),
            done,
            columns: verdicts.iter().map(|v| v.to_string()).collect(),
            ..Thinking::default()
        });
        if done {
            return;
        }
        round = (round * 4)
            .min(limit.saturating_sub(elapsed))
            .max(Duration::from_millis(10));
    }
}

fn colour_name(c: Stone) -> &'static str {
    match c {
        Stone::Black => "black",
        Stone::White => "white",
    }
}

/// A move request for a brain's worker.
pub struct EngineJob {
    /// What to play.
    pub job: MoveJob,
    /// Where to report.
    pub cell: Arc<GameCell>,
}

/// Starts the worker thread of a brain seat; it ends (and ends the brain) when the sender is
/// dropped with its game.
pub fn engine_worker(spec: EngineSpec, tag: String) -> mpsc::Sender<EngineJob> {
    let (tx, rx) = mpsc::channel::<EngineJob>();
    let _ = thread::Builder::new()
        .name(format!("play-{tag}"))
        .spawn(move || {
            let mut worker = Worker {
                spec,
                tag,
                engine: None,
                started: None,
            };
            for job in rx {
                worker.handle(job);
            }
            if let Some(mut e) = worker.engine.take() {
                e.quit();
            }
        });
    tx
}

struct Worker {
    spec: EngineSpec,
    tag: String,
    engine: Option<Engine>,
    /// The (round, size, rule) the running brain was last started for.
    started: Option<(u64, usize, i64)>,
}

impl Worker {
    fn handle(&mut self, EngineJob { job, cell }: EngineJob) {
        let epoch = job.epoch;
        let (rule, size) = match job.variant {
            Variant::Gomoku { rule, size } => (rule, size),
            Variant::ConnectFour { .. } => {
                let failure = Failure::Crash("a Gomocup brain does not play Connect Four".into());
                cell.update(|g, now| g.computer_failed(epoch, failure, now));
                return;
            }
        };
        let name = self.spec.name.clone();
        let outcome = self
            .ensure(job.round, size, rule.info_bits(), &job)
            .and_then(|engine| {
                let mut lines = vec![
                    format!("INFO timeout_turn {}", job.limit.as_millis().max(1)),
                    format!("INFO time_left {}", job.time_left_ms),
                ];
                if job.moves.is_empty() {
                    lines.push("BEGIN".to_string());
                } else {
                    lines.push("BOARD".to_string());
                    for (i, &(x, y)) in job.moves.iter().enumerate() {
                        let colour = if i % 2 == 0 {
                            Stone::Black
                        } else {
                            Stone::White
                        };
                        let field = if colour == job.colour { 1 } else { 2 };
                        lines.push(format!("{x},{y},{field}"));
                    }
                    lines.push("DONE".to_string());
                }
                let by = match job.colour {
                    Stone::Black => "black",
                    Stone::White => "white",
                };
                let started = Instant::now();
                let stop = Arc::clone(&job.stop);
                engine.request_move_watched(
                    &lines,
                    job.limit,
                    ENGINE_TOLERANCE,
                    &mut |line| {
                        let report = parse_message(line, by, started.elapsed());
                        let shown: String = line.chars().take(300).collect();
                        let text = format!("{name}: {shown}");
                        cell.update(|g, _| {
                            g.say(text);
                            if let Some(t) = report {
                                g.computer_report(epoch, t);
                            }
                        });
                    },
                    &|| stop.load(Ordering::Relaxed),
                )
            });
        match outcome {
            Ok(answer) => match parse_move(&answer.line) {
                Some((x, y)) => cell.update(|g, now| g.computer_moved(epoch, x, y, None, now)),
                None => {
                    self.end_engine();
                    cell.update(|g, now| g.computer_garbage(epoch, &answer.line, now))
                }
            },
            Err(failure) => {
                self.end_engine();
                cell.update(|g, now| g.computer_failed(epoch, failure, now));
            }
        }
    }

    /// Kills and reaps the brain after a failure; the next move starts it again.
    fn end_engine(&mut self) {
        if let Some(mut e) = self.engine.take() {
            e.kill();
        }
        self.started = None;
    }

    /// The running brain, started (and sent `START`) for this game if needed.
    fn ensure(
        &mut self,
        round: u64,
        size: usize,
        rule: i64,
        job: &MoveJob,
    ) -> Result<&mut Engine, Failure> {
        if !self.engine.as_mut().map_or(false, Engine::is_alive) {
            self.engine = None;
            self.started = None;
            let mut engine = Engine::spawn(&self.spec, &self.tag, None).map_err(|e| {
                Failure::Crash(format!("cannot start `{}`: {e}", self.spec.program))
            })?;
            engine.about(Instant::now() + ENGINE_INIT)?;
            self.engine = Some(engine);
        }
        let engine = self
            .engine
            .as_mut()
            .ok_or_else(|| Failure::Crash("not running".to_string()))?;
        let key = (round, size, rule);
        if self.started != Some(key) || job.moves.is_empty() {
            engine.start(size, Instant::now() + ENGINE_INIT)?;
            engine.send(&format!("INFO rule {rule}"));
            engine.send(&format!("INFO timeout_match {}", job.tc.game_ms));
            engine.send("INFO game_type 1");
            for (key, value) in &self.spec.infos {
                engine.send(&format!("INFO {key} {value}"));
            }
            self.started = Some(key);
        }
        Ok(engine)
    }
}

/// Reads depth, score, nodes and a principal variation out of a brain's `MESSAGE` line, where
/// it has them (wuzi: `MESSAGE depth 11 ev -228 nodes 284150 nps 757733 time 375ms pv 6,7 8,5`;
/// other brains write similar words). `None` when the line has no depth or score.
pub fn parse_message(line: &str, by: &str, elapsed: Duration) -> Option<Thinking> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if !words
        .first()
        .map_or(false, |w| w.eq_ignore_ascii_case("MESSAGE"))
    {
        return None;
    }
    let number = |w: &str| -> Option<i64> {
        let w = w.trim_end_matches([',', ';', '|']);
        let digits: String = w
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
            .collect();
        digits.parse().ok()
    };
    let mut t = Thinking {
        by: by.to_string(),
        ms: elapsed.as_millis() as u64,
        ..Thinking::default()
    };
    let mut seen = false;
    let mut i = 1;
    while i < words.len() {
        let key = words[i].trim_end_matches([':', '=']).to_ascii_lowercase();
        let next = words.get(i + 1).copied().unwrap_or("");
        match key.as_str() {
            "depth" => {
                if let Some(d) = number(next) {
                    t.depth = d.clamp(0, 999) as i32;
                    seen = true;
                }
            }
            "ev" | "eval" | "score" | "val" => {
                if let Some(s) = number(next) {
                    let s = s.clamp(-(search::WIN as i64), search::WIN as i64) as i32;
                    t.score = Some(s);
                    t.score_text = score_text(s);
                    seen = true;
                }
            }
            "nodes" | "node" => t.nodes = number(next).unwrap_or(0).max(0) as u64,
            "nps" | "speed" => t.nps = number(next).unwrap_or(0).max(0) as u64,
            "pv" | "bestline" => {
                t.pv = words[i + 1..]
                    .iter()
                    .map_while(|w| {
                        parse_move(w).and_then(|(x, y)| {
                            (x >= 0 && y >= 0).then_some((x as usize, y as usize))
                        })
                    })
                    .collect();
                break;
            }
            _ => {}
        }
        i += 1;
    }
    seen.then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_read_as_people_expect() {
        assert_eq!(score_text(1250), "+1.2");
        assert_eq!(score_text(-228), "-0.2");
        assert_eq!(score_text(0), "+0.0");
        assert_eq!(score_text(search::win_in(7)), "win in 7");
        assert_eq!(score_text(search::loss_in(4)), "loss in 4");
    }

    #[test]
    fn message_lines_give_depth_score_nodes_and_pv() {
        let t = parse_message(
            "MESSAGE depth 11 ev -228 nodes 284150 nps 757733 time 375ms pv 6,7 8,5 6,9",
            "white",
            Duration::from_millis(10),
        )
        .unwrap();
        assert_eq!(t.depth, 11);
        assert_eq!(t.score, Some(-228));
        assert_eq!(t.nodes, 284_150);
        assert_eq!(t.nps, 757_733);
        assert_eq!(t.pv, vec![(6, 7), (8, 5), (6, 9)]);
        assert_eq!(t.by, "white");
        assert!(parse_message("MESSAGE hello there", "black", Duration::ZERO).is_none());
        assert!(parse_message("DEBUG depth 3 ev 5", "black", Duration::ZERO).is_none());
        let other =
            parse_message("MESSAGE Depth: 12 Eval: 35 pv 7,7", "black", Duration::ZERO).unwrap();
        assert_eq!((other.depth, other.score), (12, Some(35)));
    }
}
