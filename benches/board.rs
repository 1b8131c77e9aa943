//! make/undo throughput: a fixed 40-move sequence played and taken back, per rule.

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use wuzi::{
    board::{Board, Pos},
    rules::{PatternTable, Rule},
};

/// A fixed pseudo-random walk of 40 distinct squares near the centre of a 15×15 board.
fn squares() -> Vec<Pos> {
    let mut seen = Vec::new();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    while seen.len() < 40 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = 3 + (state % 9) as usize;
        let y = 3 + ((state >> 8) % 9) as usize;
        let p = Pos::from_xy(x, y);
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen
}

fn make_undo(c: &mut Criterion) {
    let moves = squares();
    let mut group = c.benchmark_group("make_undo");
    group.throughput(Throughput::Elements(moves.len() as u64));
    for rule in Rule::ALL {
        let table = Arc::new(PatternTable::new(rule));
        let mut board = Board::new(15, 15, table).expect("15x15 is supported");
        group.bench_function(rule.name(), |b| {
            b.iter(|| {
                for &p in &moves {
                    board.make(black_box(p));
                }
                for _ in &moves {
                    board.undo();
                }
                black_box(board.hash())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, make_undo);
criterion_main!(benches);
