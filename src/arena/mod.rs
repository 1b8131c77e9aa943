//! Engine-vs-engine arena: `pbrain-wuzi match` plays Gomocup brains against each other.
//!
//! The match is a list of games built up front ([`schedule`]): every pair of engines (or the
//! first engine against each other one with `--gauntlet`) plays the openings in order, each
//! opening twice with the colours swapped (a *game pair*, the unit of the pentanomial
//! statistics). `--concurrency N` worker threads take games from the list; each worker starts
//! its own engine processes once and reuses them (`START` before every game), and restarts an
//! engine that crashed or was killed. The main thread receives finished games, prints a
//! progress line, appends the game record, updates the statistics and, with `--sprt`, stops the
//! match at a verdict (games already running are finished and counted).
//!
//! One match can be spread over many runs: `--shard K/N` keeps the K-th of N parts of the list
//! (every N-th opening slot with all its games, so game pairs stay together and every shard
//! meets every pair of engines), `--results` writes each game as a JSON line, and
//! `pbrain-wuzi match merge` turns any set of such files into the table one run would print.
//! Running the shards is left to a runner people already have (GNU parallel, Slurm,
//! Kubernetes; `scripts/cluster/`).
//!
//! Modules: [`cli`] (options and `--help`), [`engine`] (processes and I/O with deadlines),
//! [`game`] (one game), [`referee`] (rules, through [`crate::rules`]), [`clock`] (time
//! control), [`openings`], [`stats`] (Elo, LOS, SPRT), [`summary`] (totals and tables),
//! [`record`] (SGF/PSQ), [`results`] (the JSON lines of `--results`), [`merge`] (`match
//! merge`).

pub mod cli;
pub mod clock;
pub mod engine;
pub mod game;
pub mod merge;
pub mod openings;
pub mod record;
pub mod referee;
pub mod results;
pub mod stats;
pub mod summary;

use std::{
    collections::VecDeque,
    io::{self, Write},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::Context;
use log::warn;

use self::{
    cli::{Config, Order, Parsed},
    engine::{Engine, IoLog},
    game::{GameRecord, GameSettings, Player},
    openings::{Opening, SplitMix},
    record::{GameInfo, RecordWriter},
    results::{GameLine, Line, MatchLine, ResultsWriter},
    stats::{Sprt, SprtVerdict, SPRT_MIN_GAMES},
    summary::Summary,
};
use crate::rules::PatternTable;

/// Entry point of `pbrain-wuzi match` (and of `pbrain-wuzi match merge`).
pub fn main(args: &[String]) -> anyhow::Result<()> {
    if args.first().map(String::as_str) == Some("merge") {
        return merge::main(&args[1..]);
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match cli::parse(args).map_err(|e| anyhow::anyhow!("match: {e}"))? {
        Parsed::Help => {
            out.write_all(cli::HELP.as_bytes())?;
            Ok(())
        }
        Parsed::Run(config) => {
            run(&config, &mut out)?;
            Ok(())
        }
    }
}

/// One scheduled game.
#[derive(Clone, Debug)]
pub struct Job {
    /// Game number, 1-based, in schedule order.
    pub number: usize,
    /// Index into the pair list.
    pub pair: usize,
    /// Engine indices: black, white.
    pub players: [usize; 2],
    /// The opening.
    pub opening: Arc<Opening>,
    /// Game-pair id (the two games of an opening with colours swapped share it).
    pub unit: usize,
    /// Opening slot: the index in the opening sequence (all pairs play slot k with the same
    /// opening); `--shard K/N` keeps the slots with `slot % N == K - 1`.
    pub slot: usize,
}

/// The pairs of engines that meet: every pair, or engine 0 against each other one.
pub fn pairs(engines: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..engines).map(|k| (0, k)).collect()
    } else {
        let mut out = Vec::new();
        for i in 0..engines {
            for j in i + 1..engines {
                out.push((i, j));
            }
        }
        out
    }
}

