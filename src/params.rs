//! The search's tunable constants, by name.
//!
//! [`Params::default`] holds the values the engine plays with. A tuner changes them without a
//! rebuild: the brain takes `INFO param_<name> <value>` (the arena sends it for an engine's
//! `option.param_<name>=<value>`), `pbrain-wuzi params` lists them with their ranges, and
//! `scripts/spsa.py` tunes them by SPSA over arena game pairs. Every value is an integer, so a
//! search stays deterministic for given parameters.

/// The search's tunable constants (see each field; [`SPECS`] gives their ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Deepest non-PV node where reverse futility pruning applies.
    pub rfp_depth: i32,
    /// Reverse futility margin per ply of depth: a static evaluation this far above beta is
    /// trusted as a cut-off.
    pub rfp_margin: i32,
    /// Deepest non-PV node whose quiet moves futility pruning skips.
    pub futility_depth: i32,
    /// Futility margin per ply of depth: quiet moves are skipped when the static evaluation
    /// plus this cannot reach alpha.
    pub futility_margin: i32,
    /// First move index (in ordering) that late-move reductions reduce.
    pub lmr_first_move: i32,
    /// Ordering bonus of the first killer move.
    pub killer_first: i32,
    /// Ordering bonus of the second killer move.
    pub killer_second: i32,
    /// History scores are divided by this before they join the ordering score.
    pub history_scale: i32,
    /// Largest ordering bonus the history gives.
    pub history_max_bonus: i32,
    /// First iteration searched in an aspiration window.
    pub aspiration_depth: i32,
    /// Half-width of the first aspiration window.
    pub aspiration_delta: i32,
    /// Candidate (0 = off): once a move raises alpha at a node with more than 2 and fewer
    /// than this many plies to go, the node's later moves are searched one ply shallower
    /// (Rapfi's "alpha improvement reduction").
    pub alpha_raise_max_depth: i32,
    /// Candidate (0 = off): a PV node whose table entry has a move but a shallower depth
    /// searches this many hundredths of a ply less per ply of the difference, at most 3
    /// (Rapfi reduces a PV node whose hash move was not re-chosen for a few iterations).
    pub pv_tt_reduction: i32,
    /// Candidate (0 = off): late-move reductions grow with ln(depth)·ln(move number) times
    /// this, in hundredths of a ply (never less than the fixed reduction, and the reduced
    /// search keeps at least one ply), as in Stockfish and Rapfi.
    pub lmr_log: i32,
    /// A node this deep or deeper without a hash move is searched a ply shallower (internal
    /// iterative reduction; 0 = off). On at 4 since the SPRT of 2026-12-04 (see the README).
    pub iir_depth: i32,
    /// Candidate (0 = off): when a quiet move refutes a node, the quiet moves searched before
    /// it lose this many hundredths of the refuting move's history bonus (history malus).
    pub history_malus: i32,
    /// Candidate (0 = off): ordering bonus of the move that last refuted the opponent's
    /// previous move (counter-move heuristic).
    pub countermove_bonus: i32,
    /// Candidate (0 = off): a reduced quiet move is reduced further, up to this many hundredths
    /// of a ply, the lower its pattern value (what move ordering ranks by) is against the
    /// best value among the node's moves (Rapfi's policy reduction).
    pub policy_reduction: i32,
    /// Candidate (0 = off): at a node whose static evaluation is not above the one two plies
    /// earlier (the side to move is not improving), move-count pruning keeps this many
    /// hundredths of its usual number of moves (Rapfi keeps half).
    pub lmp_not_improving: i32,
    /// Plies below the nominal depth down to which the defences against an open three are
    /// searched; a leaf deeper than this is evaluated as it stands. The leaves run no VCF
    /// search: tried with 200 nodes per leaf, the search lost about one ply at 100 ms per move
    /// and 130–160 Elo in self-play (two SPRT runs of 63 and 79 games) against the same engine
    /// with the VCF at the root only.
    pub quiescence_plies: i32,
    /// At a node this deep or deeper whose table entry (a lower or exact bound at most 3 plies
    /// shallower) has a move, the other moves are searched at half the depth against the
    /// entry's score less [`Params::singular_margin`] per ply; when all of them fail low, the
    /// hash move is singular and is searched a ply deeper (singular extension; 0 = off). On at
    /// 6 since the SPRT of 2026-12-04 (see the README).
    pub singular_depth: i32,
    /// Margin of the singular test, in evaluation units per ply of depth.
    pub singular_margin: i32,
    /// 1 = on (the default since its SPRT, in a package of six), 0 = off: a non-PV node whose
    /// singular test fails high with the test's bound at or above beta returns that bound
    /// (multi-cut: the hash move and another move both refute the opponent's last move).
    pub singular_multicut: i32,
    /// Candidate (0 = off): when the singular test fails high and the hash move's stored score
    /// is at or above beta, the hash move is searched a ply shallower (negative extension).
    pub singular_negative: i32,
    /// Candidate (0 = off): at a non-PV node without threats whose static evaluation is at
    /// least this much per ply of depth above beta, the moves that make no four are searched a
    /// ply shallower (Rapfi's fail-high reduction).
    pub fail_high_margin: i32,
    /// Candidate (0 = off): at a non-PV node whose singular test fails low by more than this,
    /// the hash move is searched two plies deeper instead of one, while the path holds fewer
    /// than eight such extra plies (Rapfi's double singular extension).
    pub singular_double: i32,
    /// A margin (0 = off; 150 since its SPRT, in a package of six): a reduced move whose
    /// reduced search beats alpha by more than this is re-searched a ply deeper than its full
    /// depth (Rapfi's LMR extension).
    pub lmr_deeper: i32,
    /// Candidate (0 = off): at a non-PV node one or two plies from the horizon whose static
    /// evaluation is below alpha by more than this (a third more at two plies), the node is
    /// decided by the leaf search (the evaluation and the double threats) alone (Rapfi's
    /// razoring).
    pub razor_margin: i32,
    /// Candidate (0 = off): a reduced quiet move whose history score (the sum of depth² over
    /// the cut-offs it made in this search) is at least this is reduced a ply less; one that
    /// has made no cut-off yet, a ply more (Rapfi's history term in its reductions).
    pub history_reduction: i32,
    /// Candidate (0 = off): plies more of reduction for the reduced quiet moves of a node that
    /// is expected to fail high (a cut node; Rapfi's reduction for its non-killer moves).
    pub cut_reduction: i32,
    /// Candidate (0 = off): at a node that must answer an open three, plies of reduction for
    /// the later moves that do not stand on one of the opponent's four squares (fours of our
    /// own that leave the three as it is: Rapfi reduces such "useless defences").
    pub defend_reduction: i32,
    /// 1 = on: below the nominal depth, a node that must answer an open three searches the
    /// moves on the opponent's four squares and its own four-threes first, and its other fours
    /// only when all of those have lost (a cheaper quiescence that never claims a loss a four
    /// might escape). On since the SPRT of 2026-12-04 (see the README).
    pub quiescence_direct: i32,
    /// 1 = on: reverse futility, futility pruning and razoring use the table's score instead
    /// of the static evaluation where the entry's bound says the true value lies beyond the
    /// evaluation on that side. On since the SPRT of 2026-12-05 (see the README).
    pub tt_eval: i32,
    /// Candidate (0 = off, 1 = on): a leaf below the nominal depth searches only its own
    /// four-threes before trusting the evaluation, not its double threes (Rapfi's leaves
    /// search fours only).
    pub leaf_fours_only: i32,
    /// Candidate (0 = off): in this many plies from the nominal depth down, a leaf searches
    /// its plain fours too (after its double threats), not only its four-threes and double
    /// threes (the start of a VCF; Rapfi's leaves search every four).
    pub leaf_fours: i32,
    /// Candidate (0 = off, 1 = on): a quiet move that makes an open three is never pruned by
    /// move count or futility (it is still reduced).
    pub keep_threes: i32,
    /// Candidate (0 = off): hundredths of the opponent's pattern value at a square added to the
    /// move's ordering score, which counts the side to move's own value twice and the
    /// opponent's once (100: both count twice; taking the opponent's best squares comes
    /// earlier).
    pub order_defence: i32,
    /// 1 = on (the default since its SPRT, in a package of six), 0 = off: a node whose side to
    /// move can make a four-three whose forced block makes no four for the opponent, or a
    /// double three while the opponent cannot make any four, is a win in five plies, without a
    /// search (Rapfi's quick win check; not for a side with forbidden moves; see
    /// `search::quick_win`).
    pub quick_win: i32,
    /// Candidate (0 = off): a leaf whose evaluation is below beta looks for a VCF of the side
    /// to move (the VCF solver, at most this many nodes) before trusting the evaluation, and
    /// scores a win when it finds one (Rapfi's leaves search the side to move's fours).
    pub leaf_vcf: i32,
    /// Candidate (0 = off, 1 = on; with `leaf_vcf` on): below the nominal depth, a node that
    /// must answer an open three asks the VCF solver too before it searches its defences (a
    /// VCF wins whatever the opponent's three threatens).
    pub leaf_vcf_defend: i32,
    /// Candidate (0 = off): hundredths of a ply that a forced block of a four gains, on top of
    /// costing no depth; the gains add up along the path and become a ply of extension at each
    /// 100 (Rapfi extends such a block by 1.3 plies, so a four and its block cost 0.7).
    pub block_gain: i32,
    /// Candidate (0 = off): plies of reduction taken off a late quiet move that makes an open
    /// three when the side's previous move made an open three or a four (Rapfi reduces a
    /// continued attack about half a ply less).
    pub attack_continuation: i32,
    /// Candidate (0 = off): at a node with fewer plies to go than this, PV nodes included, a
    /// quiet move that makes nothing of note for either side (not even a two) is not searched
    /// (Rapfi skips such "trivial" moves below 4.3 of its plies).
    pub trivial_depth: i32,
    /// 1 = on (the default since its SPRT, in a package of six), 0 = off: move-count pruning
    /// applies at PV nodes too (Rapfi prunes by move count at every node but the root).
    pub lmp_pv: i32,
    /// Candidate (0 = off, in hundredths of a ply): reverse futility pruning counts this much
    /// less depth in its margin when the static evaluation rose since two plies up (Stockfish
    /// and Rapfi take a ply off).
    pub rfp_improving: i32,
    /// Candidate (0 = off, a percentage of the planned time, or of the turn when there is no
    /// plan): with a time limit, the move the search chose is checked by a search of the
    /// position after it, the opponent to move, in this share of the time; when the opponent
    /// then wins, the move is dropped and the others searched again (a few times at most).
    pub verify_share: i32,
    /// Candidate (0 = off, a percentage of the planned time): from depth 6 on, each new best
    /// move of the root is checked once by the VCT solver from the opponent's side, in about
    /// one node per microsecond of this share (20,000 nodes per percent without a time limit);
    /// a move after which it proves a win is dropped from the root and the deepening goes on
    /// with the others (three moves at most).
    pub verify_vct: i32,
    /// Hundredths (60 since its SPRT, in a package of six; 0: the fixed one or two plies): a
    /// reduced quiet move is reduced by this share of ln(depth)·ln(move number) plies, in
    /// fractions of a ply (Rapfi's freestyle reduction is 100; the reduced search keeps at
    /// least one ply).
    pub lmr_fraction: i32,
    /// Candidate (0 = off): at a PV node the hash move, when not singular-extended, is searched
    /// this many hundredths of a ply deeper (Rapfi: 25 at PV nodes).
    pub hash_extension: i32,
    /// Candidate (0 = off): at a PV node a reduced quiet move is reduced this many hundredths
    /// of a ply less (Rapfi takes off the node's window over the root's, about a ply).
    pub lmr_pv_less: i32,
    /// Candidate (0 = off): at a non-PV node whose static evaluation did not rise since two
    /// plies up, a quiet move reduced by more than a ply is reduced this many hundredths of a
    /// ply more (Rapfi: a ply).
    pub lmr_not_improving: i32,
    /// Candidate (0 = off): at a non-PV node this many plies deep or deeper, without a four or
    /// an open three of the opponent, whose static evaluation is at least
    /// [`Params::null_move_margin`] above beta, the side to move passes and the opponent's
    /// reply is searched 3.67 + 0.135·depth plies shallower with the window at beta; when the
    /// pass still fails high the node does too (null-move pruning; Rapfi applies it from about
    /// 10 of its plies, with a margin of about 300 of its units, some 1,200 of wuzi's).
    pub null_move_depth: i32,
    /// The static evaluation's lead over beta that null-move pruning asks for.
    pub null_move_margin: i32,
    /// The percentage of the planned time (with a match clock an even share of it, see
    /// `time::TimeControl::budget`) after which no new iteration starts while the best move
    /// and the score are steady; a change of the best move or a falling score adds to it, and
    /// it stays between 50 and 200.
    pub time_percent: i32,
    /// With a match clock, the number of own moves its time is shared over: the planned time is
    /// what is left, with the increments of these moves, divided by it (see
    /// `time::TimeControl::budget`; the hard limit is still at most a quarter of what is left).
    pub moves_to_go: i32,
    /// 1 (the default): a table entry deep enough cuts any node its bound allows; 0: only a
    /// non-PV node (Stockfish and Rapfi search PV nodes on, which keeps the line whole and
    /// the root's score from resting on an entry of another path).
    pub tt_cut_pv: i32,
    /// Candidate (0 = off): a table cut-off teaches the move ordering too. Where the opponent
    /// has no four and the entry's move makes less than an open three, a cut-off at or above
    /// beta counts as that move's cut-off (killer and history), one at or below alpha takes
    /// the same history bonus off it (Rapfi's update of the table move's statistics).
    pub tt_move_stats: i32,
    /// Hundredths of a ply (100 by default, 0 = off): at a node on a principal variation now
    /// or when its table entry was stored, a reduced quiet move is reduced this much less
    /// (Rapfi: 97, which it credits with about 10 Elo). On since the SPRT of 2026-12-07 (see
    /// the README).
    pub lmr_tt_pv_less: i32,
    /// Candidate (0 = off): the table's ttPv flag is refined when a node stores its result
    /// above depth 3 (Stockfish and Rapfi): a node that failed low under a ttPv parent is
    /// marked (the parent's last move was probably good), one that failed high keeps its mark
    /// only if the child that refuted it was marked too.
    pub tt_pv_refine: i32,
    /// Candidate (0 = off): history scores stay within ± this, each update moving a score by
    /// its bonus less the score times the bonus over this (Stockfish's and Rapfi's "gravity"),
    /// and the ordering bonus is the score's share of it times `history_max_bonus`.
    pub history_gravity: i32,
    /// Candidate (0 = off): at a non-PV node that was on a principal variation (its table
    /// entry's ttPv flag), the singular test's margin is this much more per ply of depth and
    /// its search a ply deeper (Rapfi's `formerPv`: a margin wider by about 4 of wuzi's units
    /// per ply and a test reduced a ply less, so such a hash move is extended less often).
    pub singular_former_pv: i32,
    /// Move-count pruning keeps this many hundredths of its number of quiet moves
    /// (3 + depth^1.32) at every node it applies to, before `lmp_not_improving` (100 by
    /// default; Stockfish and Rapfi keep about twice as many at an improving node).
    pub lmp_percent: i32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            rfp_depth: 12,
            rfp_margin: 250,
            futility_depth: 2,
            futility_margin: 300,
            lmr_first_move: 3,
            killer_first: 3_000,
            killer_second: 2_500,
            history_scale: 32,
            history_max_bonus: 2_000,
            aspiration_depth: 4,
            aspiration_delta: 60,
            alpha_raise_max_depth: 0,
            pv_tt_reduction: 0,
            lmr_log: 0,
            iir_depth: 4,
            history_malus: 0,
            countermove_bonus: 0,
            policy_reduction: 0,
            lmp_not_improving: 0,
            quiescence_plies: 4,
            singular_depth: 6,
            singular_margin: 8,
            singular_multicut: 1,
            singular_negative: 0,
            fail_high_margin: 0,
            singular_double: 0,
            lmr_deeper: 150,
            razor_margin: 0,
            history_reduction: 0,
            cut_reduction: 0,
            defend_reduction: 0,
            quiescence_direct: 1,
            tt_eval: 1,
            leaf_fours_only: 0,
            leaf_fours: 0,
            keep_threes: 0,
            order_defence: 0,
            quick_win: 1,
            leaf_vcf: 0,
            leaf_vcf_defend: 0,
            block_gain: 0,
            attack_continuation: 0,
            trivial_depth: 0,
            lmp_pv: 1,
            rfp_improving: 0,
            verify_share: 0,
            verify_vct: 0,
            lmr_fraction: 60,
            hash_extension: 0,
            lmr_pv_less: 0,
            lmr_not_improving: 0,
            null_move_depth: 0,
            null_move_margin: 1_200,
            time_percent: 60,
            moves_to_go: crate::time::MOVES_TO_GO as i32,
            tt_cut_pv: 1,
            tt_move_stats: 0,
            lmr_tt_pv_less: 100,
            tt_pv_refine: 0,
            history_gravity: 0,
            singular_former_pv: 0,
            lmp_percent: 100,
        }
    }
}

