//! Glicko-2, as Mark Glickman's "Example of the Glicko-2 system" (2012)
//! describes it, step by step. Pure arithmetic: the store decides what a
//! rating period is (one game; see `spec/STORE.md`).

use std::f64::consts::PI;

/// Glicko-2's scale factor between the Glicko scale (1500, 350) and its own (0, 2.01).
const SCALE: f64 = 173.7178;
/// The convergence tolerance of step 5 (the paper's epsilon).
const EPSILON: f64 = 0.000_001;
/// A deviation above this marks a rating provisional (too few recent games to trust).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A player's rating on the Glicko scale.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Rating {
    pub rating: f64,
    /// The rating deviation (RD): how uncertain the rating is.
    pub deviation: f64,
    /// How erratic the player's results are.
    pub volatility: f64,
}

impl Rating {
    /// An unrated player's rating (the paper's suggestion).
    pub const NEW: Rating = Rating {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
    };

    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }
}

/// One game's result for the player being rated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    Win,
    Draw,
    Loss,
}

impl Score {
    fn value(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Draw => 0.5,
            Score::Loss => 0.0,
        }
    }
}

/// The system: its constant tau constrains how fast volatility changes.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Glicko2 {
    pub tau: f64,
}

impl Default for Glicko2 {
    /// tau 0.5, the paper's example's, in its advised range 0.3 to 1.2.
    fn default() -> Glicko2 {
        Glicko2 { tau: 0.5 }
    }
}

/// A rating on Glicko-2's own scale.
struct Scaled {
    mu: f64,
    phi: f64,
}