/// Builds the list of games. `openings` must not be empty (use one empty opening for none).
pub fn schedule(config: &Config, openings: &[Arc<Opening>]) -> Vec<Job> {
    let pair_list = pairs(config.engines.len(), config.gauntlet);
    let per_opening = if config.repeat { 2 } else { 1 };
    let per_round = openings.len() * per_opening;
    let total = match (config.games, config.rounds) {
        (Some(g), Some(r)) => (g as usize).min(r as usize * per_round),
        (Some(g), None) => g as usize,
        (None, Some(r)) => r as usize * per_round,
        (None, None) => per_round,
    };
    // The opening sequence, the same for every pair: one (shuffled) pass per round.
    let mut rng = SplitMix::new(config.seed);
    let units_needed = (total + per_opening - 1) / per_opening;
    let mut sequence: Vec<usize> = Vec::with_capacity(units_needed);
    while sequence.len() < units_needed {
        let mut round: Vec<usize> = (0..openings.len()).collect();
        if config.order == Order::Random {
            rng.shuffle(&mut round);
        }
        sequence.extend(round);
    }
    sequence.truncate(units_needed);
    // Per pair, its units (one or two games); then interleave pairs unit by unit.
    let mut jobs = Vec::new();
    let mut unit_id = 0;
    for (k, &opening) in sequence.iter().enumerate() {
        for (p, &(a, b)) in pair_list.iter().enumerate() {
            let done = k * per_opening;
            let games_here = per_opening.min(total - done);
            for g in 0..games_here {
                // With repeat: first engine black, then white. Without: alternate per opening.
                let first_black = if config.repeat { g == 0 } else { k % 2 == 0 };
                let players = if first_black { [a, b] } else { [b, a] };
                jobs.push(Job {
                    number: 0,
                    pair: p,
                    players,
                    opening: openings[opening].clone(),
                    unit: unit_id,
                    slot: k,
                });
            }
            unit_id += 1;
        }
    }
    for (i, job) in jobs.iter_mut().enumerate() {
        job.number = i + 1;
    }
    jobs
}

