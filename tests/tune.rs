//! Fits the evaluation table ([`wuzi::rules::EVAL_COMBO`]) by logistic regression.
//!
//! The evaluation sums, over the empty cells, one weight per (role, unordered combination of the
//! cell's four direction patterns): role 0 for the side to move's patterns there, role 1 for the
//! opponent's (subtracted). So it is linear in 2 × [`COMBOS`] counts, and this tool fits those
//! weights so that `sigmoid(eval · unit / SCALE)` predicts a target for the side to move, where
//! `unit` is the scale at which the current table predicts best (so the fitted table stays in
//! the engine's units and the search's margins keep their meaning). The target mixes the game
//! result (weight `WUZI_TUNE_LAMBDA`, default 0.3) with a teacher engine's search evaluation
//! when the position has one. Only quiet positions are used (no five to make or to stop). An L2
//! pull (`WUZI_TUNE_L2`) towards the current weights keeps rare combinations where they were;
//! fives and the all-dead combination stay fixed. Full-batch Adam; every fifth game is held out.
//!
//! Inputs: `WUZI_TUNE_RECORDS`, SGF game records as `pbrain-wuzi match --sgf` writes them (the
//! target is then the result alone), and `WUZI_TUNE_LABELS`, label files with one position per
//! line, `size rule black_result teacher_eval x,y;x,y;…` (moves from black's first; the teacher's
//! eval for the side to move, ±30000 for a forced win or loss). `WUZI_TUNE_OUT` names the file
//! to write the table to (`src/eval_combo.in` replaces the engine's).
//!
//! How the table in `src/eval_combo.in` was made: see the commit that last changed it.

use std::sync::Arc;

use wuzi::{
    board::{Board, Pos, Stone},
    rules::{combo_index, Pattern, PatternTable, Rule, Threat, COMBOS},
};

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

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// One position for the combination fit: sparse features (index `role · COMBOS + combo`, count
/// with the sign the evaluation gives it) and the target win probability for the side to move.
struct Sample {
    features: Vec<(u32, f32)>,
    result: f32,
    target: f32,
}

/// The sparse combination features of `board` for the side to move: every empty cell adds +1 to
/// its own combination (role 0) and −1 to the opponent's (role 1); all-dead cells and renju
/// forbidden points count nothing (their weight is fixed at 0).
fn combo_features(board: &Board) -> Vec<(u32, f32)> {
    let me = board.side_to_move();
    let mut counts = std::collections::BTreeMap::new();
    for p in board.squares() {
        if !board.is_empty(p) {
            continue;
        }
        for (role, side) in [me, me.opponent()].into_iter().enumerate() {
            if board.threat(p, side) == Threat::Forbidden {
                continue;
            }
            let pats = [0, 1, 2, 3].map(|d| board.pattern(p, d, side));
            let c = combo_index(pats);
            if c == 0 {
                continue;
            }
            let sign = if role == 0 { 1.0 } else { -1.0 };
            *counts.entry((role * COMBOS + c) as u32).or_insert(0.0) += sign;
        }
    }
    counts.into_iter().collect()
}

/// The engine's current combination weights (`[role][combo]`) and one example of each combo.
fn current_combo_weights() -> (Vec<f64>, Vec<[Pattern; 4]>) {
    let table = PatternTable::new(Rule::Freestyle);
    let n = Pattern::COUNT;
    let mut w = vec![0.0; 2 * COMBOS];
    let mut example = vec![[Pattern::Dead; 4]; COMBOS];
    for i in 0..n * n * n * n {
        let codes = [i % n, (i / n) % n, (i / (n * n)) % n, i / (n * n * n)];
        let pats = codes.map(|k| Pattern::ALL[k]);
        let c = combo_index(pats);
        let info = table.combine(Stone::Black, codes.map(|k| k as u8));
        w[c] = info.eval[0] as f64;
        w[COMBOS + c] = info.eval[1] as f64;
        example[c] = pats;
    }
    (w, example)
}

fn dot(f: &[(u32, f32)], w: &[f64]) -> f64 {
    f.iter().map(|&(i, v)| v as f64 * w[i as usize]).sum()
}

fn cross_entropy(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// Mean loss of `w` (at `scale`) against the targets and against the game results.
fn combo_losses(data: &[Sample], w: &[f64], scale: f64) -> (f64, f64) {
    let (mut t, mut r) = (0.0, 0.0);
    for s in data {
        let p = sigmoid(dot(&s.features, w) * scale / SCALE);
        t += cross_entropy(p, s.target as f64);
        r += cross_entropy(p, s.result as f64);
    }
    (t / data.len() as f64, r / data.len() as f64)
}

/// A position from a label file: `size rule black_result teacher_eval x,y;x,y;…`
/// (the teacher's eval is for the side to move, ±30000 for a forced win or loss).
struct Labelled {
    rule: Rule,
    size: usize,
    black_result: f64,
    teacher: Option<i32>,
    moves: Vec<(usize, usize)>,
}

fn parse_labels(text: &str) -> Vec<Labelled> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 5 {
            continue;
        }
        let parsed = (|| {
            let moves = f[4]
                .split(';')
                .map(|m| {
                    let (x, y) = m.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Labelled {
                size: f[0].parse().ok()?,
                rule: Rule::from_name(f[1])?,
                black_result: f[2].parse().ok()?,
                teacher: Some(f[3].parse().ok()?),
                moves,
            })
        })();
        out.extend(parsed);
    }
    out
}