fn scaled(r: &Rating) -> Scaled {
    Scaled {
        mu: (r.rating - 1500.0) / SCALE,
        phi: r.deviation / SCALE,
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

fn expected(mu: f64, opponent: &Scaled) -> f64 {
    1.0 / (1.0 + (-g(opponent.phi) * (mu - opponent.mu)).exp())
}

impl Glicko2 {
    /// `player`'s rating after a rating period with these games (steps 1 to 8).
    /// No games: only the deviation grows (step 6 alone).
    pub fn rate(&self, player: Rating, games: &[(Rating, Score)]) -> Rating {
        if games.is_empty() {
            return self.idle(player, 1);
        }
        let me = scaled(&player);
        // Steps 3 and 4: the estimated variance and the improvement.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (opponent, score) in games {
            let o = scaled(opponent);
            let e = expected(me.mu, &o);
            inverse_v += g(o.phi).powi(2) * e * (1.0 - e);
            sum += g(o.phi) * (score.value() - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        let sigma = self.volatility(&me, player.volatility, v, delta);
        // Steps 6 to 8.
        let phi_star = (me.phi.powi(2) + sigma.powi(2)).sqrt();
        let phi = 1.0 / (1.0 / phi_star.powi(2) + 1.0 / v).sqrt();
        let mu = me.mu + phi.powi(2) * sum;
        Rating {
            rating: SCALE * mu + 1500.0,
            deviation: SCALE * phi,
            volatility: sigma,
        }
    }

    /// The rating after `periods` rating periods without a game: the
    /// deviation grows, never past an unrated player's.
    pub fn idle(&self, player: Rating, periods: u32) -> Rating {
        let phi = player.deviation / SCALE;
        let grown = (phi.powi(2) + f64::from(periods) * player.volatility.powi(2)).sqrt();
        Rating {
            deviation: (grown * SCALE).min(Rating::NEW.deviation),
            ..player
        }
    }

    /// Step 5: the new volatility, by the Illinois algorithm.
    fn volatility(&self, me: &Scaled, sigma: f64, v: f64, delta: f64) -> f64 {
        let tau = self.tau;
        let a = (sigma * sigma).ln();
        let phi2 = me.phi * me.phi;
        let f = |x: f64| {
            let ex = x.exp();
            ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex).powi(2))
                - (x - a) / (tau * tau)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi2 + v {
            (delta * delta - phi2 - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * tau) < 0.0 {
                k += 1.0;
            }
            a - k * tau
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        while (big_b - big_a).abs() > EPSILON {
            let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(c);
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = c;
            f_b = f_c;
        }
        (big_a / 2.0).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    fn close(actual: f64, expected: f64, within: f64) {
        assert!(
            (actual - expected).abs() <= within,
            "{actual} is not {expected} (within {within})"
        );
    }

    #[test]
    fn glickmans_worked_example() {
        let player = rating(1500.0, 200.0);
        let games = [
            (rating(1400.0, 30.0), Score::Win),
            (rating(1550.0, 100.0), Score::Loss),
            (rating(1700.0, 300.0), Score::Loss),
        ];
        let after = Glicko2 { tau: 0.5 }.rate(player, &games);
        // The paper rounds its steps to four places (mu' = -0.2069, phi' = 0.8722)
        // before scaling back: exact arithmetic lands within 0.01 of its 1464.06.
        close(after.rating, 1464.06, 0.01);
        close((after.rating - 1500.0) / SCALE, -0.2069, 0.00005);
        close(after.deviation / SCALE, 0.8722, 0.00005);
        close(after.deviation, 151.52, 0.005);
        close(after.volatility, 0.05999, 0.00001);
    }

    #[test]
    fn a_player_who_does_not_play_keeps_the_rating_and_grows_the_deviation() {
        let player = rating(1500.0, 200.0);
        let after = Glicko2::default().rate(player, &[]);
        assert_eq!(after.rating, 1500.0);
        assert_eq!(after.volatility, 0.06);
        // The paper's step 6 alone: sqrt(phi^2 + sigma^2), back on the Glicko scale.
        close(after.deviation, 200.27, 0.01);
    }

    #[test]
    fn deviation_grows_with_idle_periods_and_stops_at_an_unrated_players() {
        let glicko = Glicko2::default();
        let player = rating(1700.0, 50.0);
        let after_10 = glicko.idle(player, 10);
        let after_100 = glicko.idle(player, 100);
        assert!(50.0 < after_10.deviation && after_10.deviation < after_100.deviation);
        close(
            after_100.deviation,
            (50.0f64.powi(2) + 100.0 * (0.06 * SCALE).powi(2)).sqrt(),
            1e-9,
        );
        assert_eq!(glicko.idle(player, 100_000).deviation, 350.0);
        assert_eq!(glicko.idle(player, 0), player);
    }

    #[test]
    fn a_draw_between_equals_changes_no_rating_but_narrows_both() {
        let glicko = Glicko2::default();
        let a = rating(1500.0, 200.0);
        let after = glicko.rate(a, &[(a, Score::Draw)]);
        close(after.rating, 1500.0, 1e-9);
        assert!(after.deviation < 200.0);
    }

    #[test]
    fn a_draw_moves_the_weaker_up_and_the_stronger_down() {
        let glicko = Glicko2::default();
        let (weak, strong) = (rating(1400.0, 100.0), rating(1600.0, 100.0));
        assert!(glicko.rate(weak, &[(strong, Score::Draw)]).rating > 1400.0);
        assert!(glicko.rate(strong, &[(weak, Score::Draw)]).rating < 1600.0);
    }

    #[test]
    fn winning_against_an_equal_gains_what_the_loser_loses() {
        let glicko = Glicko2::default();
        let a = rating(1500.0, 80.0);
        let won = glicko.rate(a, &[(a, Score::Win)]);
        let lost = glicko.rate(a, &[(a, Score::Loss)]);
        assert!(won.rating > 1500.0);
        close(won.rating - 1500.0, 1500.0 - lost.rating, 1e-6);
    }

    #[test]
    fn new_players_are_provisional_until_the_deviation_falls() {
        assert!(Rating::NEW.is_provisional());
        assert!(!rating(1500.0, 100.0).is_provisional());
    }
}
