//! Runs the games: each game lives in a [`GameCell`] (the game behind a mutex, a condition
//! variable that wakes the page's long polls, the game's hash table and its brain workers).
//! Every change goes through [`GameCell::update`], which then starts whatever the game needs
//! next: the computer to move, the analysis search. Searches run on threads of their own and
//! report back through `update`; a report for a position the game has left is dropped by the
//! game itself (its epoch moved on).

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{mpsc, Arc, Condvar, Mutex, MutexGuard},
    thread,
    time::{Duration, Instant},
};

use super::{
    computer::{self, EngineJob, ANALYSIS_LIMIT},
    game::{Game, Player, Task, Thinking},
    records,
};
use crate::{
    arena::engine::EngineSpec,
    rules::{PatternTable, Rule},
    search::{self, Limits},
    tt::TranspositionTable,
};

/// What every game shares: pattern tables, the search threads, the brains, the settings.
pub struct Context {
    tables: Mutex<HashMap<Rule, Arc<PatternTable>>>,
    pool: rayon::ThreadPool,
    /// Brains named on the command line.
    pub engines: Vec<EngineSpec>,
    /// Size of each game's hash table.
    pub hash_bytes: usize,
    /// Where finished games are written, if anywhere.
    pub records: Option<PathBuf>,
}

impl Context {
    /// A context searching on `threads` threads.
    pub fn new(
        threads: usize,
        engines: Vec<EngineSpec>,
        hash_bytes: usize,
        records: Option<PathBuf>,
    ) -> anyhow::Result<Context> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("play-search-{i}"))
            .build()?;
        Ok(Context {
            tables: Mutex::new(HashMap::new()),
            pool,
            engines,
            hash_bytes,
            records,
        })
    }

    /// The pattern table of `rule`, built once.
    pub fn table(&self, rule: Rule) -> Arc<PatternTable> {
        let mut tables = lock(&self.tables);
        Arc::clone(
            tables
                .entry(rule)
                .or_insert_with(|| Arc::new(PatternTable::new(rule))),
        )
    }

    /// The search threads.
    pub fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }
}

/// Locks a mutex, taking over the data of one whose holder panicked (the game state is kept
/// consistent by its methods, which do not panic on input).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A game and what runs it.
pub struct GameCell {
    game: Mutex<Game>,
    changed: Condvar,
    context: Arc<Context>,
    tt: Mutex<Option<Arc<TranspositionTable>>>,
    /// The brain worker of each seat that is a brain.
    workers: Mutex<[Option<mpsc::Sender<EngineJob>>; 2]>,
}

impl GameCell {
    /// Wraps a new game; brain seats get their workers.
    pub fn new(game: Game, context: Arc<Context>) -> Arc<GameCell> {
        let mut workers: [Option<mpsc::Sender<EngineJob>>; 2] = [None, None];
        for (seat, worker) in workers.iter_mut().enumerate() {
            if let Player::Engine { index, .. } = game.seats()[seat].player {
                if let Some(spec) = context.engines.get(index) {
                    let tag = format!("{}-{}", &game.id()[..8.min(game.id().len())], seat);
                    *worker = Some(computer::engine_worker(spec.clone(), tag));
                }
            }
        }
        let cell = Arc::new(GameCell {
            game: Mutex::new(game),
            changed: Condvar::new(),
            context,
            tt: Mutex::new(None),
            workers: Mutex::new(workers),
        });
        cell.drive();
        cell
    }

    /// Reads the game.
    pub fn read<R>(&self, f: impl FnOnce(&Game) -> R) -> R {
        f(&lock(&self.game))
    }

    /// Changes the game, wakes the long polls, and starts what the game needs next.
    pub fn update<R>(self: &Arc<Self>, f: impl FnOnce(&mut Game, Instant) -> R) -> R {
        let out = {
            let mut game = lock(&self.game);
            let before = game.version();
            let out = f(&mut game, Instant::now());
            if game.version() != before {
                self.changed.notify_all();
            }
            out
        };
        self.drive();
        out
    }

