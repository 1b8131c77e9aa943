//! Match statistics: Elo with its 95% interval, likelihood of superiority, pentanomial counts
//! of game pairs, and the sequential probability ratio test (SPRT).
//!
//! Conventions (the ones cutechess-cli, fastchess and fishtest use):
//! - Elo is the logistic Elo of the score `s`: `-400·log10(1/s − 1)` (60% → +70.4).
//! - The 95% interval comes from the trinomial model: the per-game score variance
//!   `σ² = (W(1−s)² + D(½−s)² + L s²)/N`, the score interval `s ± 1.96·σ/√N`, mapped to Elo.
//! - LOS (likelihood of superiority) = `½·(1 + erf((W − L)/√(2(W + L))))`; draws carry no
//!   information about which engine is stronger.
//! - SPRT: the generalized SPRT with the normal approximation of fishtest (`LLR_alt`):
//!   `LLR = N·(s1 − s0)·(2μ − s0 − s1) / (2σ²)`, where `s0`, `s1` are the scores of the two
//!   logistic-Elo hypotheses and `μ`, `σ²` the mean and variance of the observed outcomes. With
//!   game pairs (each opening played with both colours) the outcomes are the pentanomial pair
//!   scores (0, ¼, ½, ¾, 1) and `N` is the number of complete pairs, which accounts for the
//!   correlation between the two games of an opening; otherwise they are the trinomial game
//!   scores. Bounds: accept H1 at `ln((1−β)/α)`, accept H0 at `ln(β/(1−α))`. Every class gets
//!   a pseudo-count of [`REGULARIZATION`] before the mean and variance are taken, so a run of
//!   identical results does not give a zero variance. Fishtest adds 1/1000, but it looks at the
//!   LLR after hundreds of games; the arena looks after every pair, and with 1/1000 ten split
//!   pairs in a row (black won both games, as happens in 0.5 % of runs between engines that
//!   split 59 % of their pairs) gave an LLR of −16.6 and a verdict after 20 games. With 1/10
//!   that run stays at −0.2, and a thousand pairs barely notice the prior. The approximation
//!   is meaningless on a handful of games in any case, so no verdict is drawn before
//!   [`SPRT_MIN_GAMES`] games.

/// Standard normal quantile for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;
/// Games a match plays before an SPRT verdict can stop it.
pub const SPRT_MIN_GAMES: usize = 20;
/// Pseudo-count added to each outcome class before the SPRT's mean and variance are taken
/// (see the module notes for why a tenth and not fishtest's thousandth).
pub const REGULARIZATION: f64 = 0.1;

/// Expected score of a player `elo` points stronger (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Logistic Elo difference of a score in (0, 1); infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The error function, by the Abramowitz–Stegun formula 7.1.26 (absolute error < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Wins, losses and draws of one engine against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wld {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

impl Wld {
    /// Number of games.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Score fraction (wins + draws/2) / games, or 0.5 with no game.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
        }
    }

    /// Elo with the half-width of its 95% interval (trinomial model); `None` with no game. The
    /// Elo is infinite when one side scored everything, and the half-width is then infinite.
    pub fn elo(&self) -> Option<(f64, f64)> {
        let n = self.games() as f64;
        if n == 0.0 {
            return None;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let half = Z95 * (var / n).sqrt();
        let elo = elo_from_score(s);
        let lo = elo_from_score(s - half);
        let hi = elo_from_score(s + half);
        let margin = if elo.is_finite() {
            (hi - lo) / 2.0
        } else {
            f64::INFINITY
        };
        Some((elo, margin))
    }

    /// Likelihood of superiority in [0, 1]; 0.5 with no decisive game.
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }

    /// The same games seen from the other engine.
    pub fn flipped(&self) -> Wld {
        Wld {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
        }
    }
}

/// Counts of game pairs (the same opening played with both colours) by the pair's total score
/// in half points for the first engine: index 0 = lost both (0), 1 = ½, 2 = 1 (draw-draw or
/// win-loss), 3 = 1½, 4 = won both (2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Records a pair whose two game scores for the first engine are `a` and `b` (each 0, 0.5
    /// or 1).
    pub fn add(&mut self, a: f64, b: f64) {
        let index = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[index] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// Keep playing.
    Continue,
    /// H0 (the Elo difference is `elo0`) accepted.
    AcceptH0,
    /// H1 (the Elo difference is `elo1`) accepted.
    AcceptH1,
}

/// Parameters of a sequential probability ratio test between logistic Elo `elo0` (H0) and
/// `elo1` (H1), with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    pub beta: f64,
}

