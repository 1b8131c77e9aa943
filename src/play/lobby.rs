//! The games the server holds: creation with fresh ids and secrets, lookup, the clock tick that
//! flags fallen flags, and the expiry of idle games.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rand::Rng;

use super::{
    driver::{lock, Context, GameCell},
    game::{Game, Setup},
    position::{Position, Variant},
    ApiError,
};

/// A game nobody has touched for this long is dropped.
pub const IDLE_EXPIRY: Duration = Duration::from_secs(2 * 60 * 60);
/// A finished game nobody has touched for this long is dropped.
pub const FINISHED_EXPIRY: Duration = Duration::from_secs(30 * 60);

/// A fresh secret: 128 random bits in hex (the thread generator is a CSPRNG seeded by the
/// operating system).
pub fn secret() -> String {
    format!("{:032x}", rand::thread_rng().gen::<u128>())
}

/// The games.
pub struct Lobby {
    games: Mutex<HashMap<String, Arc<GameCell>>>,
    context: Arc<Context>,
    max_games: usize,
}

impl Lobby {
    /// An empty lobby holding at most `max_games` games.
    pub fn new(context: Arc<Context>, max_games: usize) -> Lobby {
        Lobby {
            games: Mutex::new(HashMap::new()),
            context,
            max_games: max_games.max(1),
        }
    }

    /// What the games share.
    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    /// Creates a game; returns it and the seats' secrets.
    pub fn create(&self, setup: Setup) -> Result<(Arc<GameCell>, [String; 2]), ApiError> {
        let table = match setup.variant {
            Variant::Gomoku { rule, .. } => Some(self.context.table(rule)),
            Variant::ConnectFour { .. } => None,
        };
        let empty = Position::new(setup.variant, table)
            .ok_or_else(|| ApiError::bad("this board size is not supported"))?;
        let now = Instant::now();
        self.expire(now);
        if lock(&self.games).len() >= self.max_games {
            return Err(ApiError::unavailable(
                "the server holds as many games as it may; try again later",
            ));
        }
        let id = secret();
        let tokens = [secret(), secret()];
        let game = Game::new(id.clone(), setup, tokens.clone(), empty, now)?;
        let cell = GameCell::new(game, Arc::clone(&self.context));
        lock(&self.games).insert(id, Arc::clone(&cell));
        Ok((cell, tokens))
    }

    /// The game with this id.
    pub fn get(&self, id: &str) -> Result<Arc<GameCell>, ApiError> {
        lock(&self.games)
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::not_found("no such game (it may have expired)"))
    }

    /// Number of games held.
    pub fn len(&self) -> usize {
        lock(&self.games).len()
    }

    /// True when no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every game's clock check.
    pub fn tick(&self) {
        let cells: Vec<Arc<GameCell>> = lock(&self.games).values().cloned().collect();
        for cell in cells {
            cell.update(|g, now| g.tick(now));
        }
    }

    /// Drops idle games (their brains are ended when the last reference goes).
    pub fn expire(&self, now: Instant) {
        lock(&self.games).retain(|_, cell| {
            cell.read(|g| {
                let idle = now.saturating_duration_since(g.last_activity());
                let limit = if g.is_over() {
                    FINISHED_EXPIRY
                } else {
                    IDLE_EXPIRY
                };
                idle < limit
            })
        });
    }
}