/// Fits one weight per (role, unordered combination of four direction patterns) — what
/// [`CellInfo::eval`] holds — to a mix of game results and a teacher engine's search
/// evaluations, with an L2 pull towards the current weights so that rare combinations keep them.
///
/// `WUZI_TUNE_LABELS`: comma-separated label files (see [`parse_labels`]); `WUZI_TUNE_LAMBDA`:
/// weight of the game result in the target (default 0.3, the rest is the teacher);
/// `WUZI_TUNE_L2` (default 1e-6): the pull; `WUZI_TUNE_OUT`: where to write the table as Rust.
#[test]
#[ignore]
fn fit_combination_table() {
    let paths = std::env::var("WUZI_TUNE_LABELS").unwrap_or_default();
    let records = std::env::var("WUZI_TUNE_RECORDS").unwrap_or_default();
    if paths.is_empty() && records.is_empty() {
        eprintln!("set WUZI_TUNE_LABELS and/or WUZI_TUNE_RECORDS (comma-separated files)");
        return;
    }
    let env_f = |name: &str, default: f64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let lambda = env_f("WUZI_TUNE_LAMBDA", 0.3);
    let l2 = env_f("WUZI_TUNE_L2", 1e-6);
    let mut labelled = Vec::new();
    for path in paths.split(',').filter(|p| !p.is_empty()) {
        let text = std::fs::read_to_string(path).expect("readable label file");
        labelled.extend(parse_labels(&text));
    }
    for path in records.split(',').filter(|p| !p.is_empty()) {
        let text = std::fs::read_to_string(path).expect("readable record file");
        for game in parse_records(&text) {
            for ply in 8..game.moves.len() {
                labelled.push(Labelled {
                    rule: game.rule,
                    size: game.size,
                    black_result: game.black_score,
                    teacher: None,
                    moves: game.moves[..ply].to_vec(),
                });
            }
        }
    }
    // The teacher's scale: the one that best predicts the results from its evaluations.
    let mut teacher_scale = (f64::MAX, 200.0);
    for s in (100..=800).step_by(20) {
        let loss: f64 = labelled
            .iter()
            .filter_map(|l| Some((l.teacher.filter(|t| t.abs() < 20000)?, l)))
            .map(|(t, l)| cross_entropy(sigmoid(t as f64 / s as f64), result_for_mover(l)))
            .sum();
        if loss < teacher_scale.0 {
            teacher_scale = (loss, s as f64);
        }
    }
    let teacher_scale = teacher_scale.1;
    eprintln!(
        "{} positions; teacher scale {teacher_scale}",
        labelled.len()
    );

    let mut train = Vec::new();
    let mut test = Vec::new();
    let mut tables: Vec<(Rule, Arc<PatternTable>)> = Vec::new();
    let (mut game, mut last_len) = (0usize, usize::MAX);
    for l in &labelled {
        if l.moves.len() <= last_len {
            game += 1;
        }
        last_len = l.moves.len();
        let table = match tables.iter().find(|(r, _)| *r == l.rule) {
            Some((_, t)) => t.clone(),
            None => {
                let t = Arc::new(PatternTable::new(l.rule));
                tables.push((l.rule, t.clone()));
                t
            }
        };
        let mut board = match Board::new(l.size, l.size, table) {
            Some(b) => b,
            None => continue,
        };
        let legal = l.moves.iter().all(|&(x, y)| {
            let pos = Pos::from_xy(x, y);
            let ok = x < l.size && y < l.size && board.is_empty(pos);
            if ok {
                board.make(pos);
            }
            ok
        });
        // Only quiet positions: with a five to make or to stop, the search never asks the
        // evaluation.
        let me = board.side_to_move();
        if !legal
            || board.threat_count(me, Threat::Five) > 0
            || board.threat_count(me.opponent(), Threat::Five) > 0
        {
            continue;
        }
        let result = result_for_mover(l);
        let target = match l.teacher {
            None => result,
            Some(t) => {
                let teacher = if t >= 20000 {
                    1.0
                } else if t <= -20000 {
                    0.0
                } else {
                    sigmoid(t as f64 / teacher_scale)
                };
                lambda * result + (1.0 - lambda) * teacher
            }
        };
        let sample = Sample {
            features: combo_features(&board),
            result: result as f32,
            target: target as f32,
        };
        if game % 5 == 0 {
            test.push(sample);
        } else {
            train.push(sample);
        }
    }
    eprintln!(
        "{game} games: {} training, {} held-out positions",
        train.len(),
        test.len()
    );
    assert!(!train.is_empty(), "no positions");

    // The engine's units are not logits: find the scale at which the current table predicts
    // best and fit in those units, so the search's margins keep their meaning.
    let (w0, example) = current_combo_weights();
    let mut best = (f64::MAX, 1.0);
    for k in 1..=200 {
        let unit = k as f64 / 100.0;
        let loss = combo_losses(&train, &w0, unit).0;
        if loss < best.0 {
            best = (loss, unit);
        }
    }
    let unit = best.1;
    let (t, r) = combo_losses(&test, &w0, unit);
    eprintln!("current table, logit = eval x {unit:.2} / {SCALE}: held-out target loss {t:.5}, result loss {r:.5}");

    // Which weights move: every combination seen in training except fives (a five ends the
    // game before the evaluation is asked) and all-dead.
    let mut seen = vec![0usize; 2 * COMBOS];
    for s in &train {
        for &(i, _) in &s.features {
            seen[i as usize] += 1;
        }
    }
    let fixed = |i: usize| {
        let pats = example[i % COMBOS];
        i % COMBOS == 0 || pats.contains(&Pattern::F5) || seen[i] == 0
    };

    let mut w = w0.clone();
    let (mut m, mut v) = (vec![0.0; 2 * COMBOS], vec![0.0; 2 * COMBOS]);
    let (b1, b2, lr) = (0.9, 0.999, 2.0);
    let steps = env_f("WUZI_TUNE_STEPS", 1500.0) as i32;
    let n = train.len() as f64;
    for step in 1..=steps {
        let mut grad = vec![0.0; 2 * COMBOS];
        for s in &train {
            let p = sigmoid(dot(&s.features, &w) * unit / SCALE);
            let err = (p - s.target as f64) * unit / SCALE;
            for &(i, x) in &s.features {
                grad[i as usize] += err * x as f64;
            }
        }
        for i in 0..2 * COMBOS {
            if fixed(i) {
                continue;
            }
            let g = grad[i] / n + 2.0 * l2 * (w[i] - w0[i]);
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - f64::powi(b1, step));
            let vh = v[i] / (1.0 - f64::powi(b2, step));
            w[i] -= lr * mh / (vh.sqrt() + 1e-8);
        }
        if step % 250 == 0 {
            let (tt, tr) = combo_losses(&train, &w, unit);
            let (ht, hr) = combo_losses(&test, &w, unit);
            eprintln!(
                "step {step}: train {tt:.5} (results {tr:.5}), held-out {ht:.5} (results {hr:.5})"
            );
        }
    }
    let spread = |w: &[f64]| -> f64 {
        let e: Vec<f64> = test.iter().map(|s| dot(&s.features, w)).collect();
        let mean = e.iter().sum::<f64>() / e.len() as f64;
        (e.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / e.len() as f64).sqrt()
    };
    eprintln!(
        "evaluation spread on held-out positions: current {:.0}, fitted {:.0}",
        spread(&w0),
        spread(&w)
    );
    if let Ok(out) = std::env::var("WUZI_TUNE_OUT") {
        let mut text = String::from(
            "// Generated by tests/tune.rs (fit_combination_table); see rules::EVAL_COMBO.\n[\n",
        );
        for role in 0..2 {
            text.push_str("    [\n");
            for chunk in w[role * COMBOS..(role + 1) * COMBOS].chunks(15) {
                let row: Vec<String> = chunk
                    .iter()
                    .map(|x| format!("{}", x.round().clamp(-30000.0, 30000.0) as i64))
                    .collect();
                text.push_str(&format!("        {},\n", row.join(", ")));
            }
            text.push_str("    ],\n");
        }
        text.push_str("]\n");
        std::fs::write(&out, text).expect("writable output");
        eprintln!("table written to {out}");
    }
}

fn result_for_mover(l: &Labelled) -> f64 {
    if l.moves.len() % 2 == 0 {
        l.black_result
    } else {
        1.0 - l.black_result
    }
}

/// The combination features dotted with the engine's table equal `eval::evaluate`, for every
/// rule (renju's forbidden points included) along a short game.
#[test]
fn combination_features_reproduce_the_evaluation() {
    let (w, _) = current_combo_weights();
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
        (5, 9),
        (8, 9),
        (10, 9),
    ];
    for rule in Rule::ALL {
        let table = Arc::new(PatternTable::new(rule));
        let mut board = Board::new(15, 15, table).expect("15x15");
        for (x, y) in moves {
            board.make(Pos::from_xy(x, y));
            let fitted = dot(&combo_features(&board), &w);
            assert_eq!(
                fitted as i64,
                wuzi::eval::evaluate(&board) as i64,
                "{rule:?} after {x},{y}"
            );
        }
    }
}
