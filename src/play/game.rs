//! One game of the play page: seats, moves, undo and redo, clocks, requests between players,
//! chat, and the result. Pure state: no threads and no I/O. Every call takes the current
//! instant, checks who asks (by the secret of a seat) and either changes the game or answers an
//! [`ApiError`] with the game unchanged. The driver ([`super::driver`]) starts the computers'
//! searches when [`Game::computer_to_move`] says one is due and reports back through
//! [`Game::computer_moved`] and [`Game::computer_failed`].
//!
//! Seats: seat 0 is the creator's side, seat 1 the other; `black_seat` says which one has black
//! (a "new game with colours swapped" flips it). A seat is a person at this screen
//! ([`Player::Local`]), a person on another machine ([`Player::Remote`], who gets the seat's
//! secret through the invitation link), wuzi, or a Gomocup brain. Every seat has a secret;
//! the computers' go out only in a game between two computers, to its creator, who hosts
//! it with them (undo, redo, move now, hints; no moves). Whoever knows the game's id may watch.
//!
//! Consent: in a network game (a remote seat and a person on the other seat) a takeback, a
//! draw and a new game are requests that the other person accepts or declines. Against a
//! computer or at one screen they happen at once (wuzi accepts a draw when it thinks it is
//! worse; a Gomocup brain always declines).

use std::{
    collections::VecDeque,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use serde::Serialize;

use super::{
    position::{Played, Position, Refusal, Variant, Xy},
    ApiError,
};
use crate::{
    arena::{
        clock::{Clock, TimeControl},
        engine::Failure,
        game::{Outcome, Reason},
    },
    board::Stone,
};

/// Chat lines kept per game.
pub const CHAT_LINES: usize = 100;
/// Longest chat message, in characters.
pub const CHAT_CHARS: usize = 300;
/// Engine output lines kept per game for the log pane.
pub const LOG_LINES: usize = 200;
/// Grace after a person's time runs out (the page and the network add some latency).
pub const PERSON_GRACE: Duration = Duration::from_millis(500);
/// Grace after a computer's limit (as the arena's default tolerance).
pub const COMPUTER_GRACE: Duration = Duration::from_millis(1000);
/// A remote player who has not asked for the game's state for this long shows as away.
pub const AWAY_AFTER: Duration = Duration::from_secs(40);
/// wuzi accepts a draw offer when its last score for itself is below this.
pub const WUZI_DRAW_SCORE: i32 = -150;

/// Who plays a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person at the screen that created the game.
    Local,
    /// A person on another machine, who joins through the invitation link.
    Remote,
    /// wuzi itself: `level` 1 (weakest) to [`super::driver::MAX_LEVEL`] (full strength),
    /// `time_ms` per move.
    Wuzi {
        /// Strength level.
        level: u8,
        /// Time per move in milliseconds (the clock may allow less).
        time_ms: u64,
    },
    /// A Gomocup brain given on the command line (`index` into the server's engine list).
    Engine {
        /// Index into the engine list.
        index: usize,
        /// Its name.
        name: String,
        /// Its own time per move in milliseconds (the clock may allow less).
        time_ms: u64,
    },
}

impl Player {
    /// True for people.
    pub fn is_person(&self) -> bool {
        matches!(self, Player::Local | Player::Remote)
    }

    /// What the page shows.
    pub fn describe(&self) -> String {
        match self {
            Player::Local => "person".to_string(),
            Player::Remote => "person (network)".to_string(),
            Player::Wuzi { level, .. } => format!("wuzi level {level}"),
            Player::Engine { name, .. } => name.clone(),
        }
    }
}

/// A seat: who plays it and its secret.
#[derive(Clone, Debug)]
pub struct Seat {
    /// Who plays it.
    pub player: Player,
    /// The seat's secret (hex); it authorises moves and requests.
    pub token: String,
    /// When the seat's holder last asked for the game (remote players' presence).
    pub last_seen: Option<Instant>,
}

/// A request that the other player answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// Take back the requester's last move (and the reply to it).
    Takeback,
    /// End the game as a draw.
    Draw,
    /// Start again from the starting position.
    NewGame,
    /// Start again with the colours swapped.
    NewGameSwapped,
}

impl RequestKind {
    /// Parses the API's name.
    pub fn parse(text: &str) -> Option<RequestKind> {
        match text {
            "takeback" => Some(RequestKind::Takeback),
            "draw" => Some(RequestKind::Draw),
            "new_game" => Some(RequestKind::NewGame),
            "new_game_swapped" => Some(RequestKind::NewGameSwapped),
            _ => None,
        }
    }
}

/// What a search reported, for the page's analysis pane.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Thinking {
    /// Who thinks: `black`, `white`, `hint` or `analysis`.
    pub by: String,
    /// Completed depth.
    pub depth: i32,
    /// Score for the side to move in the searched position (engine units), if known.
    pub score: Option<i32>,
    /// The score as people read it: `+1.3`, `win in 7`, `loss in 4`.
    pub score_text: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since the search started.
    pub ms: u64,
    /// The principal variation, first move first.
    pub pv: Vec<Xy>,
    /// True once the search has finished.
    pub done: bool,
    /// Connect Four hints and analysis: the verdict of every column for the side to move
    /// (`wins in 5`, `draw`, `loses in 3`, `unknown`, `full`), left to right.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
}

/// A running search the game may have to stop.
#[derive(Clone, Debug)]
pub struct Task {
    /// The position it searches.
    pub epoch: u64,
    /// Set to stop it (its result then comes at once, or is dropped when stale).
    pub stop: Arc<AtomicBool>,
}

