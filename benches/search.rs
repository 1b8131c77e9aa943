//! Fixed-depth single-thread search on the bench positions.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use wuzi::{
    bench::POSITIONS,
    rules::PatternTable,
    search::{Limits, Searcher},
    tt::TranspositionTable,
};

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search_depth4");
    group.sample_size(10);
    for (i, position) in POSITIONS.iter().enumerate().take(4) {
        let table = Arc::new(PatternTable::new(position.rule));
        let board = position.board(table).expect("bench positions are valid");
        group.bench_function(format!("position{}", i + 1), |b| {
            b.iter(|| {
                let mut board = board.clone();
                let tt = TranspositionTable::new(1 << 20);
                let never = || false;
                let mut searcher = Searcher::new(&tt, Limits::depth(4), &never);
                searcher.think(&mut board, &mut |_| {}).nodes
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
