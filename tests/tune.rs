//! Fits the evaluation weights (logistic regression, "Texel" tuning).
//!
//! The evaluation is linear in a few counts of the position, taken over the empty cells: for
//! the side to move and for the opponent, how many (cell, direction) pairs have each line
//! [`Pattern`], how many cells have each [`Threat`] class, and how many cells have each
//! combination of direction patterns ([`combo_index`]). This tool fits the 2 × (12 + 9 + 126)
//! weights so that `sigmoid(eval / SCALE)` predicts a target for the side to move, by full-batch
//! gradient descent (Adam) from the current weights, holding out every fifth game or position to
//! check that the fit generalises, and prints the log-loss of the current and the fitted weights
//! and the fitted tables. Two sources of targets:
//!
//! - `fit_evaluation_weights`: game results. Records are SGF as `pbrain-wuzi match --sgf` writes
//!   them; every position from ply 8 to four plies before the end.
//! - `fit_to_labels`: another engine's search scores, `sigmoid(score / SCALE)`. Label lines are
//!   `size rule black_result score moves` (score for the side to move, `moves` as
//!   `x,y;x,y;...`, black first); only the positions the evaluation is asked about are kept (no
//!   five or straight four to make for the side to move, no four or open three of the
//!   opponent to answer).
//!
//! How the weights in `src/rules.rs` were made (2026-11-30): 25,361 positions of 568 game
//! records (400 games of wuzi against Rapfi at 10 s + 0.1 s, 168 wuzi self-play games at 3 s +
//! 30 ms; 15×15 freestyle), every position from ply 6 on, were given to Rapfi 0.43 with its
//! classical evaluation (`INFO max_node 20000`, one position at a time with `BOARD`); the label
//! is the `Eval` of its answer (±30000 for a mate, clamped to ±3000 here). 13,733 positions were
//! kept, 2,746 of them held out.
//! ```text
//! WUZI_TUNE_LABELS=/tmp/labels.txt \
//!     cargo test --release --test tune fit_to_labels -- --ignored --nocapture
//! ```
//! Held-out log-loss: 0.557 for the previous weights (fitted to game results) at their best
//! scale, 0.478 for the per-direction and threat weights refitted alone (`WUZI_TUNE_NO_COMBO=1`
//! keeps the combination weights as they are), 0.456 with the combination weights as well. The
//! fitted weights are printed in the engine's units (divided by the best scale of the weights
//! the fit started from, 0.15 here), so the search margins keep their meaning. A threat-mask
//! term (one weight for each set of "has a four-three / four / double three / three" per side,
//! 256) brought 0.4572 to 0.4558 on the first 12,047 labels: not kept.
//!
//! The weights are looked up per rule ([`Rule::eval_weights`]); a fit takes the positions of
//! one rule and starts from that rule's weights. Today the freestyle weights serve every rule:
//! a fit to standard positions (2026-12-03: 30,571 positions of 700 standard 15×15 records,
//! 400 games of wuzi against Rapfi and 300 of self-play at 100 ms per move, labelled by
//! `scripts/label-positions.py` with Rapfi at 20,000 nodes; 16,578 kept, 3,315 held out)
//! brought the held-out log-loss from 0.621 (freestyle weights at their best scale, 0.10) to
//! 0.572, and to 0.588 with the crossing weights kept, yet both lost in standard self-play
//! against the freestyle weights (−73.4 ± 37.2 Elo, SPRT [0, 10] H0 after 341 games; −64.4 ±
//! 39.4 after 300 games; 100 ms per move): a lower loss on another engine's scores is not
//! strength by itself. The same held for freestyle (2026-12-05): 58,286 positions of about
//! 1,130 freestyle 15×15 records of the current engine (400 games against Rapfi at 10 s + 0.1 s,
//! 100 at 60 s + 0.5 s, 200 against an older wuzi at 10 s + 0.1 s, the first 430 or so of a
//! self-play SPRT at 100 ms per move), labelled by Rapfi at 20,000 nodes, 33,296 kept and 6,659
//! held out: held-out log-loss 0.625 for the weights in use (at their best scale, 0.05, the
//! lowest tried), 0.600 refitted; the refitted weights lost in self-play, SPRT [0, 10] at 100 ms
//! per move, H0 after 438 games, 177-250-13, −58.2 ± 32.5 Elo. The search has been tuned with
//! the weights in use since they were fitted (its margins are in their units).
//! ```text
//! scripts/label-positions.py -j 2 RAPFI std-rapfi.sgf std-self.sgf > std.labels
//! WUZI_TUNE_LABELS=std.labels cargo test --release --test tune fit_to_labels -- --ignored --nocapture
//! ```