impl Task {
    fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// What the driver needs to make a computer move.
#[derive(Clone, Debug)]
pub struct MoveJob {
    /// The position's epoch; the answer is dropped if the game moved on.
    pub epoch: u64,
    /// The game's new-game counter (an engine is sent `START` again when it changes).
    pub round: u64,
    /// The colour to move.
    pub colour: Stone,
    /// Its seat.
    pub seat: usize,
    /// Who plays it.
    pub player: Player,
    /// The game.
    pub variant: Variant,
    /// Every move so far, in order.
    pub moves: Vec<Xy>,
    /// The move's time limit (after it, `YXSTOP`; a grace later, a loss on time).
    pub limit: Duration,
    /// `INFO time_left` for an engine (2147483647 when unlimited).
    pub time_left_ms: i64,
    /// The clock's settings, for `INFO timeout_*`.
    pub tc: TimeControl,
    /// Stop flag (move now, or the game moved on).
    pub stop: Arc<AtomicBool>,
}

/// A played move and the time it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// Its square.
    pub at: Xy,
    /// Milliseconds its player used (0 for set-up stones).
    pub ms: u64,
}

/// The running turn.
#[derive(Clone, Copy, Debug)]
struct Turn {
    colour: Stone,
    started: Instant,
    /// `None`: no limit (a person without a clock).
    limit: Option<Duration>,
    time_left_ms: i64,
}

/// How a game ended, with the winning line if there is one.
#[derive(Clone, Debug)]
pub struct Ending {
    /// Winner, reason and detail (the arena's type, so the record writers take it as is).
    pub outcome: Outcome,
    /// The winning stones (a five, a four in Connect Four).
    pub line: Vec<Xy>,
}

/// How a game starts.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The game and board.
    pub variant: Variant,
    /// Seat 0 then seat 1.
    pub players: [Player; 2],
    /// Which seat has black.
    pub black_seat: usize,
    /// The clock (all zero: none).
    pub tc: TimeControl,
    /// Stones placed before the game (an opening, or a position set up by hand), black first.
    pub start: Vec<Xy>,
    /// Moves of an opened record after the start: on the board up to `cursor`, the rest to
    /// redo (a record opened for replay has `cursor` 0).
    pub moves: Vec<Xy>,
    /// How many of `moves` are played.
    pub cursor: usize,
    /// Where the game came from (an opening's line, a record's name), for records.
    pub origin: String,
}

/// One game.
pub struct Game {
    id: String,
    variant: Variant,
    origin: String,
    position: Position,
    /// Every move, the set-up stones first; `position` holds the first `cursor`.
    history: Vec<Ply>,
    cursor: usize,
    start_len: usize,
    seats: [Seat; 2],
    black_seat: usize,
    tc: TimeControl,
    clocks: [Clock; 2],
    turn: Option<Turn>,
    ending: Option<Ending>,
    paused: bool,
    request: Option<(RequestKind, Stone)>,
    chat: VecDeque<(String, String)>,
    log: VecDeque<String>,
    thinking: Option<Thinking>,
    /// What the computer that made the last move thought of it.
    last_thinking: Option<Thinking>,
    hint: Option<(u64, Thinking)>,
    analysis: Option<Thinking>,
    analysing: bool,
    forbidden: Vec<Xy>,
    last_score: [Option<i32>; 2],
    move_task: Option<Task>,
    side_tasks: Vec<Task>,
    analysis_task: Option<Task>,
    epoch: u64,
    version: u64,
    round: u64,
    last_activity: Instant,
    finished_rounds: u64,
}

fn other(seat: usize) -> usize {
    1 - seat
}

fn colour_name(c: Stone) -> &'static str {
    match c {
        Stone::Black => "black",
        Stone::White => "white",
    }
}

/// A Connect Four result's reason and text: red (black) and yellow (white), `four` for
/// four in a row (the arena's `five`).
fn connect4_result(outcome: &Outcome, names: [&str; 2]) -> (&'static str, String) {
    let colour = |c: Stone| match c {
        Stone::Black => ("red", names[0]),
        Stone::White => ("yellow", names[1]),
    };
    let reason = outcome.reason;
    let detail = if outcome.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", outcome.detail)
    };
    match outcome.winner {
        None => (reason.text(), format!("draw ({reason}{detail})")),
        Some(w) if reason == Reason::Five => {
            let (c, name) = colour(w);
            ("four", format!("{c} ({name}) wins with four in a row"))
        }
        Some(w) => {
            let (c, name) = colour(w);
            let (lc, lname) = colour(w.opponent());
            (
                reason.text(),
                format!("{c} ({name}) wins: {lc} ({lname}) loses by {reason}{detail}"),
            )
        }
    }
}