/// One tunable parameter: its name, the range it may take, and the step a tuner perturbs it
/// by at first (about a tenth of its useful range).
pub struct Spec {
    /// Name (`INFO param_<name>`).
    pub name: &'static str,
    /// Smallest value accepted.
    pub min: i32,
    /// Largest value accepted.
    pub max: i32,
    /// Initial perturbation for a tuner.
    pub step: i32,
    get: fn(&Params) -> i32,
    set: fn(&mut Params, i32),
}

macro_rules! spec {
    ($field:ident, $min:expr, $max:expr, $step:expr) => {
        Spec {
            name: stringify!($field),
            min: $min,
            max: $max,
            step: $step,
            get: |p| p.$field,
            set: |p, v| p.$field = v,
        }
    };
}

/// Every tunable parameter, in a fixed order.
pub const SPECS: &[Spec] = &[
    spec!(rfp_depth, 0, 12, 1),
    spec!(rfp_margin, 0, 2_000, 40),
    spec!(futility_depth, 0, 8, 1),
    spec!(futility_margin, 0, 2_000, 40),
    spec!(lmr_first_move, 1, 20, 1),
    spec!(killer_first, 0, 20_000, 400),
    spec!(killer_second, 0, 20_000, 400),
    spec!(history_scale, 1, 1_024, 6),
    spec!(history_max_bonus, 0, 20_000, 400),
    spec!(aspiration_depth, 1, 20, 1),
    spec!(aspiration_delta, 1, 1_000, 10),
    spec!(alpha_raise_max_depth, 0, 30, 1),
    spec!(pv_tt_reduction, 0, 100, 5),
    spec!(lmr_log, 0, 300, 10),
    spec!(iir_depth, 0, 20, 1),
    spec!(history_malus, 0, 200, 10),
    spec!(countermove_bonus, 0, 20_000, 400),
    spec!(policy_reduction, 0, 600, 30),
    spec!(lmp_not_improving, 0, 100, 10),
    spec!(quiescence_plies, 0, 12, 1),
    spec!(singular_depth, 0, 30, 1),
    spec!(singular_margin, 0, 1_000, 4),
    spec!(singular_multicut, 0, 1, 1),
    spec!(singular_negative, 0, 1, 1),
    spec!(fail_high_margin, 0, 2_000, 20),
    spec!(singular_double, 0, 2_000, 20),
    spec!(lmr_deeper, 0, 2_000, 20),
    spec!(razor_margin, 0, 2_000, 20),
    spec!(history_reduction, 0, 1 << 20, 128),
    spec!(cut_reduction, 0, 3, 1),
    spec!(defend_reduction, 0, 3, 1),
    spec!(quiescence_direct, 0, 1, 1),
    spec!(tt_eval, 0, 1, 1),
    spec!(leaf_fours_only, 0, 1, 1),
    spec!(leaf_fours, 0, 4, 1),
    spec!(keep_threes, 0, 1, 1),
    spec!(order_defence, 0, 400, 25),
    spec!(quick_win, 0, 1, 1),
    spec!(leaf_vcf, 0, 10_000, 20),
    spec!(leaf_vcf_defend, 0, 1, 1),
    spec!(block_gain, 0, 100, 10),
    spec!(attack_continuation, 0, 2, 1),
    spec!(trivial_depth, 0, 12, 1),
    spec!(lmp_pv, 0, 1, 1),
    spec!(rfp_improving, 0, 200, 25),
    spec!(verify_share, 0, 50, 5),
    spec!(verify_vct, 0, 50, 5),
    spec!(lmr_fraction, 0, 300, 10),
    spec!(hash_extension, 0, 100, 5),
    spec!(lmr_pv_less, 0, 200, 10),
    spec!(lmr_not_improving, 0, 200, 10),
    spec!(null_move_depth, 0, 30, 1),
    spec!(null_move_margin, 0, 4_000, 40),
    spec!(time_percent, 50, 200, 10),
    spec!(moves_to_go, 4, 40, 2),
    spec!(tt_cut_pv, 0, 1, 1),
    spec!(tt_move_stats, 0, 1, 1),
    spec!(lmr_tt_pv_less, 0, 200, 10),
    spec!(tt_pv_refine, 0, 1, 1),
    spec!(history_gravity, 0, 1 << 20, 1_024),
    spec!(singular_former_pv, 0, 64, 2),
    spec!(lmp_percent, 25, 400, 10),
];