use std::sync::Arc;

use wuzi::{
    board::{Board, Pos, Stone},
    rules::{combo_index, Pattern, PatternTable, Rule, Threat, COMBO_COUNT},
};

/// Features of one side: direction patterns, threat classes, pattern combinations.
const SIDE: usize = COMBOS + COMBO_COUNT;
/// Offset of the combination features inside one side's features.
const COMBOS: usize = Pattern::COUNT + Threat::COUNT;
const FEATURES: usize = 2 * SIDE;
/// L2 penalty on the combination weights (in logits², per position), which overlap with the
/// per-direction weights.
const COMBO_L2: f64 = 1e-4;
/// Gradient steps of a fit.
const STEPS: i32 = 3000;
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

/// The feature vector of `board` for the side to move: own pattern, threat and combination
/// counts, then the opponent's.
fn features(board: &Board) -> [f64; FEATURES] {
    let mut f = [0.0; FEATURES];
    let me = board.side_to_move();
    for (k, side) in [me, me.opponent()].into_iter().enumerate() {
        let base = k * SIDE;
        for p in board.squares() {
            if !board.is_empty(p) {
                continue;
            }
            let pats = [0, 1, 2, 3].map(|d| board.pattern(p, d, side));
            for pat in pats {
                f[base + pat as usize] += 1.0;
            }
            f[base + Pattern::COUNT + board.threat(p, side) as usize] += 1.0;
            f[base + COMBOS + combo_index(pats)] += 1.0;
        }
    }
    f
}

/// Weights left as they are: shapes that are certain wins or never occur in quiet positions
/// (five, straight four and double four decide the game before the evaluation is asked; a
/// straight four's weight would only mirror the flex-four class's, with which it is collinear),
/// the empty classes, and the combinations with fewer than two lines above B1 (one line is
/// already weighed by its pattern).
fn frozen(i: usize) -> bool {
    let k = i % SIDE;
    if k < Pattern::COUNT {
        matches!(
            Pattern::ALL[k],
            Pattern::Dead | Pattern::Overline | Pattern::DoubleB4 | Pattern::F4 | Pattern::F5
        )
    } else if k < COMBOS {
        matches!(
            Threat::ALL[k - Pattern::COUNT],
            Threat::Forbidden | Threat::None | Threat::Five
        )
    } else {
        !combo_has_two_lines(k - COMBOS)
    }
}

/// Whether the combination `index` has at least two directions above B1.
fn combo_has_two_lines(index: usize) -> bool {
    let low = Pattern::B1;
    let raised = [
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
    ];
    // Combinations with at most one raised line: all low, or one of the raised patterns.
    index != combo_index([low; 4])
        && raised
            .iter()
            .all(|&p| index != combo_index([p, low, low, low]))
}