/// Compares two secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Game {
    /// A new game; `tokens` are the seats' secrets, `empty` the variant's empty position.
    /// Fails (400) when the start stones or the record's moves are not a legal game.
    pub fn new(
        id: String,
        setup: Setup,
        tokens: [String; 2],
        empty: Position,
        now: Instant,
    ) -> Result<Game, ApiError> {
        let [t0, t1] = tokens;
        let [p0, p1] = setup.players;
        let seats = [
            Seat {
                player: p0,
                token: t0,
                last_seen: None,
            },
            Seat {
                player: p1,
                token: t1,
                last_seen: None,
            },
        ];
        let mut game = Game {
            id,
            variant: setup.variant,
            origin: setup.origin,
            position: empty,
            history: Vec::new(),
            cursor: 0,
            start_len: 0,
            seats,
            black_seat: setup.black_seat.min(1),
            tc: setup.tc,
            clocks: [Clock::new(setup.tc), Clock::new(setup.tc)],
            turn: None,
            ending: None,
            paused: false,
            request: None,
            chat: VecDeque::new(),
            log: VecDeque::new(),
            thinking: None,
            last_thinking: None,
            hint: None,
            analysis: None,
            analysing: false,
            forbidden: Vec::new(),
            last_score: [None, None],
            move_task: None,
            side_tasks: Vec::new(),
            analysis_task: None,
            epoch: 0,
            version: 1,
            round: 0,
            last_activity: now,
            finished_rounds: 0,
        };
        for (i, &(x, y)) in setup.start.iter().enumerate() {
            match game.position.play(x as i64, y as i64, true) {
                Ok((at, Played::Continue)) => game.history.push(Ply { at, ms: 0 }),
                Ok(_) => {
                    return Err(ApiError::bad(format!(
                        "start stone {} ({x},{y}) ends the game",
                        i + 1
                    )))
                }
                Err(r) => {
                    return Err(ApiError::bad(format!(
                        "start stone {} ({x},{y}): {}",
                        i + 1,
                        r.text()
                    )))
                }
            }
        }
        game.start_len = game.history.len();
        game.cursor = game.start_len;
        // A record's moves: check them all by playing them, then go back to the cursor.
        let mut record_end = None;
        for (i, &(x, y)) in setup.moves.iter().enumerate() {
            if record_end.is_some() {
                return Err(ApiError::bad(format!(
                    "move {} comes after the end of the game",
                    i + 1
                )));
            }
            // Judged as a computer's move: a renju-forbidden square in a record (a brain's foul,
            // as this server writes it) ends the game as a foul instead of refusing the record.
            match game.position.play(x as i64, y as i64, false) {
                Ok((at, played)) => {
                    game.history.push(Ply { at, ms: 0 });
                    if played != Played::Continue {
                        record_end = Some(played);
                    }
                }
                Err(r) => {
                    return Err(ApiError::bad(format!(
                        "move {} ({x},{y}): {}",
                        i + 1,
                        r.text()
                    )))
                }
            }
        }
        let target = game.start_len + setup.cursor.min(setup.moves.len());
        let played_to = game.history.len();
        game.cursor = played_to;
        if target < played_to {
            game.rebuild_to(target);
        } else if let Some(played) = record_end {
            let mover = game.colour_after(played_to - 1);
            game.end_by_move(played, mover);
        }
        game.refresh();
        game.begin_turn(now);
        Ok(game)
    }

    /// The game's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The game and board.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Bumped by every change; the page's long poll waits for it to move.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// When someone last did something with this game.
    pub fn last_activity(&self) -> Instant {
        self.last_activity
    }

    /// True once the game has a result.
    pub fn is_over(&self) -> bool {
        self.ending.is_some()
    }

    /// The seats.
    pub fn seats(&self) -> &[Seat; 2] {
        &self.seats
    }

    /// The moves on the board, oldest first.
    pub fn moves(&self) -> Vec<Xy> {
        self.history[..self.cursor].iter().map(|p| p.at).collect()
    }

    /// Moves on the board with their times, and how many of them are set-up stones.
    pub fn plies(&self) -> (&[Ply], usize) {
        (
            &self.history[..self.cursor],
            self.start_len.min(self.cursor),
        )
    }

    /// The result, if the game is over.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Where the game came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Names of black's and white's players.
    pub fn names(&self) -> [String; 2] {
        [
            self.seats[self.seat_of_colour(Stone::Black)]
                .player
                .describe(),
            self.seats[self.seat_of_colour(Stone::White)]
                .player
                .describe(),
        ]
    }

    /// How many times the game was started again (0 for the first game).
    pub fn round(&self) -> u64 {
        self.round
    }

    /// Counts finished games, so that each is written to the records folder once.
    pub fn take_finished_round(&mut self) -> Option<u64> {
        if self.ending.is_some() && self.finished_rounds <= self.round {
            self.finished_rounds = self.round + 1;
            Some(self.round)
        } else {
            None
        }
    }

    /// The seat whose secret is `token`.
    pub fn seat_of(&self, token: &str) -> Option<usize> {
        (0..2).find(|&s| same_secret(&self.seats[s].token, token))
    }

    fn seat_of_colour(&self, colour: Stone) -> usize {
        match colour {
            Stone::Black => self.black_seat,
            Stone::White => other(self.black_seat),
        }
    }

    fn colour_of_seat(&self, seat: usize) -> Stone {
        if seat == self.black_seat {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// Colour of the stone at history index `i` (black first).
    fn colour_after(&self, i: usize) -> Stone {
        if i % 2 == 0 {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// The seat of a person holding `token`; 403 for spectators and unknown secrets, and for
    /// the secrets of computer seats (handed out only as a host's, see [`Game::host`]).
    fn person(&self, token: &str) -> Result<usize, ApiError> {
        match self.seat_of(token) {
            Some(s) if self.seats[s].player.is_person() => Ok(s),
            _ => Err(ApiError::forbidden("only the game's players may do that")),
        }
    }

    /// True when both seats are computers: their secrets then go to the game's creator, who
    /// hosts the game with them (undo, redo, move now, hints, analysis, new rounds), but moves,
    /// resigns, offers draws and chats for neither.
    pub fn computers_only(&self) -> bool {
        self.seats.iter().all(|s| !s.player.is_person())
    }

    /// The seat of a person holding `token`, or of a computer when the game has only computers
    /// (its host); 403 otherwise.
    fn host(&self, token: &str) -> Result<usize, ApiError> {
        match self.seat_of(token) {
            Some(s) if self.seats[s].player.is_person() || self.computers_only() => Ok(s),
            _ => Err(ApiError::forbidden("only the game's players may do that")),
        }
    }

    /// True when undo and redo go one move at a time: two people at one screen, or a host
    /// watching two computers.
    fn one_move_at_a_time(&self) -> bool {
        self.seats.iter().all(|s| s.player.is_person()) || self.computers_only()
    }

    /// True when the two seats are people on different machines.
    fn is_network(&self) -> bool {
        self.seats.iter().all(|s| s.player.is_person())
            && self.seats.iter().any(|s| s.player == Player::Remote)
    }

    /// Hints and analysis help one side; they are kept for games without a remote person.
    fn assistance_allowed(&self) -> bool {
        !self.seats.iter().any(|s| s.player == Player::Remote)
    }

    fn touch(&mut self, now: Instant) {
        self.version += 1;
        self.last_activity = now;
    }

    /// Records that the holder of `token` is looking (presence of remote players).
    pub fn seen(&mut self, token: &str, now: Instant) {
        if let Some(s) = self.seat_of(token) {
            let was_away = self.seats[s]
                .last_seen
                .map_or(true, |t| now.duration_since(t) > AWAY_AFTER);
            self.seats[s].last_seen = Some(now);
            self.last_activity = now;
            if was_away && self.seats[s].player == Player::Remote {
                self.version += 1;
            }
        }
    }

    /// Stops every search of the old position and moves to a new epoch.
    fn new_epoch(&mut self) {
        self.epoch += 1;
        if let Some(t) = self.move_task.take() {
            t.halt();
        }
        for t in self.side_tasks.drain(..) {
            t.halt();
        }
        if let Some(t) = self.analysis_task.take() {
            t.halt();
        }
        self.thinking = None;
        self.last_thinking = None;
        self.hint = None;
        self.analysis = None;
    }

    /// Recomputes what depends on the position (forbidden points).
    fn refresh(&mut self) {
        self.forbidden = if self.ending.is_none() {
            self.position.forbidden_points()
        } else {
            Vec::new()
        };
    }

    /// Starts the turn of the side to move (no turn when the game is over or paused).
    fn begin_turn(&mut self, now: Instant) {
        self.turn = None;
        if self.ending.is_some() || self.paused {
            return;
        }
        let colour = self.position.side_to_move();
        let seat = self.seat_of_colour(colour);
        let clocked = !self.tc.is_unlimited();
        let (mut limit, time_left_ms) = if clocked {
            let l = self.clocks[colour.index()].begin_move();
            (Some(l.limit), l.time_left_ms)
        } else {
            (None, crate::arena::clock::UNLIMITED_MS)
        };
        let own = match &self.seats[seat].player {
            Player::Wuzi { time_ms, .. } | Player::Engine { time_ms, .. } => {
                Some(Duration::from_millis(*time_ms))
            }
            _ => None,
        };
        if let Some(own) = own {
            limit = Some(limit.map_or(own, |l| l.min(own)));
        }
        self.turn = Some(Turn {
            colour,
            started: now,
            limit,
            time_left_ms,
        });
    }

    /// Rebuilds the position with the first `n` moves of the history (n ≥ the set-up).
    fn rebuild_to(&mut self, n: usize) {
        let n = n.clamp(self.start_len, self.history.len());
        while self.cursor > n {
            self.position.undo();
            self.cursor -= 1;
        }
        while self.cursor < n {
            let (x, y) = self.history[self.cursor].at;
            // The history was played before, so it plays again.
            if self.position.play(x as i64, y as i64, false).is_err() {
                self.history.truncate(self.cursor);
                break;
            }
            self.cursor += 1;
        }
    }

    fn finish(&mut self, winner: Option<Stone>, reason: Reason, detail: String, line: Vec<Xy>) {
        self.ending = Some(Ending {
            outcome: Outcome {
                winner,
                reason,
                detail,
            },
            line,
        });
        self.turn = None;
        self.request = None;
        if let Some(t) = self.move_task.take() {
            t.halt();
        }
        self.thinking = None;
        self.forbidden.clear();
    }

    /// Ends the game after a move that did not just continue it.
    fn end_by_move(&mut self, played: Played, mover: Stone) {
        let (x, y) = self.history[self.cursor - 1].at;
        match played {
            Played::Continue => {}
            Played::Won(line) => self.finish(Some(mover), Reason::Five, format!("{x},{y}"), line),
            Played::Foul => self.finish(
                Some(mover.opponent()),
                Reason::Forbidden,
                format!("forbidden move {x},{y}"),
                Vec::new(),
            ),
            Played::Draw => self.finish(None, Reason::FullBoard, String::new(), Vec::new()),
        }
    }

    /// Plays a move for the side to move after the position was checked; charges the clock.
    fn apply(&mut self, x: i64, y: i64, person: bool, now: Instant) -> Result<(), Refusal> {
        let mover = self.position.side_to_move();
        let (at, played) = self.position.play(x, y, person)?;
        let ms = self.charge(mover, now);
        // A move that differs from the next one to redo drops the moves after it.
        if self.history.get(self.cursor).map(|p| p.at) != Some(at) {
            self.history.truncate(self.cursor);
            self.history.push(Ply { at, ms });
        } else {
            self.history[self.cursor].ms = ms;
        }
        self.cursor += 1;
        self.request = None;
        self.new_epoch();
        self.end_by_move(played, mover);
        self.refresh();
        self.begin_turn(now);
        Ok(())
    }

    /// Charges the time since the turn began to `colour`'s clock; returns it in ms.
    fn charge(&mut self, colour: Stone, now: Instant) -> u64 {
        match self.turn {
            Some(t) if t.colour == colour => {
                let used = now.saturating_duration_since(t.started);
                self.clocks[colour.index()].charge(used);
                used.as_millis().min(u64::MAX as u128) as u64
            }
            _ => 0,
        }
    }

    /// A person's move.
    pub fn play(&mut self, token: &str, x: i64, y: i64, now: Instant) -> Result<(), ApiError> {
        let seat = self.person(token)?;
        if self.ending.is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        let colour = self.colour_of_seat(seat);
        let to_move = self.position.side_to_move();
        // At one screen the page holds both secrets and moves with the mover's; a person may
        // move for the side to move only with that side's secret.
        if colour != to_move {
            return Err(ApiError::conflict(format!(
                "it is {}'s turn, not yours",
                colour_name(to_move)
            )));
        }
        if self.paused && !self.analysing {
            self.paused = false;
        }
        self.apply(x, y, true, now)
            .map_err(|r| ApiError::unprocessable(r.text()))?;
        self.touch(now);
        Ok(())
    }

    /// The most recent earlier position in which `colour` (a person) is to move, at least one
    /// move back; `None` when there is none after the set-up.
    fn takeback_target(&self, colour: Stone) -> Option<usize> {
        let mut n = self.cursor;
        while n > self.start_len {
            n -= 1;
            if self.colour_after(n) == colour {
                return Some(n);
            }
        }
        None
    }

    /// Moves the game to `n` moves (undo, redo, go to), clearing a result, and pauses it when a
    /// computer would be to move (the player resumes it).
    fn jump(&mut self, n: usize, now: Instant) {
        self.rebuild_to(n);
        self.ending = None;
        self.request = None;
        self.new_epoch();
        let mover = self.seat_of_colour(self.position.side_to_move());
        self.paused = self.analysing || !self.seats[mover].player.is_person();
        self.refresh();
        self.begin_turn(now);
        self.touch(now);
    }

    /// Checks that the holder of `token` may change the moves without asking (not a network
    /// game); returns their seat.
    fn unilateral(&self, token: &str) -> Result<usize, ApiError> {
        let seat = self.host(token)?;
        if self.is_network() {
            return Err(ApiError::conflict(
                "in a network game the other player must agree: send a takeback request",
            ));
        }
        Ok(seat)
    }

    /// Takes back to the last position in which the requester's side was to move (at one
    /// screen: the last move).
    pub fn undo(&mut self, token: &str, now: Instant) -> Result<(), ApiError> {
        let seat = self.unilateral(token)?;
        let target = if self.one_move_at_a_time() {
            (self.cursor > self.start_len).then(|| self.cursor - 1)
        } else {
            self.takeback_target(self.colour_of_seat(seat))
        };
        match target {
            Some(n) => {
                self.jump(n, now);
                Ok(())
            }
            None => Err(ApiError::conflict("there is no move to take back")),
        }
    }

    /// Plays the next move of the history again (and, against a computer, its reply).
    pub fn redo(&mut self, token: &str, now: Instant) -> Result<(), ApiError> {
        let seat = self.unilateral(token)?;
        if self.cursor >= self.history.len() {
            return Err(ApiError::conflict("there is no move to redo"));
        }
        let colour = self.colour_of_seat(seat);
        let mut n = self.cursor + 1;
        if !self.one_move_at_a_time() {
            // Forward to the next position where this person is to move, if the history has it.
            while n < self.history.len() && self.colour_after(n) != colour {
                n += 1;
            }
        }
        let n = n.min(self.history.len());
        self.jump_with_result(n, now);
        Ok(())
    }

    /// Goes to any position of the history (0 = the set-up).
    pub fn goto(&mut self, token: &str, ply: usize, now: Instant) -> Result<(), ApiError> {
        self.unilateral(token)?;
        let n = self.start_len.saturating_add(ply);
        if n > self.history.len() {
            return Err(ApiError::bad(format!(
                "move {ply} does not exist (the game has {})",
                self.history.len() - self.start_len
            )));
        }
        self.jump_with_result(n, now);
        Ok(())
    }

    /// [`Game::jump`], and if the position reached ends the game (the last move of a finished
    /// game redone), the result again.
    fn jump_with_result(&mut self, n: usize, now: Instant) {
        self.jump(n, now);
        if self.cursor > self.start_len {
            // Replay the last move to learn what it did.
            let last = self.history[self.cursor - 1];
            self.position.undo();
            let mover = self.position.side_to_move();
            // Not as a person's move: a foul in the history (a brain's, or a record's) is
            // replayed as the foul it was, whoever holds the seat now.
            match self
                .position
                .play(last.at.0 as i64, last.at.1 as i64, false)
            {
                Ok((_, Played::Continue)) => {}
                Ok((_, played)) => {
                    self.end_by_move(played, mover);
                    self.paused = false;
                    self.refresh();
                }
                Err(_) => {
                    // Cannot happen: the move was played before. The position lacks it now.
                    self.cursor -= 1;
                }
            }
        }
    }

    /// Lets the computer to move play after an undo or a jump.
    pub fn resume(&mut self, token: &str, now: Instant) -> Result<(), ApiError> {
        self.host(token)?;
        if !self.paused {
            return Err(ApiError::conflict("the game is not paused"));
        }
        if self.analysing {
            return Err(ApiError::conflict("switch the analysis off first"));
        }
        self.paused = false;
        self.begin_turn(now);
        self.touch(now);
        Ok(())
    }

    /// Resignation by the holder of `token` (at one screen: the side to move resigns).
    pub fn resign(&mut self, token: &str, now: Instant) -> Result<(), ApiError> {
        let seat = self.person(token)?;
        if self.ending.is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        let loser = if self.seats[other(seat)].player == Player::Local {
            self.position.side_to_move()
        } else {
            self.colour_of_seat(seat)
        };
        self.finish(
            Some(loser.opponent()),
            Reason::Resign,
            String::new(),
            Vec::new(),
        );
        self.touch(now);
        Ok(())
    }

    /// A takeback, draw or new-game request. Against a computer or at one screen it is
    /// answered at once; in a network game it waits for the other player.
    pub fn request(
        &mut self,
        token: &str,
        kind: RequestKind,
        now: Instant,
    ) -> Result<(), ApiError> {
        let seat = match kind {
            RequestKind::NewGame | RequestKind::NewGameSwapped => self.host(token)?,
            RequestKind::Takeback | RequestKind::Draw => self.person(token)?,
        };
        let colour = self.colour_of_seat(seat);
        match kind {
            RequestKind::Takeback if self.takeback_target(colour).is_none() => {
                return Err(ApiError::conflict("there is no move of yours to take back"))
            }
            RequestKind::Draw if self.ending.is_some() => {
                return Err(ApiError::conflict("the game is over"))
            }
            _ => {}
        }
        let opponent = &self.seats[other(seat)].player;
        if self.is_network() {
            if let Some((_, from)) = self.request {
                if from != colour {
                    return Err(ApiError::conflict(
                        "answer the other player's request first",
                    ));
                }
            }
            self.request = Some((kind, colour));
            self.touch(now);
            return Ok(());
        }
        let accepted = match (kind, opponent) {
            (RequestKind::Draw, Player::Wuzi { .. }) => {
                let them = colour.opponent();
                self.last_score[them.index()].map_or(false, |s| s < WUZI_DRAW_SCORE)
            }
            (RequestKind::Draw, Player::Engine { .. }) => false,
            _ => true,
        };
        if accepted {
            self.grant(kind, colour, now);
        } else {
            self.say(format!(
                "{} declines the draw",
                self.seats[other(seat)].player.describe()
            ));
        }
        self.touch(now);
        Ok(())
    }

    /// The other player's answer to a pending request.
    pub fn respond(&mut self, token: &str, accept: bool, now: Instant) -> Result<(), ApiError> {
        let seat = self.person(token)?;
        let colour = self.colour_of_seat(seat);
        let (kind, from) = match self.request {
            Some(r) => r,
            None => return Err(ApiError::conflict("there is no request to answer")),
        };
        if from == colour {
            return Err(ApiError::conflict("you cannot answer your own request"));
        }
        self.request = None;
        if accept {
            self.grant(kind, from, now);
        } else {
            let what = match kind {
                RequestKind::Takeback => "takeback",
                RequestKind::Draw => "draw offer",
                RequestKind::NewGame | RequestKind::NewGameSwapped => "new game",
            };
            self.say(format!("{} declined the {what}", colour_name(colour)));
        }
        self.touch(now);
        Ok(())
    }

    fn grant(&mut self, kind: RequestKind, from: Stone, now: Instant) {
        match kind {
            RequestKind::Takeback => {
                if let Some(n) = self.takeback_target(from) {
                    self.jump(n, now);
                }
            }
            RequestKind::Draw => {
                if self.ending.is_none() {
                    self.finish(None, Reason::Agreed, String::new(), Vec::new());
                }
            }
            RequestKind::NewGame => self.restart(false, now),
            RequestKind::NewGameSwapped => self.restart(true, now),
        }
    }

    /// Starts again from the set-up, with fresh clocks, the colours swapped if asked.
    fn restart(&mut self, swap: bool, now: Instant) {
        if swap {
            self.black_seat = other(self.black_seat);
        }
        self.rebuild_to(self.start_len);
        self.history.truncate(self.start_len);
        self.ending = None;
        self.request = None;
        self.paused = self.analysing;
        self.clocks = [Clock::new(self.tc), Clock::new(self.tc)];
        self.last_score = [None, None];
        self.round += 1;
        self.new_epoch();
        self.refresh();
        self.begin_turn(now);
    }

    /// A chat line from a player.
    pub fn chat(&mut self, token: &str, text: &str, now: Instant) -> Result<(), ApiError> {
        let seat = self.person(token)?;
        let text: String = text.trim().chars().filter(|c| !c.is_control()).collect();
        if text.is_empty() {
            return Err(ApiError::bad("the message is empty"));
        }
        if text.chars().count() > CHAT_CHARS {
            return Err(ApiError::bad(format!(
                "a message has at most {CHAT_CHARS} characters"
            )));
        }
        let from = colour_name(self.colour_of_seat(seat)).to_string();
        self.chat.push_back((from, text));
        while self.chat.len() > CHAT_LINES {
            self.chat.pop_front();
        }
        self.touch(now);
        Ok(())
    }

    /// Adds a line to the log pane (engine messages, declined requests).
    pub fn say(&mut self, line: String) {
        self.log.push_back(line);
        while self.log.len() > LOG_LINES {
            self.log.pop_front();
        }
        self.version += 1;
    }

    /// "Move now": the computer to move plays its best move so far.
    pub fn move_now(&mut self, token: &str, now: Instant) -> Result<(), ApiError> {
        self.host(token)?;
        match &self.move_task {
            Some(t) => {
                t.halt();
                self.touch(now);
                Ok(())
            }
            None => Err(ApiError::conflict("no computer is thinking")),
        }
    }

    /// Switches the analysis mode on or off (games without a remote person).
    pub fn set_analysis(&mut self, token: &str, on: bool, now: Instant) -> Result<(), ApiError> {
        self.host(token)?;
        if on && !self.assistance_allowed() {
            return Err(ApiError::forbidden("no analysis in a network game"));
        }
        if on == self.analysing {
            return Ok(());
        }
        self.analysing = on;
        self.new_epoch();
        if on {
            self.paused = true;
        } else {
            let mover = self.seat_of_colour(self.position.side_to_move());
            self.paused = !self.seats[mover].player.is_person() && self.ending.is_none();
        }
        self.begin_turn(now);
        self.touch(now);
        Ok(())
    }

    /// Checks that a hint may be asked for now; returns the epoch the hint belongs to.
    pub fn check_hint(&self, token: &str) -> Result<u64, ApiError> {
        self.host(token)?;
        if !self.assistance_allowed() {
            return Err(ApiError::forbidden("no hints in a network game"));
        }
        if self.ending.is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        Ok(self.epoch)
    }

    /// Registers a hint or analysis search so that a change of position stops it.
    pub fn add_side_task(&mut self, task: Task) {
        self.side_tasks.retain(|t| !t.stop.load(Ordering::SeqCst));
        self.side_tasks.push(task);
    }

    /// The analysis search wanted now: a new task for the current position, if analysis is on
    /// and none runs for it.
    pub fn analysis_due(&mut self) -> Option<Task> {
        let running = self
            .analysis_task
            .as_ref()
            .map_or(false, |t| t.epoch == self.epoch);
        if !self.analysing || running || self.ending.is_some() {
            return None;
        }
        let task = Task {
            epoch: self.epoch,
            stop: Arc::new(AtomicBool::new(false)),
        };
        self.analysis_task = Some(task.clone());
        Some(task)
    }

    /// A hint's or the analysis's progress (dropped when the position changed).
    pub fn side_report(&mut self, epoch: u64, hint: bool, report: Thinking) {
        if epoch != self.epoch {
            return;
        }
        if hint {
            self.hint = Some((epoch, report));
        } else {
            self.analysis = Some(report);
        }
        self.version += 1;
    }

    /// The computer move due now, if any (and none is running): the game is on, not paused,
    /// and a computer is to move.
    pub fn computer_to_move(&mut self) -> Option<MoveJob> {
        if self.ending.is_some() || self.paused {
            return None;
        }
        if self
            .move_task
            .as_ref()
            .map_or(false, |t| t.epoch == self.epoch)
        {
            return None;
        }
        let turn = self.turn?;
        let seat = self.seat_of_colour(turn.colour);
        let player = self.seats[seat].player.clone();
        if player.is_person() {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        self.move_task = Some(Task {
            epoch: self.epoch,
            stop: Arc::clone(&stop),
        });
        Some(MoveJob {
            epoch: self.epoch,
            round: self.round,
            colour: turn.colour,
            seat,
            player,
            variant: self.variant,
            moves: self.moves(),
            limit: turn.limit.unwrap_or(Duration::from_secs(5)),
            time_left_ms: turn.time_left_ms,
            tc: self.tc,
            stop,
        })
    }

    /// The thinking computer's progress.
    pub fn computer_report(&mut self, epoch: u64, report: Thinking) {
        if epoch == self.epoch && self.ending.is_none() {
            self.thinking = Some(report);
            self.version += 1;
        }
    }

    /// The computer's move arrived (dropped if the game moved on). A computer's illegal move
    /// loses: off the board, occupied, or (renju) forbidden.
    pub fn computer_moved(&mut self, epoch: u64, x: i64, y: i64, score: Option<i32>, now: Instant) {
        if epoch != self.epoch || self.ending.is_some() {
            return;
        }
        self.move_task = None;
        let mover = self.position.side_to_move();
        self.last_score[mover.index()] = score;
        let thought = self.thinking.take();
        if let Err(r) = self.apply(x, y, false, now) {
            let reason = match r {
                Refusal::Occupied => Reason::Occupied,
                _ => Reason::Illegal,
            };
            self.finish(
                Some(mover.opponent()),
                reason,
                format!("played {x},{y}: {}", r.text()),
                Vec::new(),
            );
        }
        self.last_thinking = thought;
        self.touch(now);
    }

    /// The computer could not move: it crashed, hung, or answered nonsense. It loses.
    pub fn computer_failed(&mut self, epoch: u64, failure: Failure, now: Instant) {
        if epoch != self.epoch || self.ending.is_some() {
            return;
        }
        self.move_task = None;
        let loser = self.position.side_to_move();
        let (reason, detail) = match failure {
            Failure::Crash(d) => (Reason::Crash, d),
            Failure::Timeout(d) => (Reason::TimeForfeit, d),
            Failure::NoAnswer(d) => (Reason::NoAnswer, d),
        };
        self.finish(Some(loser.opponent()), reason, detail, Vec::new());
        self.touch(now);
    }

    /// A computer answered a line that is not a move.
    pub fn computer_garbage(&mut self, epoch: u64, line: &str, now: Instant) {
        if epoch != self.epoch || self.ending.is_some() {
            return;
        }
        self.move_task = None;
        let loser = self.position.side_to_move();
        let shown: String = line.chars().take(80).collect();
        self.finish(
            Some(loser.opponent()),
            Reason::Unparsable,
            format!("answered `{shown}`"),
            Vec::new(),
        );
        self.touch(now);
    }

    /// Flags a fallen clock: the side to move loses on time once its limit and the grace have
    /// passed. Returns true when the game ended.
    pub fn tick(&mut self, now: Instant) -> bool {
        let turn = match (self.turn, &self.ending) {
            (Some(t), None) => t,
            _ => return false,
        };
        let limit = match turn.limit {
            Some(l) => l,
            None => return false,
        };
        let seat = self.seat_of_colour(turn.colour);
        let grace = if self.seats[seat].player.is_person() {
            PERSON_GRACE
        } else {
            COMPUTER_GRACE + Duration::from_millis(500)
        };
        let used = now.saturating_duration_since(turn.started);
        if used <= limit + grace {
            return false;
        }
        self.charge(turn.colour, now);
        self.finish(
            Some(turn.colour.opponent()),
            Reason::TimeForfeit,
            format!(
                "{} ms used, limit {} ms",
                used.as_millis(),
                limit.as_millis()
            ),
            Vec::new(),
        );
        self.touch(now);
        true
    }

    /// The game as `token`'s holder sees it (no secrets in it).
    pub fn view(&self, token: Option<&str>, now: Instant) -> GameView {
        let you = token
            .and_then(|t| self.seat_of(t))
            .filter(|&s| self.seats[s].player.is_person());
        let (width, height) = self.variant.dimensions();
        let to_move = self
            .ending
            .is_none()
            .then(|| colour_name(self.position.side_to_move()));
        let seat_view = |colour: Stone| {
            let seat = self.seat_of_colour(colour);
            let s = &self.seats[seat];
            let kind = match s.player {
                Player::Local => "local",
                Player::Remote => "remote",
                Player::Wuzi { .. } => "wuzi",
                Player::Engine { .. } => "engine",
            };
            let present = match s.player {
                Player::Remote => s
                    .last_seen
                    .map_or(false, |t| now.duration_since(t) <= AWAY_AFTER),
                _ => true,
            };
            let clock = &self.clocks[colour.index()];
            let running = self.turn.filter(|t| t.colour == colour);
            let clock_ms = if self.tc.game_ms > 0 {
                let used = running.map_or(0, |t| {
                    now.saturating_duration_since(t.started).as_millis() as i64
                });
                Some((clock.time_left_ms() - used).max(0))
            } else {
                None
            };
            let turn_left_ms = running.and_then(|t| {
                t.limit.map(|l| {
                    (l.as_millis() as i64
                        - now.saturating_duration_since(t.started).as_millis() as i64)
                        .max(0)
                })
            });
            SeatView {
                kind,
                name: s.player.describe(),
                yours: you == Some(seat),
                present,
                clock_ms,
                turn_left_ms,
                thinking: running.is_some() && !s.player.is_person(),
            }
        };
        let result = self.ending.as_ref().map(|e| {
            let names = self.names();
            let record = crate::arena::game::GameRecord {
                moves: Vec::new(),
                opening_len: 0,
                outcome: e.outcome.clone(),
                times: [Vec::new(), Vec::new()],
                late: [0, 0],
                spawns: [0, 0],
                about: [None, None],
                start_retries: [0, 0],
            };
            let (reason, text) = match self.variant {
                Variant::Gomoku { .. } => (
                    e.outcome.reason.text(),
                    crate::arena::record::result_text(&record, [&names[0], &names[1]]),
                ),
                Variant::ConnectFour { .. } => connect4_result(&e.outcome, [&names[0], &names[1]]),
            };
            ResultView {
                winner: e.outcome.winner.map(colour_name),
                reason,
                text,
                line: e.line.clone(),
            }
        });
        let colour_of = you.map(|s| colour_name(self.colour_of_seat(s)));
        let both = you.is_some() && self.seats.iter().all(|s| s.player == Player::Local);
        GameView {
            id: self.id.clone(),
            version: self.version,
            game: self.variant.game_name(),
            rule: self.variant.rule_name(),
            width,
            height,
            moves: self.history.iter().map(|p| p.at).collect(),
            cursor: self.cursor,
            start: self.start_len,
            to_move,
            black: seat_view(Stone::Black),
            white: seat_view(Stone::White),
            you: if both { Some("both") } else { colour_of },
            host: token.map_or(false, |t| self.host(t).is_ok()),
            network: self.is_network(),
            assistance: self.assistance_allowed(),
            clock: ClockView {
                turn_ms: self.tc.turn_ms,
                game_ms: self.tc.game_ms,
                inc_ms: self.tc.inc_ms,
            },
            paused: self.paused,
            analysing: self.analysing,
            result,
            forbidden: self.forbidden.clone(),
            request: self.request.map(|(kind, from)| RequestView {
                kind,
                from: colour_name(from),
            }),
            thinking: self.thinking.clone(),
            last_thinking: self.last_thinking.clone(),
            hint: self.hint.as_ref().map(|(_, h)| h.clone()),
            analysis: self.analysis.clone(),
            chat: self
                .chat
                .iter()
                .map(|(from, text)| ChatView {
                    from: from.clone(),
                    text: text.clone(),
                })
                .collect(),
            log: self.log.iter().cloned().collect(),
            round: self.round,
        }
    }
}

/// One side as the page sees it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatView {
    /// `local`, `remote`, `wuzi` or `engine`.
    pub kind: &'static str,
    /// What to call it.
    pub name: String,
    /// True when the viewer holds this seat.
    pub yours: bool,
    /// False for a remote player who has not looked for a while.
    pub present: bool,
    /// Game time left (with a game clock).
    pub clock_ms: Option<i64>,
    /// Time left for the running move (with any limit, while it is this side's turn).
    pub turn_left_ms: Option<i64>,
    /// True while this computer thinks.
    pub thinking: bool,
}

/// The clock's settings.
#[derive(Clone, Debug, Serialize)]
pub struct ClockView {
    /// Per move (0: none).
    pub turn_ms: u64,
    /// Per game (0: none).
    pub game_ms: u64,
    /// Increment per move.
    pub inc_ms: u64,
}

/// The result.
#[derive(Clone, Debug, Serialize)]
pub struct ResultView {
    /// `black`, `white`, or none for a draw.
    pub winner: Option<&'static str>,
    /// `five`, `renju foul`, `resignation`, `time forfeit`, `crash`, …
    pub reason: &'static str,
    /// A sentence.
    pub text: String,
    /// The winning stones.
    pub line: Vec<Xy>,
}

/// A pending request.
#[derive(Clone, Debug, Serialize)]
pub struct RequestView {
    /// What is asked.
    pub kind: RequestKind,
    /// Who asks.
    pub from: &'static str,
}

/// A chat line.
#[derive(Clone, Debug, Serialize)]
pub struct ChatView {
    /// `black` or `white`.
    pub from: String,
    /// The message.
    pub text: String,
}

/// The whole game for the page (`GET /api/games/{id}`).
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Changes with every update (long polling).
    pub version: u64,
    /// `gomoku` or `connect4`.
    pub game: &'static str,
    /// The rule's name.
    pub rule: &'static str,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Every move of the history, set-up stones first; the first `cursor` are on the board.
    pub moves: Vec<Xy>,
    /// How many moves are on the board.
    pub cursor: usize,
    /// How many set-up stones start the history.
    pub start: usize,
    /// `black` or `white`; none when the game is over.
    pub to_move: Option<&'static str>,
    /// Black's side.
    pub black: SeatView,
    /// White's side.
    pub white: SeatView,
    /// The viewer's colour (`black`, `white`, `both` at one screen; none for spectators).
    pub you: Option<&'static str>,
    /// True when the viewer may undo, redo, stop a computer, ask for hints and start new
    /// rounds: a player, or the host of a game between two computers.
    pub host: bool,
    /// True for a game between two machines.
    pub network: bool,
    /// True when hints and analysis are allowed.
    pub assistance: bool,
    /// The clock's settings.
    pub clock: ClockView,
    /// True while a computer to move waits to be resumed (after an undo, or in analysis).
    pub paused: bool,
    /// True while analysis mode is on.
    pub analysing: bool,
    /// The result, once the game is over.
    pub result: Option<ResultView>,
    /// Squares the side to move may not play (renju, black).
    pub forbidden: Vec<Xy>,
    /// A request waiting for an answer.
    pub request: Option<RequestView>,
    /// What the computer to move is thinking.
    pub thinking: Option<Thinking>,
    /// What the computer that made the last move thought when it played it.
    pub last_thinking: Option<Thinking>,
    /// The last hint for this position.
    pub hint: Option<Thinking>,
    /// The analysis of this position.
    pub analysis: Option<Thinking>,
    /// Chat.
    pub chat: Vec<ChatView>,
    /// Engine messages and notices.
    pub log: Vec<String>,
    /// How many times the game was started again.
    pub round: u64,
}