    /// Waits until the game's version differs from `seen` or `timeout` passes; returns the
    /// game's lock.
    pub fn wait_change(&self, seen: u64, timeout: Duration) -> MutexGuard<'_, Game> {
        let deadline = Instant::now() + timeout;
        let mut game = lock(&self.game);
        while game.version() == seen {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            game = match self.changed.wait_timeout(game, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        game
    }

    /// The game's hash table, made on first use.
    pub fn table(&self, context: &Context) -> Arc<TranspositionTable> {
        let mut tt = lock(&self.tt);
        Arc::clone(tt.get_or_insert_with(|| Arc::new(TranspositionTable::new(context.hash_bytes))))
    }

    /// Starts the computer move and the analysis the game wants, and writes a finished game to
    /// the records folder.
    fn drive(self: &Arc<Self>) {
        let (job, analysis, finished) = {
            let mut game = lock(&self.game);
            let job = game.computer_to_move();
            let analysis = game
                .analysis_due()
                .map(|t| (t, game.variant(), game.moves()));
            let finished = match (&self.context.records, game.take_finished_round()) {
                (Some(dir), Some(round)) => {
                    Some((dir.clone(), round, records::finished_files(&game, round)))
                }
                _ => None,
            };
            (job, analysis, finished)
        };
        if let Some((dir, _, files)) = finished {
            records::write_files(&dir, &files);
        }
        if let Some(job) = job {
            match job.player {
                Player::Wuzi { .. } => {
                    let cell = Arc::clone(self);
                    let context = Arc::clone(&self.context);
                    let _ = thread::Builder::new()
                        .name("play-wuzi".into())
                        .spawn(move || computer::wuzi_move(&context, &cell, &job));
                }
                Player::Engine { .. } => {
                    let sent = lock(&self.workers)[job.seat.min(1)].as_ref().map(|tx| {
                        tx.send(EngineJob {
                            job: job.clone(),
                            cell: Arc::clone(self),
                        })
                        .is_ok()
                    });
                    if sent != Some(true) {
                        let failure = crate::arena::engine::Failure::Crash(
                            "the brain's worker is gone".to_string(),
                        );
                        let epoch = job.epoch;
                        // Reported on another thread: `update` would call `drive` again here.
                        let cell = Arc::clone(self);
                        let _ = thread::Builder::new().spawn(move || {
                            cell.update(|g, now| g.computer_failed(epoch, failure, now))
                        });
                    }
                }
                Player::Local | Player::Remote => {}
            }
        }
        if let Some((task, variant, moves)) = analysis {
            let cell = Arc::clone(self);
            let context = Arc::clone(&self.context);
            let _ = thread::Builder::new()
                .name("play-analysis".into())
                .spawn(move || {
                    let limits = Limits {
                        max_depth: search::MAX_DEPTH,
                        max_nodes: u64::MAX,
                        soft: None,
                        hard: Some(Instant::now() + ANALYSIS_LIMIT),
                    };
                    background_search(&context, &cell, task, variant, &moves, limits, false);
                });
        }
    }

    /// Starts a hint search of `ms` milliseconds for the position of `epoch`.
    pub fn start_hint(self: &Arc<Self>, epoch: u64, ms: u64) {
        let (variant, moves, task) = {
            let mut game = lock(&self.game);
            let task = Task {
                epoch,
                stop: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            };
            game.add_side_task(task.clone());
            (game.variant(), game.moves(), task)
        };
        let cell = Arc::clone(self);
        let context = Arc::clone(&self.context);
        let _ = thread::Builder::new()
            .name("play-hint".into())
            .spawn(move || {
                let start = Instant::now();
                let limits = Limits {
                    max_depth: search::MAX_DEPTH,
                    max_nodes: u64::MAX,
                    soft: None,
                    hard: Some(start + Duration::from_millis(ms)),
                };
                background_search(&context, &cell, task, variant, &moves, limits, true);
            });
    }
}

/// Longest Connect Four analysis: the solver either finishes well within it or the position
/// is too early for it on this board.
pub const CONNECT4_ANALYSIS_LIMIT: Duration = Duration::from_secs(60);

/// A hint or analysis search: wuzi at full strength, reporting every iteration (Connect
/// Four: the solver's verdict of every column, in rounds).
fn background_search(
    context: &Context,
    cell: &Arc<GameCell>,
    task: Task,
    variant: super::position::Variant,
    moves: &[super::position::Xy],
    limits: Limits,
    hint: bool,
) {
    let by = if hint { "hint" } else { "analysis" };
    let epoch = task.epoch;
    let report = |t: Thinking| cell.update(|g, _| g.side_report(epoch, hint, t));
    if let super::position::Variant::ConnectFour { .. } = variant {
        let limit = match limits.hard {
            Some(hard) => hard.saturating_duration_since(Instant::now()),
            None => CONNECT4_ANALYSIS_LIMIT,
        }
        .min(CONNECT4_ANALYSIS_LIMIT);
        computer::connect4_hints(variant, moves, by, limit, &task.stop, &mut |t| report(t));
        return;
    }
    let mut board = match computer::gomoku_board(context, variant, moves) {
        Some(b) => b,
        None => return,
    };
    let tt = cell.table(context);
    let flag = Arc::clone(&task.stop);
    let stop = move || flag.load(std::sync::atomic::Ordering::Relaxed);
    let r = computer::full_search(context, &tt, &mut board, limits, &stop, &mut |r| {
        report(computer::thinking_of(by, r, false));
    });
    report(computer::thinking_of(by, &r, true));
}