/// The engine's evaluation weights of `rule` as one vector: own weights, then the opponent's
/// (negated).
fn current_weights(rule: Rule) -> [f64; FEATURES] {
    let weights = rule.eval_weights();
    let mut w = [0.0; FEATURES];
    for role in 0..2 {
        let sign = if role == 0 { 1.0 } else { -1.0 };
        let base = role * SIDE;
        for i in 0..Pattern::COUNT {
            w[base + i] = sign * weights.pattern[role][i] as f64;
        }
        for i in 0..Threat::COUNT {
            w[base + Pattern::COUNT + i] = sign * weights.threat[role][i] as f64;
        }
        for i in 0..COMBO_COUNT {
            w[base + COMBOS + i] = sign * weights.combo[role][i] as f64;
        }
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

/// A position's features and its target for the side to move (probability of winning).
type Sample = ([f64; FEATURES], f64);

/// Training and held-out samples, all of one rule (each rule has its own weights).
struct Samples {
    rule: Rule,
    train: Vec<Sample>,
    test: Vec<Sample>,
}

/// The one rule of a data set: the first seen, and every later one the same.
fn same_rule(seen: &mut Option<Rule>, rule: Rule) {
    match seen {
        None => *seen = Some(rule),
        Some(r) => assert_eq!(
            *r, rule,
            "one rule per fit: give the rules' files separately"
        ),
    }
}

/// Pattern tables built so far, one per rule (building one takes a while).
#[derive(Default)]
struct Tables(Vec<(Rule, Arc<PatternTable>)>);

impl Tables {
    fn get(&mut self, rule: Rule) -> Arc<PatternTable> {
        if let Some((_, t)) = self.0.iter().find(|(r, _)| *r == rule) {
            return t.clone();
        }
        let t = Arc::new(PatternTable::new(rule));
        self.0.push((rule, t.clone()));
        t
    }
}

/// Training and held-out samples from the SGF records in `paths` (comma-separated): targets
/// are the game results.
fn samples_from_records(paths: &str) -> Samples {
    let mut rule = None;
    let mut train = Vec::new();
    let mut test = Vec::new();
    let mut game_index = 0;
    let mut tables = Tables::default();
    for path in paths.split(',') {
        let text = std::fs::read_to_string(path).expect("readable record file");
        for game in parse_records(&text) {
            game_index += 1;
            same_rule(&mut rule, game.rule);
            let mut board = match Board::new(game.size, game.size, tables.get(game.rule)) {
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
    eprintln!("{game_index} games");
    Samples {
        rule: rule.unwrap_or(Rule::Freestyle),
        train,
        test,
    }
}

/// The position and score of one label line, or `None` when the line is malformed or the
/// moves do not make a legal game.
fn parse_label(line: &str, tables: &mut Tables) -> Option<(Board, f64)> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let (size, rule, score, moves) = match parts.as_slice() {
        [size, rule, _, score, moves] => (
            size.parse::<usize>().ok()?,
            Rule::from_name(rule)?,
            score.parse::<f64>().ok()?,
            *moves,
        ),
        _ => return None,
    };
    let mut board = Board::new(size, size, tables.get(rule))?;
    for m in moves.split(';') {
        let xy: Vec<usize> = m.split(',').filter_map(|v| v.parse().ok()).collect();
        let pos = match xy.as_slice() {
            [x, y] if *x < size && *y < size => Pos::from_xy(*x, *y),
            _ => return None,
        };
        if !board.is_empty(pos) {
            return None;
        }
        board.make(pos);
    }
    Some((board, score))
}

/// Training and held-out samples from the label files in `paths` (comma-separated): targets
/// are `sigmoid(score / SCALE)`, positions the evaluation is never asked about are skipped.
fn samples_from_labels(paths: &str) -> Samples {
    let mut rule = None;
    let mut train = Vec::new();
    let mut test = Vec::new();
    let mut skipped = 0;
    let mut tables = Tables::default();
    for path in paths.split(',') {
        let text = std::fs::read_to_string(path).expect("readable label file");
        for line in text.lines() {
            let (board, score) = match parse_label(line, &mut tables) {
                Some(label) => label,
                None => {
                    skipped += 1;
                    continue;
                }
            };
            same_rule(&mut rule, board.rule());
            let me = board.side_to_move();
            let opp = me.opponent();
            if board.threat_count(me, Threat::Five) > 0
                || board.threat_count(me, Threat::FlexFour) > 0
                || board.threat_count(opp, Threat::Five) > 0
                || board.threat_count(opp, Threat::FlexFour) > 0
            {
                skipped += 1;
                continue;
            }
            let sample = (
                features(&board),
                sigmoid(score.clamp(-3000.0, 3000.0) / SCALE),
            );
            if (train.len() + test.len()) % 5 == 4 {
                test.push(sample);
            } else {
                train.push(sample);
            }
        }
    }
    eprintln!("{skipped} positions skipped");
    Samples {
        rule: rule.unwrap_or(Rule::Freestyle),
        train,
        test,
    }
}

/// Fits the weights of the samples' rule to their training part, from the rule's current
/// weights, and prints them.
fn fit(samples: &Samples) {
    let (train, test) = (&samples.train, &samples.test);
    eprintln!(
        "{}: {} training and {} held-out positions",
        samples.rule.name(),
        train.len(),
        test.len()
    );
    assert!(!train.is_empty(), "no positions");

    let no_combo = std::env::var("WUZI_TUNE_NO_COMBO").is_ok();
    let w = current_weights(samples.rule);
    // The current weights at their best overall scale (the scale itself is arbitrary).
    let mut best = (f64::MAX, 1.0);
    for k in 1..=80 {
        let factor = k as f64 / 20.0;
        let scaled = w.map(|x| x * factor);
        let loss = log_loss(train, &scaled);
        if loss < best.0 {
            best = (loss, factor);
        }
    }
    let unit = best.1;
    let mut w = w.map(|x| x * unit);
    eprintln!(
        "current weights (x{unit:.2}): train loss {:.5}, held-out {:.5}",
        log_loss(train, &w),
        log_loss(test, &w)
    );

    // Full-batch gradient descent with per-feature step sizes (features differ in scale by
    // orders of magnitude): Adam.
    let (mut m, mut v) = ([0.0; FEATURES], [0.0; FEATURES]);
    let (b1, b2, lr) = (0.9, 0.999, 0.3);
    for step in 1..=STEPS {
        let mut grad = [0.0; FEATURES];
        for (f, y) in train {
            let e: f64 = f.iter().zip(&w).map(|(a, b)| a * b).sum();
            let err = sigmoid(e / SCALE) - y;
            for i in 0..FEATURES {
                grad[i] += err * f[i] / SCALE;
            }
        }
        for i in 0..FEATURES {
            if frozen(i) || (no_combo && i % SIDE >= COMBOS) {
                continue;
            }
            let mut g = grad[i] / train.len() as f64;
            if i % SIDE >= COMBOS {
                g += 2.0 * COMBO_L2 * w[i] / (SCALE * SCALE);
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - f64::powi(b1, step));
            let vh = v[i] / (1.0 - f64::powi(b2, step));
            // Linear decay of the step size to 0: the last steps settle instead of oscillating.
            let rate = lr * (1.0 - f64::from(step - 1) / f64::from(STEPS));
            w[i] -= rate * mh / (vh.sqrt() + 1e-8);
        }
        if step % 500 == 0 {
            eprintln!(
                "step {step}: train loss {:.5}, held-out {:.5}",
                log_loss(train, &w),
                log_loss(test, &w)
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
    show("own threats", &w[Pattern::COUNT..COMBOS]);
    show("own combinations", &w[COMBOS..SIDE]);
    let opp: Vec<f64> = w[SIDE..].iter().map(|x| -x).collect();
    show("opponent patterns (negated)", &opp[..Pattern::COUNT]);
    show("opponent threats (negated)", &opp[Pattern::COUNT..COMBOS]);
    show("opponent combinations (negated)", &opp[COMBOS..]);
}

/// Loads the samples named by the environment variable `var` with `load` and fits them.
fn fit_from_env(var: &str, load: fn(&str) -> Samples) {
    match std::env::var(var) {
        Ok(paths) => fit(&load(&paths)),
        Err(_) => eprintln!("set {var} to a comma-separated list of files"),
    }
}

#[test]
#[ignore]
fn fit_evaluation_weights() {
    fit_from_env("WUZI_TUNE_RECORDS", samples_from_records);
}

#[test]
#[ignore]
fn fit_to_labels() {
    fit_from_env("WUZI_TUNE_LABELS", samples_from_labels);
}

/// The linear model this tool fits is exactly the engine's evaluation under every rule: the
/// features dotted with the rule's current weights equal `eval::evaluate` on positions from a
/// short game.
#[test]
fn features_reproduce_the_evaluation() {
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
    for rule in [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::CaroOverline,
        Rule::Caro,
    ] {
        let w = current_weights(rule);
        let table = Arc::new(PatternTable::new(rule));
        let mut board = Board::new(15, 15, table).expect("15x15");
        for (x, y) in moves {
            board.make(Pos::from_xy(x, y));
            let linear: f64 = features(&board).iter().zip(&w).map(|(a, b)| a * b).sum();
            assert_eq!(
                linear as i64,
                wuzi::eval::evaluate(&board) as i64,
                "{} after {x},{y}",
                rule.name()
            );
        }
    }
}