impl Params {
    /// The value of parameter `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<i32> {
        SPECS.iter().find(|s| s.name == name).map(|s| (s.get)(self))
    }

    /// Sets parameter `name`; an unknown name or a value outside its range is refused and
    /// leaves every parameter as it was.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), String> {
        let spec = SPECS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("no search parameter `{name}` (see `pbrain-wuzi params`)"))?;
        if value < i64::from(spec.min) || value > i64::from(spec.max) {
            return Err(format!(
                "{name} {value} is outside {}..={}",
                spec.min, spec.max
            ));
        }
        (spec.set)(self, value as i32);
        Ok(())
    }

    /// The parameters that differ from the defaults, as `name=value` words.
    pub fn changed(&self) -> Vec<String> {
        let base = Params::default();
        SPECS
            .iter()
            .filter(|s| (s.get)(self) != (s.get)(&base))
            .map(|s| format!("{}={}", s.name, (s.get)(self)))
            .collect()
    }
}

/// `pbrain-wuzi params`: one line per parameter, `name default min max step`.
pub fn table() -> String {
    let base = Params::default();
    let mut out = String::from("# name default min max step\n");
    for s in SPECS {
        out += &format!(
            "{} {} {} {} {}\n",
            s.name,
            (s.get)(&base),
            s.min,
            s.max,
            s.step
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_round_trips_and_its_default_is_in_range() {
        let base = Params::default();
        for s in SPECS {
            let v = base.get(s.name).unwrap();
            assert!(s.min <= v && v <= s.max, "{}", s.name);
            assert!(s.step > 0, "{}", s.name);
            let mut p = base;
            let other = if v < s.max { v + 1 } else { v - 1 };
            p.set(s.name, i64::from(other)).unwrap();
            assert_eq!(p.get(s.name), Some(other));
            assert_eq!(p.changed(), vec![format!("{}={other}", s.name)]);
        }
        let names: std::collections::BTreeSet<_> = SPECS.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), SPECS.len());
    }

    #[test]
    fn unknown_names_and_values_out_of_range_change_nothing() {
        let mut p = Params::default();
        assert!(p.set("no_such_thing", 1).is_err());
        assert!(p.set("rfp_margin", -1).is_err());
        assert!(p.set("rfp_margin", 2_001).is_err());
        assert!(p.set("rfp_margin", i64::MAX).is_err());
        assert_eq!(p, Params::default());
        assert_eq!(table().lines().count(), SPECS.len() + 1);
        assert!(table().contains("\nrfp_margin 250 0 2000 40\n"));
    }
}
