//! Fits the evaluation weights to game results (logistic regression, "Texel" tuning).
//!
//! The evaluation is linear in a few counts of the position, taken over the empty cells: for
//! the side to move and for the opponent, how many (cell, direction) pairs have each line
//! [`Pattern`], and how many cells have each [`Threat`] class. This tool reads game records
//! (SGF as `pbrain-wuzi match --sgf` writes them), takes every position from ply 8 to four plies
//! before the end, and fits the 2 × (12 + 9) weights so that `sigmoid(eval / SCALE)` predicts
//! the result for the side to move, by full-batch gradient descent from the current weights.
//! Every fifth game is held out to check that the fit generalises. It prints the log-loss of
//! the current and the fitted weights and the fitted tables.
//!
//! How the weights in `src/rules.rs` were made (2026-11-30):
//! ```text
//! pbrain-wuzi match --engine pbrain-wuzi name=a --engine pbrain-wuzi name=b --turn 60 \
//!     --openings Piskvork_openings.txt --symmetry --order random --seed 21 --games 400 \
//!     --sgf /tmp/tune15.sgf
//! pbrain-wuzi match ... --size 20 --openings GomocupJudge_openings_20.txt --seed 22 \
//!     --games 300 --sgf /tmp/tune20.sgf
//! WUZI_TUNE_RECORDS=/tmp/tune15.sgf,/tmp/tune20.sgf \
//!     cargo test --release --test tune -- --ignored --nocapture
//! ```

use std::sync::Arc;

use wuzi::{
    board::{Board, Pos, Stone},
    rules::{Pattern, PatternTable, Rule, Threat},
};

const FEATURES: usize = 2 * (Pattern::COUNT + Threat::COUNT);
/// Evaluation units per logit: eval / SCALE is the log-odds of winning.
const SCALE: f64 = 200.0;

/// One game from a record file: rule, size, moves, and black's result (1, ½, 0).
struct Game {
    rule: Rule,
    size: usize,
    moves: Vec<(usize, usize)>,
    black_score: f64,
}

fn parse_records(text: &str) -> Vec<Game> {
    let mut games = Vec::new();
    for chunk in text.split("(;").skip(1) {
        let prop = |name: &str| -> Option<&str> {
            let start = chunk.find(&format!("{name}["))? + name.len() + 1;
            let end = chunk[start..].find(']')? + start;
            Some(&chunk[start..end])
        };
        let size = match prop("SZ").and_then(|s| s.parse().ok()) {
            Some(s) => s,
            None => continue,
        };
        let rule = prop("RU")
            .and_then(Rule::from_name)
            .unwrap_or(Rule::Freestyle);
        let black_score = match prop("RE") {
            Some(r) if r.starts_with("B+") => 1.0,
            Some(r) if r.starts_with("W+") => 0.0,
            Some(r) if r.starts_with('0') || r.starts_with("Draw") => 0.5,
            _ => continue,
        };
        let mut moves = Vec::new();
        for node in chunk.split(';').skip(1) {
            let node = node.trim_start();
            if !(node.starts_with("B[") || node.starts_with("W[")) {
                continue;
            }
            let b = node.as_bytes();
            if b.len() >= 5 && b[4] == b']' {
                moves.push(((b[2] - b'a') as usize, (b[3] - b'a') as usize));
            }
        }
        games.push(Game {
            rule,
            size,
            moves,
            black_score,
        });
    }
    games
}

/// The feature vector of `board` for the side to move: own pattern counts, own threat counts,
/// then the opponent's.
fn features(board: &Board) -> [f64; FEATURES] {
    let mut f = [0.0; FEATURES];
    let me = board.side_to_move();
    for (k, side) in [me, me.opponent()].into_iter().enumerate() {
        let base = k * (Pattern::COUNT + Threat::COUNT);
        for p in board.squares() {
            if !board.is_empty(p) {
                continue;
            }
            for d in 0..4 {
                f[base + board.pattern(p, d, side) as usize] += 1.0;
            }
            f[base + Pattern::COUNT + board.threat(p, side) as usize] += 1.0;
        }
    }
    f
}

/// Weights left as they are: shapes that are certain wins or never occur in quiet positions
/// (five, straight four and double four decide the game before the evaluation is asked; a
/// straight four's weight would only mirror the flex-four class's, with which it is collinear),
/// and the empty classes.
fn frozen(i: usize) -> bool {
    let n = Pattern::COUNT + Threat::COUNT;
    let k = i % n;
    if k < Pattern::COUNT {
        matches!(
            Pattern::ALL[k],
            Pattern::Dead | Pattern::Overline | Pattern::DoubleB4 | Pattern::F4 | Pattern::F5
        )
    } else {
        matches!(
            Threat::ALL[k - Pattern::COUNT],
            Threat::Forbidden | Threat::None | Threat::Five
        )
    }
}