/// Loads the openings of the configuration (one empty opening without a file).
pub fn load_openings(config: &Config, out: &mut dyn Write) -> anyhow::Result<Vec<Arc<Opening>>> {
    let path = match &config.openings {
        None => {
            return Ok(vec![Arc::new(Opening {
                stones: Vec::new(),
                line: 0,
                symmetry: 0,
            })])
        }
        Some(p) => p,
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings `{}`", path.display()))?;
    let (mut list, warnings) = openings::parse_file(&text, config.openings_format, config.size);
    // An opening that already ends the game is no opening.
    let table = Arc::new(PatternTable::new(config.rule));
    let mut skipped = warnings;
    list.retain(|o| {
        let mut r = match referee::Referee::new(config.size, table.clone(), None) {
            Some(r) => r,
            None => return false,
        };
        let ok = o
            .stones
            .iter()
            .all(|&(x, y)| r.play(x as i64, y as i64) == Ok(referee::Verdict::Continue));
        if !ok {
            skipped.push(format!(
                "line {}: the opening ends the game; skipped",
                o.line
            ));
        }
        ok
    });
    for w in &skipped {
        writeln!(out, "warning: {}: {w}", path.display())?;
    }
    if config.symmetry {
        list = openings::expand_symmetries(&list, config.size);
    }
    if list.is_empty() {
        anyhow::bail!(
            "no usable opening in `{}` for a {}×{} board",
            path.display(),
            config.size,
            config.size
        );
    }
    Ok(list.into_iter().map(Arc::new).collect())
}

/// The games of `jobs` (a whole schedule) that shard `k` of `n` plays.
pub fn shard(jobs: Vec<Job>, (k, n): (usize, usize)) -> Vec<Job> {
    jobs.into_iter().filter(|j| j.slot % n == k - 1).collect()
}

/// `SPRT: H0 elo … bounds …, pentanomial model`: the test a match (or a merge) runs.
pub fn sprt_header(sprt: &Sprt, repeat: bool) -> String {
    let (lo, hi) = sprt.bounds();
    format!(
        "SPRT: H0 elo {} vs H1 elo {}, alpha {}, beta {}, bounds [{lo:.2}, {hi:.2}], {} model",
        sprt.elo0,
        sprt.elo1,
        sprt.alpha,
        sprt.beta,
        if repeat { "pentanomial" } else { "trinomial" }
    )
}

/// The SPRT's state after `games` games with log-likelihood ratio `llr`: no verdict before
/// [`SPRT_MIN_GAMES`].
pub fn sprt_verdict(sprt: &Sprt, llr: f64, games: usize) -> SprtVerdict {
    // The normal approximation means nothing on a handful of games: a first pair lost twice
    // gives a huge |LLR|.
    if games >= SPRT_MIN_GAMES {
        sprt.verdict(llr)
    } else {
        SprtVerdict::Continue
    }
}

/// The words of a verdict (`H1 accepted (elo >= 10)`).
pub fn verdict_text(sprt: &Sprt, verdict: SprtVerdict) -> String {
    match verdict {
        SprtVerdict::AcceptH1 => format!("H1 accepted (elo >= {})", sprt.elo1),
        SprtVerdict::AcceptH0 => format!("H0 accepted (elo <= {})", sprt.elo0),
        SprtVerdict::Continue => "no verdict yet".to_string(),
    }
}

/// The opening as the progress lines and records name it.
pub fn opening_label(opening: &Opening) -> String {
    if opening.line == 0 {
        "empty board".to_string()
    } else if opening.symmetry == 0 {
        format!("line {}", opening.line)
    } else {
        format!("line {} sym {}", opening.line, opening.symmetry)
    }
}

/// Shared state of the worker threads.
struct Shared {
    jobs: Mutex<VecDeque<Job>>,
    stop: AtomicBool,
}

impl Shared {
    fn next(&self) -> Option<Job> {
        if self.stop.load(Ordering::SeqCst) {
            return None;
        }
        self.jobs.lock().ok()?.pop_front()
    }
}

fn worker(
    id: usize,
    config: &Config,
    settings: &GameSettings,
    shared: &Shared,
    results: mpsc::Sender<(Job, GameRecord)>,
) {
    let mut engines: Vec<Option<Engine>> = config.engines.iter().map(|_| None).collect();
    while let Some(job) = shared.next() {
        let [b, w] = job.players;
        let mut black_engine = engines[b].take();
        let mut white_engine = engines[w].take();
        let mut black = Player {
            spec: &config.engines[b],
            engine: &mut black_engine,
            tag: format!("w{id}:{}", config.engines[b].name),
            spawns: 0,
            start_retries: 0,
        };
        let mut white = Player {
            spec: &config.engines[w],
            engine: &mut white_engine,
            tag: format!("w{id}:{}", config.engines[w].name),
            spawns: 0,
            start_retries: 0,
        };
        let record = game::play(settings, &job.opening, [&mut black, &mut white]);
        engines[b] = black_engine;
        engines[w] = white_engine;
        if results.send((job, record)).is_err() {
            break;
        }
    }
    for engine in engines.iter_mut().flatten() {
        engine.quit();
    }
}

/// Runs the match described by `config`, printing progress and the final table to `out`.
pub fn run(config: &Config, out: &mut dyn Write) -> anyhow::Result<Summary> {
    let openings = load_openings(config, out)?;
    let whole = schedule(config, &openings);
    let schedule_total = whole.len();
    let match_id = results::match_id(config, &whole);
    let jobs = match config.shard {
        Some(part) => shard(whole, part),
        None => whole,
    };
    let pair_list = pairs(config.engines.len(), config.gauntlet);
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut summary = Summary::new(&names, &pair_list);
    let log = match &config.log {
        Some(p) => {
            Some(IoLog::create(p).with_context(|| format!("cannot create log `{}`", p.display()))?)
        }
        None => None,
    };
    let mut records = match &config.records {
        Some((p, format)) => Some(
            RecordWriter::create(p, *format)
                .with_context(|| format!("cannot create `{}`", p.display()))?,
        ),
        None => None,
    };
    let settings = GameSettings {
        size: config.size,
        rule: config.rule,
        table: Arc::new(PatternTable::new(config.rule)),
        draw_after: config.draw_after,
        tolerance: Duration::from_millis(config.tolerance_ms),
        init_time: Duration::from_millis(config.init_ms),
        send_board: config.send_board,
        log,
    };
    let total = jobs.len();
    let tcs: Vec<String> = {
        let mut v: Vec<String> = config.engines.iter().map(|e| e.tc.to_string()).collect();
        v.dedup();
        v
    };
    let mut results_file = match &config.results {
        Some(p) => {
            let mut w = ResultsWriter::append(p)
                .with_context(|| format!("cannot open results `{}`", p.display()))?;
            let line = Line::Match(MatchLine {
                id: match_id.clone(),
                format: results::FORMAT,
                writer: format!("wuzi {}", env!("CARGO_PKG_VERSION")),
                engines: names.clone(),
                pairs: pair_list.iter().map(|&(a, b)| [a, b]).collect(),
                games: schedule_total,
                shard: config.shard.map(|(k, n)| [k, n]),
                shard_games: total,
                rule: config.rule.info_bits(),
                size: config.size,
                openings: openings.len(),
                repeat: config.repeat,
                order: match config.order {
                    Order::Sequential => "sequential".to_string(),
                    Order::Random => "random".to_string(),
                },
                seed: config.seed,
                time_controls: config.engines.iter().map(|e| e.tc.to_string()).collect(),
                date: record::today(),
            });
            w.write(&line)
                .with_context(|| format!("cannot write results `{}`", p.display()))?;
            Some(w)
        }
        None => None,
    };
    let games_text = match config.shard {
        Some((k, n)) => format!("{total} of {schedule_total} games (shard {k}/{n})"),
        None => format!("{total} games"),
    };
    writeln!(
        out,
        "Match: {}, {} {}×{}, {} opening(s), {}, tolerance {} ms, concurrency {}, seed {}",
        games_text,
        config.rule.name(),
        config.size,
        config.size,
        openings.len(),
        tcs.join(" / "),
        config.tolerance_ms,
        config.concurrency,
        config.seed
    )?;
    if let Some(p) = &config.results {
        writeln!(out, "Results: {} (match {match_id})", p.display())?;
    }
    if let Some(sprt) = &config.sprt {
        writeln!(out, "{}", sprt_header(sprt, config.repeat))?;
    }
    out.flush()?;

    let shared = Shared {
        jobs: Mutex::new(jobs.into_iter().collect()),
        stop: AtomicBool::new(false),
    };
    let started = Instant::now();
    let (tx, rx) = mpsc::channel::<(Job, GameRecord)>();
    let workers = config.concurrency.min(total.max(1));
    let mut stopped_by_sprt = None;
    let outcome: anyhow::Result<()> = thread::scope(|scope| {
        for id in 0..workers {
            let tx = tx.clone();
            let (shared, settings) = (&shared, &settings);
            let spawned = thread::Builder::new()
                .name(format!("arena-worker-{id}"))
                .spawn_scoped(scope, move || worker(id + 1, config, settings, shared, tx));
            if let Err(e) = spawned {
                shared.stop.store(true, Ordering::SeqCst);
                return Err(anyhow::anyhow!("cannot start a worker thread: {e}"));
            }
        }
        drop(tx);
        let mut done = 0;
        for (job, record) in rx {
            done += 1;
            summary.add(job.pair, job.players, job.number, job.unit, &record);
            let names2 = [
                config.engines[job.players[0]].name.as_str(),
                config.engines[job.players[1]].name.as_str(),
            ];
            let mut line = format!(
                "[{done}/{total}] game {} {} - {} ({}): {} {}, {} moves | {}",
                job.number,
                names2[0],
                names2[1],
                opening_label(&job.opening),
                results::score_text(record.outcome.winner),
                record.outcome.reason,
                record.moves.len(),
                summary.pair_line(job.pair)
            );
            if record.outcome.reason.is_forfeit() {
                line.push_str(&format!(" | {}", record.outcome.detail));
            }
            if let Some(sprt) = &config.sprt {
                let llr = summary.llr(sprt, config.repeat);
                let verdict = sprt_verdict(sprt, llr, done);
                let (lo, hi) = sprt.bounds();
                line.push_str(&format!(" | LLR {llr:.2} [{lo:.2}, {hi:.2}]"));
                summary.sprt = Some((llr, verdict));
                if verdict != SprtVerdict::Continue && stopped_by_sprt.is_none() {
                    stopped_by_sprt = Some((verdict, done, llr));
                    shared.stop.store(true, Ordering::SeqCst);
                }
            }
            if let Some(w) = records.as_mut() {
                let info = GameInfo {
                    number: job.number,
                    names: names2,
                    size: config.size,
                    rule: config.rule,
                    opening: opening_label(&job.opening),
                    date: record::today(),
                };
                if let Err(e) = w.write(&record, &info) {
                    warn!("cannot write the game record: {e}");
                }
            }
            if let Some(w) = results_file.as_mut() {
                let game = GameLine::new(
                    &match_id,
                    config.shard,
                    &job,
                    &record,
                    &names,
                    opening_label(&job.opening),
                );
                if let Err(e) = w.write(&Line::Game(game)) {
                    // A game that cannot be written is lost to `match merge`: stop here.
                    shared.stop.store(true, Ordering::SeqCst);
                    return Err(anyhow::Error::new(e).context("cannot write the results line"));
                }
            }
            if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
                // Output closed (e.g. piped into `head`): stop handing out games.
                shared.stop.store(true, Ordering::SeqCst);
                return Err(e.into());
            }
        }
        Ok(())
    });
    outcome?;

    writeln!(
        out,
        "\nFinished {} games in {:.1} s ({} {}×{}).",
        summary.games,
        started.elapsed().as_secs_f64(),
        config.rule.name(),
        config.size,
        config.size
    )?;
    if let (Some(sprt), Some((llr, verdict))) = (&config.sprt, summary.sprt) {
        let (lo, hi) = sprt.bounds();
        let text = verdict_text(sprt, stopped_by_sprt.map(|s| s.0).unwrap_or(verdict));
        match stopped_by_sprt {
            // Games still running at the verdict are finished and counted: the LLR then moves
            // on, so the LLR that gave the verdict is the one printed with it.
            Some((_, n, at)) => writeln!(
                out,
                "SPRT: LLR {at:.2} [{lo:.2}, {hi:.2}]: {text} after {n} games \
                 (LLR {llr:.2} over all {} games)",
                summary.games
            )?,
            None => writeln!(out, "SPRT: LLR {llr:.2} [{lo:.2}, {hi:.2}]: {text}")?,
        }
    }
    writeln!(out, "{}", summary.table())?;
    out.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests;