impl Sprt {
    /// Parses `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("--sprt: expected elo0,elo1[,alpha,beta], got `{text}`"))?;
        let (elo0, elo1, alpha, beta) = match parts.as_slice() {
            [a, b] => (*a, *b, 0.05, 0.05),
            [a, b, c, d] => (*a, *b, *c, *d),
            _ => return Err(format!("--sprt: expected 2 or 4 numbers, got `{text}`")),
        };
        if elo0.is_nan() || elo1.is_nan() || elo0 >= elo1 {
            return Err(format!("--sprt: elo0 must be below elo1, got `{text}`"));
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(format!(
                "--sprt: alpha and beta must lie in (0, 0.5), got `{text}`"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// (lower, upper) LLR bounds: H0 is accepted at or below the lower, H1 at or above the upper.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }

    /// LLR from game results (trinomial model).
    pub fn llr_trinomial(&self, wld: &Wld) -> f64 {
        self.llr(&[
            (0.0, wld.losses as f64),
            (0.5, wld.draws as f64),
            (1.0, wld.wins as f64),
        ])
    }

    /// LLR from game-pair results (pentanomial model); pair scores are scaled to [0, 1].
    pub fn llr_pentanomial(&self, penta: &Pentanomial) -> f64 {
        let c = penta.0;
        self.llr(&[
            (0.0, c[0] as f64),
            (0.25, c[1] as f64),
            (0.5, c[2] as f64),
            (0.75, c[3] as f64),
            (1.0, c[4] as f64),
        ])
    }

    /// GSPRT (normal approximation) on outcome classes given as (score, count).
    fn llr(&self, classes: &[(f64, f64)]) -> f64 {
        let real: f64 = classes.iter().map(|&(_, n)| n).sum();
        if real == 0.0 {
            return 0.0;
        }
        let n: f64 = classes.iter().map(|&(_, c)| c + REGULARIZATION).sum();
        let mu = classes
            .iter()
            .map(|&(x, c)| x * (c + REGULARIZATION))
            .sum::<f64>()
            / n;
        let var = classes
            .iter()
            .map(|&(x, c)| (x - mu).powi(2) * (c + REGULARIZATION))
            .sum::<f64>()
            / n;
        if var <= 0.0 {
            return 0.0;
        }
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        real * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }
}

/// Formats an Elo value with its sign (`+70.4`, `-12.0`, `+inf`).
pub fn fmt_elo(elo: f64) -> String {
    if elo.is_finite() {
        // No "-0.0" for an even score.
        let elo = if elo.abs() < 0.05 { 0.0 } else { elo };
        format!("{elo:+.1}")
    } else if elo > 0.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// Formats `Elo ± margin` for a result, or `n/a` with no game.
pub fn fmt_elo_interval(wld: &Wld) -> String {
    match wld.elo() {
        None => "Elo n/a".to_string(),
        Some((elo, margin)) if margin.is_finite() => {
            format!("Elo {} ± {:.1}", fmt_elo(elo), margin)
        }
        Some((elo, _)) => format!("Elo {} ± inf", fmt_elo(elo)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.6), 70.437, 1e-3));
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        assert!(close(elo_from_score(0.75), 190.849, 1e-3));
        assert!(close(elo_from_score(0.4), -70.437, 1e-3));
        assert!(close(score_from_elo(70.437), 0.6, 1e-5));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn elo_interval_by_hand() {
        // 60 wins, 40 losses: s = 0.6, σ² = 0.24, half-width 1.96·√(0.0024) = 0.096019.
        let wld = Wld {
            wins: 60,
            losses: 40,
            draws: 0,
        };
        let (elo, margin) = wld.elo().unwrap();
        assert!(close(elo, 70.437, 1e-3));
        let lo = elo_from_score(0.6 - 0.096_019);
        let hi = elo_from_score(0.6 + 0.096_019);
        assert!(close(margin, (hi - lo) / 2.0, 1e-2), "{margin}");
        assert!(close(margin, 70.57, 0.01), "{margin}");
        assert!(Wld::default().elo().is_none());
        let all = Wld {
            wins: 3,
            losses: 0,
            draws: 0,
        };
        assert_eq!(all.elo().unwrap().0, f64::INFINITY);
        assert_eq!(fmt_elo_interval(&all), "Elo +inf ± inf");
    }

    #[test]
    fn los_known_values() {
        let even = Wld {
            wins: 10,
            losses: 10,
            draws: 5,
        };
        assert!(close(even.los(), 0.5, 1e-9));
        // 60-40: erf(20/√200) = erf(1.41421) = 0.954500 → LOS 0.97725.
        let wld = Wld {
            wins: 60,
            losses: 40,
            draws: 7,
        };
        assert!(close(wld.los(), 0.977_25, 1e-5), "{}", wld.los());
        assert!(close(erf(1.0), 0.842_700_79, 2e-7));
        assert!(close(erf(-0.5), -0.520_499_88, 2e-7));
    }

    #[test]
    fn sprt_bounds_and_parse() {
        let sprt = Sprt::parse("0,10").unwrap();
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_439, 1e-6));
        assert!(close(hi, 2.944_439, 1e-6));
        let custom = Sprt::parse("-3, 1, 0.1, 0.2").unwrap();
        assert_eq!(custom.alpha, 0.1);
        assert!(close(custom.bounds().0, (0.2f64 / 0.9).ln(), 1e-12));
        assert!(Sprt::parse("5,0").is_err());
        assert!(Sprt::parse("0").is_err());
        assert!(Sprt::parse("0,5,0.7,0.1").is_err());
        assert!(Sprt::parse("a,b").is_err());
    }

    #[test]
    fn sprt_trinomial_by_hand() {
        // W60 L40 D0, elo0 0, elo1 10: s0 = 0.5, s1 = 0.514387; with the prior's 0.1 in each
        // class μ = 60.15/100.3 = 0.599701, σ² = 0.239810;
        // LLR = 100·0.014387·(2μ − 1.014387)/(2σ²) = 0.55499.
        let sprt = Sprt::parse("0,10").unwrap();
        let s1 = score_from_elo(10.0);
        assert!(close(s1, 0.514_387, 1e-6));
        let r = REGULARIZATION;
        let (l, d, w) = (40.0 + r, r, 60.0 + r);
        let mu = (0.5 * d + w) / (l + d + w);
        let var = (l * mu.powi(2) + d * (0.5 - mu).powi(2) + w * (1.0 - mu).powi(2)) / (l + d + w);
        let hand = 100.0 * (s1 - 0.5) * (2.0 * mu - 0.5 - s1) / (2.0 * var);
        let wld = Wld {
            wins: 60,
            losses: 40,
            draws: 0,
        };
        let llr = sprt.llr_trinomial(&wld);
        assert!(close(llr, hand, 1e-3), "{llr} vs {hand}");
        assert!(close(llr, 0.554_99, 1e-3), "{llr}");
        assert_eq!(sprt.verdict(llr), SprtVerdict::Continue);
        assert_eq!(sprt.llr_trinomial(&Wld::default()), 0.0);
        // A clearly stronger engine is accepted, a clearly weaker one rejected.
        let strong = Wld {
            wins: 700,
            losses: 300,
            draws: 0,
        };
        assert_eq!(
            sprt.verdict(sprt.llr_trinomial(&strong)),
            SprtVerdict::AcceptH1
        );
        assert_eq!(
            sprt.verdict(sprt.llr_trinomial(&strong.flipped())),
            SprtVerdict::AcceptH0
        );
    }

    #[test]
    fn sprt_pentanomial_by_hand() {
        // Pairs: 5×LL… counts [5, 10, 20, 10, 15] → scores 0, .25, .5, .75, 1 over 60 pairs.
        let penta = Pentanomial([5, 10, 20, 10, 15]);
        // Each class carries the prior's pseudo-count; N is the real number of pairs.
        let r = REGULARIZATION;
        let w = 60.0 + 5.0 * r;
        let mu = (0.25 * (10.0 + r) + 0.5 * (20.0 + r) + 0.75 * (10.0 + r) + (15.0 + r)) / w;
        let var = ((5.0 + r) * mu.powi(2)
            + (10.0 + r) * (0.25 - mu).powi(2)
            + (20.0 + r) * (0.5 - mu).powi(2)
            + (10.0 + r) * (0.75 - mu).powi(2)
            + (15.0 + r) * (1.0 - mu).powi(2))
            / w;
        let sprt = Sprt::parse("0,5").unwrap();
        let (s0, s1) = (0.5, score_from_elo(5.0));
        let hand = 60.0 * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var);
        let llr = sprt.llr_pentanomial(&penta);
        assert!(close(llr, hand, 1e-3), "{llr} vs {hand}");
        assert_eq!(penta.pairs(), 60);
        let mut p = Pentanomial::default();
        p.add(1.0, 0.0);
        p.add(0.5, 0.5);
        p.add(1.0, 1.0);
        p.add(0.0, 0.5);
        assert_eq!(p.0, [0, 1, 2, 0, 1]);
    }

    /// Ten split pairs in a row (as in a real run of seed 53) say almost nothing; a hundred
    /// say the engines are alike (H0 of [0, 10]).
    #[test]
    fn a_run_of_split_pairs_is_no_early_verdict() {
        let sprt = Sprt::parse("0,10").unwrap();
        let ten = sprt.llr_pentanomial(&Pentanomial([0, 0, 10, 0, 0]));
        assert!(ten < 0.0 && ten > -0.5, "{ten}");
        assert_eq!(sprt.verdict(ten), SprtVerdict::Continue);
        let hundred = sprt.llr_pentanomial(&Pentanomial([0, 0, 100, 0, 0]));
        assert_eq!(sprt.verdict(hundred), SprtVerdict::AcceptH0, "{hundred}");
        let draws = sprt.llr_trinomial(&Wld {
            wins: 0,
            losses: 0,
            draws: 20,
        });
        assert_eq!(sprt.verdict(draws), SprtVerdict::Continue, "{draws}");
    }
}