/// The engine's evaluation weights as one vector: own weights, then the opponent's (negated).
fn current_weights() -> [f64; FEATURES] {
    let n = Pattern::COUNT + Threat::COUNT;
    let mut w = [0.0; FEATURES];
    for i in 0..Pattern::COUNT {
        w[i] = wuzi::rules::EVAL_PATTERN[0][i] as f64;
        w[n + i] = -wuzi::rules::EVAL_PATTERN[1][i] as f64;
    }
    for i in 0..Threat::COUNT {
        w[Pattern::COUNT + i] = wuzi::rules::EVAL_THREAT[0][i] as f64;
        w[n + Pattern::COUNT + i] = -wuzi::rules::EVAL_THREAT[1][i] as f64;
    }
    w
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn log_loss(data: &[([f64; FEATURES], f64)], w: &[f64; FEATURES]) -> f64 {
    let mut sum = 0.0;
    for (f, y) in data {
        let e: f64 = f.iter().zip(w).map(|(a, b)| a * b).sum();
        let p = sigmoid(e / SCALE).clamp(1e-9, 1.0 - 1e-9);
        sum -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    sum / data.len() as f64
}

#[test]
#[ignore]
fn fit_evaluation_weights() {
    let paths = match std::env::var("WUZI_TUNE_RECORDS") {
        Ok(p) => p,
        Err(_) => {
            eprintln!("set WUZI_TUNE_RECORDS to a comma-separated list of SGF files");
            return;
        }
    };
    let mut train = Vec::new();
    let mut test = Vec::new();
    let mut game_index = 0;
    for path in paths.split(',') {
        let text = std::fs::read_to_string(path).expect("readable record file");
        for game in parse_records(&text) {
            game_index += 1;
            let table = Arc::new(PatternTable::new(game.rule));
            let mut board = match Board::new(game.size, game.size, table) {
                Some(b) => b,
                None => continue,
            };
            let end = game.moves.len().saturating_sub(4);
            for (ply, &(x, y)) in game.moves.iter().enumerate() {
                if ply >= 8 && ply < end {
                    let y_me = if board.side_to_move() == Stone::Black {
                        game.black_score
                    } else {
                        1.0 - game.black_score
                    };
                    let sample = (features(&board), y_me);
                    if game_index % 5 == 0 {
                        test.push(sample);
                    } else {
                        train.push(sample);
                    }
                }
                let pos = Pos::from_xy(x, y);
                if !board.is_empty(pos) {
                    break;
                }
                board.make(pos);
            }
        }
    }
    eprintln!(
        "{game_index} games, {} training and {} held-out positions",
        train.len(),
        test.len()
    );
    assert!(!train.is_empty(), "no positions");

    let n = Pattern::COUNT + Threat::COUNT;
    let w = current_weights();
    // The current weights at their best overall scale (the scale itself is arbitrary).
    let mut best = (f64::MAX, 1.0);
    for k in 1..=80 {
        let factor = k as f64 / 20.0;
        let scaled = w.map(|x| x * factor);
        let loss = log_loss(&train, &scaled);
        if loss < best.0 {
            best = (loss, factor);
        }
    }
    let unit = best.1;
    let mut w = w.map(|x| x * unit);
    let scaled = w;
    eprintln!(
        "current weights (x{:.2}): train loss {:.5}, held-out {:.5}",
        best.1,
        log_loss(&train, &scaled),
        log_loss(&test, &scaled)
    );

    // Full-batch gradient descent with per-feature step sizes (features differ in scale by
    // orders of magnitude): Adam.
    let (mut m, mut v) = ([0.0; FEATURES], [0.0; FEATURES]);
    let (b1, b2, lr) = (0.9, 0.999, 0.3);
    for step in 1..=3000 {
        let mut grad = [0.0; FEATURES];
        for (f, y) in &train {
            let e: f64 = f.iter().zip(&w).map(|(a, b)| a * b).sum();
            let err = sigmoid(e / SCALE) - y;
            for i in 0..FEATURES {
                grad[i] += err * f[i] / SCALE;
            }
        }
        for i in 0..FEATURES {
            if frozen(i) {
                continue;
            }
            let g = grad[i] / train.len() as f64;
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - f64::powi(b1, step));
            let vh = v[i] / (1.0 - f64::powi(b2, step));
            w[i] -= lr * mh / (vh.sqrt() + 1e-8);
        }
        if step % 500 == 0 {
            eprintln!(
                "step {step}: train loss {:.5}, held-out {:.5}",
                log_loss(&train, &w),
                log_loss(&test, &w)
            );
        }
    }
    // Printed in the engine's units (the current weights' scale).
    let show = |name: &str, ws: &[f64]| {
        let v: Vec<String> = ws
            .iter()
            .map(|x| format!("{}", (x / unit).round() as i64))
            .collect();
        eprintln!("{name}: [{}]", v.join(", "));
    };
    show("own patterns", &w[..Pattern::COUNT]);
    show("own threats", &w[Pattern::COUNT..n]);
    show(
        "opponent patterns (negated)",
        &w[n..n + Pattern::COUNT]
            .iter()
            .map(|x| -x)
            .collect::<Vec<_>>(),
    );
    show(
        "opponent threats (negated)",
        &w[n + Pattern::COUNT..]
            .iter()
            .map(|x| -x)
            .collect::<Vec<_>>(),
    );
}

/// The linear model this tool fits is exactly the engine's evaluation: the features dotted
/// with the current weights equal `eval::evaluate` on positions from a short game.
#[test]
fn features_reproduce_the_evaluation() {
    let w = current_weights();
    let table = Arc::new(PatternTable::new(Rule::Freestyle));
    let mut board = Board::new(15, 15, table).expect("15x15");
    let moves = [
        (7, 7),
        (8, 8),
        (7, 8),
        (6, 6),
        (7, 9),
        (7, 6),
        (9, 9),
        (8, 7),
        (6, 9),
    ];
    for (x, y) in moves {
        board.make(Pos::from_xy(x, y));
        let linear: f64 = features(&board).iter().zip(&w).map(|(a, b)| a * b).sum();
        assert_eq!(
            linear as i64,
            wuzi::eval::evaluate(&board) as i64,
            "after {x},{y}"
        );
    }
}
